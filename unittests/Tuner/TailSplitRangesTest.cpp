//===- TailSplitRangesTest.cpp - pieces of a tail split per M range -------===//
//
// tuner::tailSplitPieces against tiles, tails and segment counts worked out
// by hand (tile rows x columns, modulo the 256 CUs of a round), and the
// names of the pieces. The simulations that decide the pieces are
// test/Tuner/tail-split-ranges.test's.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Tuner/TailSplitRanges.h"

#include <gtest/gtest.h>

using namespace mxgemm;
using namespace mxgemm::tuner;

namespace {

/// A 256x256x128 tile of one workgroup per CU for N x K over lo..hi, with
/// one prediction at hi.
contract::TuningEntry entry(std::string name, int64_t n, int64_t k, int64_t lo,
                            int64_t hi) {
  contract::TuningEntry e;
  e.name = std::move(name);
  e.arch = "gfx950";
  e.problem.n = n;
  e.problem.k = k;
  e.mMin = lo;
  e.mMax = hi;
  e.config.tileM = 256;
  e.config.tileN = 256;
  e.config.tileK = 128;
  e.config.wavesM = 4;
  e.config.wavesN = 2;
  e.config.stageX = contract::Staging::LdsAsync;
  e.config.stageW = contract::Staging::LdsAsync;
  e.config.stages = 2;
  contract::TuningPrediction p;
  p.m = hi;
  p.workgroupsPerCu = 1;
  e.predictions.push_back(p);
  return e;
}

TEST(TailSplitRanges, OnePiecePerTileRowWithItsTailAndSegments) {
  // engram's key: N = 12800 is 50 tile columns, K = 6144 is 48 K tiles.
  const std::vector<TailSplitPiece> pieces = tailSplitPieces(
      entry("engram_m2049_4096", 12800, 6144, 2049, 4096), target::kGFX950);
  ASSERT_EQ(pieces.size(), 8u);
  struct Expected {
    int64_t lo, hi, tiles, tail;
    std::vector<int64_t> splits;
  };
  const Expected expected[] = {
      {2049, 2304, 450, 194, {}},     // 194 x 2 > 256: no split fits
      {2305, 2560, 500, 244, {}},     //
      {2561, 2816, 550, 38, {6, 4}},  // 6 x 38 <= 256; 5 does not divide 48
      {2817, 3072, 600, 88, {2}},     // 3 x 88 > 256
      {3073, 3328, 650, 138, {}},     //
      {3329, 3584, 700, 188, {}},     //
      {3585, 3840, 750, 238, {}},     //
      {3841, 4096, 800, 32, {8, 6}}}; // 7 does not divide 48
  for (size_t i = 0; i < pieces.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(pieces[i].lo, expected[i].lo);
    EXPECT_EQ(pieces[i].hi, expected[i].hi);
    EXPECT_EQ(pieces[i].tiles, expected[i].tiles);
    EXPECT_EQ(pieces[i].tail, expected[i].tail);
    EXPECT_EQ(pieces[i].splits, expected[i].splits);
  }
}

TEST(TailSplitRanges, RangesOffTheTileRowsAndWholeRounds) {
  // N = 4096 is 16 columns; a range that starts and ends inside tile rows.
  // M 1000..1300: tile rows 4, 5 and 6 (64, 80, 96 tiles: one part-filled
  // round each; K = 1280 is 10 K tiles, so 2, 5 and 10 segments divide it).
  std::vector<TailSplitPiece> pieces = tailSplitPieces(
      entry("index_query_m1000_1300", 4096, 1280, 1000, 1300), target::kGFX950);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].lo, 1000);
  EXPECT_EQ(pieces[0].hi, 1024);
  EXPECT_EQ(pieces[0].splits, (std::vector<int64_t>{2}));
  EXPECT_EQ(pieces[1].lo, 1025);
  EXPECT_EQ(pieces[1].hi, 1280);
  EXPECT_EQ(pieces[1].tail, 80);
  EXPECT_EQ(pieces[2].lo, 1281);
  EXPECT_EQ(pieces[2].hi, 1300);
  EXPECT_EQ(pieces[2].tail, 96);
  // 16 tile rows of 16 columns fill one round: no tail, nothing to try.
  pieces =
      tailSplitPieces(entry("iq", 4096, 1280, 3841, 4096), target::kGFX950);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].tiles, 256);
  EXPECT_EQ(pieces[0].tail, 0);
  EXPECT_TRUE(pieces[0].splits.empty());
}

TEST(TailSplitRanges, EntriesThatCannotTakeATailSplitGiveNoPieces) {
  const contract::TuningEntry base = entry("e", 12800, 6144, 2049, 4096);
  ASSERT_FALSE(tailSplitPieces(base, target::kGFX950).empty());
  contract::TuningEntry e = base;
  e.config.kSplits = 2; // splits K already
  EXPECT_TRUE(tailSplitPieces(e, target::kGFX950).empty());
  e = base;
  e.config.persistent = 1;
  EXPECT_TRUE(tailSplitPieces(e, target::kGFX950).empty());
  e = base;
  e.predictions.front().workgroupsPerCu = 2; // a round is not the CUs
  EXPECT_TRUE(tailSplitPieces(e, target::kGFX950).empty());
  e = base;
  e.predictions.clear(); // occupancy unknown
  EXPECT_TRUE(tailSplitPieces(e, target::kGFX950).empty());
  e = entry("e", 12800, 6144, 16385, 65536); // minutes per simulation
  EXPECT_TRUE(tailSplitPieces(e, target::kGFX950).empty());
  e = base;
  e.config.xScaleLayout = contract::ScaleLayout::Mfma32x32x64;
  EXPECT_TRUE(tailSplitPieces(e, target::kGFX950).empty());
}

TEST(TailSplitRanges, PiecesAreNamedAfterTheirRange) {
  EXPECT_EQ(pieceName(entry("engram_m2049_4096", 12800, 6144, 2049, 4096), 2561,
                      2816),
            "engram_m2561_2816");
  // A qualified entry has no range in its name.
  EXPECT_EQ(pieceName(entry("engram", 12800, 6144, 8193, 16384), 8193, 8448),
            "engram_m8193_8448");
  // A suffix that is not the entry's own range stays.
  EXPECT_EQ(pieceName(entry("x_m1_2", 12800, 6144, 3, 4), 3, 3), "x_m1_2_m3_3");
}

} // namespace
