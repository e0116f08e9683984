//===- MXGemmAttrs.cpp - #mxgemm.config parsing and verification
//------------===//
//
// The tuning config is hand-parsed so that a typo in a field name or value is
// reported by name, and verified against the gfx950 limits so that a config
// that cannot produce a working kernel never reaches the passes.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Support/GFX950.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::mxgemm;

namespace {
/// Field values of a config while it is being parsed or built.
struct ConfigFields {
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
};
} // namespace

ConfigAttr ConfigAttr::getDefault(MLIRContext *ctx) {
  ConfigFields f;
  return ConfigAttr::get(ctx, f.tileM, f.tileN, f.tileK, f.wavesM, f.wavesN,
                         f.mfma, f.groupM, f.groupN, f.xcdRemap, f.stageX,
                         f.stageW, f.stages, f.ldsLayout, f.split, f.wavesPerEU,
                         f.schedule);
}

int64_t ConfigAttr::getMfmaM() const {
  return getMfma() == MfmaShape::M32N32K64 ? 32 : 16;
}
int64_t ConfigAttr::getMfmaK() const {
  return getMfma() == MfmaShape::M32N32K64 ? 64 : 128;
}

static bool usesLds(Staging s) {
  return s == Staging::LdsAsync || s == Staging::LdsSync;
}

/// Bytes of one staged row of `tileK` FP8 elements, including padding.
static int64_t ldsRowBytes(int64_t tileK, LdsLayout layout) {
  return layout == LdsLayout::Padded ? tileK + 16 : tileK;
}

static int64_t computeLdsBytes(int64_t programTileM, int64_t tileN,
                               int64_t tileK, Staging stageX, Staging stageW,
                               int64_t stages, LdsLayout layout) {
  int64_t bytes = 0;
  if (usesLds(stageX))
    bytes += stages * programTileM * ldsRowBytes(tileK, layout);
  if (usesLds(stageW))
    bytes += stages * tileN * ldsRowBytes(tileK, layout);
  return bytes;
}

int64_t ConfigAttr::getLdsBytes() const {
  return computeLdsBytes(getProgramTileM(), getTileN(), getTileK(), getStageX(),
                         getStageW(), getStages(), getLdsLayout());
}

int64_t ConfigAttr::getAccumulatorRegsPerLane() const {
  return (getProgramTileM() / getWavesM()) * (getTileN() / getWavesN()) /
         ::mxgemm::gfx950::kWaveSize;
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t tileM, int64_t tileN, int64_t tileK,
                                 int64_t wavesM, int64_t wavesN, MfmaShape mfma,
                                 int64_t groupM, int64_t groupN, bool xcdRemap,
                                 Staging stageX, Staging stageW, int64_t stages,
                                 LdsLayout ldsLayout, int64_t split,
                                 int64_t wavesPerEU, Schedule schedule) {
  namespace hw = ::mxgemm::gfx950;
  if (tileM <= 0 || tileN <= 0 || tileK <= 0)
    return emitError() << "tile sizes must be positive, got tile_m = " << tileM
                       << ", tile_n = " << tileN << ", tile_k = " << tileK;
  if (wavesM <= 0 || wavesN <= 0)
    return emitError() << "waves_m and waves_n must be positive, got " << wavesM
                       << " x " << wavesN;
  if (wavesM * wavesN > hw::kMaxWavesPerWorkgroup)
    return emitError() << "waves_m * waves_n = " << wavesM * wavesN
                       << " exceeds the " << hw::kMaxWavesPerWorkgroup
                       << " waves (1024 threads) of a gfx950 workgroup";
  if (split <= 0 || tileM % split != 0)
    return emitError() << "split (" << split
                       << ") must be positive and divide tile_m (" << tileM
                       << ")";
  int64_t mfmaMN = mfma == MfmaShape::M32N32K64 ? 32 : 16;
  int64_t mfmaK = mfma == MfmaShape::M32N32K64 ? 64 : 128;
  int64_t programTileM = tileM / split;
  if (programTileM % (wavesM * mfmaMN) != 0)
    return emitError() << "tile_m / split (" << programTileM
                       << ") must be a multiple of waves_m * MFMA M (" << wavesM
                       << " * " << mfmaMN << ")";
  if (tileN % (wavesN * mfmaMN) != 0)
    return emitError() << "tile_n (" << tileN
                       << ") must be a multiple of waves_n * MFMA N (" << wavesN
                       << " * " << mfmaMN << ")";
  if (tileK % mfmaK != 0)
    return emitError() << "tile_k (" << tileK
                       << ") must be a multiple of the MFMA K (" << mfmaK
                       << ")";
  if (groupM <= 0 || groupN < 0)
    return emitError() << "group_m must be positive and group_n non-negative, "
                          "got "
                       << groupM << " x " << groupN;
  if (stageX == Staging::PackedRegisters)
    return emitError() << "stage_x = packed_registers is not supported: X "
                          "changes with every call, and packing it per call "
                          "is the repacking DESIGN.md section 5 rules out; "
                          "pack W (stage_w) and stage X through LDS";
  if (stages < 1 || stages > 4)
    return emitError() << "stages must be in 1..4, got " << stages;
  if (stages > 1 && !usesLds(stageX) && !usesLds(stageW))
    return emitError() << "stages = " << stages
                       << " pipelines LDS buffers, but neither operand is "
                          "staged through LDS";
  if (wavesPerEU < 0 || wavesPerEU > hw::kMaxWavesPerSimd)
    return emitError() << "waves_per_eu must be in 0..8, got " << wavesPerEU;
  int64_t accRegs = (programTileM / wavesM) * (tileN / wavesN) / hw::kWaveSize;
  if (accRegs > hw::kVgprsPerLane / 2)
    return emitError() << "each wave's accumulator tile needs " << accRegs
                       << " registers per lane; more than half of the "
                       << hw::kVgprsPerLane << " gfx950 VGPRs+AGPRs would "
                       << "spill";
  int64_t lds = computeLdsBytes(programTileM, tileN, tileK, stageX, stageW,
                                stages, ldsLayout);
  if (lds > hw::kMaxLdsBytesPerWorkgroup)
    return emitError() << "config needs " << lds
                       << " bytes of LDS, more than the "
                       << hw::kMaxLdsBytesPerWorkgroup
                       << " a gfx950 workgroup can allocate";
  return success();
}

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

namespace {
template <typename EnumT>
ParseResult parseEnumField(AsmParser &parser, StringRef field, EnumT &out,
                           std::optional<EnumT> (*symbolize)(StringRef)) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolize(keyword);
  if (!value)
    return parser.emitError(loc) << "invalid value '" << keyword
                                 << "' for config field '" << field << "'";
  out = *value;
  return success();
}
} // namespace

Attribute ConfigAttr::parse(AsmParser &parser, Type) {
  ConfigFields f;
  llvm::StringSet<> seen;
  if (parser.parseLess())
    return {};
  auto parseField = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc)
             << "config field '" << key << "' given twice";
    auto intField = [&](int64_t &out) { return parser.parseInteger(out); };
    if (key == "tile_m")
      return intField(f.tileM);
    if (key == "tile_n")
      return intField(f.tileN);
    if (key == "tile_k")
      return intField(f.tileK);
    if (key == "waves_m")
      return intField(f.wavesM);
    if (key == "waves_n")
      return intField(f.wavesN);
    if (key == "group_m")
      return intField(f.groupM);
    if (key == "group_n")
      return intField(f.groupN);
    if (key == "stages")
      return intField(f.stages);
    if (key == "split")
      return intField(f.split);
    if (key == "waves_per_eu")
      return intField(f.wavesPerEU);
    if (key == "mfma")
      return parseEnumField(parser, key, f.mfma, symbolizeMfmaShape);
    if (key == "stage_x")
      return parseEnumField(parser, key, f.stageX, symbolizeStaging);
    if (key == "stage_w")
      return parseEnumField(parser, key, f.stageW, symbolizeStaging);
    if (key == "lds_layout")
      return parseEnumField(parser, key, f.ldsLayout, symbolizeLdsLayout);
    if (key == "schedule")
      return parseEnumField(parser, key, f.schedule, symbolizeSchedule);
    if (key == "xcd_remap") {
      StringRef b;
      SMLoc vloc = parser.getCurrentLocation();
      if (parser.parseKeyword(&b))
        return failure();
      if (b != "true" && b != "false")
        return parser.emitError(vloc)
               << "config field 'xcd_remap' expects true or false, got '" << b
               << "'";
      f.xcdRemap = b == "true";
      return success();
    }
    return parser.emitError(loc) << "unknown config field '" << key << "'";
  };
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseCommaSeparatedList(parseField) || parser.parseGreater())
      return {};
  }
  return parser.getChecked<ConfigAttr>(
      parser.getContext(), f.tileM, f.tileN, f.tileK, f.wavesM, f.wavesN,
      f.mfma, f.groupM, f.groupN, f.xcdRemap, f.stageX, f.stageW, f.stages,
      f.ldsLayout, f.split, f.wavesPerEU, f.schedule);
}

void ConfigAttr::print(AsmPrinter &printer) const {
  ConfigFields d;
  // Tile and wave fields always print: they are what a reader looks for.
  printer << "<tile_m = " << getTileM() << ", tile_n = " << getTileN()
          << ", tile_k = " << getTileK() << ", waves_m = " << getWavesM()
          << ", waves_n = " << getWavesN()
          << ", mfma = " << stringifyMfmaShape(getMfma());
  auto printIfNot = [&](StringRef key, auto value, auto defaultValue,
                        auto toString) {
    if (value != defaultValue)
      printer << ", " << key << " = " << toString(value);
  };
  auto asInt = [](int64_t v) { return std::to_string(v); };
  printIfNot("group_m", getGroupM(), d.groupM, asInt);
  printIfNot("group_n", getGroupN(), d.groupN, asInt);
  printIfNot("xcd_remap", getXcdRemap(), d.xcdRemap,
             [](bool b) { return std::string(b ? "true" : "false"); });
  printIfNot("stage_x", getStageX(), d.stageX, stringifyStaging);
  printIfNot("stage_w", getStageW(), d.stageW, stringifyStaging);
  printIfNot("stages", getStages(), d.stages, asInt);
  printIfNot("lds_layout", getLdsLayout(), d.ldsLayout, stringifyLdsLayout);
  printIfNot("split", getSplit(), d.split, asInt);
  printIfNot("waves_per_eu", getWavesPerEU(), d.wavesPerEU, asInt);
  printIfNot("schedule", getSchedule(), d.schedule, stringifySchedule);
  printer << ">";
}
