//===- KernelSerialization.h - a lowered kernel module to its output ----===//
//
// The part of compileKernel and compileQuantize after their pipelines: the
// kernel module translated to LLVM IR, then to ISA, then linked into a code
// object whose metadata names the kernel. Internal to MXGemmCompiler.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_COMPILER_KERNELSERIALIZATION_H
#define MXGEMM_LIB_COMPILER_KERNELSERIALIZATION_H

#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/Target/CodeObject.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mxgemm::compiler {

/// IR printed after every pass when `options.printIRAfterAll` asks for it.
void configureIRPrinting(mlir::PassManager &pm, const CompileOptions &options);

struct SerializedKernel {
  /// LLVM IR (EmitStage::LLVM) or ISA (EmitStage::ISA) text; empty for a
  /// code object.
  std::string text;
  /// The linked code object (EmitStage::HSACO) and its metadata.
  std::string codeObject;
  ::mxgemm::target::CodeObjectMetadata metadata;
  /// `kernel`'s entry in `metadata`.
  ::mxgemm::target::KernelMetadata kernel;
};

/// Serialises `kernels` (after the pipeline) to `options.stage`, which must
/// not be EmitStage::MLIR; errors are reported on `module`.
mlir::FailureOr<SerializedKernel>
serializeKernelModule(mlir::ModuleOp module, mlir::gpu::GPUModuleOp kernels,
                      llvm::StringRef kernel, const CompileOptions &options);

} // namespace mxgemm::compiler

#endif // MXGEMM_LIB_COMPILER_KERNELSERIALIZATION_H
