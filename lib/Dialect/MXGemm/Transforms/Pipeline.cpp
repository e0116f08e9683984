//===- Pipeline.cpp - mxgemm-pipeline: N-stage software pipelining
//------------===//
//
// Turns the staged K loop (copy tile t, wait, barrier, compute t, barrier)
// into an N-stage pipeline over the LDS ring: a prologue issues the copies of
// tiles 0 .. N-2, and iteration t waits only for tile t, issues the copies of
// tile t+N-1 into the slot computed in iteration t-1, and computes tile t
// while those copies are in flight. One barrier per iteration suffices: the
// barrier that publishes tile t also proves every wave has finished reading
// the slot about to be refilled.
//
// Wait counts: copies complete in issue order, so before computing tile t a
// wave may leave in flight the copies of the tiles issued after t, i.e.
// min(N-2, tiles left after t) tiles' worth. The count must be a lower bound
// on what *every* wave issued, hence CopyToLdsOp::getMinLoadsPerWave. Other
// loads issued in between only make the wait stricter, never unsafe.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "mxgemm-pipeline"

namespace mlir::mxgemm {
#define GEN_PASS_DEF_MXGEMMPIPELINE
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// Emits `wait_copies` with the smallest safe count given how many tiles
/// follow the current one: nested uniform branches, largest count first.
void emitWait(OpBuilder &b, Location loc, Value tilesAfter, int64_t maxAhead,
              int64_t loadsPerTile) {
  if (maxAhead <= 0 || loadsPerTile == 0) {
    WaitCopiesOp::create(b, loc, b.getI64IntegerAttr(0));
    return;
  }
  Value enough =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tilesAfter,
                            arith::ConstantIndexOp::create(b, loc, maxAhead));
  auto branch = scf::IfOp::create(b, loc, enough, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    WaitCopiesOp::create(b, loc, b.getI64IntegerAttr(maxAhead * loadsPerTile));
    b.setInsertionPointToStart(branch.elseBlock());
    emitWait(b, loc, tilesAfter, maxAhead - 1, loadsPerTile);
  }
}

LogicalResult pipelineLoop(scf::ForOp loop, int64_t stages) {
  SmallVector<CopyToLdsOp> copies(loop.getBody()->getOps<CopyToLdsOp>());
  if (copies.empty())
    return success();
  SmallVector<WaitCopiesOp> waits(loop.getBody()->getOps<WaitCopiesOp>());
  if (waits.size() != 1)
    return loop.emitOpError("staged K loop must have exactly one "
                            "mxgemm.wait_copies");
  WaitCopiesOp wait = waits.front();
  auto publish = dyn_cast_or_null<gpu::BarrierOp>(wait->getNextNode());
  Operation *yield = loop.getBody()->getTerminator();
  auto release = dyn_cast_or_null<gpu::BarrierOp>(yield->getPrevNode());
  if (!publish || !release)
    return loop.emitOpError("staged K loop must be copy, wait, barrier, "
                            "compute, barrier (as built by "
                            "mxgemm-stage-copies)");
  auto lb = constantIndex(loop.getLowerBound());
  auto ub = constantIndex(loop.getUpperBound());
  auto step = constantIndex(loop.getStep());
  if (!lb || !ub || !step || *lb != 0)
    return loop.emitOpError("pipelining needs a K loop from 0 with constant "
                            "bounds");
  Value stage = copies.front().getStage();
  for (CopyToLdsOp c : copies)
    if (c.getStage() != stage || c.getK0() != loop.getInductionVar())
      return c.emitOpError("copies of one K tile must share the slot and "
                           "start at the loop's K offset");
  for (CopyToLdsOp c : copies)
    if (c.getDst().getType().getDimSize(0) < stages)
      return c.emitOpError("LDS ring has ")
             << c.getDst().getType().getDimSize(0) << " slots, pipelining "
             << stages << " stages needs one per stage";
  const int64_t numTiles = *ub / *step;
  int64_t loadsPerTile = 0;
  for (CopyToLdsOp c : copies)
    loadsPerTile += c.getMinLoadsPerWave();

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Prologue: tiles 0 .. stages-2 into slots 0 .. stages-2.
  for (int64_t t = 0; t < std::min(stages - 1, numTiles); ++t) {
    IRMapping map;
    map.map(stage, idx(t));
    map.map(loop.getInductionVar(), idx(t * *step));
    for (CopyToLdsOp c : copies)
      b.clone(*c, map);
  }

  // Steady state: wait for tile t, publish it, refill the slot of tile t-1
  // with tile t+stages-1, compute tile t from slot t % stages.
  b.setInsertionPointToStart(loop.getBody());
  Value iv = loop.getInductionVar();
  Value tile = arith::DivUIOp::create(b, loc, iv, idx(*step));
  Value slot = arith::RemUIOp::create(b, loc, tile, idx(stages));
  stage.replaceUsesWithIf(
      slot, [&](OpOperand &use) { return loop->isAncestor(use.getOwner()); });
  b.setInsertionPoint(wait);
  Value lastTile = idx(numTiles - 1);
  Value tilesAfter = arith::SubIOp::create(b, loc, lastTile, tile);
  emitWait(b, loc, tilesAfter, stages - 2, loadsPerTile);
  wait.erase();

  b.setInsertionPointAfter(publish);
  Value aheadK = arith::AddIOp::create(b, loc, iv, idx((stages - 1) * *step));
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        aheadK, idx(*ub));
  auto refill = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
  b.setInsertionPointToStart(refill.thenBlock());
  Value aheadTile = arith::AddIOp::create(b, loc, tile, idx(stages - 1));
  Value aheadSlot = arith::RemUIOp::create(b, loc, aheadTile, idx(stages));
  for (CopyToLdsOp c : copies) {
    c->moveBefore(refill.thenBlock()->getTerminator());
    c.getStageMutable().assign(aheadSlot);
    c.getK0Mutable().assign(aheadK);
  }
  release.erase();
  return success();
}

struct MXGemmPipelinePass
    : public impl::MXGemmPipelineBase<MXGemmPipelinePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, int64_t>> loops;
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      int64_t n = stages;
      if (auto config = kernel->getAttrOfType<ConfigAttr>("mxgemm.config"))
        n = stages > 0 ? stages : config.getStages();
      kernel.walk([&](scf::ForOp loop) {
        if (!loop.getBody()->getOps<CopyToLdsOp>().empty())
          loops.push_back({loop, n});
      });
    });
    for (auto [loop, n] : loops) {
      if (n < 1 || n > 4) {
        loop.emitOpError("pipeline depth must be in 1..4, got ") << n;
        return signalPassFailure();
      }
      if (n > 1 && failed(pipelineLoop(loop, n)))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace mlir::mxgemm
