//===- UnrollK.cpp - mxgemm-unroll-k: K loop unroll, shared scale loads ---===//
//
// Unrolls the pipelined K loop of a kernel with `unroll_k = U` by U. In a
// ping-pong loop the U wave MMAs of one unrolled iteration then share their
// scale loads: mxgemm.load_wave_scales loads the E8M0 blocks of all U K
// tiles per row (4, 8 or 16 contiguous bytes), one iteration ahead, where
// each MMA would load one byte per row. On gfx950 a scale load costs the
// texture address unit a cycle per cache line it touches whatever its
// width, and the rows of a scale tile are K / 32 bytes apart, so a
// one-byte load per row costs as many address cycles as an operand copy;
// sharing divides that by U. (mxgemm-sim predicts no gain yet:
// docs/Performance.md, "unroll_k".)
//
// The loop comes from mxgemm-pipeline: from 0 with a constant step of
// tile_k, its MMA reading K tile `iv`. Every unrolled iteration then
// starts at a multiple of U * tile_k, so each row's blocks of its U K
// tiles are one aligned run when K / 32 is a multiple of the run. A
// remainder of fewer than U K tiles is unrolled fully and loads its scales
// as before, and so do loops without ping-pong, whose waits count copies
// where the loads would have to go.
//
// Without unrolling, a two-slot ping-pong loop gets its scales one K tile
// ahead and its first K tile peeled, so that the peeled MFMAs start from
// an inline C = 0 instead of accumulators zeroed in the prologue.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-unroll-k"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMUNROLLK
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// The MMAs directly in `loop`'s body, in order.
SmallVector<WaveMmaOp> loopMmas(scf::ForOp loop) {
  return llvm::to_vector(loop.getBody()->getOps<WaveMmaOp>());
}

/// True if `mma`'s scales can come from a load_wave_scales outside its
/// own K tile: a static K that is a multiple of tile_k, the MMA at the
/// loop's K offset (`withOrigin`: or at a loop-invariant origin plus it,
/// kOriginIn), and everything but K loop-invariant (the loads go before
/// the loop and into earlier K tiles).
bool scalesLoadableAhead(scf::ForOp loop, WaveMmaOp mma,
                         bool withOrigin = false) {
  FailureOr<Value> origin = kOriginIn(loop, mma.getK0());
  if (!mma.getK() || mma.getKSize() || failed(origin) ||
      (*origin && !withOrigin) ||
      int64_t(*mma.getK()) % int64_t(mma.getTileK()) != 0)
    return false;
  return llvm::all_of(std::initializer_list<Value>{mma.getRow0(), mma.getCol0(),
                                                   mma.getM(), mma.getXScales(),
                                                   mma.getWScales()},
                      [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
}

/// True if the U MMAs of an unrolled iteration can share scale loads: a
/// static K without a tail whose rows keep the span's blocks aligned, the
/// first MMA at the loop's K offset, and every MMA of the same wave tile.
bool canShareScales(scf::ForOp loop, ArrayRef<WaveMmaOp> mmas, int64_t span) {
  WaveMmaOp first = mmas.front();
  if (int64_t(mmas.size()) != span || !scalesLoadableAhead(loop, first))
    return false;
  // The loads are counted into the ping-pong turn's wait (shareScales).
  if (!llvm::all_of(mmas, [](WaveMmaOp mma) {
        return mma.getPingpongPending().has_value();
      }))
    return false;
  const int64_t k = int64_t(*first.getK());
  const int64_t tileK = int64_t(first.getTileK());
  const int64_t bytes = span * tileK / 32;
  if ((bytes != 4 && bytes != 8 && bytes != 16) || k % (32 * bytes) != 0)
    return false;
  return llvm::all_of(mmas, [&](WaveMmaOp mma) {
    return mma.getRow0() == first.getRow0() &&
           mma.getCol0() == first.getCol0() && mma.getM() == first.getM() &&
           mma.getXScales() == first.getXScales() &&
           mma.getWScales() == first.getWScales() &&
           int64_t(mma.getTileK()) == tileK && !mma.getXScaleWords();
  });
}

/// The words of the K tiles from `k0`: a load_wave_scales at `b` for the
/// wave tile of `first`.
LoadWaveScalesOp loadScales(OpBuilder &b, WaveMmaOp first, Value k0,
                            int64_t span, bool withW = true) {
  const int64_t mn = first.getMfmaMN(), tileK = first.getTileK();
  const int64_t dwords = span * tileK / 32 / 4;
  auto words = [&](int64_t blocks) {
    return VectorType::get({blocks * dwords}, b.getI32Type());
  };
  const int64_t k = int64_t(*first.getK());
  const int64_t n =
      cast<MemRefType>(first.getW().getType()).getNumElements() / k;
  return LoadWaveScalesOp::create(
      b, first.getLoc(), words(first.getWaveM() / mn),
      withW ? words(first.getWaveN() / mn) : Type(), first.getXScales(),
      first.getWScales(), first.getRow0(), first.getCol0(), k0, first.getM(),
      first.getMfmaAttr(), first.getWaveMAttr(), first.getWaveNAttr(),
      first.getTileKAttr(), b.getI64IntegerAttr(k), b.getI64IntegerAttr(n),
      b.getI64IntegerAttr(span), first.getWScaleAttr());
}

/// The value of `iv + step` clamped to the loop's last K tile, at `b`.
Value nextKTile(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  Value lastStart =
      arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getStep());
  return arith::MinUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, loop.getInductionVar(), loop.getStep()),
      lastStart);
}

/// Hands the MMAs of each unrolled iteration of a ping-pong loop the words
/// of its K tiles, loaded one iteration ahead: the first iteration's before
/// the loop, the next one's during the last K tile, after that tile's
/// copies, carried by the loop. The last K tile's turn waits for all but
/// its copies and these loads (its pingpong_pending grows by the loads),
/// so they are in flight during its MFMAs and the next K tile's reads;
/// the next turn waits for them with the copies of the tile after. A load
/// issued in the same K tile as its first MFMAs would stall them by its
/// whole latency (vmcnt counts in issue order, and the turn waits for
/// everything older than the copies). The last iteration loads its own K
/// tiles again (K clamped), never past K.
LogicalResult shareScales(scf::ForOp loop, ArrayRef<WaveMmaOp> mmas,
                          int64_t span) {
  WaveMmaOp first = mmas.front(), last = mmas.back();
  OpBuilder pre(loop);
  LoadWaveScalesOp initial = loadScales(pre, first, loop.getLowerBound(), span);
  OpBuilder b(last);
  LoadWaveScalesOp next = loadScales(b, first, nextKTile(b, loop), span);
  WaveMmaOp(last).setPingpongPending(*last.getPingpongPending() +
                                     next.getNumLoads());
  IRRewriter rewriter(loop.getContext());
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{initial.getXWords(), initial.getWWords()},
      /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{next.getXWords(), next.getWWords()};
      });
  if (failed(replaced))
    return failure();
  auto args = cast<scf::ForOp>(replaced->getOperation())
                  .getRegionIterArgs()
                  .take_back(2);
  for (auto [i, constMma] : llvm::enumerate(mmas)) {
    WaveMmaOp mma = constMma;
    mma.getXScaleWordsMutable().assign(args[0]);
    mma.getWScaleWordsMutable().assign(args[1]);
    mma.setScaleWordsTile(i);
  }
  return success();
}

/// A two-slot loop's MMA (pingpong_refills: each K tile in two turns)
/// without unrolling: its X scales come one K tile ahead, a dword per
/// MFMA block row and lane (the tile's 4 blocks) loaded after the X
/// copies of its second turn, so that the first turn of the next K tile
/// finds them loaded instead of waiting for them (its wait covers them
/// with the X copies). Row-major X scales only: MFMA-native ones are one
/// line per load.
bool canPrefetchXScales(scf::ForOp loop, WaveMmaOp mma) {
  // One K tile of 128 is one dword per row (load_wave_scales' 4 bytes).
  return mma.getPingpongRefills() && !mma.getXScalesNative() &&
         !mma.getXScaleWords() && mma.getTileK() == 128 &&
         scalesLoadableAhead(loop, mma, /*withOrigin=*/true);
}

/// Whether the W scales come ahead with the X scales: 32x32-block ones,
/// which load_wave_scales loads with scalar loads (hasScalarWWords). Loaded
/// ahead as vector loads they would crowd the second memory phase's
/// vector-memory queue (docs/Performance.md predicts that slower); in the
/// MMA they are vector loads its first memory phase waits for.
bool canPrefetchWScales(WaveMmaOp mma) {
  return mma.getWScale() != WeightScaleGranularity::PerRow &&
         !mma.getWScalesNative();
}

FailureOr<scf::ForOp> prefetchScales(scf::ForOp loop, WaveMmaOp mma) {
  const bool withW = canPrefetchWScales(mma);
  // A split-K segment's K offsets start at its origin (canPrefetchXScales
  // checked its form).
  Value origin = *kOriginIn(loop, mma.getK0());
  auto fromOrigin = [&](OpBuilder &b, Value k) -> Value {
    return origin ? arith::AddIOp::create(b, loop.getLoc(), origin, k) : k;
  };
  OpBuilder pre(loop);
  LoadWaveScalesOp initial = loadScales(
      pre, mma, fromOrigin(pre, loop.getLowerBound()), /*span=*/1, withW);
  OpBuilder b(mma);
  Value nextK = fromOrigin(b, nextKTile(b, loop));
  // After the copies that follow the MMA (the X copies of its second turn).
  Operation *last = mma;
  while (isa_and_nonnull<CopyToLdsOp>(last->getNextNode()))
    last = last->getNextNode();
  b.setInsertionPointAfter(last);
  LoadWaveScalesOp next = loadScales(b, mma, nextK, /*span=*/1, withW);
  // Vector loads only: the turn's vmcnt does not count scalar W words.
  mma.setPingpongPending(*mma.getPingpongPending() + next.getNumLoads());
  IRRewriter rewriter(loop.getContext());
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, initial.getResults(),
      /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>(next.getResults());
      });
  if (failed(replaced))
    return failure();
  auto args = cast<scf::ForOp>(replaced->getOperation())
                  .getRegionIterArgs()
                  .take_back(next.getNumResults());
  mma.getXScaleWordsMutable().assign(args[0]);
  if (withW)
    mma.getWScaleWordsMutable().assign(args[1]);
  mma.setScaleWordsTile(0);
  return cast<scf::ForOp>(replaced->getOperation());
}

/// Whether a two-slot loop's first K tile is peeled, so that its MFMAs
/// take the zero initial accumulators as an inline C = 0 instead of
/// registers zeroed by 128 v_mov per wave in the prologue (the pass
/// description). Not in a tile walk: the 256x256 walk has no registers for
/// the duplicated iteration (it spills 24).
bool shouldPeelFirstKTile(scf::ForOp loop, WaveMmaOp mma) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return mma.getPingpongRefills() && trips && trips->getZExtValue() >= 2 &&
         !isTileWalk(loop->getParentOp());
}

struct MXGemmUnrollKPass : public impl::MXGemmUnrollKBase<MXGemmUnrollKPass> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      auto config = kernel->getAttrOfType<ConfigAttr>(kConfigAttrName);
      if (!config)
        return WalkResult::advance();
      SmallVector<scf::ForOp> loops;
      kernel.walk([&](scf::ForOp loop) {
        if (loopMmas(loop).size() == 1)
          loops.push_back(loop);
      });
      const int64_t span = config.getUnrollK();
      if (span <= 1) {
        for (scf::ForOp loop : loops) {
          WaveMmaOp mma = loopMmas(loop).front();
          if (canPrefetchXScales(loop, mma)) {
            FailureOr<scf::ForOp> carried = prefetchScales(loop, mma);
            if (failed(carried)) {
              kernel.emitError("the two-slot K loop could not carry its "
                               "scales");
              return WalkResult::interrupt();
            }
            loop = *carried;
            ++numPrefetchedXScales;
            if (canPrefetchWScales(mma))
              ++numPrefetchedWScales;
          }
          if (!shouldPeelFirstKTile(loop, mma))
            continue;
          IRRewriter rewriter(loop.getContext());
          rewriter.setInsertionPoint(loop);
          scf::ForOp first;
          if (failed(scf::peelForLoopFirstIteration(rewriter, loop, first))) {
            kernel.emitError("the two-slot K loop's first K tile could not "
                             "be peeled");
            return WalkResult::interrupt();
          }
          ++numPeeledFirstKTiles;
        }
        return WalkResult::advance();
      }
      for (scf::ForOp loop : loops) {
        std::optional<APInt> trips = loop.getStaticTripCount();
        if (!trips) {
          kernel.emitError() << "unroll_k = " << span
                             << " needs a K loop with a static trip count";
          return WalkResult::interrupt();
        }
        // Fewer K tiles than the factor: nothing to share.
        if (trips->getZExtValue() < uint64_t(span))
          continue;
        FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(loop, span);
        if (failed(unrolled) ||
            (unrolled->epilogueLoopOp &&
             failed(loopUnrollFull(*unrolled->epilogueLoopOp)))) {
          kernel.emitError("the K loop could not be unrolled by ") << span;
          return WalkResult::interrupt();
        }
        ++numUnrolledLoops;
        if (!unrolled->mainLoopOp)
          continue;
        scf::ForOp main = *unrolled->mainLoopOp;
        SmallVector<WaveMmaOp> mmas = loopMmas(main);
        if (!canShareScales(main, mmas, span))
          continue;
        if (failed(shareScales(main, mmas, span))) {
          kernel.emitError("the unrolled K loop could not carry its scales");
          return WalkResult::interrupt();
        }
        ++numSharedScaleLoads;
      }
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE << ": " << kernel.getName() << ", "
                 << loops.size() << " K loops by " << span << "\n");
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mxgemm
