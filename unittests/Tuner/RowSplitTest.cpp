//===- RowSplitTest.cpp - the row-split rule and its choice ---------------===//
//
// contract::RowSplit::firstRows against rows worked out by hand from the
// grid (tile rows x columns over rounds of workgroups), and mxgemm-tune's
// choice of the longest tail against hand-made trial outcomes.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Tuner/RowSplit.h"
#include "mxgemm/Contract/TuningDatabase.h"

#include <gtest/gtest.h>

using namespace mxgemm;
using namespace mxgemm::tuner;

namespace {

TEST(RowSplit, FirstRowsFillWholeRounds) {
  contract::RowSplit rule{/*workgroupsPerRound=*/256, /*maxTailRows=*/1100};
  // 256x256 tiles, N = 4096: 16 columns, 16 tile rows (4096 rows) a round.
  // M = 9199: 36 tile rows = 2.25 rounds; 8192 rows fill two, 1007 remain.
  EXPECT_EQ(rule.firstRows(9199, 256, 16), 8192);
  // M = 10732: the tail would be 2540 rows, above max_tail_rows.
  EXPECT_EQ(rule.firstRows(10732, 256, 16), 0);
  // M = 8192 fills two rounds exactly: nothing to split (the largest whole
  // round below it leaves 4096 rows).
  EXPECT_EQ(rule.firstRows(8192, 256, 16), 0);
  // N = 5120: 20 columns, 12.8 tile rows a round. M = 10732 is 42 tile
  // rows; three rounds hold floor(768 / 20) = 38 of them, 9728 rows.
  EXPECT_EQ(rule.firstRows(10732, 256, 20), 9728);
  // Rounds of 8 workgroups over 20 columns: M = 100 is 7 tile rows of 16;
  // 17 rounds hold 6 whole tile rows (96 rows), the most below 7.
  EXPECT_EQ((contract::RowSplit{8, 1000}).firstRows(100, 16, 20), 96);
  EXPECT_EQ((contract::RowSplit{8, 3}).firstRows(100, 16, 20), 0);
  // No rule, or less than one round: one launch.
  EXPECT_EQ(contract::RowSplit().firstRows(9199, 256, 16), 0);
  EXPECT_EQ(rule.firstRows(4000, 256, 16), 0);
  // The largest M the contract admits stays exact (no overflow).
  contract::RowSplit wide{1 << 20, contract::kMaxM};
  const int64_t m = contract::kMaxM;
  const int64_t first = wide.firstRows(m, 16, int64_t(1) << 20);
  EXPECT_GT(first, 0);
  EXPECT_LT(first, m);
  EXPECT_EQ(first % 16, 0);
}

RowSplitTrial trial(int64_t m, int64_t firstRows, double one, double split) {
  RowSplitTrial t;
  t.m = m;
  t.firstRows = firstRows;
  t.oneLaunchUs = one;
  t.firstUs = split * 0.75;
  t.tailUs = split * 0.25;
  return t;
}

TEST(RowSplit, TheRuleStopsAtTheShortestTailThatLost) {
  // Tails 1007 (-16%) and 2540 (+1%): only the first is covered.
  EXPECT_EQ(chooseMaxTailRows(
                {trial(9199, 8192, 60.1, 50.2), trial(10732, 8192, 59.9, 60.8)},
                0.03),
            1007);
  // Order of the trials does not matter.
  EXPECT_EQ(chooseMaxTailRows(
                {trial(10732, 8192, 59.9, 60.8), trial(9199, 8192, 60.1, 50.2)},
                0.03),
            1007);
  // A gain below the margin is a loss: a longer winning tail is not
  // covered past it.
  EXPECT_EQ(chooseMaxTailRows(
                {trial(9000, 8192, 100, 98), trial(9500, 8192, 100, 80)}, 0.03),
            0);
  // Two winners: the longer one bounds the rule.
  EXPECT_EQ(chooseMaxTailRows(
                {trial(9000, 8192, 100, 90), trial(9500, 8192, 100, 80)}, 0.03),
            1308);
  EXPECT_EQ(chooseMaxTailRows({}, 0.03), 0);
}

contract::TuningEntry entry(std::string name, int64_t lo, int64_t hi,
                            int64_t tileM, double efficiency) {
  contract::TuningEntry e;
  e.name = std::move(name);
  e.arch = "gfx950";
  e.problem.n = 4096;
  e.problem.k = 1280;
  e.mMin = lo;
  e.mMax = hi;
  e.config.tileM = tileM;
  e.config.tileN = 256;
  contract::TuningPrediction p;
  p.m = hi;
  p.sampling = "all-xcds";
  p.gridEfficiency = efficiency;
  p.workgroupsPerCu = 1;
  e.predictions = {p};
  return e;
}

TEST(RowSplit, TrialsNeedAShortLastRoundAndAnEntryForTheTail) {
  contract::TuningDatabase db;
  db.entries = {entry("small", 1, 1024, 64, 0.25),
                entry("big", 8193, 9199, 256, 0.75),
                entry("full", 9200, 12288, 256, 1.0)};
  std::vector<RowSplitTrial> trials = rowSplitTrials(db, target::kGFX950);
  ASSERT_EQ(trials.size(), 1u) << "small: one round; full: no idle CU";
  EXPECT_EQ(trials[0].entry, 1u);
  EXPECT_EQ(trials[0].tailEntry, 0u);
  EXPECT_EQ(trials[0].firstRows, 8192);
  EXPECT_EQ(trials[0].rule.workgroupsPerRound, 256);
  // Without an entry for the 1007 tail rows there is nothing to try.
  db.entries.erase(db.entries.begin());
  EXPECT_TRUE(rowSplitTrials(db, target::kGFX950).empty());
}

} // namespace
