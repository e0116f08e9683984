//===- StageCopies.cpp - mxgemm-stage-copies: operands through LDS --------===//
//
// Rewrites the K loop so that every K tile of an LDS-staged operand is copied
// once per workgroup into an LDS ring and each wave reads its MFMA fragments
// from there, instead of every wave re-reading global memory. The ring has
// `stages` slots; this pass uses slot 0 only and leaves rotating the slots
// to mxgemm-pipeline.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-stage-copies"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMSTAGECOPIES
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

bool isLdsStaging(Staging s) {
  return s == Staging::LdsAsync || s == Staging::LdsSync;
}

/// What staging one kernel did, for the pass statistics.
struct StagingSummary {
  int64_t stagedOperands = 0, ldsBytes = 0, packedWMmas = 0;
};

/// The wave's rows of the current ring slot, as a 2-D [rows, tile_k] view.
Value waveView(OpBuilder &b, Location loc, Value ring, Value stage,
               Value rowOffset, int64_t rows, int64_t tileK) {
  auto ringType = cast<MemRefType>(ring.getType());
  SmallVector<OpFoldResult> offsets = {stage, rowOffset, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(rows),
                                     b.getIndexAttr(tileK)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {rows, tileK}, ringType, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), ring,
                                   offsets, sizes, strides);
}

LogicalResult stageKernel(gpu::GPUFuncOp kernel, StagingSummary &summary) {
  auto config = kernel->getAttrOfType<ConfigAttr>(kConfigAttrName);
  auto problem = kernel->getAttrOfType<DictionaryAttr>(kProblemAttrName);
  if (!config || !problem)
    return success();
  const bool stageX = isLdsStaging(config.getStageX());
  const bool stageW = isLdsStaging(config.getStageW());
  if (config.getStageX() == Staging::PackedRegisters)
    return kernel.emitError("stage_x = packed_registers is not supported");
  // Packed weights need no copies: the MFMA operand loads read the panels.
  if (config.getStageW() == Staging::PackedRegisters)
    kernel.walk([&](WaveMmaOp op) {
      op.setWPanels(true);
      ++summary.packedWMmas;
    });
  const bool xorLayout = config.getLdsLayout() == LdsLayout::Xor;
  if (xorLayout && !llvm::isPowerOf2_64(config.getTileK() / 16))
    return kernel.emitError("lds_layout = xor needs tile_k / 16 to be a "
                            "power of two, got tile_k = ")
           << config.getTileK();
  if (!stageX && !stageW)
    return success();
  // The rings are sized from compile-time N and K (the problem verifier
  // keeps generic kernels direct).
  if (!isa_and_nonnull<IntegerAttr>(problem.get("n")) ||
      !isa_and_nonnull<IntegerAttr>(problem.get("k")))
    return kernel.emitError("LDS staging needs static N and K");

  // lds_layout = xor permutes chunks with a period of `xorPeriod` ring rows;
  // wave views start at multiples of their height, so that height must be a
  // multiple of the period for the views to see the same permutation.
  const int64_t xorChunks = config.getTileK() / 16;
  const int64_t xorPeriod =
      std::max<int64_t>(1, 256 / config.getTileK()) * xorChunks;

  // A kernel has one K loop, or two (a tail split's whole tiles and K
  // segments): both read their tiles through the same rings, one K loop
  // running at a time.
  SmallVector<WaveMmaOp> mmas;
  kernel.walk([&](WaveMmaOp op) { mmas.push_back(op); });
  if (mmas.empty() || mmas.size() > 2)
    return kernel.emitError("expected one or two mxgemm.wave_mma to stage, "
                            "found ")
           << mmas.size();
  for (WaveMmaOp mma : mmas) {
    if (!isa<scf::ForOp>(mma->getParentOp()))
      return mma.emitOpError("must be directly inside the K loop to be "
                             "staged");
    for (Value v : {mma.getRow0(), mma.getCol0(), mma.getM()})
      if (mma->getParentOp()->isAncestor(v.getParentBlock()->getParentOp()))
        return mma.emitOpError("tile origin must be invariant in the K loop");
    if (xorLayout && ((stageX && mma.getWaveM() % xorPeriod != 0) ||
                      (stageW && mma.getWaveN() % xorPeriod != 0)))
      return kernel.emitError("lds_layout = xor permutes chunks every ")
             << xorPeriod << " rows, which does not divide the wave tile "
             << mma.getWaveM() << "x" << mma.getWaveN();
  }
  MLIRContext *ctx = kernel.getContext();
  Location loc = mmas.front().getLoc();
  const int64_t progTileM = config.getProgramTileM();
  const int64_t tileN = config.getTileN(), tileK = config.getTileK();
  const int64_t rowBytes =
      tileK + (config.getLdsLayout() == LdsLayout::Padded ? 16 : 0);
  const int64_t n = cast<IntegerAttr>(problem.get("n")).getInt();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto addRing = [&](Value operand, int64_t rows) {
    Type elem = cast<MemRefType>(operand.getType()).getElementType();
    auto type = MemRefType::get({config.getStages(), rows, rowBytes}, elem,
                                MemRefLayoutAttrInterface(), workgroup);
    ++summary.stagedOperands;
    summary.ldsBytes +=
        type.getNumElements() * elem.getIntOrFloatBitWidth() / 8;
    return kernel.addWorkgroupAttribution(type, loc);
  };
  Value xRing = stageX ? addRing(mmas.front().getX(), progTileM) : Value();
  Value wRing = stageW ? addRing(mmas.front().getW(), tileN) : Value();

  for (WaveMmaOp mma : mmas) {
    // Tile bases are loop invariant and must stay outside the loop: the
    // pipeline's prologue copies use them before the loop starts.
    auto loop = cast<scf::ForOp>(mma->getParentOp());
    OpBuilder b(loop);
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto splitTile = [&](Value start, int64_t tile) -> std::pair<Value, Value> {
      Value inTile = arith::RemUIOp::create(b, loc, start, idx(tile));
      Value base = arith::SubIOp::create(b, loc, start, inTile);
      return {base, inTile};
    };
    Value nValue = idx(n);
    std::pair<Value, Value> xSplit, wSplit;
    if (stageX)
      xSplit = splitTile(mma.getRow0(), progTileM);
    if (stageW)
      wSplit = splitTile(mma.getCol0(), tileN);
    b.setInsertionPoint(mma);
    Value stage = idx(0);
    auto copy = [&](Value src, Value ring, Value base, Value limit,
                    int64_t rows, Staging mode) {
      CopyToLdsOp::create(b, loc, src, ring, stage, base, mma.getK0(), limit,
                          b.getI64IntegerAttr(rows), b.getI64IntegerAttr(tileK),
                          b.getI64IntegerAttr(*mma.getK()),
                          StagingAttr::get(ctx, mode),
                          b.getI64IntegerAttr(config.getNumWaves()),
                          xorLayout ? b.getUnitAttr() : UnitAttr());
    };

    Value xView, wView;
    if (stageX) {
      auto [base, waveRow] = xSplit;
      copy(mma.getX(), xRing, base, mma.getM(), progTileM, config.getStageX());
      xView = waveView(b, loc, xRing, stage, waveRow, mma.getWaveM(), tileK);
    }
    if (stageW) {
      auto [base, waveCol] = wSplit;
      copy(mma.getW(), wRing, base, nValue, tileN, config.getStageW());
      wView = waveView(b, loc, wRing, stage, waveCol, mma.getWaveN(), tileK);
    }
    // Every wave's copies must have landed before any wave reads the tile,
    // and every wave must be done reading before the slot is refilled.
    WaitCopiesOp::create(b, loc, b.getI64IntegerAttr(0));
    RingBarrierOp::create(b, loc);
    if (xView)
      mma.getXTileMutable().assign(xView);
    if (wView)
      mma.getWTileMutable().assign(wView);
    // The permutation depends on the ring row; wave row offsets are
    // multiples of 16 rows, a whole period of it, so the views can use
    // their own rows.
    mma.setXorSwizzle(xorLayout);
    b.setInsertionPointAfter(mma);
    RingBarrierOp::create(b, loc);
  }
  return success();
}

struct MXGemmStageCopiesPass
    : public impl::MXGemmStageCopiesBase<MXGemmStageCopiesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation()->walk([&](gpu::GPUFuncOp k) { kernels.push_back(k); });
    for (gpu::GPUFuncOp kernel : kernels) {
      StagingSummary summary;
      if (failed(stageKernel(kernel, summary)))
        return signalPassFailure();
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": @" << kernel.getName() << ": "
                              << summary.stagedOperands << " operands in "
                              << summary.ldsBytes << " LDS bytes, "
                              << summary.packedWMmas << " MMAs on packed W\n");
      if (summary.stagedOperands > 0)
        ++numStagedKernels;
      numStagedOperands += summary.stagedOperands;
      numLdsBytes += summary.ldsBytes;
      numPackedWMmas += summary.packedWMmas;
    }
  }
};

} // namespace
} // namespace mxgemm
