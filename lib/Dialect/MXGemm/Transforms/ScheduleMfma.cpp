//===- ScheduleMfma.cpp - mxgemm-schedule-mfma: interleave loads, MFMAs ---===//
//
// A K-loop body is a chain of 32- or 64-cycle MFMAs plus the LDS reads and
// global loads that feed the next ones. Left alone, the LLVM scheduler tends
// to cluster all loads first; this pass pins an interleaved order with
// gfx950 sched-group barriers (one MFMA, then its share of LDS reads and
// global loads, repeated) and raises the wave's priority around the MFMA
// cluster (s_setprio) so a co-resident wave's loads do not starve it. MFMA
// steps keep their K order: each accumulator block is a dependence chain.
//
// In LLVM 22 s_setprio ends a scheduling region, and the barriers sit after
// the lowering s_setprio: for `interleave` they order only the loop's tail,
// and LLVM orders the MFMA region itself. Barriers that reach the MFMAs
// were predicted 10-14% slower (docs/Performance.md, "The interleave
// schedule's barriers"), so that is kept.
//
//===----------------------------------------------------------------------===//

#include "LoweredLoads.h"

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-schedule-mfma"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMSCHEDULEMFMA
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

// Instruction classes of llvm.amdgcn.sched.group.barrier (AMDGPU docs).
constexpr int32_t kMaskMfma = 0x8;
constexpr int32_t kMaskVmemRead = 0x20;
constexpr int32_t kMaskDsRead = 0x100;

/// What ordering one block emitted, for the pass statistics.
struct BlockSchedule {
  int64_t mfmas = 0, groupBarriers = 0;
};

/// A block of a kernel whose K loops mxgemm-prefetch-registers pipelined:
/// the unrolled copies of a loop body, or the straight-line prologue and
/// peeled epilogue, each issue the next tiles' global loads and then a
/// tile's MFMAs. The groups keep that order run by run (one run: loads,
/// then MFMAs), so that no copy's loads move below the MFMAs before them
/// (they would wait a memory latency each) or above the MFMAs that free
/// their registers (back-edge copies that wait for the loads). A
/// scheduling region ends at control flow, so runs restart after any op
/// with regions, and each region's groups follow its last MFMA.
BlockSchedule schedulePrefetchedBlock(Block &block) {
  struct Run {
    int64_t vmemInstructions = 0, mfmas = 0;
  };
  BlockSchedule schedule;
  SmallVector<Run> runs(1);
  Operation *lastMfma = nullptr;
  auto flush = [&]() {
    if (lastMfma) {
      OpBuilder b = OpBuilder::atBlockEnd(&block);
      b.setInsertionPointAfter(lastMfma);
      auto group = [&](int32_t mask, int64_t size) {
        if (size <= 0)
          return;
        ROCDL::SchedGroupBarrier::create(
            b, lastMfma->getLoc(), b.getI32IntegerAttr(mask),
            b.getI32IntegerAttr(size), b.getI32IntegerAttr(0));
        ++schedule.groupBarriers;
      };
      for (const Run &run : runs) {
        group(kMaskVmemRead, run.vmemInstructions);
        group(kMaskMfma, run.mfmas);
        schedule.mfmas += run.mfmas;
      }
    }
    runs.assign(1, Run());
    lastMfma = nullptr;
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.getNumRegions() > 0) {
      flush();
      continue;
    }
    if (isa<amdgpu::ScaledMFMAOp>(op)) {
      ++runs.back().mfmas;
      lastMfma = &op;
      continue;
    }
    if (int64_t instructions = globalLoadInstructions(op)) {
      if (runs.back().mfmas > 0)
        runs.emplace_back();
      runs.back().vmemInstructions += instructions;
    }
  }
  flush();
  return schedule;
}

BlockSchedule scheduleBlock(Block &block, bool loadsFirst) {
  SmallVector<Operation *> mfmas;
  int64_t dsReads = 0, vmemReads = 0;
  int64_t dsInstructions = 0, vmemInstructions = 0;
  for (Operation &op : block) {
    if (isa<amdgpu::ScaledMFMAOp>(op)) {
      mfmas.push_back(&op);
    } else if (std::optional<LoweredLoad> load = classifyLoad(op)) {
      ++(load->lds ? dsReads : vmemReads);
      (load->lds ? dsInstructions : vmemInstructions) += load->instructions;
    }
  }
  if (mfmas.empty())
    return {};
  OpBuilder b(mfmas.front());
  Location loc = mfmas.front()->getLoc();
  // s_setprio bounds LLVM's scheduling regions: with loads first it would
  // keep the loads issued between MFMAs where they are.
  if (!loadsFirst) {
    ROCDL::SetPrioOp::create(b, loc, b.getI16IntegerAttr(1));
    b.setInsertionPointAfter(mfmas.back());
    ROCDL::SetPrioOp::create(b, loc, b.getI16IntegerAttr(0));
  }

  // The barriers describe the order of the whole region; they go at its end.
  b.setInsertionPoint(block.getTerminator());
  const int64_t n = mfmas.size();
  const int64_t dsPer = (dsReads + n - 1) / n;
  const int64_t vmemPer = (vmemReads + n - 1) / n;
  BlockSchedule schedule{n, 0};
  auto group = [&](int32_t mask, int64_t size) {
    if (size <= 0)
      return;
    ROCDL::SchedGroupBarrier::create(b, loc, b.getI32IntegerAttr(mask),
                                     b.getI32IntegerAttr(size),
                                     b.getI32IntegerAttr(0));
    ++schedule.groupBarriers;
  };
  if (loadsFirst) {
    // Every global load of the K tile in flight before the first MFMA
    // waits for any of them: one memory latency per K tile, not one per
    // MFMA step.
    group(kMaskVmemRead, vmemInstructions);
    group(kMaskDsRead, dsInstructions);
    group(kMaskMfma, n);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      group(kMaskMfma, 1);
      group(kMaskDsRead, dsPer);
      group(kMaskVmemRead, vmemPer);
    }
  }
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << n << " MFMAs, " << dsReads
                          << " LDS reads, " << vmemReads << " global loads\n");
  return schedule;
}

struct MXGemmScheduleMfmaPass
    : public impl::MXGemmScheduleMfmaBase<MXGemmScheduleMfmaPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      auto config = kernel->getAttrOfType<ConfigAttr>(kConfigAttrName);
      const bool loadsFirst =
          config && config.getSchedule() == Schedule::LoadsFirst;
      bool enabled = force || loadsFirst ||
                     (config && config.getSchedule() == Schedule::Interleave);
      const bool prefetching = prefetchesRegisters(config);
      auto count = [&](const BlockSchedule &schedule) {
        if (schedule.mfmas == 0)
          return;
        ++numScheduledLoops;
        numScheduledMfmas += schedule.mfmas;
        numSchedGroupBarriers += schedule.groupBarriers;
      };
      kernel.walk([&](Block *block) {
        auto loop = dyn_cast<scf::ForOp>(block->getParentOp());
        // A prefetching kernel's K loops that could not be pipelined (fewer
        // K tiles than stages) keep the usual order.
        if (prefetching && (!loop || loop->hasAttr(kPrefetchedLoopAttrName) ||
                            isTileWalk(loop)))
          count(schedulePrefetchedBlock(*block));
        else if (loop && enabled)
          count(scheduleBlock(*block, loadsFirst));
      });
    });
  }
};

} // namespace
} // namespace mxgemm
