//===- TailSplitRanges.cpp - tail splits per M range, by simulation -------===//

#include "mxgemm/Tuner/TailSplitRanges.h"
#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Contract/TileGrouping.h"
#include "mxgemm/Tuner/Evaluator.h"
#include "mxgemm/Tuner/Seeds.h"
#include "mxgemm/Tuner/Tuner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mxgemm;
using namespace mxgemm::tuner;

std::vector<TailSplitPiece>
tuner::tailSplitPieces(const contract::TuningEntry &entry,
                       const target::TargetModel &target) {
  const contract::KernelConfig &c = entry.config;
  std::vector<TailSplitPiece> out;
  if (c.splitsK() || c.persistent || entry.isScaleLayoutVariant() ||
      entry.predictions.empty() || entry.mMax > kTailSplitRangesMaxM ||
      llvm::any_of(entry.predictions, [](const contract::TuningPrediction &p) {
        return p.workgroupsPerCu != 1;
      }))
    return out;
  const contract::TileGrid grid =
      contract::TileGrid::of(c, entry.problem.n, target);
  const int64_t rows = c.programTileM();
  for (int64_t lo = entry.mMin; lo <= entry.mMax;) {
    TailSplitPiece p;
    p.lo = lo;
    p.hi = std::min<int64_t>(entry.mMax, llvm::divideCeil(lo, rows) * rows);
    lo = p.hi + 1;
    std::optional<int64_t> tiles = grid.numTiles(p.hi);
    if (!tiles)
      return {};
    p.tiles = *tiles;
    p.tail = p.tiles % target.numCus;
    if (p.tail)
      p.splits =
          tailSplitCounts(entry.problem.k, c.tileK, {p.tail}, target.numCus);
    out.push_back(std::move(p));
  }
  return out;
}

std::string tuner::pieceName(const contract::TuningEntry &entry, int64_t lo,
                             int64_t hi) {
  llvm::StringRef base(entry.name);
  base.consume_back(llvm::formatv("_m{0}_{1}", entry.mMin, entry.mMax).str());
  return llvm::formatv("{0}_m{1}_{2}", base, lo, hi).str();
}

namespace {
/// A piece's outcome: 1 (one launch) or the segments of its tail split.
struct Decision {
  int64_t splits = 1;
  std::optional<MPrediction> prediction; // the split's, when it won
};
} // namespace

uint64_t tuner::carveTailSplitRanges(contract::TuningDatabase &db,
                                     llvm::ArrayRef<size_t> which,
                                     const target::TargetModel &target,
                                     double minGain, llvm::StringRef executable,
                                     unsigned jobs, llvm::StringRef workDir,
                                     llvm::raw_ostream &log) {
  // Every simulation of every entry in one batch, so both workers stay
  // busy: (entry, piece, segments) -> request; 1 segment is the one launch.
  std::map<size_t, std::vector<TailSplitPiece>> pieces;
  std::map<std::tuple<size_t, size_t, int64_t>, size_t> index;
  std::vector<EvalRequest> requests;
  for (size_t e : which) {
    const contract::TuningEntry &entry = db.entries[e];
    std::vector<TailSplitPiece> ps = tailSplitPieces(entry, target);
    for (size_t p = 0; p < ps.size(); ++p) {
      // The one launch, then each split the verifier accepts.
      std::vector<std::pair<int64_t, contract::KernelConfig>> configs;
      for (int64_t s : ps[p].splits) {
        contract::KernelConfig c = tailSplitVariant(entry.config, s);
        if (!contract::verifyConfig(c, target) &&
            !contract::verifyProblemConfig(entry.problem, c))
          configs.push_back({s, c});
      }
      ps[p].splits.clear();
      if (configs.empty())
        continue;
      configs.insert(configs.begin(), {1, entry.config});
      for (auto &[s, c] : configs) {
        if (s > 1)
          ps[p].splits.push_back(s);
        index[{e, p, s}] = requests.size();
        requests.emplace_back(entry.problem, c, std::vector<int64_t>{ps[p].hi},
                              SimMode::Full);
      }
    }
    pieces[e] = std::move(ps);
  }
  std::vector<EvalResult> results =
      evaluateInWorkers(executable, requests, jobs, workDir);
  auto predictionOf = [&](size_t e, size_t p,
                          int64_t s) -> std::optional<MPrediction> {
    const EvalResult &r = results[index.at({e, p, s})];
    if (r.status != EvalStatus::Simulated || r.predictions.size() != 1)
      return std::nullopt;
    return r.predictions.front();
  };

  // Decide every piece, then replace the entries from the last one back so
  // that the indices of `which` stay valid.
  std::vector<size_t> order(which.begin(), which.end());
  llvm::sort(order);
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (size_t e : llvm::reverse(order)) {
    const contract::TuningEntry entry = db.entries[e];
    const std::vector<TailSplitPiece> &ps = pieces[e];
    std::vector<Decision> decisions(ps.size());
    bool anySplit = false;
    for (size_t p = 0; p < ps.size(); ++p) {
      if (ps[p].splits.empty())
        continue;
      std::optional<MPrediction> one = predictionOf(e, p, 1);
      std::string line =
          llvm::formatv("tail split {0} M = {1} ({2} tiles, "
                        "tail {3}): one launch ",
                        entry.name, ps[p].hi, ps[p].tiles, ps[p].tail);
      line += one ? llvm::formatv("{0:F2} us", one->timeUs).str() : "failed";
      for (int64_t s : ps[p].splits) {
        std::optional<MPrediction> split = predictionOf(e, p, s);
        line +=
            split ? llvm::formatv("; {0} segments {1:F2} us", s, split->timeUs)
                        .str()
                  : llvm::formatv("; {0} segments failed", s).str();
        // A failed simulation never makes a split look faster.
        if (one && split && split->timeUs <= (1 - minGain) * one->timeUs &&
            (!decisions[p].prediction ||
             split->timeUs < decisions[p].prediction->timeUs)) {
          decisions[p].splits = s;
          decisions[p].prediction = split;
        }
      }
      if (decisions[p].splits > 1) {
        anySplit = true;
        line += llvm::formatv(
            " -> {0} segments ({1:+0.0;-0.0}%)", decisions[p].splits,
            100 * (decisions[p].prediction->timeUs / one->timeUs - 1));
      }
      log << line << "\n";
    }
    if (!anySplit)
      continue;
    // Runs of pieces with the same decision become one entry each.
    std::vector<contract::TuningEntry> runs;
    for (size_t p = 0; p < ps.size(); ++p) {
      const Decision &d = decisions[p];
      const bool extends = p > 0 && decisions[p - 1].splits == d.splits;
      if (!extends) {
        contract::TuningEntry run = entry;
        run.mMin = ps[p].lo;
        run.predictions.clear();
        if (d.splits > 1) {
          run.config = tailSplitVariant(entry.config, d.splits);
          run.rowSplit = contract::RowSplit();
          run.comment = llvm::formatv(
              "{0} Tail split by mxgemm-tune (docs/Tuning.md, \"Tail splits "
              "per M range\"): {1} segments of the last round's tiles, "
              "predicted at least {2:F0}% faster than one launch.",
              entry.comment, d.splits, 100 * minGain);
        }
        runs.push_back(std::move(run));
      }
      contract::TuningEntry &run = runs.back();
      run.mMax = ps[p].hi;
      if (d.prediction)
        run.predictions.push_back(toTuningPrediction(*d.prediction));
    }
    for (contract::TuningEntry &run : runs) {
      run.name = pieceName(entry, run.mMin, run.mMax);
      if (run.config.tailSplit)
        continue;
      for (const contract::TuningPrediction &q : entry.predictions)
        if (run.mMin <= q.m && q.m <= run.mMax)
          run.predictions.push_back(q);
    }
    db.entries.erase(db.entries.begin() + e);
    db.entries.insert(db.entries.begin() + e, runs.begin(), runs.end());
  }
  return requests.size();
}
