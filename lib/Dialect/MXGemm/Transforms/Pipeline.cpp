//===- Pipeline.cpp - mxgemm-pipeline: N-stage software pipelining --------===//
//
// Turns the staged K loop (copy tile t, wait, barrier, compute t, barrier)
// into an N-stage pipeline over the LDS ring: a prologue issues the copies of
// tiles 0 .. N-2, and iteration t waits only for tile t, issues the copies of
// tile t+N-1 into the slot computed in iteration t-1, and computes tile t
// while those copies are in flight. One barrier per iteration suffices: the
// barrier that publishes tile t also proves every wave has finished reading
// the slot about to be refilled.
//
// Every iteration issues a whole tile of copies, also past the last tile
// (the K offset is clamped to it, refilling a free slot with data nobody
// reads), and so does the prologue. Then exactly N-2 tiles of copies follow
// tile t's in issue order whatever t is, so one static wait count serves:
// copies complete in issue order, so before computing tile t a wave may
// leave (N-2) x its copies per tile in flight. The count must be a lower
// bound on what *every* wave issued, hence CopyToLdsOp::getMinLoadsPerWave.
// Static counts also let LLVM's waitcnt insertion keep the copies in flight
// past the MMA's own loads (a conditional refill makes it assume none were
// issued and wait for everything).
//
// schedule = pingpong (8 waves, two per SIMD) staggers two groups of four
// waves, one wave of each per SIMD, by half an iteration, so that one group
// issues its LDS reads and refills while the other runs its MFMAs. Each
// iteration has two barriers: the publishing one, then the turn inside the
// MMA (WaveMmaOp's `pingpong_pending`), before which a wave has waited for
// its copies of tile t+1 and its LDS reads of tile t. Group B passes one
// barrier before the loop and group A one after it, so that A's turn meets
// B's publishing barrier and the other way round. Both groups have read
// tile t-1 before the barrier that lets either refill its slot, and the
// refill of slot (t-1) % N never meets a read of tile t or t+1 for N >= 3.
//
// With N = 2 the slot of tile t-1 is tile t+1's, and the other group may
// still read tile t-1 until the barrier after this iteration's publishing
// one. Each K tile then takes two turns (WaveMmaOp's `pingpong_refills`),
// four barriers per iteration: publish, turn 1, mid, turn 2. The first
// turn reads all of the tile's X and the first half of the wave's W
// columns, the second the other half of W, so the X half of a slot is
// free after the first turn and its W half after the second. The W
// copies of tile t+1 go out in the first turn of iteration t, after a
// wave's publishing barrier, by which both groups have read all of tile
// t-1 (A, one barrier behind, reads its second half of t-1 until B's
// publishing barrier). The X copies run two tiles ahead: those of tile
// t+2 go out in the second turn of iteration t, into the X half of tile
// t's own slot, which both groups have read by then (each group's first
// turn of t ends before the other's second starts). So each memory phase
// issues about half of a tile's copies, and the address unit is shared
// evenly between the turns. The first turn waits for its scale loads,
// leaving the W copies in flight (`pingpong_refills`); the second waits
// for everything but the X copies it just issued (`pingpong_pending`),
// so that every wave passes both groups' second turns only after tile
// t+1 has landed. Leads: three turns for W, five for X.
//
// In a persistent kernel the K loop sits in a walk over the workgroup's
// tiles (mxgemm.tile_walk). The ring then runs across tiles as if their K
// loops were one: the prologue is issued once, before the walk; a refill
// past the last K tile copies the next tile's first K tiles (clamped as
// above when there is no next tile), and the slot counter continues from
// tile to tile. Between two tiles every wave passes the next tile's
// publishing barrier only after every wave finished the previous tile, so
// the refill of the previous tile's last slot is as safe as inside a tile.
// Waits stay counts of copies: the epilogue's stores issued after the
// copies only make them wait longer. With fewer K tiles than stages - 1
// the ring cannot run ahead by a whole tile: each tile then has its own
// prologue behind a barrier.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-pipeline"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMPIPELINE
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// Waves of one ping-pong group: one per SIMD (waves are dealt to SIMDs
/// round-robin), so that each SIMD runs one wave of each group.
constexpr int64_t kPingPongGroupWaves = target::kGFX950.simdsPerCu;

std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// The value `v` computes in `walk`'s body for the tile whose walk index
/// `map` maps the walk's induction variable to: side-effect-free ops of
/// the body that `v` depends on are cloned at `b` (values from outside the
/// body are used as they are).
FailureOr<Value> cloneForTile(OpBuilder &b, Value v, scf::ForOp walk,
                              IRMapping &map) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != walk.getBody())
    return v;
  if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return failure();
  for (Value operand : def->getOperands())
    if (failed(cloneForTile(b, operand, walk, map)))
      return failure();
  b.clone(*def, map);
  return map.lookup(v);
}

/// Operands of `copies` computed per tile in `walk`'s body (tile bases),
/// which a copy for another tile must compute again.
SetVector<Value> perTileOperands(ArrayRef<CopyToLdsOp> copies,
                                 scf::ForOp walk) {
  SetVector<Value> values;
  for (CopyToLdsOp c : copies)
    for (Value v : c->getOperands())
      if (Operation *def = v.getDefiningOp())
        if (def->getBlock() == walk.getBody())
          values.insert(v);
  return values;
}

/// Pipelines `loop` `stages` deep; returns the number of copies issued in
/// the prologue.
FailureOr<int64_t> pipelineLoop(scf::ForOp loop, int64_t stages,
                                bool pingpong) {
  SmallVector<CopyToLdsOp> copies(loop.getBody()->getOps<CopyToLdsOp>());
  if (copies.empty())
    return 0;
  SmallVector<WaitCopiesOp> waits(loop.getBody()->getOps<WaitCopiesOp>());
  if (waits.size() != 1)
    return loop.emitOpError("staged K loop must have exactly one "
                            "mxgemm.wait_copies");
  WaitCopiesOp wait = waits.front();
  auto publish = dyn_cast_or_null<RingBarrierOp>(wait->getNextNode());
  Operation *yield = loop.getBody()->getTerminator();
  auto release = dyn_cast_or_null<RingBarrierOp>(yield->getPrevNode());
  if (!publish || !release)
    return loop.emitOpError("staged K loop must be copy, wait, barrier, "
                            "compute, barrier (as built by "
                            "mxgemm-stage-copies)");
  auto lb = constantIndex(loop.getLowerBound());
  auto ub = constantIndex(loop.getUpperBound());
  auto step = constantIndex(loop.getStep());
  // A persistent kernel's walk over tiles, if the ring can run across it.
  scf::ForOp walk = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (walk && !isTileWalk(walk))
    walk = nullptr;
  // The refills clamp to the last K tile, which is a constant: mxgemm-tile
  // builds a K loop per trip count (a tail split has two).
  if (!lb || !ub || !step || *lb != 0)
    return loop.emitOpError("pipelining needs a K loop from 0 to a constant "
                            "bound with a constant step");
  Value stage = copies.front().getStage();
  // A split-K segment starts its copies at a loop-invariant K origin:
  // K0 = origin + iv.
  Value kOrigin;
  for (CopyToLdsOp c : copies) {
    FailureOr<Value> origin = kOriginIn(loop, c.getK0());
    if (c.getStage() != stage || failed(origin) ||
        (c != copies.front() && *origin != kOrigin))
      return c.emitOpError("copies of one K tile must share the slot and "
                           "start at the loop's K offset (plus one "
                           "loop-invariant origin)");
    kOrigin = *origin;
  }
  for (CopyToLdsOp c : copies)
    if (c.getDst().getType().getDimSize(0) < stages)
      return c.emitOpError("LDS ring has ")
             << c.getDst().getType().getDimSize(0) << " slots, pipelining "
             << stages << " stages needs one per stage";
  const int64_t numTiles = *ub / *step;
  // Two-slot ping-pong: the X copies run two tiles ahead, issued in the
  // MMA's second turn (the header comment).
  const bool twoTurns = pingpong && stages == 2;
  SmallVector<WaveMmaOp> mmas(loop.getBody()->getOps<WaveMmaOp>());
  if (pingpong && (mmas.size() != 1 || !mmas.front().getXTile() ||
                   !mmas.front().getWTile()))
    return loop.emitOpError("schedule = pingpong needs one mxgemm.wave_mma "
                            "per K tile with both operands in LDS");
  auto secondTurn = [&](CopyToLdsOp c) {
    return twoTurns && c.getSrc() == mmas.front().getX();
  };
  int64_t loadsPerTile = 0, secondTurnLoads = 0;
  for (CopyToLdsOp c : copies)
    (secondTurn(c) ? secondTurnLoads : loadsPerTile) += c.getMinLoadsPerWave();

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Two turns run the X copies two K tiles ahead: a walk's ring needs two.
  if (walk && numTiles < (twoTurns ? 2 : stages - 1)) {
    // Too few K tiles to run ahead by stages - 1: a prologue per tile, once
    // every wave has left the previous tile's slots.
    RingBarrierOp::create(b, loc);
    walk = nullptr;
  }
  auto notClonable = [&] {
    return loop.emitOpError("a copy's tile base must be computed without "
                            "side effects in the tile walk");
  };
  // The per-tile operands of the copies, and the first tile's, computed
  // before the walk.
  SetVector<Value> tileValues;
  IRMapping firstTile;
  if (walk) {
    tileValues = perTileOperands(copies, walk);
    b.setInsertionPoint(walk);
    firstTile.map(walk.getInductionVar(), walk.getLowerBound());
    for (Value v : tileValues)
      if (failed(cloneForTile(b, v, walk, firstTile)))
        return notClonable();
  }
  // Prologue: tiles 0 .. stages-2 into slots 0 .. stages-2 (clamped to the
  // last tile, so that the steady state's wait count always holds).
  auto withOrigin = [&](Value k) -> Value {
    return kOrigin ? arith::AddIOp::create(b, loc, kOrigin, k) : k;
  };
  // The copies of K tile t into slot t (all, or only the second turn's).
  auto clonePrologueTile = [&](int64_t t, bool secondTurnOnly) {
    IRMapping map;
    map.map(stage, idx(t));
    Value k = idx(std::min(t, numTiles - 1) * *step);
    map.map(loop.getInductionVar(), k);
    if (kOrigin) {
      Value k0 = withOrigin(k);
      for (CopyToLdsOp c : copies)
        map.map(c.getK0(), k0);
    }
    for (Value v : tileValues)
      map.map(v, firstTile.lookup(v));
    for (CopyToLdsOp c : copies)
      if (!secondTurnOnly || secondTurn(c))
        b.clone(*c, map);
  };
  for (int64_t t = 0; t < stages - 1; ++t)
    clonePrologueTile(t, /*secondTurnOnly=*/false);
  // Two turns: X of tile 1 as well, into slot 1.
  if (twoTurns)
    clonePrologueTile(1, /*secondTurnOnly=*/true);

  // The next tile's operands and where this tile's K tiles sit in the
  // ring's sequence: (tiles walked before it) * numTiles.
  b.setInsertionPoint(loop);
  Value hasNext, ringOffset;
  DenseMap<Value, Value> nextTileValues;
  if (walk) {
    Value tileIndex = walk.getInductionVar(), grid = walk.getStep();
    Value next = arith::AddIOp::create(b, loc, tileIndex, grid);
    hasNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next,
                                    walk.getUpperBound());
    IRMapping nextTile;
    nextTile.map(walk.getInductionVar(), next);
    for (Value v : tileValues) {
      FailureOr<Value> nextValue = cloneForTile(b, v, walk, nextTile);
      if (failed(nextValue))
        return notClonable();
      nextTileValues[v] =
          arith::SelectOp::create(b, loc, hasNext, *nextValue, v);
    }
    Value walked = walk.getRegionIterArgs()[0];
    ringOffset = arith::RemUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, walked, idx(numTiles)),
        idx(stages));
  }

  // Steady state: wait for tile t, publish it, refill the slot of tile t-1
  // with tile t+stages-1, compute tile t from slot t % stages.
  b.setInsertionPointToStart(loop.getBody());
  Value iv = loop.getInductionVar();
  Value tile = arith::DivUIOp::create(b, loc, iv, idx(*step));
  if (ringOffset)
    tile = arith::AddIOp::create(b, loc, tile, ringOffset);
  Value slot = arith::RemUIOp::create(b, loc, tile, idx(stages));
  stage.replaceUsesWithIf(
      slot, [&](OpOperand &use) { return loop->isAncestor(use.getOwner()); });
  const int64_t pending =
      twoTurns ? secondTurnLoads : (stages - 2) * loadsPerTile;
  if (pingpong) {
    // The MMA's turn waits for tile t+1; tile 0 is waited for here. With
    // two slots the MMA takes two turns and waits for tile t+1 at the
    // second, leaving the X copies it issued there in flight (pending),
    // and at the first for its scales, leaving the W copies in flight.
    mmas.front().setPingpongPending(pending);
    if (twoTurns)
      mmas.front().setPingpongRefills(loadsPerTile);
    OpBuilder pre(loop);
    WaitCopiesOp::create(pre, loc, pre.getI64IntegerAttr(pending));
    // With a ring running across a tile walk the stagger runs across it
    // too: B leads once before the walk and A trails once after it, so that
    // a tile's epilogue overlaps the other group's last MFMAs.
    Operation *staggered = walk ? walk.getOperation() : loop.getOperation();
    pre.setInsertionPoint(staggered);
    // B's lead barrier publishes B's copies of the first K tile to A.
    if (walk)
      WaitCopiesOp::create(pre, loc, pre.getI64IntegerAttr(pending));
    Value wave = arith::DivUIOp::create(
        pre, loc, gpu::ThreadIdOp::create(pre, loc, gpu::Dimension::x),
        arith::ConstantIndexOp::create(pre, loc, 64));
    Value groupB = arith::CmpIOp::create(
        pre, loc, arith::CmpIPredicate::uge, wave,
        arith::ConstantIndexOp::create(pre, loc, kPingPongGroupWaves));
    auto lead = scf::IfOp::create(pre, loc, groupB);
    pre.setInsertionPointToStart(lead.thenBlock());
    RingBarrierOp::create(pre, loc);
    pre.setInsertionPointAfter(staggered);
    auto trail = scf::IfOp::create(
        pre, loc,
        arith::XOrIOp::create(
            pre, loc, groupB,
            arith::ConstantIntOp::create(pre, loc, pre.getI1Type(), 1)));
    pre.setInsertionPointToStart(trail.thenBlock());
    RingBarrierOp::create(pre, loc);
  } else {
    b.setInsertionPoint(wait);
    WaitCopiesOp::create(b, loc, b.getI64IntegerAttr(pending));
  }
  wait.erase();

  b.setInsertionPointAfter(publish);
  // The K offset and tile operands of the copies `tilesAhead` K tiles past
  // this one: in a walk, past this tile's last K tile, the next tile's
  // first ones.
  auto copiesAhead = [&](int64_t tilesAhead, DenseMap<Value, Value> &values) {
    Value ahead = arith::AddIOp::create(b, loc, iv, idx(tilesAhead * *step));
    if (!walk)
      return withOrigin(
          arith::MinUIOp::create(b, loc, ahead, idx(*ub - *step)));
    // ahead >= ub as equalities (iv is a multiple of the step below ub):
    // gfx950 compares 64-bit scalars for equality only, and an ordered
    // compare keeps its bound in a VGPR pair for the whole walk.
    Value rolled;
    for (int64_t j = 0; j < tilesAhead; ++j) {
      Value at = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ahead,
                                       idx(*ub + j * *step));
      rolled = rolled ? arith::OrIOp::create(b, loc, rolled, at) : at;
    }
    Value wrapped = arith::SelectOp::create(
        b, loc, hasNext, arith::SubIOp::create(b, loc, ahead, idx(*ub)),
        idx(*ub - *step));
    for (Value v : tileValues)
      values[v] =
          arith::SelectOp::create(b, loc, rolled, nextTileValues.lookup(v), v);
    return withOrigin(arith::SelectOp::create(b, loc, rolled, wrapped, ahead));
  };
  DenseMap<Value, Value> aheadValues, secondTurnValues;
  Value aheadK = copiesAhead(stages - 1, aheadValues);
  Value aheadTile = arith::AddIOp::create(b, loc, tile, idx(stages - 1));
  Value aheadSlot = arith::RemUIOp::create(b, loc, aheadTile, idx(stages));
  // Two turns: the X copies of tile t+2 into tile t's slot, after the MMA
  // (its lowering issues them in its second turn; their operands are
  // computed here, ahead of it).
  Value secondTurnK;
  if (twoTurns)
    secondTurnK = copiesAhead(2, secondTurnValues);
  Operation *refillPoint = &*std::prev(b.getInsertionPoint());
  Operation *secondTurnPoint = twoTurns ? mmas.front() : nullptr;
  for (CopyToLdsOp c : copies) {
    if (secondTurn(c)) {
      c->moveAfter(secondTurnPoint);
      secondTurnPoint = c;
      c.getStageMutable().assign(slot);
      c.getK0Mutable().assign(secondTurnK);
      for (OpOperand &operand : c->getOpOperands())
        if (Value v = secondTurnValues.lookup(operand.get()))
          operand.set(v);
      continue;
    }
    c->moveAfter(refillPoint);
    refillPoint = c;
    c.getStageMutable().assign(aheadSlot);
    c.getK0Mutable().assign(aheadK);
    for (OpOperand &operand : c->getOpOperands())
      if (Value v = aheadValues.lookup(operand.get()))
        operand.set(v);
  }
  release.erase();
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << stages << " stages"
                          << (pingpong ? " (ping-pong)" : "") << ", "
                          << copies.size() << " copies per tile, wait vmcnt("
                          << pending << ")\n");
  return (stages - 1) * static_cast<int64_t>(copies.size());
}

struct MXGemmPipelinePass
    : public impl::MXGemmPipelineBase<MXGemmPipelinePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::tuple<scf::ForOp, int64_t, bool>> loops;
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      int64_t n = stages;
      bool pingpong = false;
      if (auto config = kernel->getAttrOfType<ConfigAttr>("mxgemm.config")) {
        n = stages > 0 ? stages : config.getStages();
        pingpong = config.getSchedule() == Schedule::PingPong;
      }
      kernel.walk([&](scf::ForOp loop) {
        if (!loop.getBody()->getOps<CopyToLdsOp>().empty())
          loops.push_back({loop, n, pingpong});
      });
    });
    for (auto [loop, n, pingpong] : loops) {
      if (pingpong && n < 2) {
        loop.emitOpError("schedule = pingpong needs at least 2 stages, got ")
            << n;
        return signalPassFailure();
      }
      if (n < 1 || n > 4) {
        loop.emitOpError("pipeline depth must be in 1..4, got ") << n;
        return signalPassFailure();
      }
      if (n == 1)
        continue;
      FailureOr<int64_t> prologueCopies = pipelineLoop(loop, n, pingpong);
      if (failed(prologueCopies))
        return signalPassFailure();
      ++numPipelinedLoops;
      numPipelineStages += n;
      numPrologueCopies += *prologueCopies;
    }
  }
};

} // namespace
} // namespace mxgemm
