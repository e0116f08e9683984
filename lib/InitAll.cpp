//===- InitAll.cpp - register everything mxgemm-opt knows -----------------===//
//
// Keeps the list of upstream dialects and passes in one place, mirrored by the
// C API's registration function.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/InitAll.h"

#include "mxgemm/Conversion/Passes.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"
#include "mxgemm/Dialect/MXGemm/Transforms/QuantizePipeline.h"
#include "mxgemm/Target/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"

void mxgemm::registerAllPasses() {
  mxgemm::registerMXGemmPasses();
  mxgemm::registerMXGemmConversionPasses();
  mxgemm::registerMXGemmTargetPasses();
  mxgemm::registerMXGemmPipelines();
  mxgemm::registerMXGemmQuantizePipeline();
  // Upstream passes the pipeline is built from, so each stage can be rerun
  // by hand from mxgemm-opt.
  mlir::registerTransformsPasses();
  mlir::registerConversionPasses();
  mlir::registerGPUPasses();
  mlir::amdgpu::registerAMDGPUPasses();
  // Tensor-level passes around mxgemm-raise-scaled-contractions.
  mlir::bufferization::registerBufferizationPasses();
  mlir::registerLinalgPasses();
}
