//===- ConfigSelection.h - the config the compiler picks --------*- C++ -*-===//
//
// `--config=auto`, the default of mxgemm-compile and of the compiler C API
// (docs/Compiler.md, "How the compiler chooses a config"): the tuning
// database's entry when the key matches and the M hint falls in its range,
// else a fixed heuristic over the kernel families by M bucket, N and K. The
// one place the choice is made; the tool, the C API and Python (through
// the tool) all call selectConfig. No MLIR or LLVM dependency, no I/O: the
// caller hands over an already parsed database.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_CONFIGSELECTION_H
#define MXGEMM_CONTRACT_CONFIGSELECTION_H

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include <array>
#include <string>

namespace mxgemm::contract {

struct TuningDatabase;

/// An inclusive range of M, one bucket of the heuristic (issue 17 item 5).
struct MBucket {
  int64_t mMin, mMax;
};

/// The documented buckets, ascending and contiguous from 1 to 65536. An M
/// above 65536 (up to kMaxM) falls in the last bucket.
inline constexpr std::array<MBucket, 9> kMBuckets = {{{1, 16},
                                                      {17, 64},
                                                      {65, 256},
                                                      {257, 1024},
                                                      {1025, 2048},
                                                      {2049, 4096},
                                                      {4097, 8192},
                                                      {8193, 16384},
                                                      {16385, 65536}}};

/// Index into kMBuckets of `m` (1..kMaxM); M above the last bucket maps to
/// it. -1 for M < 1.
int findMBucket(int64_t m);

/// Where a chosen config came from.
enum class ConfigSource : uint8_t {
  /// A config body given by the caller.
  Explicit = 0,
  /// `--config=default`: the naive KernelConfig{}.
  Default = 1,
  /// A tuning-database entry.
  Database = 2,
  /// A rule of the heuristic.
  Heuristic = 3,
};

/// A chosen config and why.
struct ConfigChoice {
  KernelConfig config;
  ConfigSource source = ConfigSource::Default;
  /// The database entry (Database) or the heuristic rule (Heuristic).
  std::string name;
  /// One sentence for humans: why this config.
  std::string reason;

  /// The sidecar's `config_source`: "database:<entry>",
  /// "heuristic:<rule>", "default" or "explicit".
  std::string sourceLabel() const;
};

/// The config `--config=auto` compiles `problem` with, given an M hint
/// (0 = none) and a database (null = none). `problem` must be valid
/// (validateProblem) and `mHint` in 0..kMaxM; `target` is the chip's model.
///
/// 1. Database: the entries with the problem's key (arch = target.name)
///    whose M range holds `mHint`; without a hint, the entry whose range
///    holds the largest M.
/// 2. Heuristic: the rules of docs/Compiler.md in order, each a config
///    family sized to the M bucket with the largest tiles that divide N
///    and K; a rule applies only if verifyConfig and verifyProblemConfig
///    accept its config, and W stays in the layout the key's database
///    entries read (so one packed weight serves every M).
/// Returns an error when no rule fits: only for a key whose database
/// entries read MFMA panels and whose N or K the packed family cannot tile
/// (the naive-size rule, which masks edges, reads W row-major).
/// The config of a generic kernel (dynamic N or K) for M = `m` (0: no
/// hint): both operands loaded directly, row-major tile order; the decode
/// rule's 16x16x128 structure for M <= 16 (tile_m 16) and M <= 64 (tile_m
/// 64), the naive 32x32x64 kernel (128x128x128) above. selectConfig
/// returns it for every generic problem.
KernelConfig genericConfig(int64_t m);

/// Both operands through an XOR-swizzled LDS ring of `stages`, two groups
/// of waves taking turns (schedule = pingpong), 8x4 tile groups with XCD
/// remap: the structure of the database's entries from M = 65 up. The
/// heuristic's rules and the tuner's seeds build it here, so both mean the
/// same kernel by it.
KernelConfig pingPongConfig(int64_t tileM, int64_t tileN, int64_t tileK,
                            int64_t wavesM, int64_t wavesN, MfmaShape mfma,
                            int64_t stages);

/// The two-slot kernel of the database's large-M entries: pingPongConfig
/// with 256x256x128 tiles, 4x2 waves of 32x32x64 MFMAs and two LDS slots
/// (docs/Design.md, "Two-slot ping-pong").
KernelConfig twoSlotConfig();

/// The database's mid-M structure (R2): pingPongConfig with 128x256x128
/// tiles, 2x4 waves of 16x16x128 MFMAs and a 3-stage ring, unsplit.
KernelConfig r2Config();

/// The M ranges of the generic kernels the runtime embeds, one per
/// genericConfig structure, with the M hint each is compiled for.
struct GenericBucket {
  int64_t mMin, mMax, mHint;
};
inline constexpr GenericBucket kGenericBuckets[] = {
    {1, 16, 16}, {17, 64, 64}, {65, kMaxM, 0}};

ErrorMessage selectConfig(const GemmProblem &problem, int64_t mHint,
                          const TuningDatabase *database,
                          const target::TargetModel &target, ConfigChoice &out);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_CONFIGSELECTION_H
