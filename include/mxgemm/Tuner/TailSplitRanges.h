//===- TailSplitRanges.h - tail splits per M range --------------*- C++ -*-===//
//-*-===//
//
// A tail split (docs/Design.md, "Tail split") pays only where the last round
// of an entry's grid is short: its tiles cut into S segments must fit one
// round. Across an entry's M range the tail changes with every tile row, so
// mxgemm-tune cuts the range into runs of one tile-row count, simulates each
// run whose tail fits a split at its upper end, both as one launch and
// split, and gives the runs where the split is predicted faster by the
// margin their own entries (docs/Tuning.md, "Tail splits per M range").
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TUNER_TAILSPLITRANGES_H
#define MXGEMM_TUNER_TAILSPLITRANGES_H

#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Target/TargetModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace mxgemm::tuner {

/// The Ms of an entry's range with one number of tile rows: one grid.
struct TailSplitPiece {
  int64_t lo = 0, hi = 0;
  /// Tiles of the grid and those past its last whole round of CUs.
  int64_t tiles = 0, tail = 0;
  /// Segment counts worth simulating (tuner::tailSplitCounts; empty: none
  /// fits the tail in one round, or the grid has no tail).
  std::vector<int64_t> splits;
};

/// Above this M a full simulation takes minutes and the tile rows of a
/// range number hundreds: such Ms are not cut.
constexpr int64_t kTailSplitRangesMaxM = 16384;

/// The pieces of `entry`'s range, in order; empty where the entry cannot
/// take a tail split: it splits K, walks tiles (persistent), is a
/// scale-layout variant, records no prediction or one with more than one
/// workgroup per CU (a round is then not the CUs), or ends above
/// kTailSplitRangesMaxM.
std::vector<TailSplitPiece> tailSplitPieces(const contract::TuningEntry &entry,
                                            const target::TargetModel &target);

/// The name of a piece M lo..hi of `entry`: its name without a trailing
/// "_m<mMin>_<mMax>", then "_m<lo>_<hi>".
std::string pieceName(const contract::TuningEntry &entry, int64_t lo,
                      int64_t hi);

/// Cuts each entry `which` (indices into `db`) into pieces, simulates every
/// piece whose tail fits a split (workers of `executable`), and replaces the
/// entry by its runs, in place: a run of pieces whose best split is
/// predicted at least `minGain` faster than one launch becomes an entry
/// with that tail split (its prediction the split's), the others keep the
/// entry's config, row split and the predictions in their range. An entry
/// no piece of which gains stays as it is. Returns the number of full
/// simulations; every trial is printed to `log`.
uint64_t carveTailSplitRanges(contract::TuningDatabase &db,
                              llvm::ArrayRef<size_t> which,
                              const target::TargetModel &target, double minGain,
                              llvm::StringRef executable, unsigned jobs,
                              llvm::StringRef workDir, llvm::raw_ostream &log);

} // namespace mxgemm::tuner

#endif // MXGEMM_TUNER_TAILSPLITRANGES_H
