//===- SearchSpace.cpp - the config space mxgemm-tune searches ------------===//

#include "mxgemm/Tuner/SearchSpace.h"

#include <algorithm>
#include <charconv>

using namespace mxgemm;
using namespace mxgemm::tuner;
using contract::ErrorMessage;
using contract::KernelConfig;

std::vector<SpaceAxis> tuner::defaultSearchSpace() {
  // Values outside these lists are either rejected by the gfx950 verifier
  // for every case-table shape (tiles of 512 overflow the accumulators) or
  // are not implemented (stage_x = packed_registers). Tiles of 16 and 32
  // rows or columns and K tiles of 384 and 512 serve small M (decode);
  // k_splits needs direct loads of X (W direct or from MFMA panels; a rule
  // of the search, prune(), whose staged splits tune() tries after it) and
  // K divisible by k_splits x tile_k (the problem rules).
  return {
      {"tile_m", {"16", "32", "64", "128", "256"}},
      {"tile_n", {"16", "32", "64", "128", "256"}},
      {"tile_k", {"64", "128", "256", "384", "512"}},
      {"waves_m", {"1", "2", "4"}},
      {"waves_n", {"1", "2", "4"}},
      {"mfma", {"m32n32k64", "m16n16k128"}},
      {"stage_x", {"lds_async", "direct"}},
      {"stage_w", {"packed_registers", "lds_async", "direct"}},
      {"stages", {"1", "2", "3"}},
      {"lds_layout", {"plain", "padded", "xor"}},
      {"split", {"1", "2"}},
      {"k_splits", {"1", "2", "4", "8"}},
      {"schedule", {"interleave", "default", "pingpong", "loads_first"}, false},
      {"group_m", {"4", "8", "16"}, false},
      {"group_n", {"0", "4", "8"}, false},
      {"xcd_remap", {"true", "false"}, false},
      {"waves_per_eu", {"0", "1", "2"}, false},
  };
}

uint64_t Rng::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::below(uint64_t bound) {
  // Rejection sampling: no modulo bias, so the sequence is exactly uniform.
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t v;
  do
    v = next();
  while (v >= limit);
  return v % bound;
}

const char *tuner::pruneReasonName(PruneReason reason) {
  switch (reason) {
  case PruneReason::Config:
    return "config verifier";
  case PruneReason::Problem:
    return "problem rules";
  case PruneReason::Layout:
    return "W layout";
  case PruneReason::Grid:
    return "grid size";
  }
  return "?";
}

/// Sets field `field` of `config` from its text form.
static ErrorMessage setField(KernelConfig &config, int field,
                             const std::string &text) {
  if (contract::configFieldKind(field) != contract::ConfigFieldKind::Integer)
    return contract::setConfigKeyword(config, field, text);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    return "'" + text + "' is not an integer";
  return contract::setConfigInteger(config, field, v);
}

ErrorMessage SearchSpace::create(std::vector<SpaceAxis> axes,
                                 SearchSpace &out) {
  SearchSpace s;
  for (const SpaceAxis &a : axes) {
    int f = contract::findConfigField(a.field);
    if (f < 0)
      return "search space: no config field named '" + a.field + "'";
    for (const SpaceAxis &b : s.table)
      if (b.field == a.field)
        return "search space: field '" + a.field + "' appears twice";
    if (a.values.empty() || a.values.size() > 255)
      return "search space: field '" + a.field + "' needs 1..255 values";
    for (const std::string &v : a.values) {
      KernelConfig c;
      if (ErrorMessage e = setField(c, f, v))
        return "search space: field '" + a.field + "': " + *e;
    }
    s.table.push_back(a);
    s.fields.push_back(f);
  }
  out = std::move(s);
  return std::nullopt;
}

KernelConfig SearchSpace::config(const Point &point) const {
  KernelConfig c;
  for (size_t i = 0; i < table.size(); ++i)
    (void)setField(c, fields[i], table[i].values[point[i]]);
  return c;
}

Point SearchSpace::pointOf(const KernelConfig &config) {
  Point p(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    std::string v = contract::configFieldValue(config, fields[i]);
    auto &values = table[i].values;
    auto it = std::find(values.begin(), values.end(), v);
    if (it == values.end() && values.size() < 255)
      it = values.insert(values.end(), v);
    p[i] = uint8_t(it - values.begin());
  }
  return p;
}

bool tuner::stagedThroughLds(const contract::KernelConfig &config) {
  auto staged = [](contract::Staging s) {
    return s == contract::Staging::LdsAsync || s == contract::Staging::LdsSync;
  };
  return staged(config.stageX) || staged(config.stageW);
}

std::optional<PruneReason>
SearchSpace::prune(const contract::GemmProblem &problem,
                   const KernelConfig &config,
                   const target::TargetModel &target) const {
  if (contract::verifyConfig(config, target))
    return PruneReason::Config;
  // A rule of the search, not of the compiler: split-K only with direct
  // loads (X direct, W direct or from panels). The compiler splits LDS-staged
  // kernels too, but as seeds they moved the budget-16 search off two better
  // entries; tune() tries them after the search instead, as variants of the
  // staged candidates (docs/Tuning.md, "Split-K variants of LDS-staged
  // kernels").
  if (config.splitsK() && stagedThroughLds(config))
    return PruneReason::Config;
  if (contract::verifyProblemConfig(problem, config))
    return PruneReason::Problem;
  return std::nullopt;
}

uint64_t SearchSpace::enumerate(const Point &base,
                                const contract::GemmProblem &problem,
                                const target::TargetModel &target,
                                std::vector<Point> &valid,
                                std::map<PruneReason, uint64_t> &pruned) const {
  Point p = base;
  std::vector<size_t> structural;
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].structural) {
      structural.push_back(i);
      p[i] = 0;
    }
  uint64_t count = 0;
  while (true) {
    ++count;
    if (std::optional<PruneReason> r = prune(problem, config(p), target))
      ++pruned[*r];
    else
      valid.push_back(p);
    // Odometer over the structural axes, last axis fastest.
    size_t k = structural.size();
    while (k > 0) {
      size_t i = structural[k - 1];
      if (++p[i] < table[i].values.size())
        break;
      p[i] = 0;
      --k;
    }
    if (k == 0)
      return count;
  }
}

Point SearchSpace::mutate(const Point &parent, Rng &rng) const {
  Point child = parent;
  // Axes with a choice; one or two distinct ones change.
  std::vector<size_t> free;
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].values.size() > 1)
      free.push_back(i);
  unsigned changes =
      std::min<unsigned>(1 + unsigned(rng.below(2)), unsigned(free.size()));
  for (unsigned c = 0; c < changes; ++c) {
    size_t pick = size_t(rng.below(free.size()));
    size_t i = free[pick];
    free.erase(free.begin() + pick);
    // Another value of the axis, uniformly.
    size_t n = table[i].values.size();
    uint8_t v = uint8_t(rng.below(n - 1));
    child[i] = v >= parent[i] ? uint8_t(v + 1) : v;
  }
  return child;
}
