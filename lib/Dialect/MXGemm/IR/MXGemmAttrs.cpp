//===- MXGemmAttrs.cpp - #mxgemm.config on top of the kernel contract -----===//
//
// The tuning config is hand-parsed so that a typo in a field name or value is
// reported by name at its location; the field names, defaults, value rules
// and the verification come from the contract (Contract/KernelConfig.h), so
// that the IR, the tuning database and the kernel descriptor cannot drift.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Target/TargetModel.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mxgemm;
namespace contract = ::mxgemm::contract;

//===----------------------------------------------------------------------===//
// Enums and element types in the contract's terms
//===----------------------------------------------------------------------===//

// The dialect's enums mirror the contract's by value; these asserts keep the
// two in step (a new case on one side fails to compile).
static_assert(int(MfmaShape::M32N32K64) ==
                  int(contract::MfmaShape::M32N32K64) &&
              int(MfmaShape::M16N16K128) ==
                  int(contract::MfmaShape::M16N16K128));
static_assert(int(Staging::Direct) == int(contract::Staging::Direct) &&
              int(Staging::LdsAsync) == int(contract::Staging::LdsAsync) &&
              int(Staging::LdsSync) == int(contract::Staging::LdsSync) &&
              int(Staging::PackedRegisters) ==
                  int(contract::Staging::PackedRegisters));
static_assert(int(LdsLayout::Plain) == int(contract::LdsLayout::Plain) &&
              int(LdsLayout::Padded) == int(contract::LdsLayout::Padded) &&
              int(LdsLayout::Xor) == int(contract::LdsLayout::Xor));
static_assert(int(Schedule::Default) == int(contract::Schedule::Default) &&
              int(Schedule::Interleave) ==
                  int(contract::Schedule::Interleave) &&
              int(Schedule::PingPong) == int(contract::Schedule::PingPong) &&
              int(Schedule::LoadsFirst) == int(contract::Schedule::LoadsFirst));

static_assert(int(ScaleLayout::RowMajor) ==
                  int(contract::ScaleLayout::RowMajor) &&
              int(ScaleLayout::Mfma16x16x128) ==
                  int(contract::ScaleLayout::Mfma16x16x128) &&
              int(ScaleLayout::Mfma32x32x64) ==
                  int(contract::ScaleLayout::Mfma32x32x64));

contract::ScaleGranularity mxgemm::toContract(WeightScaleGranularity g) {
  return g == WeightScaleGranularity::PerRow
             ? contract::ScaleGranularity::PerRow
             : contract::ScaleGranularity::Block32x32;
}
WeightScaleGranularity mxgemm::fromContract(contract::ScaleGranularity g) {
  return g == contract::ScaleGranularity::PerRow
             ? WeightScaleGranularity::PerRow
             : WeightScaleGranularity::Block32x32;
}
contract::MfmaShape mxgemm::toContract(MfmaShape s) {
  return static_cast<contract::MfmaShape>(s);
}
MfmaShape mxgemm::fromContract(contract::MfmaShape s) {
  return static_cast<MfmaShape>(s);
}
contract::Staging mxgemm::toContract(Staging s) {
  return static_cast<contract::Staging>(s);
}

std::optional<contract::ElementType> mxgemm::toContractElementType(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return contract::ElementType::E4M3;
  if (isa<Float8E5M2Type>(t))
    return contract::ElementType::E5M2;
  if (t.isBF16())
    return contract::ElementType::BF16;
  if (t.isF16())
    return contract::ElementType::F16;
  if (t.isF32())
    return contract::ElementType::F32;
  return std::nullopt;
}

Type mxgemm::getElementType(MLIRContext *ctx, contract::ElementType t) {
  switch (t) {
  case contract::ElementType::E4M3:
    return Float8E4M3FNType::get(ctx);
  case contract::ElementType::E5M2:
    return Float8E5M2Type::get(ctx);
  case contract::ElementType::BF16:
    return BFloat16Type::get(ctx);
  case contract::ElementType::F16:
    return Float16Type::get(ctx);
  case contract::ElementType::F32:
    return Float32Type::get(ctx);
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Config <-> contract
//===----------------------------------------------------------------------===//

ConfigAttr ConfigAttr::get(MLIRContext *ctx, const contract::KernelConfig &c) {
  return ConfigAttr::get(
      ctx, c.tileM, c.tileN, c.tileK, c.wavesM, c.wavesN, fromContract(c.mfma),
      c.groupM, c.groupN, c.xcdRemap, static_cast<Staging>(c.stageX),
      static_cast<Staging>(c.stageW), c.stages,
      static_cast<LdsLayout>(c.ldsLayout), c.split, c.wavesPerEU,
      static_cast<Schedule>(c.schedule), c.kSplits, c.persistent, c.unrollK,
      c.tailSplit, static_cast<ScaleLayout>(c.xScaleLayout),
      static_cast<ScaleLayout>(c.wScaleLayout));
}

contract::KernelConfig ConfigAttr::getKernelConfig() const {
  contract::KernelConfig c;
  c.tileM = getTileM();
  c.tileN = getTileN();
  c.tileK = getTileK();
  c.wavesM = getWavesM();
  c.wavesN = getWavesN();
  c.mfma = toContract(getMfma());
  c.groupM = getGroupM();
  c.groupN = getGroupN();
  c.xcdRemap = getXcdRemap();
  c.stageX = toContract(getStageX());
  c.stageW = toContract(getStageW());
  c.stages = getStages();
  c.ldsLayout = static_cast<contract::LdsLayout>(getLdsLayout());
  c.split = getSplit();
  c.wavesPerEU = getWavesPerEU();
  c.schedule = static_cast<contract::Schedule>(getSchedule());
  c.kSplits = getKSplits();
  c.persistent = getPersistent();
  c.unrollK = getUnrollK();
  c.tailSplit = getTailSplit();
  c.xScaleLayout = static_cast<contract::ScaleLayout>(getXScaleLayout());
  c.wScaleLayout = static_cast<contract::ScaleLayout>(getWScaleLayout());
  return c;
}

ConfigAttr ConfigAttr::getDefault(MLIRContext *ctx) {
  return get(ctx, contract::KernelConfig());
}

// The attribute is verified against gfx950, the one chip mxgemm targets;
// mxgemm-tile checks the config again against the model of its `chip`.
static const ::mxgemm::target::TargetModel &configTarget() {
  return ::mxgemm::target::kGFX950;
}

int64_t ConfigAttr::getMfmaM() const {
  return configTarget().getMfma(toContract(getMfma())).m;
}
int64_t ConfigAttr::getMfmaK() const {
  return configTarget().getMfma(toContract(getMfma())).k;
}
int64_t ConfigAttr::getWorkgroupSize() const {
  return getKernelConfig().workgroupSize(configTarget());
}
int64_t ConfigAttr::getLdsBytes() const { return getKernelConfig().ldsBytes(); }
int64_t ConfigAttr::getAccumulatorRegsPerLane() const {
  return getKernelConfig().accumulatorRegsPerLane(configTarget());
}

LogicalResult
ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t tileM,
                   int64_t tileN, int64_t tileK, int64_t wavesM, int64_t wavesN,
                   MfmaShape mfma, int64_t groupM, int64_t groupN,
                   bool xcdRemap, Staging stageX, Staging stageW,
                   int64_t stages, LdsLayout ldsLayout, int64_t split,
                   int64_t wavesPerEU, Schedule schedule, int64_t kSplits,
                   int64_t persistent, int64_t unrollK, bool tailSplit,
                   ScaleLayout xScaleLayout, ScaleLayout wScaleLayout) {
  contract::KernelConfig c;
  c.tileM = tileM;
  c.tileN = tileN;
  c.tileK = tileK;
  c.wavesM = wavesM;
  c.wavesN = wavesN;
  c.mfma = toContract(mfma);
  c.groupM = groupM;
  c.groupN = groupN;
  c.xcdRemap = xcdRemap;
  c.stageX = toContract(stageX);
  c.stageW = toContract(stageW);
  c.stages = stages;
  c.ldsLayout = static_cast<contract::LdsLayout>(ldsLayout);
  c.split = split;
  c.wavesPerEU = wavesPerEU;
  c.schedule = static_cast<contract::Schedule>(schedule);
  c.kSplits = kSplits;
  c.persistent = persistent;
  c.unrollK = unrollK;
  c.tailSplit = tailSplit;
  c.xScaleLayout = static_cast<contract::ScaleLayout>(xScaleLayout);
  c.wScaleLayout = static_cast<contract::ScaleLayout>(wScaleLayout);
  if (contract::ErrorMessage error = contract::verifyConfig(c, configTarget()))
    return emitError() << *error;
  return success();
}

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

Attribute ConfigAttr::parse(AsmParser &parser, Type) {
  contract::KernelConfig config;
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
    const int field = contract::findConfigField(key);
    if (field < 0)
      return parser.emitError(loc) << "unknown config field '" << key << "'";
    SMLoc valueLoc = parser.getCurrentLocation();
    contract::ErrorMessage error;
    if (contract::configFieldKind(field) ==
        contract::ConfigFieldKind::Integer) {
      int64_t value;
      if (parser.parseInteger(value))
        return failure();
      error = contract::setConfigInteger(config, field, value);
    } else {
      StringRef value;
      if (parser.parseKeyword(&value))
        return failure();
      error = contract::setConfigKeyword(config, field, value);
    }
    if (error)
      return parser.emitError(valueLoc) << *error;
    return success();
  };
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseCommaSeparatedList(parseField) || parser.parseGreater())
      return {};
  }
  const contract::KernelConfig &f = config;
  return parser.getChecked<ConfigAttr>(
      parser.getContext(), f.tileM, f.tileN, f.tileK, f.wavesM, f.wavesN,
      fromContract(f.mfma), f.groupM, f.groupN, f.xcdRemap,
      static_cast<Staging>(f.stageX), static_cast<Staging>(f.stageW), f.stages,
      static_cast<LdsLayout>(f.ldsLayout), f.split, f.wavesPerEU,
      static_cast<Schedule>(f.schedule), f.kSplits, f.persistent, f.unrollK,
      f.tailSplit, static_cast<ScaleLayout>(f.xScaleLayout),
      static_cast<ScaleLayout>(f.wScaleLayout));
}

void ConfigAttr::print(AsmPrinter &printer) const {
  printer << "<" << contract::formatConfigBody(getKernelConfig()) << ">";
}
