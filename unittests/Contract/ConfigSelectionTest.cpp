//===- ConfigSelectionTest.cpp - what --config=auto picks -----------------===//
//
// contract::selectConfig against hand-built databases: the entry whose M
// range holds the hint, the largest range without one, the heuristic's
// rules by bucket, its promise that every config it returns verifies for
// the shape and that W keeps one layout per key across M, and a clear
// error where no tile divides N or K.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ConfigSelection.h"
#include "mxgemm/Contract/TuningDatabase.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace mxgemm::contract;
using mxgemm::target::kGFX950;

namespace {
GemmProblem problem(int64_t n, int64_t k) {
  GemmProblem p;
  p.n = n;
  p.k = k;
  return p;
}

TuningEntry entry(std::string name, int64_t n, int64_t k, int64_t mMin,
                  int64_t mMax, KernelConfig config) {
  TuningEntry e;
  e.name = std::move(name);
  e.arch = "gfx950";
  e.problem = problem(n, k);
  e.mMin = mMin;
  e.mMax = mMax;
  e.config = config;
  return e;
}

KernelConfig packedConfig() {
  KernelConfig c;
  c.tileN = 256;
  c.wavesM = 1;
  c.wavesN = 4;
  c.stageX = Staging::LdsAsync;
  c.stageW = Staging::PackedRegisters;
  c.stages = 2;
  c.ldsLayout = LdsLayout::Padded;
  return c;
}

ConfigChoice select(const GemmProblem &p, int64_t m,
                    const TuningDatabase *db = nullptr) {
  ConfigChoice choice;
  ErrorMessage e = selectConfig(p, m, db, kGFX950, choice);
  EXPECT_FALSE(e) << *e;
  return choice;
}
} // namespace

TEST(ConfigSelectionTest, BucketsAreTheDocumentedSet) {
  // Contiguous from 1 to 65536, each starting after the previous one.
  EXPECT_EQ(kMBuckets.front().mMin, 1);
  EXPECT_EQ(kMBuckets.back().mMax, 65536);
  for (size_t i = 1; i < kMBuckets.size(); ++i)
    EXPECT_EQ(kMBuckets[i].mMin, kMBuckets[i - 1].mMax + 1);
  EXPECT_EQ(findMBucket(0), -1);
  EXPECT_EQ(findMBucket(1), 0);
  EXPECT_EQ(findMBucket(16), 0);
  EXPECT_EQ(findMBucket(17), 1);
  EXPECT_EQ(findMBucket(2048), 4);
  EXPECT_EQ(findMBucket(2049), 5);
  EXPECT_EQ(findMBucket(8192), 6);
  EXPECT_EQ(findMBucket(8193), 7);
  EXPECT_EQ(findMBucket(65536), 8);
  EXPECT_EQ(findMBucket(kMaxM), 8);
}

TEST(ConfigSelectionTest, DatabaseEntryWhoseRangeHoldsTheHint) {
  TuningDatabase db;
  KernelConfig small = packedConfig(), large = packedConfig();
  small.tileM = 64;
  db.entries = {entry("large", 4096, 1280, 8193, 16384, large),
                entry("small", 4096, 1280, 1, 8192, small),
                entry("other", 2048, 1280, 1, 16384, KernelConfig())};
  ConfigChoice c = select(problem(4096, 1280), 16384, &db);
  EXPECT_EQ(c.source, ConfigSource::Database);
  EXPECT_EQ(c.sourceLabel(), "database:large");
  EXPECT_EQ(c.config, large);
  EXPECT_EQ(select(problem(4096, 1280), 8192, &db).sourceLabel(),
            "database:small");
  EXPECT_EQ(select(problem(4096, 1280), 1, &db).config, small);
  // No hint: the entry that holds the largest M.
  EXPECT_EQ(select(problem(4096, 1280), 0, &db).sourceLabel(),
            "database:large");
  // Another format is another key.
  GemmProblem e5m2 = problem(4096, 1280);
  e5m2.wType = ElementType::E5M2;
  EXPECT_EQ(select(e5m2, 16384, &db).source, ConfigSource::Heuristic);
}

TEST(ConfigSelectionTest, ScaleLayoutVariantsAreNeverAuto) {
  // A variant repeats its base's range with native X scales, before or
  // after it in the file; auto serves row-major scales, the default.
  KernelConfig base = packedConfig(), variant = packedConfig();
  variant.xScaleLayout = ScaleLayout::Mfma32x32x64;
  for (bool variantFirst : {true, false}) {
    TuningDatabase db;
    db.entries = {entry("base", 4096, 1280, 8193, 16384, base)};
    db.entries.insert(
        variantFirst ? db.entries.begin() : db.entries.end(),
        entry("base_native_xs", 4096, 1280, 8193, 16384, variant));
    EXPECT_EQ(select(problem(4096, 1280), 9000, &db).sourceLabel(),
              "database:base");
    EXPECT_EQ(select(problem(4096, 1280), 0, &db).config, base);
  }
}

TEST(ConfigSelectionTest, HintOutsideTheRangesKeepsTheKeysWeightLayout) {
  TuningDatabase db;
  db.entries = {entry("packed", 4096, 1280, 8193, 16384, packedConfig())};
  KernelConfig pingpong;
  pingpong.tileM = pingpong.tileN = 256;
  pingpong.tileK = 64;
  pingpong.wavesM = 4;
  pingpong.wavesN = 2;
  pingpong.stageX = pingpong.stageW = Staging::LdsAsync;
  pingpong.stages = 3;
  pingpong.ldsLayout = LdsLayout::Xor;
  pingpong.schedule = Schedule::PingPong;
  db.entries.push_back(entry("rows", 4096, 2048, 8193, 16384, pingpong));
  for (int64_t m : {1, 16, 17, 64, 65, 256, 257, 1024, 4096, 8192, 20000}) {
    ConfigChoice packed = select(problem(4096, 1280), m, &db);
    EXPECT_EQ(packed.source, ConfigSource::Heuristic) << m;
    EXPECT_TRUE(packed.config.readsWeightPanels()) << m;
    ConfigChoice rows = select(problem(4096, 2048), m, &db);
    EXPECT_FALSE(rows.config.readsWeightPanels()) << m;
  }
  EXPECT_EQ(select(problem(4096, 2048), 2000, &db).sourceLabel(),
            "heuristic:pingpong");
  EXPECT_EQ(select(problem(4096, 2048), 100, &db).sourceLabel(),
            "heuristic:staged");
}

// The ping-pong rule gives Q3 (256x256x64, 3 stages) from M = 1025 and the
// two-slot kernel (256x256x128, 2 stages) above M = 8192 where K divides
// into 128-deep tiles (docs/Compiler.md).
TEST(ConfigSelectionTest, PingPongTakesTwoSlotsAboveM8192) {
  TuningDatabase db;
  KernelConfig rowMajor;
  rowMajor.stageX = rowMajor.stageW = Staging::LdsAsync;
  rowMajor.stages = 2;
  for (int64_t k : {2048, 2112})
    db.entries.push_back(
        entry("rows" + std::to_string(k), 4096, k, 1, 64, rowMajor));
  auto shape = [&](int64_t k, int64_t m) {
    ConfigChoice c = select(problem(4096, k), m, &db);
    EXPECT_EQ(c.sourceLabel(), "heuristic:pingpong") << k << " M " << m;
    return std::to_string(c.config.tileK) + "/" +
           std::to_string(c.config.stages);
  };
  EXPECT_EQ(shape(2048, 1025), "64/3");
  EXPECT_EQ(shape(2048, 8192), "64/3");
  EXPECT_EQ(shape(2048, 8193), "128/2");
  EXPECT_EQ(shape(2048, 65536), "128/2");
  EXPECT_EQ(shape(2112, 16384), "64/3"); // 2112 = 16 * 128 + 64
}

TEST(ConfigSelectionTest, HeuristicTilesFollowTheBucket) {
  auto tile = [](int64_t n, int64_t k, int64_t m) {
    KernelConfig c = select(problem(n, k), m).config;
    return std::to_string(c.tileM) + "x" + std::to_string(c.tileN);
  };
  // docs/Compiler.md: 32 x 128 up to M = 1024, 64 x 256 up to 4096, then
  // 128 x 256; grown once past 4 workgroups per CU (1024 on gfx950).
  // Up to M = 64 the decode rules (DecodeRulesUpToM64).
  EXPECT_EQ(tile(7168, 2112, 4), "32x64");
  EXPECT_EQ(tile(7168, 2112, 64), "32x64");
  EXPECT_EQ(tile(7168, 2112, 65), "32x128");
  EXPECT_EQ(tile(7168, 2112, 1024), "64x256"); // 32 x 56 = 1792 > 1024
  EXPECT_EQ(tile(4096, 2112, 1024), "32x128"); // 32 x 32 = 1024
  EXPECT_EQ(tile(4096, 2112, 1025), "64x256");
  EXPECT_EQ(tile(16384, 2112, 512), "64x256");   // 16 x 128 = 2048: grown
  EXPECT_EQ(tile(16384, 2112, 4096), "128x256"); // 64 x 64 = 4096: grown
  EXPECT_EQ(tile(1792, 2112, 4096), "64x256");   // 64 x 7 = 448
  EXPECT_EQ(tile(1792, 2112, 4097), "128x256");
  EXPECT_EQ(tile(2304, 2112, 2048), "64x256"); // 2304 = 9 x 256
  EXPECT_EQ(tile(2176, 2112, 2048), "64x128"); // 2176 = 17 x 128
  ConfigChoice large = select(problem(7168, 2112), 16384);
  EXPECT_EQ(large.sourceLabel(), "heuristic:packed");
  EXPECT_EQ(large.config.tileN, 256);
  EXPECT_EQ(large.config.tileK, 64); // 2112 = 33 * 64
  EXPECT_TRUE(large.config.readsWeightPanels());
  ConfigChoice narrow = select(problem(96, 7168), 20000);
  EXPECT_EQ(narrow.sourceLabel(), "heuristic:staged");
  EXPECT_EQ(narrow.config.tileN, 32);
  EXPECT_FALSE(narrow.config.readsWeightPanels());
}

TEST(ConfigSelectionTest, EveryChoiceVerifiesAndKeepsOneLayoutPerKey) {
  TuningDatabase none;
  for (int64_t n = 32; n <= 1536; n += 32)
    for (int64_t k : {64, 128, 192, 320, 1280, 2112, 7168}) {
      GemmProblem p = problem(n, k);
      std::optional<bool> packed;
      for (const MBucket &b : kMBuckets)
        for (int64_t m : {b.mMin, b.mMax}) {
          ConfigChoice c;
          ASSERT_FALSE(selectConfig(p, m, &none, kGFX950, c))
              << n << "x" << k << " M " << m;
          EXPECT_FALSE(verifyConfig(c.config, kGFX950))
              << n << "x" << k << " M " << m << ": "
              << formatConfigBody(c.config);
          EXPECT_FALSE(verifyProblemConfig(p, c.config));
          if (!packed)
            packed = c.config.readsWeightPanels();
          EXPECT_EQ(*packed, c.config.readsWeightPanels())
              << n << "x" << k << " M " << m;
        }
    }
}

TEST(ConfigSelectionTest, ShapesNoTileDividesGetTheNaiveKernelWithEdges) {
  // N = 1000 and K = 992 (31 MX blocks): no tile divides them, so the naive
  // kernel with 128-wide tiles, which masks the last tile column and the K
  // tail; N = 100 and K = 96 likewise.
  // (M 65 and up: below, the decode rule, which masks edges too.)
  for (auto [n, k] :
       {std::pair<int64_t, int64_t>{1000, 992}, {100, 256}, {128, 96}}) {
    ConfigChoice c;
    ASSERT_FALSE(selectConfig(problem(n, k), 100, nullptr, kGFX950, c))
        << n << "x" << k;
    EXPECT_EQ(c.name, "naive-size");
    EXPECT_EQ(c.config.stageX, Staging::Direct);
    EXPECT_EQ(c.config.stageW, Staging::Direct);
    EXPECT_FALSE(verifyProblemConfig(problem(n, k), c.config));
  }
  ConfigChoice c;
  ASSERT_FALSE(selectConfig(problem(1000, 992), 100, nullptr, kGFX950, c));
  EXPECT_EQ(c.config.tileN, 128);
  EXPECT_EQ(c.config.tileK, 128);
}

TEST(ConfigSelectionTest, DecodeRulesUpToM64) {
  auto body = [](int64_t n, int64_t k, int64_t m) {
    ConfigChoice c = select(problem(n, k), m);
    return c.sourceLabel() + ": " + formatConfigBody(c.config);
  };
  // Row-major W (N not a multiple of 128 or K not of 64), any N and K:
  // 16x16x128 direct loads, tile_m 16 up to M = 16 and 64 above.
  EXPECT_EQ(body(1000, 992, 1),
            "heuristic:decode: tile_m = 16, tile_n = 64, tile_k = 256, "
            "waves_m = 1, waves_n = 4, mfma = m16n16k128");
  EXPECT_EQ(body(96, 7168, 17),
            "heuristic:decode: tile_m = 64, tile_n = 64, tile_k = 256, "
            "waves_m = 2, waves_n = 2, mfma = m16n16k128");
  EXPECT_EQ(body(100, 96, 64),
            "heuristic:decode: tile_m = 64, tile_n = 64, tile_k = 128, "
            "waves_m = 2, waves_n = 2, mfma = m16n16k128");
  EXPECT_NE(body(1000, 1152, 16).find("tile_k = 128"), std::string::npos)
      << "128 divides K = 1152: no masked K tail";
  // W in MFMA panels: 32 x 64 tiles, X direct, the largest K tile <= 512.
  EXPECT_EQ(body(7168, 2112, 4),
            "heuristic:packed-decode: tile_m = 32, tile_n = 64, tile_k = 64, "
            "waves_m = 1, waves_n = 2, mfma = m32n32k64, "
            "stage_w = packed_registers");
  EXPECT_EQ(select(problem(4096, 5120), 64).config.tileK, 512);
  // From M = 65 the tiled rules.
  EXPECT_EQ(select(problem(1000, 992), 65).name, "naive-size");
  EXPECT_EQ(select(problem(7168, 2112), 65).name, "packed");
  // No hint: sized for M = 16384, not decode.
  EXPECT_EQ(select(problem(7168, 2112), 0).name, "packed");
}

TEST(ConfigSelectionTest, BadInputIsAMessage) {
  ConfigChoice c;
  ErrorMessage e = selectConfig(problem(128, 100), 0, nullptr, kGFX950, c);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("multiple of 32"), std::string::npos);
  EXPECT_TRUE(selectConfig(problem(0, 128), 0, nullptr, kGFX950, c));
  EXPECT_TRUE(selectConfig(problem(-128, 128), 0, nullptr, kGFX950, c));
  EXPECT_TRUE(
      selectConfig(problem(int64_t(1) << 40, 128), 0, nullptr, kGFX950, c));
  e = selectConfig(problem(128, 128), -1, nullptr, kGFX950, c);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("M hint"), std::string::npos);
  EXPECT_TRUE(selectConfig(problem(128, 128), kMaxM + 1, nullptr, kGFX950, c));
  EXPECT_FALSE(selectConfig(problem(128, 128), kMaxM, nullptr, kGFX950, c));
}

TEST(ConfigSelectionTest, DeterministicAndFast) {
  // A database of the size tuning/gfx950.json will reach with an entry per
  // family and bucket (7 x 8), none matching: the worst case scans them all.
  TuningDatabase db;
  for (int i = 0; i < 56; ++i)
    db.entries.push_back(entry("e" + std::to_string(i), 256 * (i + 1), 1280, 1,
                               16384, packedConfig()));
  ConfigChoice first = select(problem(7168, 2112), 4, &db);
  const int calls = 2000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    ConfigChoice again = select(problem(7168, 2112), 4, &db);
    ASSERT_EQ(again.config, first.config);
    ASSERT_EQ(again.sourceLabel(), first.sourceLabel());
  }
  double usPerCall = std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start)
                         .count() /
                     calls;
  // The issue asks for < 1 ms; a call takes microseconds.
  EXPECT_LT(usPerCall, 1000.0);
  RecordProperty("microseconds_per_selection", std::to_string(usPerCall));
}
