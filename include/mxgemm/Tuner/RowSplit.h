//===- RowSplit.h - choose each entry's row split by simulation -*- C++ -*-===//
//
// After the search, mxgemm-tune decides for every entry whether a call
// whose last round of workgroups is short should run as two launches
// (contract::RowSplit): the entry on the rows that fill whole rounds, the
// key's entry for the remaining rows on those. Each trial is three full
// simulations (the one launch, and each part); the rule keeps the longest
// tail below which every trial gained (docs/Tuning.md, "Row splits").
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TUNER_ROWSPLIT_H
#define MXGEMM_TUNER_ROWSPLIT_H

#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Target/TargetModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mxgemm::tuner {

/// One M of an entry tried with a row split.
struct RowSplitTrial {
  size_t entry = 0;     // index in the database
  size_t tailEntry = 0; // the key's entry for the tail rows
  int64_t m = 0, firstRows = 0;
  contract::RowSplit rule; // maxTailRows = M / 2 while trying
  /// PREDICTIONS (full simulations, sustained clock).
  double oneLaunchUs = 0, firstUs = 0, tailUs = 0;

  int64_t tailRows() const { return m - firstRows; }
  double splitUs() const { return firstUs + tailUs; }
};

/// The Ms worth trying: each prediction of an entry simulated on every XCD
/// whose grid efficiency is below `maxEfficiency`, where the entry's rows
/// in whole rounds leave a tail of at most M / 2 rows that another entry
/// of the key serves. Times are left 0.
std::vector<RowSplitTrial> rowSplitTrials(const contract::TuningDatabase &db,
                                          const target::TargetModel &target,
                                          double maxEfficiency = 0.95);

/// The longest tail below which every trial of one entry was faster split
/// by at least `minGain` (a fraction of the one launch), or 0 if none was.
int64_t chooseMaxTailRows(llvm::ArrayRef<RowSplitTrial> trials, double minGain);

/// Simulates the trials (workers of `executable`), sets the row split of
/// every entry that gains, clears it on the others, and prints each trial
/// to `log`. Returns the number of full simulations.
uint64_t tuneRowSplits(contract::TuningDatabase &db,
                       const target::TargetModel &target, double minGain,
                       llvm::StringRef executable, unsigned jobs,
                       llvm::StringRef workDir, llvm::raw_ostream &log);

} // namespace mxgemm::tuner

#endif // MXGEMM_TUNER_ROWSPLIT_H
