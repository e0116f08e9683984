//===- SearchSpace.h - the config space mxgemm-tune searches ----*- C++ -*-===//
//
// The space is a table: one axis per config field, each with the values to
// try, written as the text the contract's field table reads ("128",
// "lds_async", "true"). A new config field joins the search by adding one
// row (docs/Tuning.md). A candidate is one value index per axis; the
// contract's verifier and problem rules prune candidates before anything is
// compiled, and the counts of each pruning reason are kept for the report.
// No MLIR, no LLVM: everything here is plain data and deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TUNER_SEARCHSPACE_H
#define MXGEMM_TUNER_SEARCHSPACE_H

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxgemm::tuner {

/// One row of the table: a config field and the values tried for it.
struct SpaceAxis {
  std::string field;
  std::vector<std::string> values;
  /// Structural axes change the kernel's shape (tiles, waves, staging) and
  /// are enumerated; the others (tile order, schedule, register budget) are
  /// reached by mutation from the best candidates.
  bool structural = true;
};

/// The default table: every value the gfx950 verifier can accept for the
/// case-table shapes and their decode and small-batch buckets, except
/// `split` above 2, `k_splits` above 8 and waves_per_eu above 2.
std::vector<SpaceAxis> defaultSearchSpace();

/// Small deterministic generator (SplitMix64): the same seed gives the same
/// sequence on every platform, unlike std::uniform_int_distribution.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, bound) (bound > 0).
  uint64_t below(uint64_t bound);

private:
  uint64_t state;
};

/// Why a candidate was not compiled.
enum class PruneReason : uint8_t {
  Config,  // contract::verifyConfig (ranges, waves, LDS, accumulators)
  Problem, // contract::verifyProblemConfig (N, K divisibility)
  Layout,  // reads W in another layout than the key's entries
  Grid,    // tiles far taller than M, or too many workgroups to simulate
};
const char *pruneReasonName(PruneReason reason);

/// X or W staged through LDS (lds_async, lds_sync): the structures the
/// search never splits along K (SearchSpace::prune).
bool stagedThroughLds(const contract::KernelConfig &config);

/// A point of the space: one value index per axis.
using Point = std::vector<uint8_t>;

class SearchSpace {
public:
  /// Fails (message) if a field is unknown or a value does not parse.
  static contract::ErrorMessage create(std::vector<SpaceAxis> axes,
                                       SearchSpace &out);

  const std::vector<SpaceAxis> &axes() const { return table; }
  /// The config of `point`, starting from the defaults.
  contract::KernelConfig config(const Point &point) const;
  /// The point of `config`, adding a value to an axis that lacks it (so a
  /// baseline outside the table can still be mutated from).
  Point pointOf(const contract::KernelConfig &config);
  /// The reason `config` is rejected for `problem`, or nothing.
  std::optional<PruneReason> prune(const contract::GemmProblem &problem,
                                   const contract::KernelConfig &config,
                                   const target::TargetModel &target) const;

  /// Every structural point (non-structural axes at `base`'s values), in
  /// table order, with the ones that pass `prune` in `valid`. Returns the
  /// number enumerated and counts the pruned ones by reason.
  uint64_t enumerate(const Point &base, const contract::GemmProblem &problem,
                     const target::TargetModel &target,
                     std::vector<Point> &valid,
                     std::map<PruneReason, uint64_t> &pruned) const;

  /// `parent` with one or two axes (chosen by `rng`) set to another value.
  Point mutate(const Point &parent, Rng &rng) const;

private:
  std::vector<SpaceAxis> table;
  std::vector<int> fields; // contract field index of each axis
};

} // namespace mxgemm::tuner

#endif // MXGEMM_TUNER_SEARCHSPACE_H
