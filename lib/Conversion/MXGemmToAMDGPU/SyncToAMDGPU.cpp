//===- SyncToAMDGPU.cpp - waits and ring barriers -------------------------===//
//
// Lowers the synchronisation of the LDS ring: mxgemm.wait_copies to an
// s_waitcnt and mxgemm.ring_barrier to an s_barrier that waits for nothing
// (see RingBarrierOp). Also recognises a lowered ring barrier, so that the
// MMA pattern finds the barrier that publishes its tile in either form.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace mxgemm {
namespace {

/// The fences around the ring barrier's s_barrier: single-thread scope, so
/// that they order the compiler and add no wait.
constexpr llvm::StringLiteral kRingBarrierSyncScope = "singlethread";

bool isRingBarrierFence(Operation *op, LLVM::AtomicOrdering ordering) {
  auto fence = dyn_cast_or_null<LLVM::FenceOp>(op);
  return fence && fence.getOrdering() == ordering &&
         fence.getSyncscope() == kRingBarrierSyncScope;
}

/// s_barrier between single-thread fences: the compiler may not move memory
/// operations across it, and no wait is added (see RingBarrierOp). The ring
/// barrier and the ping-pong turn share it, so endsRingBarrier sees both.
void emitRingBarrier(OpBuilder &b, Location loc) {
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release,
                        kRingBarrierSyncScope);
  ROCDL::SBarrierOp::create(b, loc);
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire,
                        kRingBarrierSyncScope);
}

class WaitCopiesLowering : public CountingPattern<WaitCopiesOp> {
public:
  using CountingPattern::CountingPattern;

  LogicalResult
  matchAndRewrite(WaitCopiesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    amdgpu::MemoryCounterWaitOp::create(
        rewriter, op.getLoc(), rewriter.getI32IntegerAttr(op.getPending()),
        /*store=*/nullptr, /*ds=*/rewriter.getI32IntegerAttr(0),
        /*exp=*/nullptr, /*tensor=*/nullptr);
    rewriter.eraseOp(op);
    count(&MXGemmToAMDGPUCounts::waits);
    return success();
  }
};

/// The ring barrier between sched_barrier(0)s: nothing may be scheduled
/// across a ping-pong turn, not even the MFMAs, which no fence orders.
void emitUnscheduledBarrier(OpBuilder &b, Location loc) {
  ROCDL::SchedBarrier::create(b, loc, b.getI32IntegerAttr(0));
  emitRingBarrier(b, loc);
  ROCDL::SchedBarrier::create(b, loc, b.getI32IntegerAttr(0));
}

/// True if `op` publishes the K tiles of a two-slot ping-pong loop
/// (`schedule = pingpong, stages = 2`): the barrier a group passes after
/// the other group's second MFMA turn.
bool publishesTwoSlotTile(RingBarrierOp op) {
  ConfigAttr config = kernelConfig(op);
  return config && config.getSchedule() == Schedule::PingPong &&
         config.getStages() == 2 && isa<scf::ForOp>(op->getParentOp());
}

/// mxgemm.ring_barrier as emitRingBarrier's fenced s_barrier. In a
/// two-slot ping-pong loop nothing is scheduled across it either: the
/// backend would hoist the loop's address arithmetic above it, to the end
/// of the previous MFMA turn, where each instruction delays the group's
/// arrival and so the other group's MFMAs; after it, the arithmetic
/// overlaps the other group's MFMAs like the rest of the memory phase.
class RingBarrierLowering : public CountingPattern<RingBarrierOp> {
public:
  using CountingPattern::CountingPattern;

  LogicalResult
  matchAndRewrite(RingBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (publishesTwoSlotTile(op))
      emitUnscheduledBarrier(rewriter, op.getLoc());
    else
      emitRingBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    count(&MXGemmToAMDGPUCounts::barriers);
    return success();
  }
};

} // namespace

void emitPingPongTurn(OpBuilder &b, Location loc, int64_t pendingLoads) {
  amdgpu::MemoryCounterWaitOp::create(
      b, loc, b.getI32IntegerAttr(pendingLoads), /*store=*/nullptr,
      /*ds=*/nullptr, /*exp=*/nullptr, /*tensor=*/nullptr);
  emitUnscheduledBarrier(b, loc);
  ROCDL::SetPrioOp::create(b, loc, b.getI16IntegerAttr(1));
}

void emitPingPongYield(OpBuilder &b, Location loc) {
  ROCDL::SetPrioOp::create(b, loc, b.getI16IntegerAttr(0));
  emitUnscheduledBarrier(b, loc);
}

bool endsRingBarrier(Operation *op) {
  if (isa<RingBarrierOp>(op))
    return true;
  if (!isRingBarrierFence(op, LLVM::AtomicOrdering::acquire))
    return false;
  auto barrier = dyn_cast_or_null<ROCDL::SBarrierOp>(op->getPrevNode());
  return barrier && isRingBarrierFence(barrier->getPrevNode(),
                                       LLVM::AtomicOrdering::release);
}

void populateSyncToAMDGPUPatterns(RewritePatternSet &patterns,
                                  MXGemmToAMDGPUCounts *counts) {
  patterns.add<WaitCopiesLowering, RingBarrierLowering>(patterns.getContext(),
                                                        counts);
}

} // namespace mxgemm
