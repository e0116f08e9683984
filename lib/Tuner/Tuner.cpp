//===- Tuner.cpp - choose configs by search on the simulator --------------===//

#include "mxgemm/Tuner/Tuner.h"
#include "mxgemm/Tuner/Seeds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::tuner;
using contract::ErrorMessage;
using contract::KernelConfig;

std::string tuner::weightLayoutClass(const KernelConfig &config) {
  // Packed panels are laid out per MFMA step (WeightPanels.h).
  if (config.readsWeightPanels())
    return "panels:" + std::string(contract::mfmaShapeName(config.mfma));
  return "row_major";
}

ErrorMessage tuner::validateOptions(const TuneOptions &o) {
  if (ErrorMessage e = contract::validateProblem(o.problem))
    return e;
  if (o.ranges.empty())
    return std::string("no M ranges to tune");
  for (size_t i = 0; i < o.ranges.size(); ++i) {
    const MRange &r = o.ranges[i];
    if (r.lo < 1 || r.lo > r.hi || r.hi > contract::kMaxM)
      return "M range " + std::to_string(r.lo) + ".." + std::to_string(r.hi) +
             " is not within 1.." + std::to_string(contract::kMaxM);
    if (r.samples.empty())
      return "M range " + std::to_string(r.lo) + ".." + std::to_string(r.hi) +
             " has no sample M";
    for (int64_t m : r.samples)
      if (m < r.lo || m > r.hi)
        return "sample M = " + std::to_string(m) + " is outside its range " +
               std::to_string(r.lo) + ".." + std::to_string(r.hi);
    for (size_t j = 0; j < i; ++j)
      if (r.lo <= o.ranges[j].hi && o.ranges[j].lo <= r.hi)
        return "M ranges " + std::to_string(o.ranges[j].lo) + ".." +
               std::to_string(o.ranges[j].hi) + " and " + std::to_string(r.lo) +
               ".." + std::to_string(r.hi) + " overlap";
  }
  if (o.budget < 1)
    return std::string("the budget must be at least 1 candidate");
  if (o.maxMinutes < 0)
    return std::string("--max-minutes must not be negative");
  if (o.jobs < 1 || o.jobs > 64)
    return std::string("--jobs must be in 1..64");
  if (o.nativeXScales && o.baseline &&
      o.baseline->xScaleLayout != contract::mfmaScaleLayout(o.baseline->mfma))
    return "the baseline reads X scales " +
           std::string(contract::scaleLayoutName(o.baseline->xScaleLayout)) +
           ", not the MFMA-native layout every candidate reads";
  if (!o.nativeXScales && o.baseline &&
      o.baseline->xScaleLayout != contract::ScaleLayout::RowMajor)
    return std::string("the baseline reads MFMA-native X scales: search with "
                       "native X scales (--native-x-scales)");
  return std::nullopt;
}

namespace {

double infinity() { return std::numeric_limits<double>::infinity(); }

/// The screened prediction of `c` at `m` (null if there is none).
const MPrediction *screenedAt(const Candidate &c, int64_t m) {
  auto it =
      std::find_if(c.screen.predictions.begin(), c.screen.predictions.end(),
                   [&](const MPrediction &p) { return p.m == m; });
  return it == c.screen.predictions.end() ? nullptr : &*it;
}

/// Screened time of `c` summed over `ms` (infinity if not simulated).
double screenedTime(const Candidate &c, ArrayRef<int64_t> ms) {
  if (c.screen.status != EvalStatus::Simulated)
    return infinity();
  double t = 0;
  for (int64_t m : ms) {
    const MPrediction *p = screenedAt(c, m);
    if (!p)
      return infinity();
    t += p->timeUs;
  }
  return t;
}

/// Indices of `cands` ordered by `score` (lower first, then by index).
template <typename Score>
std::vector<size_t> ranked(const std::vector<Candidate> &cands, Score score) {
  std::vector<size_t> order;
  for (size_t i = 0; i < cands.size(); ++i)
    if (score(cands[i]) < infinity())
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return score(cands[a]) < score(cands[b]);
  });
  return order;
}

std::string describe(const MPrediction &p) {
  return formatv("M={0}: {1:F1} us ({2}, grid {3:F1}%)", p.m, p.timeUs,
                 p.limiter, 100 * p.gridEfficiency)
      .str();
}

} // namespace

Expected<TuneReport> tuner::tune(const TuneOptions &options,
                                 StringRef executable, StringRef workDir,
                                 raw_ostream &log) {
  if (ErrorMessage e = validateOptions(options))
    return createStringError(inconvertibleErrorCode(), *e);
  const auto start = std::chrono::steady_clock::now();
  auto minutes = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
               .count() /
           60;
  };
  const target::TargetModel &target = target::kGFX950;
  const contract::GemmProblem &problem = options.problem;
  SearchSpace space;
  if (ErrorMessage e = SearchSpace::create(options.space, space))
    return createStringError(inconvertibleErrorCode(), *e);

  std::vector<int64_t> allMs;
  for (const MRange &r : options.ranges)
    for (int64_t m : r.samples)
      if (std::find(allMs.begin(), allMs.end(), m) == allMs.end())
        allMs.push_back(m);

  TuneReport report;
  std::vector<Candidate> &cands = report.candidates;
  std::set<std::string> seen; // canonical config text
  Rng rng(options.seed);

  // The population starts from the baseline, the seeds and random points.
  std::vector<Candidate> pending;
  // The budget counts candidates; one whose code object was screened
  // already costs its compile but no simulation.
  std::vector<std::string> known; // code objects already screened
  const int64_t maxM = *std::max_element(allMs.begin(), allMs.end());
  // Tiles far taller than every sampled M compute rows that do not exist,
  // and a grid of more workgroups than this takes minutes to simulate
  // (16x16 tiles at M = 16384): both are pruned before compiling.
  constexpr int64_t kMaxSimulatedWorkgroups = 32768;
  auto gridFits = [&](const KernelConfig &c) {
    if (c.tileM > 32 && c.tileM >= 2 * maxM)
      return false;
    int64_t rows = (maxM + c.tileM - 1) / c.tileM;
    int64_t cols = (problem.n + c.tileN - 1) / c.tileN;
    return rows * cols * std::max<int64_t>(1, c.kSplits) <=
           kMaxSimulatedWorkgroups;
  };
  auto propose = [&](KernelConfig c, std::string origin, bool seed = false) {
    if (options.nativeXScales)
      c.xScaleLayout = contract::mfmaScaleLayout(c.mfma);
    if (!(seed && options.allSeeds) &&
        cands.size() + pending.size() >= options.budget)
      return false;
    if (space.prune(problem, c, target) || !gridFits(c) ||
        (!options.weightLayout.empty() &&
         weightLayoutClass(c) != options.weightLayout)) {
      ++report.mutantsPruned;
      return false;
    }
    if (!seen.insert(contract::formatConfigBody(c)).second)
      return false;
    pending.push_back({c, std::move(origin), {}, {}});
    return true;
  };
  std::vector<SeedStructure> seeds;
  {
    // Seeds for each sampled M (largest first), in the key's W layout if it
    // has one, else both layouts.
    std::vector<int64_t> ms = allMs;
    std::sort(ms.rbegin(), ms.rend());
    for (int64_t m : ms)
      for (bool panels : {false, true}) {
        std::string cls = panels
                              ? "panels:" + std::string(contract::mfmaShapeName(
                                                contract::MfmaShape::M32N32K64))
                              : "row_major";
        if (!options.weightLayout.empty() && options.weightLayout != cls)
          continue;
        for (SeedStructure &s : seedStructures(problem, m, panels, target))
          seeds.push_back(std::move(s));
      }
  }
  Point base;
  if (options.baseline) {
    base = space.pointOf(*options.baseline);
    // The baseline is screened even if the static checks would reject it:
    // it is the key's current config.
    seen.insert(contract::formatConfigBody(*options.baseline));
    pending.push_back({*options.baseline, "baseline", {}, {}});
  } else {
    // The non-structural rows (schedule, tile order) of the enumeration
    // and of the random draws: the defaults.
    base = space.pointOf(KernelConfig{});
  }
  for (const auto &[name, config] : options.extraSeeds)
    propose(config, "seed " + name, true);
  for (const SeedStructure &s : seeds)
    propose(s.config, "seed " + s.name, true);

  std::vector<Point> valid;
  report.enumerated =
      space.enumerate(base, problem, target, valid, report.enumerationPruned);
  report.enumeratedValid = valid.size();
  log << formatv("space: {0} structural configs enumerated, {1} pass the "
                 "verifier and the problem rules\n",
                 report.enumerated, valid.size());
  for (unsigned i = 0; i < options.initialRandom && !valid.empty(); ++i)
    propose(space.config(valid[rng.below(valid.size())]), "random");

  auto runScreen = [&] {
    std::vector<EvalRequest> requests;
    for (const Candidate &c : pending) {
      requests.push_back({problem, c.config, allMs, SimMode::Screen});
      requests.back().knownCodeObjects = known;
    }
    std::vector<EvalResult> results =
        evaluateInWorkers(executable, requests, options.jobs, workDir);
    for (size_t i = 0; i < pending.size(); ++i) {
      Candidate c = std::move(pending[i]);
      c.screen = std::move(results[i]);
      ++report.outcomes[c.screen.status];
      if (c.screen.status == EvalStatus::Duplicate) {
        // Same kernel as an earlier candidate: same predictions. The
        // earlier one ranks first on ties, so the copy is never chosen.
        for (const Candidate &d : cands)
          if (d.screen.codeObjectSha256 == c.screen.codeObjectSha256 &&
              d.screen.status != EvalStatus::Duplicate) {
            c.origin +=
                ", same code object as #" + std::to_string(&d - cands.data());
            EvalResult copy = d.screen;
            c.screen = std::move(copy);
            break;
          }
      } else {
        ++report.screened;
        if (!c.screen.codeObjectSha256.empty())
          known.push_back(c.screen.codeObjectSha256);
        for (const MPrediction &p : c.screen.predictions)
          if (report.targetHash.empty())
            report.targetHash = p.targetHash;
      }
      log << formatv("#{0} [{1}] {2}\n    ", cands.size(), c.origin,
                     contract::formatConfigBody(c.config));
      if (c.screen.status == EvalStatus::Simulated) {
        log << formatv("{0} VGPRs: ", c.screen.vgprCount);
        for (const MPrediction &p : c.screen.predictions)
          log << describe(p) << "; ";
      } else {
        log << evalStatusName(c.screen.status) << ": " << c.screen.message;
      }
      log << "\n";
      log.flush();
      cands.push_back(std::move(c));
    }
    pending.clear();
  };
  runScreen();

  // Generations: mutants of the best candidates at each sampled M.
  const unsigned batch = std::max(2u, options.jobs * 2);
  while (cands.size() < options.budget &&
         (options.maxMinutes == 0 || minutes() < options.maxMinutes)) {
    std::vector<size_t> parents;
    for (int64_t m : allMs) {
      int64_t one[] = {m};
      std::vector<size_t> order = ranked(
          cands, [&](const Candidate &c) { return screenedTime(c, one); });
      for (size_t i = 0; i < order.size() && i < options.elite; ++i)
        if (std::find(parents.begin(), parents.end(), order[i]) ==
            parents.end())
          parents.push_back(order[i]);
    }
    unsigned attempts = 0;
    while (pending.size() < batch &&
           cands.size() + pending.size() < options.budget && attempts < 4000) {
      ++attempts;
      if (!parents.empty() && attempts < 2000) {
        size_t p = parents[rng.below(parents.size())];
        Point child = space.mutate(space.pointOf(cands[p].config), rng);
        propose(space.config(child), "mutant of #" + std::to_string(p));
      } else if (!valid.empty()) {
        propose(space.config(valid[rng.below(valid.size())]), "random");
      }
    }
    if (pending.empty())
      break; // the reachable space is exhausted
    runScreen();
  }

  // One W layout for the key: the class whose best candidates give the
  // lowest total over the ranges.
  std::map<std::string, double> classScore;
  std::vector<std::string> classOrder;
  for (const Candidate &c : cands) {
    std::string cls = weightLayoutClass(c.config);
    if (!classScore.count(cls)) {
      classScore[cls] = 0;
      classOrder.push_back(cls);
    }
  }
  for (const std::string &cls : classOrder)
    for (const MRange &r : options.ranges) {
      double best = infinity();
      for (const Candidate &c : cands)
        if (weightLayoutClass(c.config) == cls)
          best = std::min(best, screenedTime(c, r.samples));
      classScore[cls] += best;
    }
  std::string chosenClass;
  for (const std::string &cls : classOrder)
    if (classScore[cls] < infinity() &&
        (options.weightLayout.empty() || cls == options.weightLayout) &&
        (chosenClass.empty() || classScore[cls] < classScore[chosenClass]))
      chosenClass = cls;
  if (chosenClass.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no candidate could be simulated (" +
                                 std::to_string(cands.size()) +
                                 " tried; see the log for their errors)");
  report.weightLayout = chosenClass;
  // The searched candidates of the chosen W layout, fastest screened first
  // at the samples of `r`: the parents of the tail splits and the ones
  // confirmed.
  auto rankedForRange = [&](const MRange &r) {
    return ranked(cands, [&](const Candidate &c) {
      return weightLayoutClass(c.config) == chosenClass && !c.isVariant
                 ? screenedTime(c, r.samples)
                 : infinity();
    });
  };

  // Split-K variants of the LDS-staged candidates, which the search never
  // splits (SearchSpace::prune): for each one whose grid is one round that
  // leaves workgroup slots idle at every sample of a fully simulated range,
  // the fewest K segments that give one and two workgroups per CU and that
  // fill the round and two rounds. Screened after the search, so they never
  // change what it screens; the best of each range is confirmed and serves
  // it only with a margin (below).
  auto screenedOnly = [&](const MRange &r) {
    return options.confirm == 0 ||
           (options.fullUpTo > 0 &&
            *std::max_element(r.samples.begin(), r.samples.end()) >
                options.fullUpTo);
  };
  auto splitCounts = [&](const Candidate &parent, const MRange &r) {
    std::optional<std::vector<int64_t>> common;
    for (int64_t m : r.samples) {
      const MPrediction *p = screenedAt(parent, m);
      if (!p || p->rounds != 1)
        return std::vector<int64_t>{};
      // Segments for one and two workgroups per CU, and for one and two
      // full rounds: fewer segments read fewer partials back.
      std::vector<int64_t> splits = fillingSplits(
          problem.k, parent.config.tileK, p->workgroups, target.numCus);
      for (int64_t s :
           fillingSplits(problem.k, parent.config.tileK, p->workgroups,
                         target.numCus * p->workgroupsPerCu))
        if (!llvm::is_contained(splits, s))
          splits.push_back(s);
      if (common)
        llvm::erase_if(
            splits, [&](int64_t s) { return !llvm::is_contained(*common, s); });
      common = std::move(splits);
    }
    return common.value_or(std::vector<int64_t>{});
  };
  // A variant screened after the search, unless the verifier refuses it or
  // it was a candidate already.
  auto addVariant = [&](const KernelConfig &c, const Twine &origin) {
    if (contract::verifyConfig(c, target) ||
        contract::verifyProblemConfig(problem, c) ||
        !seen.insert(contract::formatConfigBody(c)).second)
      return;
    pending.push_back({c, origin.str(), {}, {}});
    pending.back().isVariant = true;
  };
  if (options.stagedSplitMinGain >= 0) {
    const size_t parents = cands.size();
    for (const MRange &r : options.ranges)
      for (size_t i = 0; i < parents && !screenedOnly(r); ++i) {
        const Candidate &parent = cands[i];
        const KernelConfig &base = parent.config;
        if (parent.screen.status != EvalStatus::Simulated ||
            weightLayoutClass(base) != chosenClass || base.splitsK() ||
            base.persistent || !stagedThroughLds(base))
          continue;
        for (int64_t s : splitCounts(parent, r)) {
          KernelConfig c = base;
          c.kSplits = s;
          addVariant(c, formatv("k_splits {0} of #{1}", s, i));
        }
      }
    if (!pending.empty()) {
      log << formatv("screening {0} split-K variants of LDS-staged "
                     "candidates\n",
                     pending.size());
      runScreen();
    }
  }

  // Tail splits of the best screened candidates of each fully simulated
  // range: the last round's tiles split in K where every sample leaves that
  // round partly filled (one workgroup per CU, so that a round is the CUs).
  constexpr size_t kTailSplitParents = 3;
  if (options.tailSplitMinGain >= 0) {
    for (const MRange &r : options.ranges) {
      if (screenedOnly(r))
        continue;
      std::vector<size_t> order = rankedForRange(r);
      for (size_t i = 0; i < order.size() && i < kTailSplitParents; ++i) {
        const KernelConfig &base = cands[order[i]].config;
        if (base.splitsK() || base.persistent)
          continue;
        std::vector<int64_t> tails;
        for (int64_t m : r.samples)
          if (const MPrediction *p = screenedAt(cands[order[i]], m);
              p && p->workgroupsPerCu == 1)
            tails.push_back(p->workgroups % target.numCus);
        if (tails.size() != r.samples.size())
          continue;
        for (int64_t s :
             tailSplitCounts(problem.k, base.tileK, tails, target.numCus))
          addVariant(tailSplitVariant(base, s),
                     formatv("tail split {0} of #{1}", s, order[i]));
      }
    }
    if (!pending.empty()) {
      log << formatv("screening {0} tail-split variants\n", pending.size());
      runScreen();
    }
  }

  // Confirm the best per range with full simulations (and the baseline, for
  // the comparison).
  std::vector<std::pair<size_t, int64_t>> fullRuns; // (candidate, M)
  auto wantFull = [&](size_t c, int64_t m) {
    std::pair<size_t, int64_t> key{c, m};
    if (std::find(fullRuns.begin(), fullRuns.end(), key) == fullRuns.end())
      fullRuns.push_back(key);
  };
  std::vector<std::vector<size_t>> confirmed(options.ranges.size());
  for (size_t ri = 0; ri < options.ranges.size(); ++ri) {
    const MRange &r = options.ranges[ri];
    std::vector<size_t> order = rankedForRange(r);
    // --confirm 0 (or a range above --full-up-to): the screened
    // predictions decide and are recorded.
    unsigned count = screenedOnly(r) ? 1u : options.confirm;
    for (size_t i = 0; i < order.size() && i < count; ++i)
      confirmed[ri].push_back(order[i]);
    if (options.baseline && cands[0].screen.status == EvalStatus::Simulated &&
        std::find(confirmed[ri].begin(), confirmed[ri].end(), 0) ==
            confirmed[ri].end())
      confirmed[ri].push_back(0);
    // The best screened split-K variant, confirmed beside them.
    std::vector<size_t> variants = ranked(cands, [&](const Candidate &c) {
      return c.isVariant ? screenedTime(c, r.samples) : infinity();
    });
    if (!screenedOnly(r) && !variants.empty())
      confirmed[ri].push_back(variants.front());
    for (size_t c : confirmed[ri])
      for (int64_t m : r.samples)
        wantFull(c, m);
  }
  {
    // One request per (candidate, M): full simulations take minutes, so
    // they are what must run in parallel; a compile is under a second.
    std::vector<EvalRequest> requests;
    std::vector<std::pair<size_t, int64_t>> simulated;
    for (auto &[c, m] : fullRuns) {
      bool screenOnly = options.confirm == 0 ||
                        (options.fullUpTo > 0 && m > options.fullUpTo);
      if (!screenOnly) {
        requests.push_back({problem, cands[c].config, {m}, SimMode::Full});
        simulated.push_back({c, m});
        continue;
      }
      for (const MPrediction &p : cands[c].screen.predictions)
        if (p.m == m)
          cands[c].full[m] = p;
    }
    fullRuns = std::move(simulated);
    if (!fullRuns.empty())
      log << formatv("confirming with {0} full simulations\n", fullRuns.size());
    log.flush();
    std::vector<EvalResult> results =
        evaluateInWorkers(executable, requests, options.jobs, workDir);
    for (size_t i = 0; i < fullRuns.size(); ++i) {
      size_t c = fullRuns[i].first;
      if (results[i].status != EvalStatus::Simulated) {
        log << formatv("#{0} full simulation: {1}: {2}\n", c,
                       evalStatusName(results[i].status), results[i].message);
        continue;
      }
      for (MPrediction &p : results[i].predictions) {
        log << formatv("#{0} full: {1}\n", c, describe(p));
        ++report.fullSimulations;
        report.targetHash = p.targetHash;
        cands[c].full[p.m] = std::move(p);
      }
    }
  }
  auto fullTime = [&](size_t c, const MRange &r) {
    double t = 0;
    for (int64_t m : r.samples) {
      auto it = cands[c].full.find(m);
      if (it == cands[c].full.end())
        return infinity();
      t += it->second.timeUs;
    }
    return t;
  };
  for (size_t ri = 0; ri < options.ranges.size(); ++ri) {
    const MRange &r = options.ranges[ri];
    std::optional<size_t> best;
    for (size_t c : confirmed[ri]) {
      if (weightLayoutClass(cands[c].config) != chosenClass ||
          cands[c].isVariant)
        continue;
      if (fullTime(c, r) < infinity() &&
          (!best || fullTime(c, r) < fullTime(*best, r)))
        best = c;
    }
    // A split-K variant must beat the best by the margin: its second
    // launch starts after a gap the simulation leaves out (an assumption,
    // like the row splits').
    const std::optional<size_t> unsplit = best;
    for (size_t c : confirmed[ri]) {
      const double minGain = cands[c].config.tailSplit
                                 ? options.tailSplitMinGain
                                 : options.stagedSplitMinGain;
      if (cands[c].isVariant && unsplit &&
          fullTime(c, r) <= (1 - minGain) * fullTime(*unsplit, r) &&
          fullTime(c, r) < fullTime(*best, r))
        best = c;
    }
    if (!best)
      return createStringError(
          inconvertibleErrorCode(),
          "no candidate of M range " + std::to_string(r.lo) + ".." +
              std::to_string(r.hi) + " survived its full simulation");
    RangeChoice choice{r, *best, {}, {}};
    for (int64_t m : r.samples) {
      choice.predictions.push_back(cands[*best].full[m]);
      if (options.baseline && cands[0].full.count(m))
        choice.baseline.push_back(cands[0].full[m]);
    }
    report.choices.push_back(std::move(choice));
  }

  // Entries: adjacent ranges with the same config become one.
  std::vector<RangeChoice> merged;
  for (const RangeChoice &c : report.choices) {
    if (!merged.empty() && merged.back().range.hi + 1 == c.range.lo &&
        cands[merged.back().candidate].config == cands[c.candidate].config) {
      merged.back().range.hi = c.range.hi;
      merged.back().predictions.insert(merged.back().predictions.end(),
                                       c.predictions.begin(),
                                       c.predictions.end());
      continue;
    }
    merged.push_back(c);
  }
  for (const RangeChoice &c : merged) {
    contract::TuningEntry e;
    e.name = merged.size() == 1 ? options.name
             : c.range.lo == c.range.hi
                 ? formatv("{0}_m{1}", options.name, c.range.lo).str()
                 : formatv("{0}_m{1}_{2}", options.name, c.range.lo, c.range.hi)
                       .str();
    e.arch = std::string(target.chip);
    e.problem = problem;
    e.mMin = c.range.lo;
    e.mMax = c.range.hi;
    e.config = cands[c.candidate].config;
    e.note = options.note;
    e.comment = formatv(
                    "Chosen by mxgemm-tune (seed {0}, budget {1}): {2} "
                    "candidates screened with XCD 0 traced, {3} full "
                    "simulations; best of this range at M = {4} "
                    "(candidate #{5}, {6}). Figures in 'predicted' are "
                    "mxgemm-sim predictions at the sustained clock.",
                    options.seed, options.budget, report.screened,
                    report.fullSimulations,
                    [&] {
                      std::string s;
                      for (const MPrediction &p : c.predictions)
                        s += (s.empty() ? "" : ", ") + std::to_string(p.m);
                      return s;
                    }(),
                    c.candidate, cands[c.candidate].origin)
                    .str();
    for (const MPrediction &p : c.predictions)
      e.predictions.push_back(toTuningPrediction(p));
    report.entries.push_back(std::move(e));
  }
  return report;
}

contract::TuningPrediction tuner::toTuningPrediction(const MPrediction &p) {
  // Rounded so that the file reads well; the digits kept are far below
  // the simulator's error (docs/Simulator.md).
  auto round = [](double v, double scale) {
    return std::round(v * scale) / scale;
  };
  contract::TuningPrediction q;
  q.m = p.m;
  q.timeUs = round(p.timeUs, 100);
  q.tflops = round(p.tflops, 10);
  q.mfmaUtilisation = round(p.mfmaUtilisation, 10000);
  q.gridEfficiency = round(p.gridEfficiency, 10000);
  q.workgroups = p.workgroups;
  q.workgroupsPerCu = p.workgroupsPerCu;
  q.limiter = p.limiter;
  q.targetHash = p.targetHash;
  q.sampling = p.allXcds ? "all-xcds" : "xcd0-only";
  return q;
}

llvm::Error tuner::repredictEntries(contract::TuningDatabase &db,
                                    llvm::ArrayRef<std::string> names,
                                    llvm::StringRef executable, unsigned jobs,
                                    llvm::StringRef workDir,
                                    llvm::raw_ostream &log) {
  // One request per entry and sampling: the all-XCD Ms fully simulated,
  // the XCD-0 ones screened, as the search recorded them.
  struct Slot {
    size_t entry;
    bool allXcds;
  };
  std::vector<EvalRequest> requests;
  std::vector<Slot> slots;
  for (size_t i = 0; i < db.entries.size(); ++i) {
    const contract::TuningEntry &e = db.entries[i];
    if (!names.empty() && !llvm::is_contained(names, e.name))
      continue;
    for (bool allXcds : {true, false}) {
      std::vector<int64_t> ms;
      for (const contract::TuningPrediction &p : e.predictions)
        if (p.tracesAllXcds() == allXcds)
          ms.push_back(p.m);
      if (ms.empty())
        continue;
      requests.emplace_back(e.problem, e.config, std::move(ms),
                            allXcds ? SimMode::Full : SimMode::Screen);
      requests.back().kernelName = e.kernelName();
      slots.push_back({i, allXcds});
    }
  }
  std::vector<EvalResult> results =
      evaluateInWorkers(executable, requests, jobs, workDir);
  for (size_t r = 0; r < results.size(); ++r) {
    contract::TuningEntry &e = db.entries[slots[r].entry];
    if (results[r].status != EvalStatus::Simulated)
      return llvm::createStringError("entry '%s': %s: %s", e.name.c_str(),
                                     evalStatusName(results[r].status),
                                     results[r].message.c_str());
    for (const MPrediction &p : results[r].predictions)
      for (contract::TuningPrediction &q : e.predictions)
        if (q.m == p.m && q.tracesAllXcds() == slots[r].allXcds) {
          log << llvm::formatv("{0} M = {1} ({2}): {3:F2} -> {4:F2} us\n",
                               e.name, q.m, q.sampling, q.timeUs, p.timeUs);
          q = toTuningPrediction(p);
        }
  }
  return llvm::Error::success();
}
