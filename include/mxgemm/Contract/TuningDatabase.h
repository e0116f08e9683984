//===- TuningDatabase.h - the tuning database format ------------*- C++ -*-===//
//
// The tuning database (tuning/gfx950.json; docs/Tuning.md) maps a dispatch
// key (arch, N, K, formats, weight-scale granularity, output type) and an M
// range to a kernel config. This is its one reader: the build compiles every
// entry from it (mxgemm-compile --tuning-db), the runtime reads the embedded
// copy to dispatch, and every rule (schema, names, ranges, overlapping M
// ranges, one W layout per key, configs the verifier accepts) is checked
// here, so a database that passes never fails later. Scale-layout
// variants (TuningEntry::isScaleLayoutVariant) are the one exception to
// "M ranges of a key do not overlap": one may repeat exactly the range of
// an entry that reads other scale layouts.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_TUNINGDATABASE_H
#define MXGEMM_CONTRACT_TUNINGDATABASE_H

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include <string>
#include <string_view>
#include <vector>

namespace mxgemm::contract {

/// A prediction recorded with an entry (mxgemm-tune writes them): the
/// timing simulator's figures at one M of the entry's range, at the
/// sustained clock, with the hash of the target table they came from. Never
/// a measurement; the runtime does not read them.
struct TuningPrediction {
  int64_t m = 0;
  double timeUs = 0, tflops = 0, mfmaUtilisation = 0;
  /// workgroups / (rounds x CUs x workgroups per CU).
  double gridEfficiency = 0;
  int64_t workgroups = 0, workgroupsPerCu = 0;
  std::string limiter, targetHash;
  /// "all-xcds" (what `mxgemm-sim --m M` predicts) or "xcd0-only" (its
  /// --xcd0-only: faster, the other XCDs' MALL traffic taken equal).
  std::string sampling = "all-xcds";

  /// Every XCD traced (a full simulation), not XCD 0 only.
  bool tracesAllXcds() const { return sampling == "all-xcds"; }
};

/// A row split (docs/Runtime.md, "Row split"): a call whose last round of
/// workgroups would be short runs in two launches. The entry's kernel takes
/// rows [0, M1), where M1 is the largest row count below M whose grid is
/// r rounds of `workgroupsPerRound` workgroups, rounded down to whole tile
/// rows (M1 = floor(r * workgroupsPerRound / numTilesN) * programTileM);
/// the key's entry for M - M1 takes the other rows. Only when
/// 0 < M - M1 <= maxTailRows: mxgemm-tune sets it to the longest tail its
/// simulations found faster split, so longer tails stay one launch.
struct RowSplit {
  int64_t workgroupsPerRound = 0; // CUs x workgroups per CU
  int64_t maxTailRows = 0;

  /// M1 for a call of `m` rows, or 0 when the call stays one launch.
  /// Exact in int64 for every M, tile and column count the contract admits.
  int64_t firstRows(int64_t m, int64_t programTileM, int64_t numTilesN) const;
};

/// One entry: a key, an M range and the config that serves it.
struct TuningEntry {
  std::string name;    // [a-z][a-z0-9_]{0,47}, unique
  std::string comment; // why this config (free text)
  std::string note;    // shown in plans (e.g. the case-table plan)
  std::string arch;    // "gfx950"
  GemmProblem problem;
  int64_t mMin = 0, mMax = 0;
  KernelConfig config;
  /// Optional `predicted` figures, in the order of the file.
  std::vector<TuningPrediction> predictions;
  /// Optional `row_split`; absent (workgroupsPerRound = 0): one launch.
  RowSplit rowSplit;

  /// Symbol of the entry's kernel: "mxgemm_" + name.
  std::string kernelName() const { return "mxgemm_" + name; }
  /// A scale-layout variant: an entry whose kernel reads X or W scales in
  /// an MFMA-native layout, for callers whose scales come in its layouts.
  /// It may repeat the M range of a row-major entry of its key (its base),
  /// which serves everyone else.
  bool isScaleLayoutVariant() const { return !config.readsRowMajorScales(); }
};

/// The order in which a key's entries are searched: by M range, then the
/// row-major base of a range before its scale-layout variants (by X, then
/// W scale layout). The runtime's tables and the tuner's output keep it.
bool dispatchOrderLess(const TuningEntry &a, const TuningEntry &b);

struct TuningDatabase {
  static constexpr std::string_view kFormat = "mxgemm-tuning-db";
  static constexpr int kVersion = 1;

  std::vector<TuningEntry> entries;
  /// The file's top-level comment ("" when it has none).
  std::string comment;

  /// Parses and checks a database; the message names the entry and field.
  /// Duplicate JSON keys, unknown fields and nesting deeper than the format
  /// has are errors.
  static ErrorMessage parse(std::string_view json, TuningDatabase &out);
  /// The database as the JSON text `parse` reads (two-space indentation,
  /// fields in the documented order, configs with the fields
  /// formatConfigBody prints). `comment` is the file's top-level comment.
  std::string toJson(std::string_view comment) const;
  /// The entry called `name`, or null.
  const TuningEntry *find(std::string_view name) const;
};

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_TUNINGDATABASE_H
