//===- StageStores.cpp - mxgemm-stage-stores: the epilogue through LDS ----===//
//
// Gives a kernel's mxgemm.store_tile ops, in program order while the LDS
// has room, a per-wave LDS staging buffer each, so that the epilogue writes
// whole output rows with 16-byte stores instead of one row per lane. The buffer
// is a workgroup attribution beside the operand rings; the widest staging that
// still fits the LDS is chosen.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-stage-stores"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMSTAGESTORES
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// LDS bytes the kernel's workgroup attributions already take.
int64_t attributedLdsBytes(gpu::GPUFuncOp kernel) {
  int64_t bytes = 0;
  for (BlockArgument arg : kernel.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(arg.getType());
    bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  return bytes;
}

/// Stages `store` if a buffer fits; returns the bytes it added.
int64_t stageStore(gpu::GPUFuncOp kernel, StoreTileOp store, int64_t waves) {
  const target::TargetModel &target = target::kGFX950;
  const int64_t mn = target.getMfma(toContract(store.getMfma())).m;
  Type elem = store.getY().getType().getElementType();
  const int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  const int64_t used = attributedLdsBytes(kernel);
  // Widest first: a row of 128 bytes is one cache line per row of the
  // output; narrower staging still writes 16 bytes per lane.
  for (int64_t rowBytes : {int64_t(128), int64_t(64)}) {
    const int64_t cols = rowBytes / elemBytes;
    if (cols % mn != 0 || store.getWaveN() % cols != 0)
      continue;
    const int64_t bytes = waves * mn * rowBytes;
    if (used + bytes > target.maxLdsBytesPerWorkgroup)
      continue;
    auto type =
        MemRefType::get({waves, mn, cols}, elem, MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            kernel.getContext(), gpu::AddressSpace::Workgroup));
    Value buffer = kernel.addWorkgroupAttribution(type, store.getLoc());
    store.getStagingMutable().assign(buffer);
    return bytes;
  }
  return 0;
}

struct MXGemmStageStoresPass
    : public impl::MXGemmStageStoresBase<MXGemmStageStoresPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation()->walk([&](gpu::GPUFuncOp k) { kernels.push_back(k); });
    for (gpu::GPUFuncOp kernel : kernels) {
      auto config = kernel->getAttrOfType<ConfigAttr>(kConfigAttrName);
      if (!config)
        continue;
      SmallVector<StoreTileOp> stores;
      kernel.walk([&](StoreTileOp op) {
        // A generic kernel's stores stay direct: its N is a run-time value.
        if (!op.getStaging() && !op.getNSize())
          stores.push_back(op);
      });
      // In program order while the LDS has room: a kernel that stores in
      // two places (a tail split's Y, then its FP32 partials) builds the
      // one it wants staged first.
      for (StoreTileOp store : stores) {
        int64_t bytes = stageStore(kernel, store, config.getNumWaves());
        LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": @" << kernel.getName()
                                << ": " << bytes << " LDS bytes of staging\n");
        if (bytes > 0) {
          ++numStagedStores;
          numStagingBytes += bytes;
        } else {
          ++numDirectStores;
        }
      }
    }
  }
};

} // namespace
} // namespace mxgemm
