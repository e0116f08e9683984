//===- SearchSpaceTest.cpp - mxgemm-tune's candidate generator ------------===//
//
// The generator and its pruning, checked against facts that do not come
// from the code under test: the size of the table's product, the
// contract's verifier, divisibility of K, the accumulator budget of a
// gfx950 lane; and the tuning database's writer against its one reader.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Tuner/SearchSpace.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Tuner/Evaluator.h"
#include "mxgemm/Tuner/Seeds.h"
#include "mxgemm/Tuner/Tuner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

using namespace mxgemm;
using namespace mxgemm::tuner;

namespace {

const target::TargetModel &gfx950() { return target::kGFX950; }

contract::GemmProblem problem(int64_t n, int64_t k) {
  contract::GemmProblem p;
  p.n = n;
  p.k = k;
  return p;
}

SearchSpace defaultSpace() {
  SearchSpace s;
  EXPECT_FALSE(SearchSpace::create(defaultSearchSpace(), s));
  return s;
}

TEST(SearchSpace, EnumeratesTheProductOfTheStructuralAxes) {
  SearchSpace s = defaultSpace();
  uint64_t product = 1;
  for (const SpaceAxis &a : s.axes())
    if (a.structural)
      product *= a.values.size();
  Point base(s.axes().size(), 0);
  std::vector<Point> valid;
  std::map<PruneReason, uint64_t> pruned;
  uint64_t n = s.enumerate(base, problem(5120, 1152), gfx950(), valid, pruned);
  EXPECT_EQ(n, product);
  uint64_t prunedTotal = 0;
  for (auto &[reason, count] : pruned)
    prunedTotal += count;
  EXPECT_EQ(valid.size() + prunedTotal, n);
  EXPECT_GT(valid.size(), 0u);
  // Every point is distinct, every valid one passes the contract's own
  // checks, and K = 1152 (9 x 128) admits a tile_k of 256 only where both
  // operands are loaded directly (the K tail is masked there).
  std::set<std::string> distinct;
  for (const Point &p : valid) {
    contract::KernelConfig c = s.config(p);
    EXPECT_FALSE(contract::verifyConfig(c, gfx950()));
    EXPECT_FALSE(contract::verifyProblemConfig(problem(5120, 1152), c));
    if (c.tileK == 256)
      EXPECT_TRUE(c.stageX == contract::Staging::Direct &&
                  c.stageW == contract::Staging::Direct);
    distinct.insert(contract::formatConfigBody(c));
  }
  EXPECT_EQ(distinct.size(), valid.size());
  EXPECT_GT(pruned[PruneReason::Problem], 0u);
  EXPECT_GT(pruned[PruneReason::Config], 0u);
}

TEST(SearchSpace, PrunesBeforeCompiling) {
  SearchSpace s = defaultSpace();
  contract::KernelConfig c;
  // One wave holding a 256x256 FP32 tile needs 1024 accumulator registers
  // per lane; a gfx950 lane has 512 in all.
  c.tileM = c.tileN = 256;
  c.wavesM = c.wavesN = 1;
  EXPECT_EQ(s.prune(problem(4096, 4096), c, gfx950()), PruneReason::Config);
  // 128-deep K tiles copied to LDS fit K = 5120 (40 x 128), not K = 5056
  // (only direct loads mask a K tail).
  contract::KernelConfig ok;
  ok.stageX = contract::Staging::LdsAsync;
  EXPECT_FALSE(s.prune(problem(1792, 5120), ok, gfx950()));
  EXPECT_EQ(s.prune(problem(1792, 5056), ok, gfx950()), PruneReason::Problem);
  // More LDS than a workgroup can allocate (3 stages of 256+256 rows of
  // 272 bytes = 417792 > 163840).
  contract::KernelConfig lds;
  lds.tileM = lds.tileN = lds.tileK = 256;
  lds.wavesM = lds.wavesN = 4;
  lds.stageX = lds.stageW = contract::Staging::LdsAsync;
  lds.ldsLayout = contract::LdsLayout::Padded;
  lds.stages = 3;
  EXPECT_EQ(s.prune(problem(4096, 4096), lds, gfx950()), PruneReason::Config);
}

// The compiler splits K for every staging; the search only for direct
// loads (X direct, W direct or from panels). A staged split is a config the
// verifier accepts and the search's own rule rejects.
TEST(SearchSpace, SplitsKOnlyWithDirectLoads) {
  SearchSpace s = defaultSpace();
  contract::KernelConfig c; // 128x128x128, 4 waves
  c.kSplits = 4;            // K = 4096: 8 K tiles per segment
  EXPECT_FALSE(s.prune(problem(4096, 4096), c, gfx950()));
  c.stageW = contract::Staging::PackedRegisters;
  EXPECT_FALSE(s.prune(problem(4096, 4096), c, gfx950()));
  for (auto [x, w] :
       {std::pair{contract::Staging::LdsAsync, contract::Staging::Direct},
        {contract::Staging::Direct, contract::Staging::LdsAsync},
        {contract::Staging::LdsAsync, contract::Staging::PackedRegisters},
        {contract::Staging::Direct, contract::Staging::LdsSync}}) {
    c.stageX = x;
    c.stageW = w;
    c.stages = 2;
    EXPECT_TRUE(stagedThroughLds(c));
    EXPECT_FALSE(contract::verifyConfig(c, gfx950()));
    EXPECT_EQ(s.prune(problem(4096, 4096), c, gfx950()), PruneReason::Config);
    c.kSplits = 1;
    EXPECT_FALSE(s.prune(problem(4096, 4096), c, gfx950()));
    c.kSplits = 4;
  }
}

// Segment counts for a grid that leaves slots idle: 64 tiles, K = 2048 in
// 128-deep tiles (16). 256 slots take 4 segments, 512 take 8; 1024 slots
// take 16 and 2048 cannot be reached with 16 K tiles.
TEST(Seeds, FillingSplitsTakeTheFewestSegments) {
  EXPECT_EQ(fillingSplits(2048, 128, 64, 256), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(fillingSplits(2048, 128, 64, 512), (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(fillingSplits(2048, 128, 64, 1024), (std::vector<int64_t>{16}));
  EXPECT_TRUE(fillingSplits(2048, 128, 256, 256).empty());
}

// When no count fills the slots exactly, the most segments that stay in one
// round come last. K = 1920 (15 K tiles): 4 does not divide, so one CU each
// takes 5 (320 workgroups) or 15; 3 (192) fits in 256 slots.
TEST(Seeds, FillingSplitsKeepOneRound) {
  EXPECT_EQ(fillingSplits(1920, 128, 64, 256),
            (std::vector<int64_t>{5, 15, 3}));
  // fused_qkv at M = 1024 on 128x256 tiles: 56 tiles, 40 K tiles of 128;
  // 5 segments overshoot 256 CUs, 4 fill 224 of them.
  EXPECT_EQ(fillingSplits(5120, 128, 56, 256),
            (std::vector<int64_t>{5, 10, 4}));
}

// Tail splits (docs/Design.md, "Tail split"): the two largest segment
// counts whose segments of the longest tail fit one round of 256. K = 5120
// in 128-deep tiles (40: 2, 4, 5, 8, 10 divide it).
TEST(Seeds, TailSplitCountsFitTheLongestTailInARound) {
  // shared_gate_up at M = 16384: 64 tail tiles; 5 x 64 = 320 overshoots.
  EXPECT_EQ(tailSplitCounts(5120, 128, {64}, 256),
            (std::vector<int64_t>{4, 2}));
  // At M = 9199 and 10732 (68 and 122 tail tiles) only 2 fits both.
  EXPECT_EQ(tailSplitCounts(5120, 128, {68, 122}, 256),
            (std::vector<int64_t>{2}));
  // engram at M = 9199: 8 tail tiles, 48 K tiles of 128 (16 and 12 divide).
  EXPECT_EQ(tailSplitCounts(6144, 128, {8}, 256),
            (std::vector<int64_t>{16, 12}));
  // No tail at one sample, no tail split; a tail of 200 fits no count.
  EXPECT_TRUE(tailSplitCounts(5120, 128, {64, 0}, 256).empty());
  EXPECT_TRUE(tailSplitCounts(5120, 128, {200}, 256).empty());
  EXPECT_TRUE(tailSplitCounts(5120, 128, {}, 256).empty());
}

TEST(SearchSpace, PointsRoundTripAndTakeValuesOutsideTheTable) {
  SearchSpace s = defaultSpace();
  contract::KernelConfig c;
  c.tileM = 128;
  c.tileN = 256;
  c.wavesM = 1;
  c.wavesN = 4;
  c.groupM = 32; // not in the table: added to the axis
  c.stageX = contract::Staging::LdsAsync;
  c.stageW = contract::Staging::PackedRegisters;
  Point p = s.pointOf(c);
  EXPECT_EQ(s.config(p), c);
}

TEST(SearchSpace, MutantsChangeOneOrTwoAxes) {
  SearchSpace s = defaultSpace();
  Point parent(s.axes().size(), 0);
  Rng rng(7);
  for (int i = 0; i < 500; ++i) {
    Point child = s.mutate(parent, rng);
    unsigned changed = 0;
    for (size_t a = 0; a < child.size(); ++a) {
      EXPECT_LT(child[a], s.axes()[a].values.size());
      changed += child[a] != parent[a];
    }
    EXPECT_GE(changed, 1u);
    EXPECT_LE(changed, 2u);
  }
}

TEST(SearchSpace, TheTableRejectsUnknownFieldsAndValues) {
  SearchSpace s;
  EXPECT_TRUE(SearchSpace::create({{"tile_q", {"1"}}}, s));
  EXPECT_TRUE(SearchSpace::create({{"mfma", {"m8n8k8"}}}, s));
  EXPECT_TRUE(SearchSpace::create({{"tile_m", {"12x"}}}, s));
  EXPECT_TRUE(SearchSpace::create({{"tile_m", {}}}, s));
  EXPECT_TRUE(
      SearchSpace::create({{"tile_m", {"64"}}, {"tile_m", {"128"}}}, s));
}

TEST(Rng, SameSeedSameSequence) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
  // SplitMix64's published first output for seed 0.
  EXPECT_EQ(Rng(0).next(), 0xe220a8397b1dcdafULL);
  Rng r(1);
  for (int i = 0; i < 1000; ++i)
    EXPECT_LT(r.below(3), 3u);
}

TEST(Tuner, GridEfficiency) {
  // fused_qkv at M = 10732 with 128x256 tiles: 84 x 7 = 588 workgroups, two
  // per CU: two rounds of 512 slots, the second 76 full.
  int64_t rounds = 0;
  EXPECT_DOUBLE_EQ(gridEfficiency(588, 256, 2, &rounds), 588.0 / 1024);
  EXPECT_EQ(rounds, 2);
  EXPECT_DOUBLE_EQ(gridEfficiency(512, 256, 2), 1.0);
}

TEST(Tuner, WeightLayoutClasses) {
  contract::KernelConfig packed;
  packed.stageW = contract::Staging::PackedRegisters;
  contract::KernelConfig packed16 = packed;
  packed16.mfma = target::MfmaShape::M16N16K128;
  EXPECT_NE(weightLayoutClass(packed), weightLayoutClass(packed16));
  EXPECT_EQ(weightLayoutClass(contract::KernelConfig()), "row_major");
}

TEST(Tuner, OptionsAreChecked) {
  TuneOptions o;
  o.problem = problem(256, 256);
  o.ranges = {{1, 10, {10}}};
  EXPECT_FALSE(validateOptions(o));
  o.budget = 0;
  EXPECT_TRUE(validateOptions(o));
  o.budget = 1;
  o.ranges = {{1, 10, {11}}};
  EXPECT_TRUE(validateOptions(o)); // sample outside its range
  o.ranges = {{1, 10, {10}}, {10, 20, {20}}};
  EXPECT_TRUE(validateOptions(o)); // overlap
  o.ranges = {{1, 10, {10}}};
  o.problem = problem(256, 100);
  EXPECT_TRUE(validateOptions(o)); // K not a multiple of 32
}

TEST(TuningDatabase, WriterOutputIsReadBack) {
  std::ifstream in(MXGEMM_SOURCE_DIR "/tuning/gfx950.json");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  contract::TuningDatabase db;
  ASSERT_FALSE(contract::TuningDatabase::parse(text.str(), db));
  ASSERT_FALSE(db.entries.empty());
  contract::TuningPrediction p;
  p.m = db.entries[0].mMin;
  p.timeUs = 12.5;
  p.tflops = 100;
  p.mfmaUtilisation = 0.5;
  p.gridEfficiency = 0.75;
  p.workgroups = 100;
  p.workgroupsPerCu = 2;
  p.limiter = "vmem-issue";
  p.targetHash = "0123";
  db.entries[0].predictions = {p}; // replaces what the database predicts
  std::string written = db.toJson("test");
  contract::TuningDatabase back;
  ASSERT_FALSE(contract::TuningDatabase::parse(written, back));
  ASSERT_EQ(back.entries.size(), db.entries.size());
  for (size_t i = 0; i < db.entries.size(); ++i) {
    EXPECT_EQ(back.entries[i].name, db.entries[i].name);
    EXPECT_EQ(back.entries[i].note, db.entries[i].note);
    EXPECT_EQ(back.entries[i].config, db.entries[i].config);
    EXPECT_EQ(back.entries[i].problem, db.entries[i].problem);
    EXPECT_EQ(back.entries[i].mMin, db.entries[i].mMin);
    EXPECT_EQ(back.entries[i].mMax, db.entries[i].mMax);
  }
  ASSERT_EQ(back.entries[0].predictions.size(), 1u);
  EXPECT_EQ(back.entries[0].predictions[0].timeUs, 12.5);
  EXPECT_EQ(back.entries[0].predictions[0].limiter, "vmem-issue");

  // A prediction outside the entry's M range is refused.
  db.entries[0].predictions[0].m = db.entries[0].mMax + 1;
  contract::ErrorMessage e =
      contract::TuningDatabase::parse(db.toJson("test"), back);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("outside the entry's m_range"), std::string::npos) << *e;
}

} // namespace

namespace {

// The seed structures of every bucket's judged M, for the case table's
// shapes, are configs the contract accepts for the problem (the search
// screens them, so one the verifier rejects would be wasted), read W in the
// layout asked for, and the decode ones have tiles no taller than 32 rows.
TEST(Seeds, VerifyAndKeepTheLayout) {
  const int64_t shapes[][2] = {{16384, 1280}, {4096, 6144}, {7168, 2048},
                               {2048, 7168},  {7168, 1152}, {4096, 1280}};
  for (auto [n, k] : shapes)
    for (int64_t m : {16, 64, 256, 1024, 4096, 8192, 16385})
      for (bool panels : {false, true}) {
        std::vector<SeedStructure> seeds =
            seedStructures(problem(n, k), m, panels, target::kGFX950);
        EXPECT_FALSE(seeds.empty()) << n << " " << k << " " << m;
        for (const SeedStructure &s : seeds) {
          SCOPED_TRACE(s.name + " N " + std::to_string(n) + " K " +
                       std::to_string(k) + " M " + std::to_string(m));
          EXPECT_EQ(s.config.readsWeightPanels(), panels);
          EXPECT_FALSE(contract::verifyProblemConfig(problem(n, k), s.config));
          if (m <= 64)
            EXPECT_LE(s.config.tileM, 64);
          if (m <= 16)
            EXPECT_LE(s.config.tileM, 32);
          if (s.config.kSplits > 1)
            EXPECT_EQ(k % (s.config.kSplits * s.config.tileK), 0);
        }
      }
}

// Decode seeds split K only where N alone gives fewer than 512 workgroups
// (two per CU), and do split some tiles of a narrow N.
TEST(Seeds, SplitKOnlyForFewWorkgroups) {
  for (int64_t n : {1024, 7168, 16384}) {
    int count = 0;
    for (const SeedStructure &s :
         seedStructures(problem(n, 2048), 16, false, target::kGFX950))
      if (s.config.kSplits > 1) {
        ++count;
        EXPECT_LT((n + s.config.tileN - 1) / s.config.tileN, 512) << s.name;
      }
    if (n == 1024)
      EXPECT_GT(count, 0);
  }
}

// Medium-M seeds split K only for grids of fewer than 256 workgroups (one
// per CU), into whole K tiles, and no further than two per CU needs: the
// shared expert's gate-up projection (N = 2304, K = 5120, W in panels) at
// M = 256 gets split seeds, wq_b's N = 16384 (enough tiles) gets none.
TEST(Seeds, MediumMSplitsKOnlyWhenTheGridLeavesCUsIdle) {
  for (auto [n, k, panels] :
       {std::tuple<int64_t, int64_t, bool>{2304, 5120, true},
        {2304, 5120, false},
        {16384, 1280, false}}) {
    int count = 0;
    for (const SeedStructure &s :
         seedStructures(problem(n, k), 256, panels, target::kGFX950)) {
      if (s.config.kSplits <= 1)
        continue;
      ++count;
      SCOPED_TRACE(s.name);
      const int64_t tiles = ((256 + s.config.tileM - 1) / s.config.tileM) *
                            ((n + s.config.tileN - 1) / s.config.tileN);
      EXPECT_LT(tiles, 256);
      EXPECT_EQ(k % (s.config.kSplits * s.config.tileK), 0);
      // The fewest segments reaching one or two per CU: no smaller count
      // of whole K tiles reaches two per CU.
      for (int64_t fewer = 2; fewer < s.config.kSplits; ++fewer)
        if (k % (fewer * s.config.tileK) == 0)
          EXPECT_LT(tiles * fewer, 512) << fewer;
    }
    if (n == 2304)
      EXPECT_GT(count, 0) << n << (panels ? " panels" : " row-major");
    else
      EXPECT_EQ(count, 0);
  }
}

bool offersTwoSlotPingPong(int64_t n, int64_t k, int64_t m) {
  for (const SeedStructure &s :
       seedStructures(problem(n, k), m, false, target::kGFX950))
    if (s.config.schedule == contract::Schedule::PingPong &&
        s.config.stages == 2)
      return true;
  return false;
}

// The two-slot ping-pong seed (256x256x128, two turns per K tile) is
// offered above M = 1024 where N divides into 256-wide tiles and K into
// 128-deep ones, and nowhere else.
TEST(Seeds, TwoSlotPingPongWhereItsTileDivides) {
  EXPECT_TRUE(offersTwoSlotPingPong(16384, 1280, 4096));
  EXPECT_TRUE(offersTwoSlotPingPong(5120, 1152, 16385));
  EXPECT_FALSE(offersTwoSlotPingPong(16384, 1280, 1024));
  EXPECT_FALSE(offersTwoSlotPingPong(16384, 1216, 4096));
  EXPECT_FALSE(offersTwoSlotPingPong(16320, 1280, 4096));
}

} // namespace
