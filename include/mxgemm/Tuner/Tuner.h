//===- Tuner.h - choose configs by search on the simulator ------*- C++ -*-===//
//
// mxgemm-tune's search for one key (N, K, formats, weight-scale kind, out
// type) over M ranges: a first population (the key's current config, a few
// seed structures and random points of the space), then generations of
// mutants of the best candidates at each sampled M, each screened by the
// simulator (XCD 0 traced); the best few per range are confirmed with a
// full simulation (with the best split-K variant of the LDS-staged ones,
// which the search never splits), and the best confirmed one serves the
// range. Every
// candidate of one key reads W in one layout (one packed tensor serves
// every M of a key). The same options and seed give the same result:
// nothing depends on which worker finishes first (docs/Tuning.md).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TUNER_TUNER_H
#define MXGEMM_TUNER_TUNER_H

#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Tuner/Evaluator.h"
#include "mxgemm/Tuner/SearchSpace.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxgemm::tuner {

/// An M range served by one entry, simulated at `samples` (in the range).
struct MRange {
  int64_t lo = 0, hi = 0;
  std::vector<int64_t> samples;
};

struct TuneOptions {
  contract::GemmProblem problem;
  /// Entry name (one range) or prefix ("<name>_m<lo>_<hi>").
  std::string name;
  std::string note; // copied into every entry
  std::vector<MRange> ranges;
  /// The key's current config: always screened and confirmed, so the
  /// report can compare old and new with the same simulation.
  std::optional<contract::KernelConfig> baseline;
  /// Candidates per key (baseline and seeds included); one that compiles
  /// to a code object already screened costs its compile, no simulation.
  uint64_t budget = 24;
  /// Wall-clock limit in minutes (0: none). Stops before the next batch;
  /// the output then depends on the machine's speed.
  double maxMinutes = 0;
  uint64_t seed = 1;
  unsigned jobs = 2;
  /// Best screened candidates per range confirmed by a full simulation
  /// (0: none; the screened predictions decide and are recorded).
  unsigned confirm = 2;
  /// Random points of the space in the first population.
  unsigned initialRandom = 4;
  /// Screen every seed structure even beyond the budget (the budget then
  /// adds random points and mutants only where it exceeds the seeds).
  bool allSeeds = false;
  /// Ranges whose largest sample M is above this are decided by the
  /// screened predictions, without full simulations (0: no limit).
  int64_t fullUpTo = 0;
  /// W layout class every candidate must read ("row_major",
  /// "panels:m32n32k64"; empty: the search chooses one for the key).
  std::string weightLayout;
  /// Every candidate reads X scales in its MFMA's native layout (the
  /// search of a scale-layout variant, contract::TuningEntry); false: the
  /// row-major default.
  bool nativeXScales = false;
  /// More seed structures, screened after the baseline (e.g. the
  /// heuristic's pick and the key's large-M config).
  std::vector<std::pair<std::string, contract::KernelConfig>> extraSeeds;
  /// Split-K variants of the LDS-staged candidates (screened after the
  /// search; the best per fully simulated range confirmed) serve a range
  /// only when this fraction faster than its best confirmed candidate
  /// (negative: not tried). The default stands for the gap before the
  /// second launch, which the simulation leaves out.
  double stagedSplitMinGain = 0.03;
  /// Tail-split variants (docs/Design.md, "Tail split") of the best
  /// screened candidates of each fully simulated range that run one
  /// workgroup per CU and leave a partly filled last round at every sample:
  /// screened after the search like the staged splits, and chosen with
  /// this margin over the range's best confirmed candidate (negative: not
  /// tried, the default, so that the committed database's command writes
  /// the same file).
  double tailSplitMinGain = -1;
  /// Parents of each generation: the best `elite` at each sampled M.
  unsigned elite = 3;
  std::vector<SpaceAxis> space = defaultSearchSpace();
};

struct Candidate {
  contract::KernelConfig config;
  std::string origin; // "baseline", "seed E128", "random", "mutant of #3"
  EvalResult screen;
  /// Full simulations by M (confirmed candidates only).
  std::map<int64_t, MPrediction> full;
  /// A split-K variant of an LDS-staged candidate or a tail split,
  /// screened after the search and chosen only with its margin
  /// (TuneOptions::stagedSplitMinGain, tailSplitMinGain).
  bool isVariant = false;
};

struct RangeChoice {
  MRange range;
  size_t candidate = 0;
  std::vector<MPrediction> predictions; // full, one per sample
  std::vector<MPrediction> baseline;    // full, when there is a baseline
};

struct TuneReport {
  uint64_t enumerated = 0, enumeratedValid = 0;
  std::map<PruneReason, uint64_t> enumerationPruned;
  /// Mutants and random draws the static checks rejected (not compiled).
  uint64_t mutantsPruned = 0;
  uint64_t screened = 0, fullSimulations = 0;
  std::map<EvalStatus, uint64_t> outcomes;
  std::string weightLayout;
  std::vector<Candidate> candidates;
  std::vector<RangeChoice> choices;
  std::vector<contract::TuningEntry> entries;
  std::string targetHash;
};

/// The W layout class of a config: "row_major" or "panels:<mfma>".
std::string weightLayoutClass(const contract::KernelConfig &config);

/// Checks the options (problem, ranges, budget); the message says what is
/// wrong.
contract::ErrorMessage validateOptions(const TuneOptions &options);

/// Runs the search. `executable` is the tool (its `--worker` mode),
/// `workDir` an existing directory for the workers' files; progress goes to
/// `log`.
llvm::Expected<TuneReport> tune(const TuneOptions &options,
                                llvm::StringRef executable,
                                llvm::StringRef workDir,
                                llvm::raw_ostream &log);

/// `p` as the database records it: times to 0.01 us, TFLOPS to 0.1,
/// fractions to 1e-4 (far below the simulator's error), and the sampling
/// ("all-xcds" or "xcd0-only").
contract::TuningPrediction toTuningPrediction(const MPrediction &p);

/// Simulates every selected entry of `db` (all when `names` is empty) in
/// its own config at each M it records a prediction for, with the same
/// sampling, and replaces those predictions; configs, ranges and row splits
/// stay. For a database whose figures come from an older simulator.
/// Errors name the entry that failed to compile or simulate.
llvm::Error repredictEntries(contract::TuningDatabase &db,
                             llvm::ArrayRef<std::string> names,
                             llvm::StringRef executable, unsigned jobs,
                             llvm::StringRef workDir, llvm::raw_ostream &log);

} // namespace mxgemm::tuner

#endif // MXGEMM_TUNER_TUNER_H
