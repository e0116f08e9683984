//===- Seeds.h - the first population of mxgemm-tune ------------*- C++ -*-===//
//
// The kernel structures a search starts from, by the M it is judged at:
// decode (M <= 64: 16x16x128 MFMAs or 32-row panel tiles loaded directly,
// narrow tiles, split-K where N alone gives few workgroups), small batches
// (M <= 1024: direct tiles up to 128x128, LDS-staged and ping-pong ones)
// and large M (the case table's 128x256 and 256x256 structures). They were
// the hand-ranked candidate lists of docs/Tuning.md's bucket entries; the
// search screens them first and mutates the best. Plain data, no I/O.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TUNER_SEEDS_H
#define MXGEMM_TUNER_SEEDS_H

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Target/TargetModel.h"

#include <string>
#include <vector>

namespace mxgemm::tuner {

struct SeedStructure {
  std::string name; // "decode 16x64x256 1x4", "Q3", ...
  contract::KernelConfig config;
};

/// Split-K counts for a grid of `tiles` workgroups that leaves some of the
/// `slots` (CUs, or workgroup slots of a round) idle: the fewest segments of
/// whole K tiles (2..16, dividing K) that give at least `slots` workgroups,
/// and the fewest that give `2 * slots`, then the most that still fit in
/// `slots` (one round). Empty when `tiles >= slots`.
std::vector<int64_t> fillingSplits(int64_t k, int64_t tileK, int64_t tiles,
                                   int64_t slots);

/// K segment counts for a tail split (docs/Design.md, "Tail split") of a
/// grid whose last round holds `tails` tiles at the sampled M (each > 0):
/// the two largest counts (2..16, whole K tiles of `tileK` each) whose
/// segments of every tail fit one round of `round` workgroups, largest
/// first. Empty when a tail is 0 or no count fits.
std::vector<int64_t> tailSplitCounts(int64_t k, int64_t tileK,
                                     const std::vector<int64_t> &tails,
                                     int64_t round);

/// `config` with its last round's tiles split into `splits` (>= 2) K
/// segments (`tail_split`); the verifier decides whether it is valid.
contract::KernelConfig tailSplitVariant(contract::KernelConfig config,
                                        int64_t splits);

/// The seed structures for `problem` judged at `m`, in the order they are
/// screened (the budget truncates the tail). Only structures the problem's
/// divisibility rules can accept are listed; the verifier still prunes.
/// `panels` selects the structures that read W in 32x32x64 MFMA panels
/// rather than row-major. Split-K seeds are sized to `target`'s CU count.
std::vector<SeedStructure> seedStructures(const contract::GemmProblem &problem,
                                          int64_t m, bool panels,
                                          const target::TargetModel &target);

} // namespace mxgemm::tuner

#endif // MXGEMM_TUNER_SEEDS_H
