//===- TileGroupingTest.cpp - the program -> tile swizzle is a bijection
//-----===//
//
// Enumerates many grid shapes, groupings and the XCD remap, and checks that
// every output tile is produced by exactly one program.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Support/TileGrouping.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mxgemm;

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
                                   g.groupN, g.xcdRemap);
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
    auto [m, n] = mapProgramToTile(arith, pid, 6, 5, 1, 0, false);
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
    EXPECT_EQ(mapProgramToTile(arith, int64_t(pid), 8, 4, 4, 2, false),
              expected[pid])
        << pid;
}

TEST(TileGroupingTest, XcdRemapKeepsNeighboursOnOneXcd) {
  // 64 programs: the 8 programs gfx950 sends to XCD 0 (0, 8, 16, ...) must
  // become logical ids 0..7, i.e. the first row of a row-major 8x8 grid.
  IntegerTileArith arith;
  for (int64_t i = 0; i < 8; ++i) {
    auto [m, n] = mapProgramToTile(arith, i * kNumXcds, 8, 8, 1, 0, true);
    EXPECT_EQ(m, 0);
    EXPECT_EQ(n, i);
  }
}
