//===- WaveMmaToMfma.cpp - a wave's MMA to amdgpu.scaled_mfma -------------===//
//
// Lowers mxgemm.wave_mma to per-lane operand and scale loads and a fixed
// K-order chain of amdgpu.scaled_mfma. In a pipelined K loop the MMA's
// global loads move ahead of the refill copies; where that is, depends on
// neighbouring ops that may or may not be lowered yet, so the pattern reads
// them in both forms.
//
//===----------------------------------------------------------------------===//

#include "MfmaEmitter.h"
#include "Patterns.h"

#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

#include <numeric>

using namespace mlir;

namespace mxgemm {
namespace {

/// Where the MMA's global loads (scales, packed or direct operands) go. In
/// a pipelined loop the refill copies of a later tile sit between the
/// barrier that publishes this tile and the MMA; vmcnt retires in issue
/// order, so loads issued after those copies could only be waited for by
/// also waiting for the copies (LLVM inserts vmcnt(0)), which serializes
/// the pipeline. Issued before the copies, they leave the copies in flight.
///
/// The barrier and the copies may already be lowered, and a replaced op may
/// still be in the block until the driver erases it: both forms count, and
/// the first barrier found (the nearest) decides.
Operation *globalLoadPoint(WaveMmaOp op) {
  bool crossesCopies = false;
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode()) {
    if (endsRingBarrier(p))
      return crossesCopies ? p->getNextNode() : op.getOperation();
    crossesCopies |= isLdsCopy(p);
  }
  return op;
}

class WaveMmaLowering : public CountingPattern<WaveMmaOp> {
public:
  using CountingPattern::CountingPattern;

  LogicalResult
  matchAndRewrite(WaveMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

LogicalResult
WaveMmaLowering::matchAndRewrite(WaveMmaOp op, OpAdaptor adaptor,
                                 ConversionPatternRewriter &rewriter) const {
  if (readsPackedWeightsRowMajor(op))
    return rewriter.notifyMatchFailure(
        op, "kernel takes packed W but the op reads row-major W");
  Operation *loadPoint = globalLoadPoint(op);
  const bool hoistLoads = loadPoint != op.getOperation();
  OpBuilder &b = rewriter;
  b.setInsertionPoint(loadPoint);
  Location loc = op.getLoc();
  const int64_t nonK = op.getMfmaMN(), kStep = op.getMfmaKSize();
  // A generic kernel's N and K are run-time values (sizes(N, K)); every
  // static-K expression below has its run-time twin, and the static path
  // builds exactly the ops it always did (the kernels' byte identity).
  Value kSize = adaptor.getKSize(), nSize = adaptor.getNSize();
  const int64_t k = kSize ? 0 : int64_t(*op.getK()), kBlocks = k / 32;
  const int64_t blocksM = op.getBlocksM(), blocksN = op.getBlocksN();
  const int64_t accPer = op.getAccPerBlock();
  MfmaEmitter e(b, loc, nonK);

  // Rows past M re-read the last valid row: in bounds, never stored.
  Value lastRow = arith::SubIOp::create(b, loc, adaptor.getM(), e.idx(1));
  Value kBlocksSize =
      kSize ? arith::DivUIOp::create(b, loc, kSize, e.idx(32)).getResult()
            : Value();
  auto mulK = [&](Value v) { return kSize ? e.mul(v, kSize) : e.mul(v, k); };
  auto mulKBlocks = [&](Value v) {
    return kSize ? e.mul(v, kBlocksSize) : e.mul(v, kBlocks);
  };
  // X and its scales may be views (a generic kernel's row strides); W and
  // its scales are contiguous.
  Value ldX = adaptor.getXRowStride(), ldXs = adaptor.getXsRowStride();
  auto mulLdX = [&](Value v) { return ldX ? e.mul(v, ldX) : mulK(v); };
  auto mulLdXs = [&](Value v) { return ldXs ? e.mul(v, ldXs) : mulKBlocks(v); };
  SmallVector<Value> xRowBase, xsRowBase, wRowBase, wsRowBase, wPanelBase;
  // MFMA-native scales (static K only, the verifier's rule): the chunks
  // of four steps per row group, and per-lane bases in place of the row
  // bases.
  const int64_t nativeChunks = ::mxgemm::contract::scaleLayoutChunks(
      ::mxgemm::contract::mfmaScaleLayout(toContract(op.getMfma())), kBlocks);
  const int64_t panelsPerBlock = k / ::mxgemm::contract::panelKStep(nonK);
  for (int64_t i = 0; i < blocksM; ++i) {
    Value row = e.add(e.add(adaptor.getRow0(), i * nonK), e.coords.r);
    row = e.minRow32(row, lastRow);
    xRowBase.push_back(mulLdX(row));
    xsRowBase.push_back(op.getXScalesNative()
                            ? e.nativeScaleLaneBase(row, nativeChunks)
                            : mulLdXs(row));
  }
  // Columns past N (in a partial last tile column) re-read row N - 1 of W
  // and its scales: in bounds, never stored. A run-time N is always
  // clamped.
  Value lastCol;
  if (nSize) {
    lastCol = arith::SubIOp::create(b, loc, nSize, e.idx(1));
  } else {
    const int64_t n =
        cast<MemRefType>(op.getW().getType()).getNumElements() / k;
    lastCol = hasPartialTileColumn(op, n) ? e.idx(n - 1) : Value();
  }
  for (int64_t j = 0; j < blocksN; ++j) {
    Value col = e.add(e.add(adaptor.getCol0(), j * nonK), e.coords.r);
    if (lastCol)
      col = e.minRow32(col, lastCol);
    wRowBase.push_back(mulK(col));
    Value blockIndex = arith::DivUIOp::create(
        b, loc, e.add(adaptor.getCol0(), j * nonK), e.idx(nonK));
    wPanelBase.push_back(e.add(
        e.mul(blockIndex, panelsPerBlock * ::mxgemm::contract::kPanelBytes),
        e.mul(e.coords.lane, 32)));
    Value scaleRow =
        op.getWScale() == WeightScaleGranularity::PerRow
            ? col
            : arith::DivUIOp::create(b, loc, col, e.idx(32)).getResult();
    wsRowBase.push_back(op.getWScalesNative()
                            ? e.nativeScaleLaneBase(col, nativeChunks)
                            : mulKBlocks(scaleRow));
  }

  // Row `i * nonK + r` of a wave's LDS view, for either operand.
  SmallVector<Value> tileRow;
  for (int64_t i = 0; i < std::max(blocksM, blocksN); ++i)
    tileRow.push_back(e.add(e.coords.r, i * nonK));

  auto blockType = VectorType::get({accPer}, b.getF32Type());
  auto i32 = [&](int64_t v) { return b.getI32IntegerAttr(v); };
  Value acc = adaptor.getAcc();
  const int64_t accSize = op.getAcc().getType().getNumElements();
  // Per step: the operands (null where they come from LDS) and scales.
  const int64_t steps = op.getTileK() / kStep;
  SmallVector<SmallVector<Value>> aOf(steps), bOf(steps);
  SmallVector<SmallVector<MfmaEmitter::StepScale>> aScaleOf(steps),
      bScaleOf(steps);
  // Scales of several steps share one wide load where the layout allows;
  // the load is issued with the first step it serves.
  const int64_t blocksPerStep = kStep / 32;
  // A K tail (direct loads only, as the verifiers require) masks every
  // load past K and loads each step's scales on their own.
  if (kSize) {
    e.kLimitValue = kSize;
    e.kBlocksLimitValue = kBlocksSize;
  } else if (k % op.getTileK() != 0) {
    e.kLimit = k;
  }
  const int64_t wideBytes =
      e.masksK() ? 0 : MfmaEmitter::wideScaleBytes(steps, kStep, k);
  SmallVector<Value> xsWide(blocksM), wsWide(blocksN);
  // Scales loaded for several K tiles by mxgemm.load_wave_scales: each
  // step shifts its bytes out of the words (wordsStepScale).
  Value xWords = adaptor.getXScaleWords(), wWords = adaptor.getWScaleWords();
  const int64_t wordsBlock0 =
      xWords ? *op.getScaleWordsTile() * (op.getTileK() / 32) : 0;
  // Dwords per MFMA block row, the same in both (the verifier's rule).
  const int64_t wordsPerBlock =
      xWords ? cast<VectorType>(xWords.getType()).getNumElements() / blocksM
             : 0;
  auto wordsScale = [&](Value words, int64_t block, int64_t step) {
    return e.wordsStepScale(words, wordsPerBlock, block,
                            wordsBlock0 + step * blocksPerStep);
  };
  auto loadGlobals = [&](int64_t step) {
    Value kBase = e.add(adaptor.getK0(), step * kStep);
    Value kBlock =
        xWords && wWords
            ? Value()
            : arith::DivUIOp::create(b, loc, kBase, e.idx(32)).getResult();
    const int64_t blockInLoad =
        wideBytes ? step * blocksPerStep % wideBytes : 0;
    auto scale = [&](Value &wide, Value mem, Value rowBase, Value words,
                     int64_t block, bool native) {
      if (native)
        return MfmaEmitter::StepScale{
            e.loadNativeScale(mem, rowBase, kBase, kStep)};
      // The first K tile of the words extracts them next to its MFMAs
      // (below), after the turn that waits for their loads; the others
      // here, which ends the loop-carried words' live range before the
      // next words are loaded (mxgemm-unroll-k), so that the backend loads
      // them into the same registers instead of copying them at the
      // latch, which would wait for the loads.
      if (words)
        return wordsBlock0 == 0 ? MfmaEmitter::StepScale{}
                                : wordsScale(words, block, step);
      if (!wideBytes)
        return MfmaEmitter::StepScale{e.loadScale(mem, rowBase, kBlock)};
      if (blockInLoad == 0)
        wide = e.loadWideScales(mem, rowBase, kBlock, wideBytes);
      return e.wideStepScale(wide, blockInLoad);
    };
    for (int64_t i = 0; i < blocksM; ++i) {
      aOf[step].push_back(
          adaptor.getXTile()
              ? Value()
              : e.loadOperand(adaptor.getX(), xRowBase[i], kBase));
      aScaleOf[step].push_back(scale(xsWide[i], adaptor.getXScales(),
                                     xsRowBase[i], xWords, i,
                                     op.getXScalesNative()));
    }
    for (int64_t j = 0; j < blocksN; ++j) {
      Value w;
      if (op.getWPanels())
        w = e.loadOperandFromPanels(adaptor.getW(), wPanelBase[j], kBase);
      else if (!adaptor.getWTile())
        w = e.loadOperand(adaptor.getW(), wRowBase[j], kBase);
      bOf[step].push_back(w);
      bScaleOf[step].push_back(scale(wsWide[j], adaptor.getWScales(),
                                     wsRowBase[j], wWords, j,
                                     op.getWScalesNative()));
    }
  };
  std::optional<uint64_t> pingpongPending = op.getPingpongPending();
  if (hoistLoads) {
    for (int64_t step = 0; step < steps; ++step)
      loadGlobals(step);
    if (!pingpongPending)
      b.setInsertionPoint(op);
  }
  // Reads the step's LDS fragments not loaded yet: X (with `withX`) and W
  // blocks `jBegin .. jEnd`.
  auto loadLdsOperands = [&](int64_t step, int64_t jBegin, int64_t jEnd,
                             bool withX) {
    SmallVector<Value> &a = aOf[step], &bOp = bOf[step];
    for (int64_t i = 0; withX && i < blocksM; ++i)
      if (!a[i])
        a[i] = e.loadOperandFromLds(adaptor.getXTile(), tileRow[i],
                                    step * kStep, op.getXorSwizzle());
    for (int64_t j = jBegin; j < jEnd; ++j)
      if (!bOp[j])
        bOp[j] = e.loadOperandFromLds(adaptor.getWTile(), tileRow[j],
                                      step * kStep, op.getXorSwizzle());
  };
  auto waitLdsReads = [&] {
    amdgpu::MemoryCounterWaitOp::create(
        b, loc, /*load=*/nullptr, /*store=*/nullptr,
        /*ds=*/b.getI32IntegerAttr(0), /*exp=*/nullptr, /*tensor=*/nullptr);
  };
  // The step's MFMAs of W blocks `jBegin .. jEnd`, block row by block row.
  auto emitMfmas = [&](int64_t step, int64_t jBegin, int64_t jEnd) {
    SmallVector<Value> &a = aOf[step], &bOp = bOf[step];
    SmallVector<MfmaEmitter::StepScale> &aScale = aScaleOf[step],
                                        &bScale = bScaleOf[step];
    for (int64_t i = 0; i < blocksM; ++i) {
      for (int64_t j = jBegin; j < jEnd; ++j) {
        int64_t offset = (i * blocksN + j) * accPer;
        // Shuffles, not strided slices: they lower straight to LLVM.
        SmallVector<int64_t> extract, insert;
        for (int64_t t = 0; t < accPer; ++t)
          extract.push_back(offset + t);
        for (int64_t t = 0; t < accSize; ++t)
          insert.push_back(
              t >= offset && t < offset + accPer ? accSize + (t - offset) : t);
        Value c = vector::ShuffleOp::create(b, loc, acc, acc, extract);
        // W is the MFMA's A operand and X its B: the block is computed
        // transposed (D[n][m]), so that each lane ends with four
        // consecutive output columns of one row (StoresToAMDGPU.cpp).
        Value d = amdgpu::ScaledMFMAOp::create(
            b, loc, blockType, i32(nonK), i32(nonK), i32(kStep), bOp[j], a[i],
            c, bScale[j].vgpr, aScale[i].vgpr, i32(bScale[j].byteSelect),
            i32(aScale[i].byteSelect));
        acc = vector::ShuffleOp::create(b, loc, acc, d, insert);
      }
    }
  };
  // Every read of the (first) turn, X and W blocks 0 .. jEnd, ahead of the
  // refills when there are any, and waited for before them: an LDS-DMA
  // takes an lgkmcnt slot for LLVM 22 and the emulator (not for the
  // hardware, LLVM PR 179305), so a later lgkmcnt(0) would also wait for
  // the refills' data. Then the turn: the wait for the copies (all but
  // `pendingLoads`) and the barrier the other group meets at the start of
  // its reads; the MFMAs that follow run at raised priority.
  auto readThenTurn = [&](int64_t jEnd, int64_t pendingLoads) {
    for (int64_t step = 0; step < steps; ++step) {
      if (!hoistLoads)
        loadGlobals(step);
      loadLdsOperands(step, 0, jEnd, /*withX=*/true);
    }
    waitLdsReads();
    b.setInsertionPoint(op);
    emitPingPongTurn(b, loc, pendingLoads);
  };
  // The first K tile's scales out of the words, after the turn that waits
  // for their loads.
  auto extractFirstTileScales = [&](int64_t step) {
    if (!xWords || wordsBlock0 != 0)
      return;
    for (int64_t i = 0; i < blocksM; ++i)
      aScaleOf[step][i] = wordsScale(xWords, i, step);
    for (int64_t j = 0; wWords && j < blocksN; ++j)
      bScaleOf[step][j] = wordsScale(wWords, j, step);
  };
  if (std::optional<uint64_t> refills = op.getPingpongRefills()) {
    // Two turns (a two-slot ring): the first reads every X fragment of the
    // tile and the W fragments of the first half of the wave's block
    // columns, the second the other half of W, keeping X in registers, so
    // that the tile's X is free for refilling after the first turn. The
    // copies that follow the op (mxgemm-pipeline's X copies, two tiles
    // ahead) go out in the second turn, after its reads, and so does a
    // scale load that follows them (mxgemm-unroll-k's X scales of the next
    // K tile). Each block still runs its K steps in order.
    SmallVector<Operation *> secondTurnLoads;
    for (Operation *p = op->getNextNode(); p; p = p->getNextNode()) {
      if (isa<CopyToLdsOp, LoadWaveScalesOp>(p))
        secondTurnLoads.push_back(p);
      else if (isLdsCopy(p))
        return rewriter.notifyMatchFailure(
            op, "the copies after a two-turn MMA are already lowered");
    }
    const int64_t half = blocksN / 2;
    readThenTurn(half, *refills);
    for (int64_t step = 0; step < steps; ++step) {
      extractFirstTileScales(step);
      emitMfmas(step, 0, half);
    }
    emitPingPongYield(b, loc);
    for (int64_t step = 0; step < steps; ++step)
      loadLdsOperands(step, half, blocksN, /*withX=*/false);
    waitLdsReads();
    for (Operation *load : secondTurnLoads)
      rewriter.moveOpBefore(load, b.getInsertionBlock(), b.getInsertionPoint());
    emitPingPongTurn(b, loc, *pingpongPending);
    for (int64_t step = 0; step < steps; ++step)
      emitMfmas(step, half, blocksN);
  } else {
    if (pingpongPending)
      readThenTurn(blocksN, *pingpongPending);
    for (int64_t step = 0; step < steps; ++step) {
      if (!pingpongPending) {
        if (!hoistLoads)
          loadGlobals(step);
        loadLdsOperands(step, 0, blocksN, /*withX=*/true);
      }
      extractFirstTileScales(step);
      emitMfmas(step, 0, blocksN);
    }
  }
  if (pingpongPending)
    ROCDL::SetPrioOp::create(b, loc, b.getI16IntegerAttr(0));
  rewriter.replaceOp(op, acc);
  count(&MXGemmToAMDGPUCounts::mfmas, steps * blocksM * blocksN);
  count(&MXGemmToAMDGPUCounts::hoistedMmas, hoistLoads ? 1 : 0);
  count(&MXGemmToAMDGPUCounts::globalLoads, e.globalLoads);
  count(&MXGemmToAMDGPUCounts::dsReads, e.dsReads);
  return success();
}

/// One wide scale load per MFMA block row and distinct W scale row of the
/// wave, where the op stands (mxgemm-unroll-k counts them into a wait),
/// with the rows and columns clamped as WaveMmaLowering clamps them.
class LoadWaveScalesLowering : public CountingPattern<LoadWaveScalesOp> {
public:
  using CountingPattern::CountingPattern;

  LogicalResult
  matchAndRewrite(LoadWaveScalesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    const int64_t nonK = op.getMfmaMN(), bytes = op.getBytesPerRow();
    const int64_t kBlocks = int64_t(op.getK()) / 32;
    MfmaEmitter e(b, loc, nonK);
    Value kBlock = arith::DivUIOp::create(b, loc, adaptor.getK0(), e.idx(32));
    Value lastRow = arith::SubIOp::create(b, loc, adaptor.getM(), e.idx(1));
    const int64_t n = int64_t(op.getN());
    Value lastCol = hasPartialTileColumn(op, n) ? e.idx(n - 1) : Value();
    // Each row's dwords, concatenated row after row (shuffles lower to LLVM
    // directly; an n-D vector carried by a loop would not).
    // With `pairs` (sharesWScaleRows), blocks 2j and 2j + 1 read the same
    // 32x32-block scale row, clamped or not: one load.
    // With `scalar` (hasScalarWWords), `first` is wave-uniform and so is
    // each block's first column, clamped like the lanes' columns: one
    // scalar load per block.
    auto words = [&](Value mem, Value first, int64_t blocks, Value last,
                     bool perBlock32, bool pairs, bool scalar) {
      Value result, loaded;
      for (int64_t i = 0; i < blocks; ++i) {
        if (!pairs || i % 2 == 0) {
          Value row = e.add(first, i * nonK);
          if (!scalar)
            row = e.add(row, e.coords.r);
          if (last)
            row = e.minRow32(row, last);
          if (perBlock32)
            row = arith::DivUIOp::create(b, loc, row, e.idx(32));
          loaded = scalar ? e.loadUniformScaleWords(mem, e.mul(row, kBlocks),
                                                    kBlock, bytes)
                          : e.loadScaleWords(mem, e.mul(row, kBlocks), kBlock,
                                             bytes);
        }
        if (!result) {
          result = loaded;
          continue;
        }
        const int64_t have =
            cast<VectorType>(result.getType()).getNumElements();
        SmallVector<int64_t> all(have + bytes / 4);
        std::iota(all.begin(), all.end(), 0);
        result = vector::ShuffleOp::create(b, loc, result, loaded, all);
      }
      return result;
    };
    SmallVector<Value, 2> results{words(adaptor.getXScales(), adaptor.getRow0(),
                                        op.getWaveM() / nonK, lastRow,
                                        /*perBlock32=*/false,
                                        /*pairs=*/false, /*scalar=*/false)};
    if (op.getWWords()) {
      const bool scalar = op.hasScalarWWords();
      Value col0 = adaptor.getCol0();
      if (scalar)
        col0 = readFirstLane(b, col0);
      results.push_back(words(adaptor.getWScales(), col0, op.getWaveN() / nonK,
                              lastCol,
                              op.getWScale() != WeightScaleGranularity::PerRow,
                              op.sharesWScaleRows(), scalar));
    }
    rewriter.replaceOp(op, results);
    count(&MXGemmToAMDGPUCounts::globalLoads, e.globalLoads);
    count(&MXGemmToAMDGPUCounts::scalarLoads, e.scalarLoads);
    return success();
  }
};

} // namespace

ConfigAttr kernelConfig(Operation *op) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  return kernel ? kernel->getAttrOfType<ConfigAttr>(kConfigAttrName) : nullptr;
}

bool hasPartialTileColumn(Operation *op, int64_t n) {
  ConfigAttr config = kernelConfig(op);
  return config && n % config.getTileN() != 0;
}

bool readsPackedWeightsRowMajor(WaveMmaOp op) {
  ConfigAttr config = kernelConfig(op);
  return config && config.getStageW() == Staging::PackedRegisters &&
         !op.getWPanels();
}

void populateWaveMmaToMfmaPatterns(RewritePatternSet &patterns,
                                   MXGemmToAMDGPUCounts *counts) {
  patterns.add<WaveMmaLowering, LoadWaveScalesLowering>(patterns.getContext(),
                                                        counts);
}

} // namespace mxgemm
