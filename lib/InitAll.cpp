//===- InitAll.cpp - register everything mxgemm-opt knows -----------------===//
//
// Keeps the list of upstream dialects and passes in one place, mirrored by the
// C API's registration function.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/InitAll.h"

#include "mxgemm/Conversion/Passes.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"
#include "mxgemm/Target/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/AMDGPU/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

void mxgemm::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mxgemm::MXGemmDialect, mlir::amdgpu::AMDGPUDialect,
                  mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::ROCDL::ROCDLDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect>();
  mlir::registerAllToLLVMIRTranslations(registry);
  // The ConvertToLLVM interfaces of cf, arith, vector, memref, ... that
  // convert-gpu-to-rocdl picks up from the loaded dialects.
  mlir::registerAllExtensions(registry);
}

void mxgemm::registerAllPasses() {
  mxgemm::registerMXGemmPasses();
  mxgemm::registerMXGemmConversionPasses();
  mxgemm::registerMXGemmTargetPasses();
  mxgemm::registerMXGemmPipelines();
  // Upstream passes the pipeline is built from, so each stage can be rerun
  // by hand from mxgemm-opt.
  mlir::registerTransformsPasses();
  mlir::registerConversionPasses();
  mlir::registerGPUPasses();
  mlir::amdgpu::registerAMDGPUPasses();
}
