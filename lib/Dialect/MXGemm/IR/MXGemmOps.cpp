//===- MXGemmOps.cpp - mxgemm op verifiers --------------------------------===//
//
// Shape and type rules of the problem-level GEMM (docs/Design.md section 1)
// and of the mid-level ops the passes lower through. The problem limits and
// the config-vs-problem rules are the contract's (Contract/Problem.h).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mxgemm;

/// Two extents agree if either is dynamic or they are equal.
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? "?" : std::to_string(d);
}

/// The problem of either form of the op (memref or tensor operands).
template <typename OpTy>
static ::mxgemm::contract::GemmProblem problemOf(OpTy op, ShapedType yTy) {
  ::mxgemm::contract::GemmProblem p;
  // `?` in the weight type: a generic kernel's run-time extent.
  auto extent = [](int64_t d) {
    return ShapedType::isDynamic(d) ? ::mxgemm::contract::kDynamicExtent : d;
  };
  p.n = extent(op.getN());
  p.k = extent(op.getK());
  // The op's type constraints admit exactly the formats mapped here.
  p.xType = *toContractElementType(op.getX().getType().getElementType());
  p.wType = *toContractElementType(op.getW().getType().getElementType());
  p.wScale = toContract(op.getWScale());
  p.outType = *toContractElementType(yTy.getElementType());
  return p;
}

::mxgemm::contract::GemmProblem ScaledMatmulOp::getProblem() {
  return problemOf(*this, getY().getType());
}

::mxgemm::contract::GemmProblem ScaledMatmulTensorOp::getProblem() {
  return problemOf(*this, getInit().getType());
}

/// The shape, problem and config rules both forms share.
template <typename OpTy>
static LogicalResult verifyScaledMatmul(OpTy op, ShapedType xTy,
                                        ShapedType xsTy, ShapedType wTy,
                                        ShapedType wsTy, ShapedType yTy) {
  namespace contract = ::mxgemm::contract;
  // N and K are W's: static, or `?` for a generic kernel that takes them
  // at run time; every other extent derived from them follows W's choice.
  int64_t n = wTy.getDimSize(0), k = wTy.getDimSize(1);
  if (xTy.getDimSize(1) != k)
    return op.emitOpError("X has K = ")
           << dimStr(xTy.getDimSize(1)) << " but W has K = " << dimStr(k);
  // N and K limits and K % 32 first: the shapes below are derived from them.
  const contract::GemmProblem problem = op.getProblem();
  if (contract::ErrorMessage error =
          contract::validateProblem(problem, /*allowDynamic=*/true))
    return op.emitOpError() << *error;
  const int64_t kBlocks =
      problem.dynamicK() ? ShapedType::kDynamic : problem.scaleColumns();
  int64_t m = xTy.getDimSize(0);
  if (!compatible(xsTy.getDimSize(0), m) || xsTy.getDimSize(1) != kBlocks)
    return op.emitOpError("X scales must have shape [M, K/32] = [")
           << dimStr(m) << ", " << dimStr(kBlocks) << "], got " << xsTy;
  int64_t wsRows =
      problem.dynamicN() ? ShapedType::kDynamic : problem.weightScaleRows();
  if (wsTy.getDimSize(0) != wsRows || wsTy.getDimSize(1) != kBlocks)
    return op.emitOpError("W scales with granularity ")
           << stringifyWeightScaleGranularity(op.getWScale())
           << " must have shape [" << dimStr(wsRows) << ", " << dimStr(kBlocks)
           << "], got " << wsTy;
  if (!compatible(yTy.getDimSize(0), m) || yTy.getDimSize(1) != n)
    return op.emitOpError("Y must have shape [M, N] = [")
           << dimStr(m) << ", " << dimStr(n) << "], got " << yTy;
  if (contract::ErrorMessage error = contract::verifyProblemConfig(
          problem, op.getConfig().getKernelConfig()))
    return op.emitOpError() << *error;
  return success();
}

LogicalResult ScaledMatmulOp::verify() {
  MemRefType xTy = getX().getType(), xsTy = getXScales().getType();
  MemRefType wTy = getW().getType(), wsTy = getWScales().getType();
  MemRefType yTy = getY().getType();
  for (auto [name, ty] : {std::pair<StringRef, MemRefType>{"X", xTy},
                          {"X scales", xsTy},
                          {"W", wTy},
                          {"W scales", wsTy},
                          {"Y", yTy}}) {
    if (!ty.getLayout().isIdentity())
      return emitOpError() << name
                           << " must be contiguous row-major (identity "
                              "layout), got "
                           << ty;
  }
  return verifyScaledMatmul(*this, xTy, xsTy, wTy, wsTy, yTy);
}

LogicalResult ScaledMatmulTensorOp::verify() {
  return verifyScaledMatmul(*this, getX().getType(), getXScales().getType(),
                            getW().getType(), getWScales().getType(),
                            getInit().getType());
}

//===----------------------------------------------------------------------===//
// Kernel-level ops
//===----------------------------------------------------------------------===//

/// Checks that a wave tile is made of whole MFMA blocks and that `accSize`
/// floats per lane hold exactly its accumulators.
static LogicalResult verifyWaveTile(Operation *op, MfmaShape mfma,
                                    int64_t waveM, int64_t waveN,
                                    int64_t accSize) {
  int64_t mn = ::mxgemm::target::kGFX950.getMfma(toContract(mfma)).m;
  if (waveM % mn != 0 || waveN % mn != 0)
    return op->emitOpError("wave tile ")
           << waveM << "x" << waveN << " is not a multiple of the " << mn << "x"
           << mn << " MFMA block";
  int64_t expected = (waveM / mn) * (waveN / mn) * (mn * mn / 64);
  if (accSize != expected)
    return op->emitOpError("accumulator must hold ")
           << expected << " floats per lane for a " << waveM << "x" << waveN
           << " wave tile, got " << accSize;
  return success();
}

LogicalResult ProgramTileOp::verify() {
  if (getNumTilesN().has_value() == bool(getNumTilesNSize()))
    return emitOpError("needs exactly one of the num_tiles_n attribute "
                       "(static N) and the num_tiles_n operand (dynamic N)");
  if (getNumTilesNSize() &&
      (getGroupM() != 1 || getGroupN() != 0 || getXcdRemap()))
    return emitOpError("a run-time num_tiles_n needs the row-major order "
                       "(group_m = 1, group_n = 0, xcd_remap = false)");
  return success();
}

LogicalResult WaveMmaOp::verify() {
  if (failed(verifyWaveTile(*this, getMfma(), getWaveM(), getWaveN(),
                            getAcc().getType().getNumElements())))
    return failure();
  if (getTileK() % getMfmaKSize() != 0)
    return emitOpError("tile_k (")
           << getTileK() << ") must be a multiple of the MFMA K ("
           << getMfmaKSize() << ")";
  if (getK().has_value() == bool(getKSize()))
    return emitOpError("needs exactly one of the k attribute (static N and "
                       "K) and sizes(N, K) (a generic kernel)");
  if (getKSize() && (getXTile() || getWTile() || getWPanels()))
    return emitOpError("run-time sizes need both operands loaded directly "
                       "(only there are N and K edges masked)");
  if (bool(getXRowStride()) != bool(getXsRowStride()))
    return emitOpError("row_strides gives both the X and the X-scale row "
                       "stride");
  if (getXRowStride() && !getKSize())
    return emitOpError("row strides are for generic kernels (sizes(N, K))");
  if (getK() && *getK() % getTileK() != 0 &&
      (getXTile() || getWTile() || getWPanels()))
    return emitOpError("k (")
           << *getK() << ") must be a multiple of tile_k (" << getTileK()
           << ") unless both operands are loaded directly (a K tail is "
              "masked only there)";
  if (getResult().getType() != getAcc().getType())
    return emitOpError("result type must equal the accumulator type");
  if (getWPanels() && getWTile())
    return emitOpError("W comes either from MFMA panels (w_panels) or from "
                       "an LDS tile (w_tile), not both");
  if (getPingpongPending() && (!getXTile() || !getWTile()))
    return emitOpError("pingpong_pending needs both operands in LDS "
                       "(x_tile and w_tile): the turn separates LDS reads "
                       "from MFMAs");
  if (getPingpongRefills() && (!getPingpongPending() || getBlocksN() % 2 != 0))
    return emitOpError("pingpong_refills (a K tile in two turns) needs "
                       "pingpong_pending and an even number of MFMA block "
                       "columns per wave (wave_n / MFMA N = ")
           << getBlocksN() << ")";
  if ((getXScalesNative() || getWScalesNative()) &&
      (getKSize() || *getK() % getTileK() != 0 || getXScaleWords()))
    return emitOpError("MFMA-native scale layouts need a static K that is a "
                       "multiple of tile_k and no scale_words");
  if (getWScalesNative() && getWScale() != WeightScaleGranularity::PerRow)
    return emitOpError("w_scales_native needs per-row weight scales");
  if (bool(getXScaleWords()) != bool(getScaleWordsTile()))
    return emitOpError("scale_words and scale_words_tile come together");
  if (getWScaleWords() && !getXScaleWords())
    return emitOpError("w_scale_words needs x_scale_words");
  if (getXScaleWords()) {
    if (getKSize() || *getK() % getTileK() != 0)
      return emitOpError("scale_words need a static K that is a multiple of "
                         "tile_k (no K tail)");
    // Dwords per block row: the span's blocks, of which this MMA's K tile
    // is one tile_k / 32 run.
    const int64_t xWords =
        cast<VectorType>(getXScaleWords().getType()).getNumElements();
    const int64_t dwords = xWords / getBlocksM();
    const int64_t wWords =
        getWScaleWords()
            ? cast<VectorType>(getWScaleWords().getType()).getNumElements()
            : dwords * getBlocksN();
    if (xWords != dwords * getBlocksM() || wWords != dwords * getBlocksN())
      return emitOpError("scale words must hold the same number of dwords "
                         "for each of the ")
             << getBlocksM() << " X and " << getBlocksN()
             << " W MFMA blocks, got " << xWords << " and " << wWords;
    const int64_t tileBlocks = getTileK() / 32;
    if ((int64_t(*getScaleWordsTile()) + 1) * tileBlocks > dwords * 4)
      return emitOpError("scale_words_tile ")
             << *getScaleWordsTile() << " is past the " << dwords * 4
             << " scale bytes per row the words hold";
  }
  return success();
}

LogicalResult LoadWaveScalesOp::verify() {
  const int64_t mn = getMfmaMN();
  if (getWaveM() % mn != 0 || getWaveN() % mn != 0)
    return emitOpError("wave tile ")
           << getWaveM() << "x" << getWaveN() << " is not a multiple of the "
           << mn << "x" << mn << " MFMA block";
  const int64_t bytes = getBytesPerRow();
  if (getTileK() % 32 != 0 || (bytes != 4 && bytes != 8 && bytes != 16))
    return emitOpError("span * tile_k / 32 (")
           << getSpan() << " * " << getTileK()
           << " / 32) must be 4, 8 or 16 scale bytes per row";
  // Each row's blocks start K / 32 bytes apart: aligned for the load only
  // if that is a multiple of its width.
  const int64_t k = getK();
  if (k % (32 * bytes) != 0)
    return emitOpError("k (")
           << k << ") must be a multiple of " << 32 * bytes
           << " so that every row's " << bytes << " scale bytes are aligned";
  for (auto [words, blocks, name] :
       {std::tuple(getXWords(), int64_t(getWaveM()) / mn, "x_words"),
        std::tuple(getWWords(), int64_t(getWaveN()) / mn, "w_words")}) {
    if (!words)
      continue;
    auto type = cast<VectorType>(words.getType());
    if (type.getNumElements() != blocks * bytes / 4)
      return emitOpError(name)
             << " must hold " << blocks * bytes / 4 << " dwords (" << blocks
             << " MFMA blocks x " << bytes / 4 << "), got " << type;
  }
  return success();
}

LogicalResult CopyToLdsOp::verify() {
  MemRefType dst = getDst().getType();
  if (dst.getElementType() != getSrc().getType().getElementType())
    return emitOpError("source and LDS ring element types differ");
  const int64_t rows = getRows(), tileK = getTileK();
  if (dst.getDimSize(1) != rows)
    return emitOpError("LDS ring holds ")
           << dst.getDimSize(1) << " rows per stage, copy moves " << rows;
  if (tileK % 16 != 0 || dst.getDimSize(2) % 16 != 0 ||
      dst.getDimSize(2) < tileK)
    return emitOpError("LDS rows must be whole 16-byte chunks of at least "
                       "tile_k bytes, got ")
           << dst.getDimSize(2) << " for tile_k = " << getTileK();
  if (getMode() != Staging::LdsAsync && getMode() != Staging::LdsSync)
    return emitOpError("mode must be lds_async or lds_sync");
  if (getMode() == Staging::LdsAsync &&
      (getRows() * dst.getDimSize(2)) % 1024 != 0)
    return emitOpError("lds_async fills 1024 contiguous LDS bytes per wave "
                       "instruction; a stage of ")
           << getRows() * dst.getDimSize(2) << " bytes is not a multiple";
  return success();
}

LogicalResult StoreTileOp::verify() {
  if (failed(verifyWaveTile(*this, getMfma(), getWaveM(), getWaveN(),
                            getAcc().getType().getNumElements())))
    return failure();
  if (getN().has_value() == bool(getNSize()))
    return emitOpError("needs exactly one of the n attribute (static N) and "
                       "the n operand (dynamic N)");
  if (getYRowStride() && !getNSize())
    return emitOpError("a row stride is for generic kernels (the n operand)");
  if (!getStaging())
    return success();
  if (getNSize())
    return emitOpError("a run-time N cannot be staged (its rows have no "
                       "static alignment)");
  MemRefType type = getStaging().getType();
  if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type))
    return emitOpError("staging buffer must be in workgroup (LDS) memory");
  if (!type.hasStaticShape())
    return emitOpError("staging buffer must have a static shape");
  if (type.getElementType() != getY().getType().getElementType())
    return emitOpError("staging buffer and output element types differ");
  const int64_t mn = ::mxgemm::target::kGFX950.getMfma(toContract(getMfma())).m;
  const int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  const int64_t cols = getStagingColumns();
  if (type.getDimSize(1) != mn)
    return emitOpError("staging buffer holds ")
           << type.getDimSize(1) << " rows per wave, an MFMA block row is "
           << mn;
  if ((cols * elemBytes != 64 && cols * elemBytes != 128) || cols % mn != 0 ||
      getWaveN() % cols != 0)
    return emitOpError("staging rows of ")
           << cols << " elements must be 64 or 128 bytes of whole MFMA "
           << "blocks that divide the wave tile's " << getWaveN() << " columns";
  return success();
}

#define GET_OP_CLASSES
#include "mxgemm/Dialect/MXGemm/IR/MXGemmOps.cpp.inc"
