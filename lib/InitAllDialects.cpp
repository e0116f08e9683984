//===- InitAllDialects.cpp - the dialects mxgemm IR uses ------------------===//
//
// Its own library (MXGemmInitAllDialects) so that a parser of mxgemm IR (the
// mlir fuzz target, an embedding tool) does not link the passes.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/InitAll.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mxgemm::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mxgemm::MXGemmDialect, mlir::amdgpu::AMDGPUDialect,
                  mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::ROCDL::ROCDLDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::vector::VectorDialect>();
  // The upstream tensor-level IR mxgemm-raise-scaled-contractions takes,
  // and the bufferization models that turn it into memrefs.
  registry.insert<mlir::bufferization::BufferizationDialect,
                  mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  // The ConvertToLLVM interfaces of cf, arith, vector, memref, ... that
  // convert-gpu-to-rocdl picks up from the loaded dialects.
  mlir::registerAllExtensions(registry);
}
