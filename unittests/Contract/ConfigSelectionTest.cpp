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
  EXPECT_EQ(select(problem(4096, 1280), 4, &db).sourceLabel(),
            "heuristic:packed-decode");
  EXPECT_EQ(select(problem(4096, 1280), 2000, &db).sourceLabel(),
            "heuristic:packed");
  // 4096 x 2048: at M = 2000 16 x 16 tiles of 128 x 256 (one round) against
  // 8 x 16 of 256 x 256 (one round, 1.5 times as long); at 4096 two rounds
  // of the first against one of the second.
  EXPECT_EQ(select(problem(4096, 2048), 2000, &db).sourceLabel(),
            "heuristic:r2");
  EXPECT_EQ(select(problem(4096, 2048), 4096, &db).sourceLabel(),
            "heuristic:pingpong");
  // M = 100: 16 tiles of 128 x 256, K < 4096: the smaller staged tiles.
  EXPECT_EQ(select(problem(4096, 2048), 100, &db).sourceLabel(),
            "heuristic:staged");
}

// A key without entries reads W row-major, whatever N and K (every entry
// of the shipped database does; docs/Compiler.md).
TEST(ConfigSelectionTest, KeysWithoutEntriesReadRowMajorW) {
  for (int64_t m : {1, 64, 65, 1024, 1025, 4096, 16384, 0}) {
    ConfigChoice c = select(problem(7168, 2048), m);
    EXPECT_EQ(c.source, ConfigSource::Heuristic) << m;
    EXPECT_FALSE(c.config.readsWeightPanels()) << m;
  }
}

// The R2 rule (128x256x128, 16x16x128 MFMAs, 3-stage ring) with K split so
// that the tiles fill at most one round: the most of 8, 4, 2 that keeps
// each segment at least 1024 deep.
TEST(ConfigSelectionTest, R2SplitsKToFillTheCus) {
  auto pick = [](int64_t n, int64_t k, int64_t m) {
    ConfigChoice c = select(problem(n, k), m);
    return c.name + "/" + std::to_string(c.config.kSplits);
  };
  // 1536 x 7168, M = 256: 2 x 6 = 12 tiles; 8 segments would be 896 deep.
  EXPECT_EQ(pick(1536, 7168, 256), "r2/4");
  // 7168 x 16384, M = 256: 56 tiles; 8 x 56 = 448 > 256.
  EXPECT_EQ(pick(7168, 16384, 256), "r2/4");
  // 7168 x 16384, M = 1024: 224 tiles, no split fits one round.
  EXPECT_EQ(pick(7168, 16384, 1024), "r2/1");
  // 2560 x 5120, M = 1024 (a key off the database, unlike 2304 x 5120):
  // 8 x 10 = 80 tiles, 4 x 80 = 320 > 256.
  EXPECT_EQ(pick(2560, 5120, 1024), "r2/2");
  // K < 4096 and fewer tiles than half the CUs: staged.
  EXPECT_EQ(pick(7168, 2048, 256).substr(0, 6), "staged");
  // 7168 x 2048, M = 1024: 8 x 28 = 224 tiles.
  EXPECT_EQ(pick(7168, 2048, 1024), "r2/1");
  // N or K off its tiles: not R2.
  EXPECT_EQ(pick(7040, 7168, 256).substr(0, 6), "staged");
  EXPECT_EQ(pick(7168, 2112, 256).substr(0, 6), "staged");
}

// From M = 1025 the two-slot kernel (256x256x128, 2 stages) where K divides
// into 128-deep tiles, else Q3 (256x256x64, 3 stages); R2 first where its
// rounds win (docs/Compiler.md).
TEST(ConfigSelectionTest, PingPongTakesTwoSlotsWhereKDividesBy128) {
  auto shape = [&](int64_t k, int64_t m) {
    ConfigChoice c = select(problem(4096, k), m);
    return c.name + " " + std::to_string(c.config.tileK) + "/" +
           std::to_string(c.config.stages);
  };
  EXPECT_EQ(shape(2048, 1025), "r2 128/3"); // 9 x 16 tiles: one round
  EXPECT_EQ(shape(2048, 4096), "pingpong 128/2");
  EXPECT_EQ(shape(2048, 8192), "pingpong 128/2");
  EXPECT_EQ(shape(2048, 65536), "pingpong 128/2");
  EXPECT_EQ(shape(2112, 1025), "pingpong 64/3"); // 2112 = 16 * 128 + 64
  EXPECT_EQ(shape(2112, 16384), "pingpong 64/3");
}

TEST(ConfigSelectionTest, HeuristicTilesFollowTheBucket) {
  auto tile = [](int64_t n, int64_t k, int64_t m) {
    ConfigChoice c = select(problem(n, k), m);
    EXPECT_EQ(c.name, "staged") << n << "x" << k << " M " << m;
    return std::to_string(c.config.tileM) + "x" +
           std::to_string(c.config.tileN);
  };
  // The staged rule's tiles (N off the 256-wide tiles of R2 and the
  // ping-pong kernels), docs/Compiler.md: 32 x 128 up to M = 1024, 64 x
  // 256 up to 4096, then 128 x 256, tile_n shrunk to divide N; grown once
  // past 4 workgroups per CU (1024 on gfx950). Up to M = 64 the decode
  // rule (DecodeRulesUpToM64).
  EXPECT_EQ(tile(2176, 2112, 65), "32x128");   // 2176 = 17 x 128
  EXPECT_EQ(tile(2176, 2112, 1024), "32x128"); // 32 x 17 = 544
  EXPECT_EQ(tile(2176, 2112, 1025), "64x128");
  EXPECT_EQ(tile(2176, 2112, 4097), "128x128");
  EXPECT_EQ(tile(7040, 2112, 1024), "64x128"); // 32 x 55 = 1760: grown
  ConfigChoice large = select(problem(7168, 2112), 16384);
  EXPECT_EQ(large.sourceLabel(), "heuristic:pingpong");
  EXPECT_EQ(large.config.tileN, 256);
  EXPECT_EQ(large.config.tileK, 64); // 2112 = 33 * 64
  EXPECT_FALSE(large.config.readsWeightPanels());
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
  // Row-major W, any N and K: 16x16x128 direct loads, loads_first; 16 x 32
  // tiles (1x2 waves, 3 stages) up to M = 16, 32 x 64 (one wave, 2
  // stages) above.
  EXPECT_EQ(body(1000, 992, 1),
            "heuristic:decode: tile_m = 16, tile_n = 32, tile_k = 256, "
            "waves_m = 1, waves_n = 2, mfma = m16n16k128, stages = 3, "
            "schedule = loads_first");
  EXPECT_EQ(body(100, 96, 64),
            "heuristic:decode: tile_m = 32, tile_n = 64, tile_k = 128, "
            "waves_m = 1, waves_n = 1, mfma = m16n16k128, stages = 2, "
            "schedule = loads_first");
  EXPECT_NE(body(1000, 1152, 16).find("tile_k = 128"), std::string::npos)
      << "128 divides K = 1152: no masked K tail";
  // K split where the tiles leave CUs idle: 96 x 7168 at M = 17 is two
  // tiles; 8 segments would not divide 7168 into 256-deep tiles.
  EXPECT_EQ(body(96, 7168, 17),
            "heuristic:decode: tile_m = 32, tile_n = 64, tile_k = 256, "
            "waves_m = 1, waves_n = 1, mfma = m16n16k128, stages = 2, "
            "schedule = loads_first, k_splits = 4");
  auto splits = [](int64_t n, int64_t k, int64_t m) {
    return select(problem(n, k), m).config.kSplits;
  };
  EXPECT_EQ(splits(1536, 7168, 4), 4);   // 48 tiles
  EXPECT_EQ(splits(7168, 16384, 4), 1);  // 224 tiles: 448 > 256
  EXPECT_EQ(splits(7168, 16384, 32), 4); // 112 tiles: 448 <= 512
  EXPECT_EQ(splits(7168, 2048, 32), 2);  // 4 segments would be 512 deep
  EXPECT_EQ(splits(7168, 2112, 4), 1);   // 2112 = 8 x 256 + 64
  // W in MFMA panels (a key whose entries read them): 32 x 64 tiles, X
  // direct, the largest K tile <= 512.
  TuningDatabase db;
  db.entries = {entry("packed", 7168, 2112, 8193, 16384, packedConfig()),
                entry("packed2", 4096, 5120, 8193, 16384, packedConfig())};
  EXPECT_EQ(body(7168, 2112, 4).substr(0, 16), "heuristic:decode");
  ConfigChoice c = select(problem(7168, 2112), 4, &db);
  EXPECT_EQ(c.sourceLabel() + ": " + formatConfigBody(c.config),
            "heuristic:packed-decode: tile_m = 32, tile_n = 64, tile_k = 64, "
            "waves_m = 1, waves_n = 2, mfma = m32n32k64, "
            "stage_w = packed_registers");
  EXPECT_EQ(select(problem(4096, 5120), 64, &db).config.tileK, 512);
  // From M = 65 the tiled rules.
  EXPECT_EQ(select(problem(1000, 992), 65).name, "naive-size");
  EXPECT_EQ(select(problem(7168, 2112), 65).name, "staged");
  EXPECT_EQ(select(problem(7168, 2112), 65, &db).name, "packed");
  // No hint: sized for M = 16384, not decode.
  EXPECT_EQ(select(problem(7168, 2112), 0).name, "pingpong");
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
