//===- KernelConfig.cpp - fields, defaults and rules of a kernel config ---===//
//
// The config verifier checks each field's range before any product is
// formed, so that a hostile config (waves_m = 2^62, group_m = INT64_MAX)
// is a message instead of a wrapped product, a division by zero or a
// kernel that never ends.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelConfig.h"

#include <array>
#include <sstream>
#include <tuple>

using namespace mxgemm;
using namespace mxgemm::contract;

//===----------------------------------------------------------------------===//
// Enum names
//===----------------------------------------------------------------------===//

namespace {
template <typename Enum, size_t N>
std::optional<Enum> parseName(const std::array<std::string_view, N> &names,
                              std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name)
      return static_cast<Enum>(i);
  return std::nullopt;
}

template <typename Enum, size_t N>
std::string_view nameOf(const std::array<std::string_view, N> &names,
                        Enum value) {
  size_t i = static_cast<size_t>(value);
  return i < N ? names[i] : std::string_view("?");
}

template <size_t N>
std::string joinNames(const std::array<std::string_view, N> &names) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i)
      out += ", ";
    out += names[i];
  }
  return out;
}

constexpr std::array<std::string_view, 2> kMfmaNames = {"m32n32k64",
                                                        "m16n16k128"};
constexpr std::array<std::string_view, 4> kStagingNames = {
    "direct", "lds_async", "lds_sync", "packed_registers"};
constexpr std::array<std::string_view, 3> kLdsLayoutNames = {"plain", "padded",
                                                             "xor"};
constexpr std::array<std::string_view, 4> kScheduleNames = {
    "default", "interleave", "pingpong", "loads_first"};
constexpr std::array<std::string_view, 2> kBoolNames = {"false", "true"};
} // namespace

std::string_view contract::mfmaShapeName(MfmaShape s) {
  return nameOf(kMfmaNames, s);
}
std::string_view contract::stagingName(Staging s) {
  return nameOf(kStagingNames, s);
}
std::string_view contract::ldsLayoutName(LdsLayout l) {
  return nameOf(kLdsLayoutNames, l);
}
std::string_view contract::scheduleName(Schedule s) {
  return nameOf(kScheduleNames, s);
}
std::optional<MfmaShape> contract::parseMfmaShape(std::string_view name) {
  return parseName<MfmaShape>(kMfmaNames, name);
}
std::optional<Staging> contract::parseStaging(std::string_view name) {
  return parseName<Staging>(kStagingNames, name);
}
std::optional<LdsLayout> contract::parseLdsLayout(std::string_view name) {
  return parseName<LdsLayout>(kLdsLayoutNames, name);
}
std::optional<Schedule> contract::parseSchedule(std::string_view name) {
  return parseName<Schedule>(kScheduleNames, name);
}

//===----------------------------------------------------------------------===//
// Derived quantities and equality
//===----------------------------------------------------------------------===//

bool KernelConfig::operator==(const KernelConfig &o) const {
  return tileM == o.tileM && tileN == o.tileN && tileK == o.tileK &&
         wavesM == o.wavesM && wavesN == o.wavesN && mfma == o.mfma &&
         groupM == o.groupM && groupN == o.groupN && xcdRemap == o.xcdRemap &&
         stageX == o.stageX && stageW == o.stageW && stages == o.stages &&
         ldsLayout == o.ldsLayout && split == o.split &&
         wavesPerEU == o.wavesPerEU && schedule == o.schedule &&
         kSplits == o.kSplits && persistent == o.persistent &&
         unrollK == o.unrollK && tailSplit == o.tailSplit &&
         xScaleLayout == o.xScaleLayout && wScaleLayout == o.wScaleLayout;
}

bool KernelConfig::prefetchesRegisters() const {
  return stages > 1 && !usesLds(stageX) && !usesLds(stageW);
}

int64_t KernelConfig::ldsBytes() const {
  int64_t rows = 0;
  if (usesLds(stageX))
    rows += programTileM();
  if (usesLds(stageW))
    rows += tileN;
  return stages * rows * ldsRowBytes();
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

namespace {
/// Builds a message from streamed parts.
struct Message {
  std::ostringstream os;
  template <typename T> Message &operator<<(const T &v) {
    os << v;
    return *this;
  }
  operator ErrorMessage() const { return os.str(); }
};

bool inRange(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }
} // namespace

ErrorMessage contract::verifyConfig(const KernelConfig &c,
                                    const target::TargetModel &t) {
  // Field ranges first: every product below is then far from overflowing.
  if (!inRange(c.tileM, 1, kMaxTileExtent) ||
      !inRange(c.tileN, 1, kMaxTileExtent) ||
      !inRange(c.tileK, 1, kMaxTileExtent))
    return Message() << "tile sizes must be in 1.." << kMaxTileExtent
                     << ", got tile_m = " << c.tileM << ", tile_n = " << c.tileN
                     << ", tile_k = " << c.tileK;
  if (!inRange(c.wavesM, 1, t.maxWavesPerWorkgroup) ||
      !inRange(c.wavesN, 1, t.maxWavesPerWorkgroup))
    return Message() << "waves_m and waves_n must be in 1.."
                     << t.maxWavesPerWorkgroup << ", got " << c.wavesM << " x "
                     << c.wavesN;
  if (c.wavesM * c.wavesN > t.maxWavesPerWorkgroup)
    return Message() << "waves_m * waves_n = " << c.wavesM * c.wavesN
                     << " exceeds the " << t.maxWavesPerWorkgroup << " waves ("
                     << t.maxWavesPerWorkgroup * t.waveSize << " threads) of a "
                     << t.chip << " workgroup";
  if (c.split <= 0 || c.tileM % c.split != 0)
    return Message() << "split (" << c.split
                     << ") must be positive and divide tile_m (" << c.tileM
                     << ")";
  const target::MfmaInstruction &mfma = t.getMfma(c.mfma);
  const int64_t programTileM = c.programTileM();
  if (programTileM % (c.wavesM * mfma.m) != 0)
    return Message() << "tile_m / split (" << programTileM
                     << ") must be a multiple of waves_m * MFMA M (" << c.wavesM
                     << " * " << mfma.m << ")";
  if (c.tileN % (c.wavesN * mfma.n) != 0)
    return Message() << "tile_n (" << c.tileN
                     << ") must be a multiple of waves_n * MFMA N (" << c.wavesN
                     << " * " << mfma.n << ")";
  if (c.tileK % mfma.k != 0)
    return Message() << "tile_k (" << c.tileK
                     << ") must be a multiple of the MFMA K (" << mfma.k << ")";
  if (!inRange(c.groupM, 1, kMaxGroupExtent) ||
      !inRange(c.groupN, 0, kMaxGroupExtent))
    return Message() << "group_m must be in 1.." << kMaxGroupExtent
                     << " and group_n in 0.." << kMaxGroupExtent << ", got "
                     << c.groupM << " x " << c.groupN;
  if (c.stageX == Staging::PackedRegisters)
    return Message() << "stage_x = packed_registers is not supported: X "
                        "changes with every call, and packing it per call "
                        "is the repacking docs/Design.md section 5 rules "
                        "out; pack W (stage_w) and stage X through LDS";
  if (c.stages < 1 || c.stages > 4)
    return Message() << "stages must be in 1..4, got " << c.stages;
  // Without an LDS ring, stages counts K tiles of register loads in flight
  // (mxgemm-prefetch-registers).
  if (c.schedule == Schedule::PingPong) {
    // Two waves per SIMD take turns: one issues its LDS reads and refills
    // while the other runs its MFMA cluster (docs/Design.md, ping-pong).
    if (c.numWaves() != 2 * t.simdsPerCu || c.split != 1)
      return Message() << "schedule = pingpong needs " << 2 * t.simdsPerCu
                       << " waves (two per SIMD) and split = 1, got "
                       << c.wavesM << " x " << c.wavesN
                       << " waves and split = " << c.split;
    if (c.stageX != Staging::LdsAsync || c.stageW != Staging::LdsAsync ||
        c.stages < 2)
      return Message() << "schedule = pingpong needs stage_x = stage_w = "
                          "lds_async and stages >= 2, got stages = "
                       << c.stages;
    // With two slots the refill of tile t+1 may only start once both
    // groups have read tile t-1: each K tile is then two turns, over the
    // two halves of a wave's MFMA block columns, W refilled in the first
    // and X, two tiles ahead, in the second (docs/Design.md, "Two-slot
    // ping-pong").
    const int64_t waveBlocksN = c.tileN / (c.wavesN * mfma.n);
    if (c.stages == 2 && (waveBlocksN % 2 != 0 || c.unrollK > 1))
      return Message() << "schedule = pingpong with stages = 2 computes each "
                          "K tile in two turns: it needs an even number of "
                          "MFMA block columns per wave (tile_n / waves_n / "
                          "MFMA N = "
                       << waveBlocksN << ") and unroll_k = 1";
  }
  if (c.kSplits < 1 || c.kSplits > kMaxKSplits)
    return Message() << "k_splits must be in 1.." << kMaxKSplits << ", got "
                     << c.kSplits;
  if (c.persistent < 0 || c.persistent > kMaxPersistent)
    return Message() << "persistent must be in 0.." << kMaxPersistent
                     << " (workgroups per CU), got " << c.persistent;
  // A walked tile is one whole K reduction: the segments of a split tile
  // would need their own walk and a reduction launch per round.
  if (c.isPersistent() && c.splitsK())
    return Message() << "persistent = " << c.persistent
                     << " cannot be combined with k_splits = " << c.kSplits;
  // The tail split cuts the K loop of some workgroups only: mxgemm-tile
  // builds a second K loop for them, pipelined over the same LDS ring.
  if (c.tailSplit &&
      (!c.splitsK() || c.isPersistent() || c.unrollK > 1 || c.stages < 2 ||
       (!usesLds(c.stageX) && !usesLds(c.stageW))))
    return Message() << "tail_split needs k_splits > 1, a pipelined LDS ring "
                        "(stage_x or stage_w through LDS, stages >= 2), "
                        "persistent = 0 and unroll_k = 1";
  if (c.unrollK < 1 || c.unrollK > kMaxUnrollK)
    return Message() << "unroll_k must be in 1.." << kMaxUnrollK << ", got "
                     << c.unrollK;
  // The unrolled loop is the LDS ring's pipelined K loop; without a ring,
  // mxgemm-prefetch-registers unrolls by stages on its own.
  if (c.unrollK > 1 &&
      (c.stages < 2 || (!usesLds(c.stageX) && !usesLds(c.stageW))))
    return Message() << "unroll_k = " << c.unrollK
                     << " needs a pipelined LDS ring (stage_x or stage_w "
                        "through LDS and stages >= 2)";
  // An MFMA-native scale layout is made for one MFMA shape, and the wide
  // scale loads of unroll_k read row-major runs.
  for (auto [layout, operand] :
       {std::pair(c.xScaleLayout, "x"), std::pair(c.wScaleLayout, "w")}) {
    if (layout == ScaleLayout::RowMajor)
      continue;
    if (scaleLayoutMfma(layout) != c.mfma)
      return Message() << operand
                       << "_scale_layout = " << scaleLayoutName(layout)
                       << " is the layout of "
                       << mfmaShapeName(*scaleLayoutMfma(layout))
                       << "; this config runs mfma = " << mfmaShapeName(c.mfma)
                       << " (use " << scaleLayoutName(mfmaScaleLayout(c.mfma))
                       << ")";
    if (c.unrollK > 1)
      return Message() << operand
                       << "_scale_layout = " << scaleLayoutName(layout)
                       << " needs unroll_k = 1 (its shared wide scale loads "
                          "read row-major scales)";
  }
  if (c.wavesPerEU < 0 || c.wavesPerEU > t.maxWavesPerSimd)
    return Message() << "waves_per_eu must be in 0.." << t.maxWavesPerSimd
                     << ", got " << c.wavesPerEU;
  const int64_t accRegs = c.accumulatorRegsPerLane(t);
  if (accRegs > t.vgprsPerLane / 2)
    return Message() << "each wave's accumulator tile needs " << accRegs
                     << " registers per lane; more than half of the "
                     << t.vgprsPerLane << " " << t.chip
                     << " VGPRs+AGPRs would spill";
  // global_load_lds_dwordx4 fills 1024 contiguous LDS bytes per wave
  // instruction, so an lds_async stage must be whole instructions (the
  // copy_to_lds verifier's rule, here so that no config that verifies
  // fails in the pipeline).
  for (auto [staging, rows, operand] : {std::tuple(c.stageX, programTileM, "X"),
                                        std::tuple(c.stageW, c.tileN, "W")})
    if (staging == Staging::LdsAsync && rows * c.ldsRowBytes() % 1024 != 0)
      return Message() << "lds_async fills 1024 contiguous LDS bytes per "
                          "wave instruction; a stage of "
                       << operand << " (" << rows << " rows of "
                       << c.ldsRowBytes()
                       << " bytes, lds_layout = " << ldsLayoutName(c.ldsLayout)
                       << ") is not a multiple";
  const int64_t lds = c.ldsBytes();
  if (lds > t.maxLdsBytesPerWorkgroup)
    return Message() << "config needs " << lds
                     << " bytes of LDS, more than the "
                     << t.maxLdsBytesPerWorkgroup << " a " << t.chip
                     << " workgroup can allocate";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Field table
//===----------------------------------------------------------------------===//

namespace {
enum Field {
  FTileM,
  FTileN,
  FTileK,
  FWavesM,
  FWavesN,
  FMfma,
  FGroupM,
  FGroupN,
  FXcdRemap,
  FStageX,
  FStageW,
  FStages,
  FLdsLayout,
  FSplit,
  FWavesPerEU,
  FSchedule,
  FKSplits,
  FPersistent,
  FUnrollK,
  FTailSplit,
  FXScaleLayout,
  FWScaleLayout,
};
constexpr std::array<std::string_view, kNumConfigFields> kFieldNames = {
    "tile_m",         "tile_n",        "tile_k",       "waves_m",
    "waves_n",        "mfma",          "group_m",      "group_n",
    "xcd_remap",      "stage_x",       "stage_w",      "stages",
    "lds_layout",     "split",         "waves_per_eu", "schedule",
    "k_splits",       "persistent",    "unroll_k",     "tail_split",
    "x_scale_layout", "w_scale_layout"};

/// The boolean member of field `f`, or null for other fields.
bool *booleanField(KernelConfig &c, int f) {
  switch (f) {
  case FXcdRemap:
    return &c.xcdRemap;
  case FTailSplit:
    return &c.tailSplit;
  default:
    return nullptr;
  }
}

/// The integer member of field `f`, or null for non-integer fields.
int64_t *integerField(KernelConfig &c, int f) {
  switch (f) {
  case FTileM:
    return &c.tileM;
  case FTileN:
    return &c.tileN;
  case FTileK:
    return &c.tileK;
  case FWavesM:
    return &c.wavesM;
  case FWavesN:
    return &c.wavesN;
  case FGroupM:
    return &c.groupM;
  case FGroupN:
    return &c.groupN;
  case FStages:
    return &c.stages;
  case FSplit:
    return &c.split;
  case FWavesPerEU:
    return &c.wavesPerEU;
  case FKSplits:
    return &c.kSplits;
  case FPersistent:
    return &c.persistent;
  case FUnrollK:
    return &c.unrollK;
  default:
    return nullptr;
  }
}
} // namespace

std::string_view contract::configFieldName(int field) {
  return field >= 0 && field < kNumConfigFields ? kFieldNames[field]
                                                : std::string_view("?");
}

int contract::findConfigField(std::string_view name) {
  for (int i = 0; i < kNumConfigFields; ++i)
    if (kFieldNames[i] == name)
      return i;
  return -1;
}

ConfigFieldKind contract::configFieldKind(int field) {
  switch (field) {
  case FMfma:
  case FStageX:
  case FStageW:
  case FLdsLayout:
  case FSchedule:
  case FXScaleLayout:
  case FWScaleLayout:
    return ConfigFieldKind::Keyword;
  case FXcdRemap:
  case FTailSplit:
    return ConfigFieldKind::Boolean;
  default:
    return ConfigFieldKind::Integer;
  }
}

std::string contract::configFieldKeywords(int field) {
  switch (field) {
  case FMfma:
    return joinNames(kMfmaNames);
  case FStageX:
  case FStageW:
    return joinNames(kStagingNames);
  case FLdsLayout:
    return joinNames(kLdsLayoutNames);
  case FSchedule:
    return joinNames(kScheduleNames);
  case FXScaleLayout:
  case FWScaleLayout:
    return scaleLayoutNames();
  case FXcdRemap:
  case FTailSplit:
    return joinNames(kBoolNames);
  default:
    return "an integer";
  }
}

std::string contract::configFieldValue(const KernelConfig &c, int field) {
  switch (field) {
  case FMfma:
    return std::string(mfmaShapeName(c.mfma));
  case FStageX:
    return std::string(stagingName(c.stageX));
  case FStageW:
    return std::string(stagingName(c.stageW));
  case FLdsLayout:
    return std::string(ldsLayoutName(c.ldsLayout));
  case FSchedule:
    return std::string(scheduleName(c.schedule));
  case FXScaleLayout:
    return std::string(scaleLayoutName(c.xScaleLayout));
  case FWScaleLayout:
    return std::string(scaleLayoutName(c.wScaleLayout));
  case FXcdRemap:
  case FTailSplit:
    return *booleanField(const_cast<KernelConfig &>(c), field) ? "true"
                                                               : "false";
  default:
    if (int64_t *v = integerField(const_cast<KernelConfig &>(c), field))
      return std::to_string(*v);
    return "?";
  }
}

ErrorMessage contract::setConfigInteger(KernelConfig &c, int field,
                                        int64_t value) {
  int64_t *member = integerField(c, field);
  if (!member)
    return Message() << "config field '" << configFieldName(field)
                     << "' expects " << configFieldKeywords(field)
                     << ", got an integer";
  *member = value;
  return std::nullopt;
}

ErrorMessage contract::setConfigKeyword(KernelConfig &c, int field,
                                        std::string_view value) {
  auto bad = [&]() -> ErrorMessage {
    return Message() << "invalid value '" << value << "' for config field '"
                     << configFieldName(field) << "' (expected "
                     << configFieldKeywords(field) << ")";
  };
  switch (field) {
  case FMfma:
    if (auto v = parseMfmaShape(value))
      return c.mfma = *v, std::nullopt;
    return bad();
  case FStageX:
  case FStageW:
    if (auto v = parseStaging(value))
      return (field == FStageX ? c.stageX : c.stageW) = *v, std::nullopt;
    return bad();
  case FLdsLayout:
    if (auto v = parseLdsLayout(value))
      return c.ldsLayout = *v, std::nullopt;
    return bad();
  case FSchedule:
    if (auto v = parseSchedule(value))
      return c.schedule = *v, std::nullopt;
    return bad();
  case FXScaleLayout:
  case FWScaleLayout:
    if (auto v = parseScaleLayout(value))
      return (field == FXScaleLayout ? c.xScaleLayout : c.wScaleLayout) = *v,
                                                        std::nullopt;
    return bad();
  case FXcdRemap:
  case FTailSplit:
    if (value == "true" || value == "false")
      return *booleanField(c, field) = value == "true", std::nullopt;
    return Message() << "config field '" << configFieldName(field)
                     << "' expects true or false, got '" << value << "'";
  default:
    return bad();
  }
}

std::string contract::formatConfigBody(const KernelConfig &c) {
  static const KernelConfig defaults;
  std::string out;
  for (int f = 0; f < kNumConfigFields; ++f) {
    // Tile, wave and MFMA fields always print: they are what a reader
    // looks for; the others only where they differ from the default.
    std::string value = configFieldValue(c, f);
    if (f > FMfma && value == configFieldValue(defaults, f))
      continue;
    if (!out.empty())
      out += ", ";
    out += kFieldNames[f];
    out += " = ";
    out += value;
  }
  return out;
}
