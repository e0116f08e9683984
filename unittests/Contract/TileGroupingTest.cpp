//===- TileGroupingTest.cpp - grids and the tile mapping ------------------===//
//
// Enumerates many grid shapes, groupings and the XCD remap, and checks that
// every output tile is produced by exactly one program.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/TileGrouping.h"
#include "mxgemm/Target/TargetModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace mxgemm::contract;

constexpr int64_t kNumXcds = mxgemm::target::kGFX950.numXcds;

namespace {
struct Grouping {
  int64_t groupM, groupN;
  bool xcdRemap;
};

void expectBijection(int64_t tilesM, int64_t tilesN, Grouping g) {
  IntegerTileArith arith;
  std::vector<int> hits(tilesM * tilesN, 0);
  for (int64_t pid = 0; pid < tilesM * tilesN; ++pid) {
    auto [m, n] = mapProgramToTile(arith, pid, tilesM, tilesN, g.groupM,
                                   g.groupN, g.xcdRemap, kNumXcds);
    ASSERT_GE(m, 0);
    ASSERT_LT(m, tilesM) << "pid " << pid;
    ASSERT_GE(n, 0);
    ASSERT_LT(n, tilesN) << "pid " << pid;
    ++hits[m * tilesN + n];
  }
  for (int64_t t = 0; t < tilesM * tilesN; ++t)
    ASSERT_EQ(hits[t], 1) << "tile (" << t / tilesN << ", " << t % tilesN
                          << ") of " << tilesM << "x" << tilesN << " group "
                          << g.groupM << "x" << g.groupN << " remap "
                          << g.xcdRemap;
}
} // namespace

TEST(TileGroupingTest, BijectiveOnManyGridsAndGroupings) {
  const Grouping groupings[] = {{1, 0, false}, {4, 0, false}, {8, 0, false},
                                {4, 8, false}, {8, 4, false}, {3, 5, false},
                                {1, 0, true},  {4, 8, true},  {8, 4, true},
                                {16, 0, true}, {2, 1, true},  {7, 3, true}};
  for (int64_t tilesM = 1; tilesM <= 37; ++tilesM)
    for (int64_t tilesN : {1, 2, 3, 8, 13, 18, 40})
      for (Grouping g : groupings)
        expectBijection(tilesM, tilesN, g);
}

TEST(TileGroupingTest, CaseTableGrids) {
  // wq_b at M = 9199 with 64-row programs (split 2 of 128) and 256-wide
  // tiles; engram with 4M x 8N groups at M = 10732.
  expectBijection((9199 + 63) / 64, 16384 / 256, {1, 0, true});
  expectBijection((10732 + 127) / 128, 12800 / 256, {4, 8, true});
  expectBijection((16384 + 255) / 256, 2304 / 256, {8, 4, false});
}

TEST(TileGroupingTest, RowMajorIsTheIdentityOrder) {
  IntegerTileArith arith;
  for (int64_t pid = 0; pid < 6 * 5; ++pid) {
    auto [m, n] = mapProgramToTile(arith, pid, 6, 5, 1, 0, false, kNumXcds);
    EXPECT_EQ(m, pid / 5);
    EXPECT_EQ(n, pid % 5);
  }
}

TEST(TileGroupingTest, GroupsWalkMFastestInsideAGroup) {
  // 4M x 2N groups on an 8x4 grid: programs 0..7 cover rows 0-3, columns 0-1.
  IntegerTileArith arith;
  std::vector<std::pair<int64_t, int64_t>> expected = {
      {0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1}, {0, 2}};
  for (size_t pid = 0; pid < expected.size(); ++pid)
    EXPECT_EQ(
        mapProgramToTile(arith, int64_t(pid), 8, 4, 4, 2, false, kNumXcds),
        expected[pid])
        << pid;
}

TEST(TileGroupingTest, XcdRemapKeepsNeighboursOnOneXcd) {
  // 64 programs: the 8 programs gfx950 sends to XCD 0 (0, 8, 16, ...) must
  // become logical ids 0..7, i.e. the first row of a row-major 8x8 grid.
  IntegerTileArith arith;
  for (int64_t i = 0; i < 8; ++i) {
    auto [m, n] =
        mapProgramToTile(arith, i * kNumXcds, 8, 8, 1, 0, true, kNumXcds);
    EXPECT_EQ(m, 0);
    EXPECT_EQ(n, i);
  }
}

TEST(TileGridTest, CountsAndOriginsOfTheCaseTableGrid) {
  // wq_b: 128-row programs, 256-wide tiles, 64 tile columns, 8M x 4N
  // groups with XCD remap.
  TileGrid g{128, 256, 64, 8, 4, true, kNumXcds};
  ASSERT_FALSE(g.validate());
  EXPECT_EQ(g.numWorkgroups(9199), int64_t((9199 + 127) / 128) * 64);
  // Every workgroup maps to a distinct in-range tile origin.
  const int64_t count = *g.numWorkgroups(9199);
  std::vector<int> hits(count, 0);
  for (int64_t pid = 0; pid < count; ++pid) {
    auto origin = g.tileOrigin(pid, 9199);
    ASSERT_TRUE(origin);
    ASSERT_EQ(origin->first % 128, 0);
    ASSERT_EQ(origin->second % 256, 0);
    ++hits[origin->first / 128 * 64 + origin->second / 256];
  }
  for (int h : hits)
    EXPECT_EQ(h, 1);
}

TEST(TileGridTest, RejectsWhatDescribesNoGrid) {
  // A caller-built plan with group_m = 0 used to divide by zero.
  TileGrid zeroGroup{128, 256, 64, 0, 0, false, kNumXcds};
  EXPECT_TRUE(zeroGroup.validate());
  EXPECT_FALSE(zeroGroup.numWorkgroups(100));
  EXPECT_FALSE(zeroGroup.tileOrigin(0, 100));
  TileGrid noTiles{128, 256, 0, 1, 0, false, kNumXcds};
  EXPECT_FALSE(noTiles.tileOrigin(0, 100));
  TileGrid noXcds{128, 256, 4, 1, 0, true, 0};
  EXPECT_FALSE(noXcds.tileOrigin(0, 100));
  TileGrid ok{128, 256, 4, 1, 0, false, kNumXcds};
  EXPECT_FALSE(ok.numWorkgroups(0));
  EXPECT_FALSE(ok.numWorkgroups(int64_t(1) << 40)); // M is an i32 argument
  EXPECT_FALSE(ok.tileOrigin(-1, 100));
  EXPECT_FALSE(ok.tileOrigin(4, 100)); // one tile row of 4 workgroups
  EXPECT_TRUE(ok.tileOrigin(3, 100));
}

TEST(TileGridTest, GridsPastThe32BitHipLimitAreRejected) {
  // 2^31 - 1 rows in 1-row programs over 2^24 tile columns: no HIP grid.
  TileGrid g{1, 1, int64_t(1) << 24, 1, 0, false, kNumXcds};
  EXPECT_FALSE(g.numWorkgroups(2147483647));
  EXPECT_EQ(g.numWorkgroups(255), int64_t(255) << 24);
}

TEST(TileGridTest, PersistentGridsKeepTheirWalkCounterIn32Bits) {
  // A persistent kernel counts its tiles in i32 and steps one grid past the
  // last: 1-row tiles over 2^24 columns, 128 rows = 2^31 tiles, no launch;
  // a plain grid of the same tiles would still fit HIP's 32 bits.
  TileGrid plain{1, 1, int64_t(1) << 24, 1, 0, false, kNumXcds};
  TileGrid walked = plain;
  walked.maxWorkgroups = 256;
  EXPECT_EQ(plain.numWorkgroups(128), int64_t(1) << 31);
  EXPECT_FALSE(walked.numWorkgroups(128));
  EXPECT_EQ(walked.numWorkgroups(127), 256);
  // The largest tile count it takes is INT32_MAX - 256 = 3 x 715827797.
  TileGrid edge{1, 1, 3, 1, 0, false, kNumXcds};
  edge.maxWorkgroups = 256;
  EXPECT_EQ(edge.numWorkgroups(715827797), 256);
  EXPECT_FALSE(edge.numWorkgroups(715827798));
}

TEST(TileGridTest, PersistentGridsWalkEveryTileOnce) {
  // 256-wide tiles over 64 columns, 8M x 4N groups with XCD remap, at most
  // one workgroup per CU of gfx950: 72 x 64 = 4608 tiles on 256 workgroups.
  KernelConfig c;
  c.tileM = c.tileN = 256;
  c.persistent = 1;
  c.groupM = 8;
  c.groupN = 4;
  c.xcdRemap = true;
  TileGrid g = TileGrid::of(c, 16384, mxgemm::target::kGFX950);
  ASSERT_FALSE(g.validate());
  EXPECT_EQ(g.maxWorkgroups, 256);
  const int64_t m = 72 * 256 - 5;
  EXPECT_EQ(g.numWorkgroups(m), 256);
  ASSERT_EQ(g.numTiles(m), 72 * 64);
  // Workgroup w walks tiles w, w + 256, ...: together every tile once, and
  // each keeps its XCD (the grid is a multiple of 8).
  std::vector<int> hits(72 * 64, 0);
  for (int64_t tile = 0; tile < 72 * 64; ++tile) {
    auto origin = g.tileOriginOfTile(tile, m);
    ASSERT_TRUE(origin);
    ++hits[origin->first / 256 * 64 + origin->second / 256];
  }
  for (int h : hits)
    EXPECT_EQ(h, 1);
  EXPECT_EQ(g.tileOrigin(5, m), g.tileOriginOfTile(5, m));
  EXPECT_FALSE(g.tileOrigin(256, m));
  EXPECT_FALSE(g.tileOriginOfTile(72 * 64, m));
  // Fewer tiles than the cap: one workgroup per tile.
  EXPECT_EQ(g.numWorkgroups(256), 64);
  // A persistent grid does not split K, and its cap is bounded.
  TileGrid split = g;
  split.kSplits = 2;
  EXPECT_TRUE(split.validate());
  EXPECT_FALSE(split.numWorkgroups(m));
  TileGrid huge = g;
  huge.maxWorkgroups = kMaxPersistentWorkgroups + 1;
  EXPECT_TRUE(huge.validate());
  TileGrid negative = g;
  negative.maxWorkgroups = -1;
  EXPECT_TRUE(negative.validate());
}

TEST(TileGridTest, TailSplitRunsWholeRoundsThenTheTailInSegments) {
  // R2 tiles (128 x 256 over shared_gate_up's N = 2304: 9 columns), K split in
  // two in the last round's tiles only, rounds of gfx950's 256 CUs.
  KernelConfig c;
  c.tileM = 128;
  c.tileN = 256;
  c.groupM = 8;
  c.groupN = 4;
  c.xcdRemap = true;
  c.kSplits = 2;
  c.tailSplit = true;
  TileGrid g = TileGrid::of(c, 2304, mxgemm::target::kGFX950);
  ASSERT_FALSE(g.validate());
  EXPECT_EQ(g.roundWorkgroups, 256);
  // M = 16384: 1152 tiles = 4.5 rounds: 1024 whole, 128 in two segments.
  const int64_t m = 16384;
  ASSERT_EQ(g.numTiles(m), 1152);
  auto t = g.tailTiles(m);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->whole, 1024);
  EXPECT_EQ(t->tail, 128);
  EXPECT_EQ(g.numWorkgroups(m), 1024 + 2 * 128);
  EXPECT_EQ(g.reductionWorkgroups(m), 256);
  EXPECT_FALSE(g.isSplitTile(1023, m));
  EXPECT_TRUE(g.isSplitTile(1024, m));
  // Whole tiles keep the grid's order; tail unit u runs tail tile u mod 128.
  EXPECT_EQ(g.tileOrigin(7, m), g.tileOriginOfTile(7, m));
  EXPECT_EQ(g.tileOrigin(1024 + 5, m), g.tileOriginOfTile(1024 + 5, m));
  EXPECT_EQ(g.tileOrigin(1024 + 128 + 5, m), g.tileOriginOfTile(1024 + 5, m));
  EXPECT_FALSE(g.tileOrigin(1280, m));
  // The tail tiles' origins are distinct tiles of the grid.
  auto origins = g.tailTileOrigins(m);
  ASSERT_EQ(origins.size(), 128u);
  std::sort(origins.begin(), origins.end());
  EXPECT_EQ(std::unique(origins.begin(), origins.end()), origins.end());
  // Whole rounds (M = 32768: 2304 tiles, 9 rounds): no tail, no second
  // launch.
  EXPECT_EQ(g.numWorkgroups(32768), 2304);
  EXPECT_EQ(g.reductionWorkgroups(32768), 0);
  EXPECT_TRUE(g.tailTileOrigins(32768).empty());
  // Fewer tiles than a round: every tile is the tail.
  t = g.tailTiles(128);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->whole, 0);
  EXPECT_EQ(t->tail, 9);
  EXPECT_EQ(g.numWorkgroups(128), 18);
  // Without k_splits, with a persistent cap or without a round: no grid.
  TileGrid bad = g;
  bad.kSplits = 1;
  EXPECT_TRUE(bad.validate());
  bad = g;
  bad.maxWorkgroups = 256;
  EXPECT_TRUE(bad.validate());
  bad = g;
  bad.roundWorkgroups = 0;
  EXPECT_TRUE(bad.validate());
  EXPECT_FALSE(bad.numWorkgroups(m));
  EXPECT_FALSE(bad.tailTiles(m));
}

TEST(TileGridTest, TailSplitWithoutItsPartsSaysWhy) {
  KernelConfig c;
  c.kSplits = 2;
  c.tailSplit = true;
  TileGrid g = TileGrid::of(c, 256, mxgemm::target::kGFX950);
  ASSERT_FALSE(g.validate());
  g.kSplits = 1;
  ASSERT_TRUE(g.validate());
  EXPECT_EQ(*g.validate(),
            "a tail split needs k_splits > 1, no persistent grid and "
            "round_workgroups in 1..1048576, got k_splits = 1, "
            "round_workgroups = 256");
}
