//===- KernelConfig.h - the tuning config of one kernel ---------*- C++ -*-===//
//
// The one definition of the kernel config (docs/Design.md section 3): its
// fields and their defaults, their names, its verification against a target
// model, and the quantities derived from it (program tile, waves, LDS bytes,
// MFMA geometry). The `#mxgemm.config` attribute, the tuning database, the
// kernel descriptor, the runtime and the tools all go through this header;
// nobody else restates a default or a rule. No MLIR or LLVM dependency.
//
// Bounds: every field is limited so that every product the verifier, the
// passes or the kernel compute fits int64 (see kMax* below); a config past
// them is rejected with a message, never wrapped.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_KERNELCONFIG_H
#define MXGEMM_CONTRACT_KERNELCONFIG_H

#include "mxgemm/Contract/Formats.h"
#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Target/TargetModel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxgemm::contract {

using target::MfmaShape;

/// How one GEMM operand travels from global memory to the MFMA registers.
enum class Staging : uint8_t {
  /// Each lane loads its MFMA operand bytes from the row-major operand.
  Direct = 0,
  /// Global -> LDS with global_load_lds_dwordx4 (no VGPR round trip).
  LdsAsync = 1,
  /// Global -> VGPR -> LDS.
  LdsSync = 2,
  /// Pre-packed MFMA panels loaded straight to VGPRs (W only).
  PackedRegisters = 3,
};
/// Layout of LDS-staged operand tiles.
enum class LdsLayout : uint8_t { Plain = 0, Padded = 1, Xor = 2 };
/// Instruction-order variant of the K loop body.
enum class Schedule : uint8_t {
  Default = 0,
  Interleave = 1,
  PingPong = 2,
  LoadsFirst = 3
};

std::string_view mfmaShapeName(MfmaShape shape); // "m32n32k64", ...
std::string_view stagingName(Staging staging);   // "lds_async", ...
std::string_view ldsLayoutName(LdsLayout layout);
std::string_view scheduleName(Schedule schedule);
std::optional<MfmaShape> parseMfmaShape(std::string_view name);
std::optional<Staging> parseStaging(std::string_view name);
std::optional<LdsLayout> parseLdsLayout(std::string_view name);
std::optional<Schedule> parseSchedule(std::string_view name);

/// A message describing why something is invalid, or nothing when it is
/// valid. `if (ErrorMessage e = verifyConfig(...)) report(*e);`
using ErrorMessage = std::optional<std::string>;

/// Upper bounds of the integer fields (inclusive). Far above anything that
/// fits the hardware; they exist so that no product can overflow.
constexpr int64_t kMaxTileExtent = 4096;   // tile_m, tile_n, tile_k
constexpr int64_t kMaxGroupExtent = 65536; // group_m, group_n
constexpr int64_t kMaxKSplits = 64;        // k_splits
constexpr int64_t kMaxPersistent = 8;      // persistent (workgroups per CU)
constexpr int64_t kMaxUnrollK = 4;         // unroll_k
/// Bound of a persistent grid's workgroup count (far above 8 x 256 CUs).
constexpr int64_t kMaxPersistentWorkgroups = 1 << 20;

/// Every field of `#mxgemm.config`, with its default.
struct KernelConfig {
  int64_t tileM = 128, tileN = 128, tileK = 128;
  int64_t wavesM = 2, wavesN = 2;
  MfmaShape mfma = MfmaShape::M32N32K64;
  int64_t groupM = 1, groupN = 0;
  bool xcdRemap = false;
  Staging stageX = Staging::Direct, stageW = Staging::Direct;
  int64_t stages = 1;
  LdsLayout ldsLayout = LdsLayout::Plain;
  int64_t split = 1, wavesPerEU = 0;
  Schedule schedule = Schedule::Default;
  /// K segments reduced separately (split-K, docs/Design.md "Split K"):
  /// each workgroup accumulates one segment into an FP32 workspace, and a
  /// second launch adds the segments in ascending order. 1 = no split.
  int64_t kSplits = 1;
  /// Persistent grid (docs/Design.md "Persistent kernels"): at most
  /// `persistent` workgroups per CU are launched and each walks the tiles
  /// t = id, id + grid, ...; the LDS ring keeps running across tiles, so
  /// the next tile's first K tiles are copied during this tile's last
  /// iterations. 0 = one workgroup per tile.
  int64_t persistent = 0;
  /// Copies of the pipelined K loop's body per iteration (docs/Design.md,
  /// "K-loop unroll and shared scale loads"): the wave MMAs of the copies
  /// share one wide scale load per row where the scales of the `unroll_k`
  /// K tiles are contiguous and aligned. 1 = not unrolled.
  int64_t unrollK = 1;
  /// Split K only in the tiles of the grid's last, partly filled round
  /// (docs/Design.md, "Tail split"): with T tiles and one workgroup per CU,
  /// the first T - T % CUs tiles run whole and the T % CUs others are cut
  /// into k_splits segments, so the last round's idle CUs share their work.
  bool tailSplit = false;
  /// Layouts of the X and W scale tensors the kernel reads
  /// (Contract/ScaleLayout.h): row-major, or the MFMA-native layout of the
  /// config's MFMA shape, whose scale loads read one contiguous run per
  /// wave instead of a byte from each of 16 or 32 rows.
  ScaleLayout xScaleLayout = ScaleLayout::RowMajor;
  ScaleLayout wScaleLayout = ScaleLayout::RowMajor;

  bool operator==(const KernelConfig &other) const;
  bool operator!=(const KernelConfig &other) const { return !(*this == other); }

  // Derived quantities. Meaningful for configs verifyConfig accepts.
  /// Output rows of one program (workgroup): tile_m / split.
  int64_t programTileM() const { return tileM / split; }
  int64_t numWaves() const { return wavesM * wavesN; }
  int64_t workgroupSize(const target::TargetModel &t) const {
    return t.waveSize * numWaves();
  }
  /// One wave's output tile.
  int64_t waveTileM() const { return programTileM() / wavesM; }
  int64_t waveTileN() const { return tileN / wavesN; }
  /// FP32 accumulator registers per lane of one wave.
  int64_t accumulatorRegsPerLane(const target::TargetModel &t) const {
    return waveTileM() * waveTileN() / t.waveSize;
  }
  /// Bytes of one LDS ring row of `tile_k` FP8 elements (with padding).
  int64_t ldsRowBytes() const {
    return ldsLayout == LdsLayout::Padded ? tileK + 16 : tileK;
  }
  /// Bytes of LDS the kernel allocates (every staged operand, every stage).
  int64_t ldsBytes() const;
  /// True if the kernel splits the K reduction (two launches, a workspace).
  bool splitsK() const { return kSplits > 1; }
  /// True if workgroups walk several tiles (a capped grid).
  bool isPersistent() const { return persistent > 0; }
  /// True if W is read from pre-packed MFMA panels.
  bool readsWeightPanels() const { return stageW == Staging::PackedRegisters; }
  /// True if both scale tensors are read row-major (the user-facing default).
  bool readsRowMajorScales() const {
    return xScaleLayout == ScaleLayout::RowMajor &&
           wScaleLayout == ScaleLayout::RowMajor;
  }
  /// True if the K loop keeps stages - 1 K tiles of register loads in
  /// flight (mxgemm-prefetch-registers): stages above 1 and no operand
  /// staged through LDS (with one, stages is the ring's depth).
  bool prefetchesRegisters() const;
};

/// True if `staging` goes through an LDS ring.
constexpr bool usesLds(Staging staging) {
  return staging == Staging::LdsAsync || staging == Staging::LdsSync;
}

/// Checks `config` against the rules of docs/Design.md section 3 and the
/// limits of `target`; the message names the offending fields and values.
ErrorMessage verifyConfig(const KernelConfig &config,
                          const target::TargetModel &target);

//===----------------------------------------------------------------------===//
// The field table: names and values in text form
//===----------------------------------------------------------------------===//

/// Number of config fields and the name of field `i` in canonical order
/// (tile_m, tile_n, tile_k, waves_m, waves_n, mfma, group_m, group_n,
/// xcd_remap, stage_x, stage_w, stages, lds_layout, split, waves_per_eu,
/// schedule, k_splits, persistent, unroll_k, tail_split, x_scale_layout,
/// w_scale_layout).
constexpr int kNumConfigFields = 22;
std::string_view configFieldName(int field);
/// Index of the field called `name`, or -1.
int findConfigField(std::string_view name);
/// Kind of a field's value.
enum class ConfigFieldKind : uint8_t { Integer, Boolean, Keyword };
ConfigFieldKind configFieldKind(int field);
/// The keywords an enum field accepts, comma separated (for messages).
std::string configFieldKeywords(int field);
/// Field `field` of `config` as text ("128", "true", "lds_async").
std::string configFieldValue(const KernelConfig &config, int field);
/// Sets integer field `field`; an error if it is not an integer field.
ErrorMessage setConfigInteger(KernelConfig &config, int field, int64_t value);
/// Sets a boolean or keyword field from its text; the error names the
/// accepted values.
ErrorMessage setConfigKeyword(KernelConfig &config, int field,
                              std::string_view value);

/// The body of `#mxgemm.config<...>`: tile, wave and MFMA fields always,
/// the others only where they differ from the default, in canonical order
/// ("tile_m = 128, tile_n = 256, ..., stages = 2").
std::string formatConfigBody(const KernelConfig &config);
/// The config as one line of JSON, an object with every field in canonical
/// order (the kernel descriptor's `config`).
std::string formatConfigJson(const KernelConfig &config);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_KERNELCONFIG_H
