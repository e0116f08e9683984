//===- QuantizePipeline.cpp - the mxgemm-quantize-to-gfx950 pipeline ------===//
//
// The quantize kernel needs no tiling, staging or MFMA passes: it goes from
// the lowering pass straight to the upstream ROCDL conversion.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/QuantizePipeline.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mxgemm {

void buildMXGemmQuantizeToGFX950Pipeline(OpPassManager &pm,
                                         const MXGemmToGFX950Options &options) {
  // The data-movement kernels (quantize, weight packing) share the tail.
  pm.addPass(createMXGemmLowerQuantize());
  pm.addPass(createMXGemmLowerPackPanels());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createSCFToControlFlowPass());
  addGpuToROCDL(kernels, options);
  addROCDLTarget(pm, options);
}

void registerMXGemmQuantizePipeline() {
  PassPipelineRegistration<MXGemmToGFX950Options>(
      "mxgemm-quantize-to-gfx950",
      "Lower mxgemm.quantize and mxgemm.pack_panels to gfx950 kernels in the "
      "LLVM/ROCDL dialects, "
      "ready for serialisation to a code object",
      buildMXGemmQuantizeToGFX950Pipeline);
}

} // namespace mxgemm
