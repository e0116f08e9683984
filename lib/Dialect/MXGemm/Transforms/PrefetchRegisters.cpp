//===- PrefetchRegisters.cpp - mxgemm-prefetch-registers ------------------===//
//
// A kernel with no LDS ring loads its operands and scales straight into
// registers, and its K loop issues one K tile's loads and then waits for
// all of them before the tile's MFMAs: each wave has one K tile in flight,
// and small-M kernels, which only stream W, pay a memory latency per K
// tile. With `stages = s` such a kernel keeps s - 1 K tiles of loads in
// flight: the K loop is software-pipelined by the upstream SCF pipeliner
// (scf::pipelineForLoop), the global loads and their address arithmetic in
// stage 0 and everything else in stage s - 1, so the loaded registers are
// carried by the loop and the prologue and peeled epilogue issue exactly
// the loads the unpipelined loop issued. Same loads, same MFMAs in the
// same K order: the results are bit-identical.
//
// The pipelined loop is then unrolled by `stages`: a loop-carried register
// loaded in one iteration and read in the next would otherwise need a copy
// at the back edge, and a copy of a loaded register waits for the load
// (vmcnt(0)), which would leave no tile in flight across iterations.
//
//===----------------------------------------------------------------------===//

#include "LoweredLoads.h"

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-prefetch-registers"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMPREFETCHREGISTERS
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// True if `loop` is a K loop with MFMAs: the loops this pass pipelines.
bool isMfmaLoop(scf::ForOp loop) {
  return llvm::any_of(*loop.getBody(), [](Operation &op) {
    return isa<amdgpu::ScaledMFMAOp>(op);
  });
}

/// Stage 0: every global load of the body and the body ops it depends on;
/// the rest in `lastStage`. Ops keep their order within each stage.
void scheduleLoadsAhead(scf::ForOp loop, unsigned lastStage,
                        std::vector<std::pair<Operation *, unsigned>> &out) {
  Block &body = *loop.getBody();
  llvm::SetVector<Operation *> early;
  SmallVector<Operation *> work;
  for (Operation &op : body.without_terminator()) {
    bool reads = false;
    op.walk([&](Operation *nested) {
      reads |= globalLoadInstructions(*nested) > 0;
    });
    if (reads)
      work.push_back(&op);
  }
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!early.insert(op))
      continue;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && def->getBlock() == &body)
          work.push_back(def);
      }
    });
  }
  for (Operation &op : body.without_terminator())
    if (early.contains(&op))
      out.emplace_back(&op, 0);
  for (Operation &op : body.without_terminator())
    if (!early.contains(&op))
      out.emplace_back(&op, lastStage);
}

/// Unrolls the pipelined loop by `stages` and marks it; a remainder loop
/// (trips not a multiple of stages) is unrolled fully.
LogicalResult unrollByStages(scf::ForOp loop, int64_t stages) {
  // The pipeliner leaves the new bounds as unfolded arithmetic on
  // constants; fold them so that the trip count is static again.
  llvm::SetVector<Operation *> bounds;
  SmallVector<Value> work{loop.getLowerBound(), loop.getUpperBound(),
                          loop.getStep()};
  while (!work.empty())
    if (Operation *def = work.pop_back_val().getDefiningOp();
        def && isPure(def) && bounds.insert(def))
      llvm::append_range(work, def->getOperands());
  (void)applyOpPatternsGreedily(bounds.takeVector(), FrozenRewritePatternSet());
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->getZExtValue() < uint64_t(stages)) {
    return loopUnrollFull(loop);
  }
  FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(loop, stages);
  if (failed(unrolled))
    return failure();
  if (unrolled->mainLoopOp)
    (*unrolled->mainLoopOp)
        ->setAttr(kPrefetchedLoopAttrName,
                  Builder(loop.getContext()).getI64IntegerAttr(stages));
  if (unrolled->epilogueLoopOp)
    return loopUnrollFull(*unrolled->epilogueLoopOp);
  return success();
}

struct MXGemmPrefetchRegistersPass
    : public impl::MXGemmPrefetchRegistersBase<MXGemmPrefetchRegistersPass> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      auto config = kernel->getAttrOfType<ConfigAttr>(kConfigAttrName);
      if (!prefetchesRegisters(config))
        return WalkResult::advance();
      SmallVector<scf::ForOp> loops;
      kernel.walk([&](scf::ForOp loop) {
        if (isMfmaLoop(loop))
          loops.push_back(loop);
      });
      const unsigned lastStage = config.getStages() - 1;
      for (scf::ForOp loop : loops) {
        std::optional<APInt> trips = loop.getStaticTripCount();
        if (!trips) {
          kernel.emitError()
              << "stages = " << config.getStages()
              << " prefetches K tiles into registers, which needs a K loop "
                 "with a static trip count (a kernel compiled for one K)";
          return WalkResult::interrupt();
        }
        // Fewer K tiles than stages: nothing to overlap.
        if (trips->getZExtValue() <= lastStage)
          continue;
        scf::PipeliningOption options;
        options.getScheduleFn =
            [lastStage](scf::ForOp forOp,
                        std::vector<std::pair<Operation *, unsigned>> &out) {
              scheduleLoadsAhead(forOp, lastStage, out);
            };
        IRRewriter rewriter(loop);
        FailureOr<scf::ForOp> pipelined =
            scf::pipelineForLoop(rewriter, loop, options);
        if (failed(pipelined)) {
          kernel.emitError("the K loop could not be software-pipelined for "
                           "stages = ")
              << config.getStages();
          return WalkResult::interrupt();
        }
        ++numPipelinedLoops;
        if (failed(unrollByStages(*pipelined, config.getStages()))) {
          kernel.emitError("the pipelined K loop could not be unrolled by ")
              << config.getStages();
          return WalkResult::interrupt();
        }
      }
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << kernel.getName() << ", "
                              << loops.size() << " K loops\n");
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace mxgemm
