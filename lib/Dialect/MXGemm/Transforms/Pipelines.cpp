//===- Pipelines.cpp - the mxgemm-to-gfx950 pipeline ----------------------===//
//
// Order matters: tiling creates the kernel, grouping and staging refine it
// inside the gpu.module, the conversion takes every mxgemm op out, and only
// then does the upstream ROCDL conversion see plain gpu/vector/memref/amdgpu
// IR; the Target-layer annotation works on its LLVM-dialect result.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"
#include "mxgemm/Conversion/Passes.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Target/Passes.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mxgemm {

void buildMXGemmToGFX950Pipeline(OpPassManager &pm,
                                 const MXGemmToGFX950Options &options) {
  MXGemmTileOptions tile;
  tile.chip = options.chip;
  pm.addPass(createMXGemmTile(tile));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createMXGemmGroupTiles());
  kernels.addPass(createMXGemmStageCopies());
  kernels.addPass(createMXGemmPipeline());
  kernels.addPass(createMXGemmUnrollK());
  kernels.addPass(createMXGemmStageStores());
  kernels.addPass(createConvertMXGemmToAMDGPU());
  kernels.addPass(createMXGemmPrefetchRegisters());
  kernels.addPass(createMXGemmScheduleMfma());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  // LDS ring views are strided subviews: expand them to offsets first.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  addGpuToROCDL(kernels, options);
  kernels.addPass(createMXGemmAnnotateLdsAliasing());
  addROCDLTarget(pm, options);
}

void addGpuToROCDL(OpPassManager &kernels,
                   const MXGemmToGFX950Options &options) {
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  rocdl.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToROCDLOps(rocdl));
}

void addROCDLTarget(OpPassManager &pm, const MXGemmToGFX950Options &options) {
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuROCDLAttachTargetOptions target;
  target.chip = options.chip;
  target.abiVersion = options.abi;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuROCDLAttachTarget(target));
}

void registerMXGemmPipelines() {
  PassPipelineRegistration<MXGemmToGFX950Options>(
      "mxgemm-to-gfx950",
      "Lower mxgemm.scaled_matmul to a gfx950 kernel in the LLVM/ROCDL "
      "dialects, ready for serialisation to a code object",
      buildMXGemmToGFX950Pipeline);
}

} // namespace mxgemm
