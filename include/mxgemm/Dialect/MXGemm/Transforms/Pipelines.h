//===- Pipelines.h - the mxgemm-to-gfx950 pipeline --------------*- C++ -*-===//
//
// The pass pipeline from mxgemm.scaled_matmul to the LLVM/ROCDL dialects, as
// a C++ function over an options struct so that tools, the C API and
// mxgemm-opt build exactly the same pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PIPELINES_H
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PIPELINES_H

#include "mxgemm/Support/MLIR.h"

#include "mlir/Pass/PassOptions.h"

namespace mxgemm {

struct MXGemmToGFX950Options
    : public mlir::PassPipelineOptions<MXGemmToGFX950Options> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("target chip"), llvm::cl::init("gfx950")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> abi{
      *this, "abi",
      llvm::cl::desc("AMDHSA code object version (500 = code object v5)"),
      llvm::cl::init("500")};
};

/// mxgemm-tile, mxgemm-group-tiles, mxgemm-stage-copies, mxgemm-pipeline,
/// convert-mxgemm-to-amdgpu, mxgemm-schedule-mfma, cleanup, the upstream
/// convert-gpu-to-rocdl{chipset, use-bare-ptr-memref-call-conv},
/// mxgemm-annotate-lds-aliasing, then reconcile-unrealized-casts and
/// rocdl-attach-target{chip, abi, O}.
void buildMXGemmToGFX950Pipeline(OpPassManager &pm,
                                 const MXGemmToGFX950Options &options);

/// The upstream convert-gpu-to-rocdl{chipset, use-bare-ptr-memref-call-conv}
/// both kernel pipelines end their gpu.module part with.
void addGpuToROCDL(OpPassManager &kernels,
                   const MXGemmToGFX950Options &options);

/// reconcile-unrealized-casts and rocdl-attach-target{chip, abi, O}: the
/// module-level end of both kernel pipelines.
void addROCDLTarget(OpPassManager &pm, const MXGemmToGFX950Options &options);

/// Registers `mxgemm-to-gfx950` for mxgemm-opt and the pass registry.
void registerMXGemmPipelines();

} // namespace mxgemm

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PIPELINES_H
