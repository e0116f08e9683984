//===- RowSplit.cpp - choose each entry's row split by simulation ---------===//

#include "mxgemm/Tuner/RowSplit.h"
#include "mxgemm/Tuner/Evaluator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace mxgemm;
using namespace mxgemm::tuner;

namespace {
/// The row-major entry of `db` with the key of `entry` whose M range holds
/// `m` (a split's tail, like its caller, has row-major scales).
std::optional<size_t> entryFor(const contract::TuningDatabase &db,
                               const contract::TuningEntry &entry, int64_t m) {
  for (size_t i = 0; i < db.entries.size(); ++i) {
    const contract::TuningEntry &e = db.entries[i];
    if (e.arch == entry.arch && e.problem == entry.problem && e.mMin <= m &&
        m <= e.mMax && !e.isScaleLayoutVariant())
      return i;
  }
  return std::nullopt;
}
} // namespace

std::vector<RowSplitTrial>
tuner::rowSplitTrials(const contract::TuningDatabase &db,
                      const target::TargetModel &target, double maxEfficiency) {
  std::vector<RowSplitTrial> trials;
  for (size_t i = 0; i < db.entries.size(); ++i) {
    const contract::TuningEntry &e = db.entries[i];
    // The first launch of a split must not split K (the rule's contract);
    // scale-layout variants are never split (TuningDatabase's rule).
    if (e.config.splitsK() || e.isScaleLayoutVariant())
      continue;
    for (const contract::TuningPrediction &p : e.predictions) {
      if (p.sampling != "all-xcds" || p.gridEfficiency >= maxEfficiency)
        continue;
      RowSplitTrial t;
      t.entry = i;
      t.m = p.m;
      t.rule.workgroupsPerRound = target.numCus * p.workgroupsPerCu;
      t.rule.maxTailRows = p.m / 2;
      t.firstRows =
          t.rule.firstRows(p.m, e.config.programTileM(),
                           llvm::divideCeil(e.problem.n, e.config.tileN));
      if (!t.firstRows)
        continue;
      std::optional<size_t> tail = entryFor(db, e, t.tailRows());
      if (!tail || *tail == i)
        continue;
      t.tailEntry = *tail;
      trials.push_back(t);
    }
  }
  return trials;
}

int64_t tuner::chooseMaxTailRows(llvm::ArrayRef<RowSplitTrial> trials,
                                 double minGain) {
  std::vector<RowSplitTrial> sorted(trials.begin(), trials.end());
  llvm::sort(sorted, [](const RowSplitTrial &a, const RowSplitTrial &b) {
    return a.tailRows() < b.tailRows();
  });
  // Shortest tails first: a tail is kept only if it and every shorter one
  // gained, so the rule never covers a tail found slower split.
  int64_t maxTail = 0;
  for (const RowSplitTrial &t : sorted) {
    if (!(t.splitUs() <= (1 - minGain) * t.oneLaunchUs))
      break;
    maxTail = t.tailRows();
  }
  return maxTail;
}

uint64_t tuner::tuneRowSplits(contract::TuningDatabase &db,
                              const target::TargetModel &target, double minGain,
                              llvm::StringRef executable, unsigned jobs,
                              llvm::StringRef workDir, llvm::raw_ostream &log) {
  std::vector<RowSplitTrial> trials = rowSplitTrials(db, target);
  // One full simulation per distinct (entry, M), in a fixed order.
  std::map<std::pair<size_t, int64_t>, size_t> index;
  std::vector<EvalRequest> requests;
  auto request = [&](size_t entry, int64_t m) {
    auto [it, fresh] = index.insert({{entry, m}, requests.size()});
    if (fresh) {
      const contract::TuningEntry &e = db.entries[entry];
      requests.emplace_back(e.problem, e.config, std::vector<int64_t>{m},
                            SimMode::Full);
    }
  };
  for (const RowSplitTrial &t : trials) {
    request(t.entry, t.m);
    request(t.entry, t.firstRows);
    request(t.tailEntry, t.tailRows());
  }
  std::vector<EvalResult> results =
      evaluateInWorkers(executable, requests, jobs, workDir);
  auto timeOf = [&](size_t entry, int64_t m) -> double {
    const EvalResult &r = results[index.at({entry, m})];
    return r.status == EvalStatus::Simulated && r.predictions.size() == 1
               ? r.predictions.front().timeUs
               : 0;
  };
  std::map<size_t, std::vector<RowSplitTrial>> byEntry;
  for (RowSplitTrial &t : trials) {
    t.oneLaunchUs = timeOf(t.entry, t.m);
    t.firstUs = timeOf(t.entry, t.firstRows);
    t.tailUs = timeOf(t.tailEntry, t.tailRows());
    log << llvm::formatv(
        "row split {0} M = {1}: one launch {2:F2} us; {3} rows {4:F2} + {5} "
        "rows by {6} {7:F2} = {8:F2} us ({9:+0.0;-0.0}%)\n",
        db.entries[t.entry].name, t.m, t.oneLaunchUs, t.firstRows, t.firstUs,
        t.tailRows(), db.entries[t.tailEntry].name, t.tailUs, t.splitUs(),
        100 * (t.splitUs() / t.oneLaunchUs - 1));
    // A failed simulation never makes a split look faster.
    if (t.oneLaunchUs > 0 && t.firstUs > 0 && t.tailUs > 0)
      byEntry[t.entry].push_back(t);
  }
  for (size_t i = 0; i < db.entries.size(); ++i) {
    contract::RowSplit &rule = db.entries[i].rowSplit;
    rule = contract::RowSplit();
    auto it = byEntry.find(i);
    if (it == byEntry.end())
      continue;
    if (int64_t maxTail = chooseMaxTailRows(it->second, minGain)) {
      rule.workgroupsPerRound = it->second.front().rule.workgroupsPerRound;
      rule.maxTailRows = maxTail;
      log << llvm::formatv("row split {0}: tails up to {1} rows\n",
                           db.entries[i].name, maxTail);
    }
  }
  return requests.size();
}
