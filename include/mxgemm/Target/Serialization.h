//===- Serialization.h - gfx950 code objects, in process -----------*- C++
//-*-===//
//
// Turns a gpu.module lowered to the LLVM/ROCDL dialects into LLVM IR,
// gfx950 assembly or a linked code object (hsaco), without a ROCm install
// and without an ld.lld on PATH: codegen uses the AMDGPU backend inside
// libLLVM and linking uses lld's ELF driver as a library.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_SERIALIZATION_H
#define MXGEMM_TARGET_SERIALIZATION_H

#include "mxgemm/Support/MLIR.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace mxgemm {

struct SerializeOptions {
  std::string chip = "gfx950";
  std::string features;
  /// LLVM optimisation and codegen level, 0-3.
  unsigned optLevel = 3;
  /// AMDHSA code object version (500 = v5).
  unsigned codeObjectVersion = 500;
};

/// Translates `kernels` to an LLVM module configured for amdgcn-amd-amdhsa
/// (triple, data layout, code object version) and runs the LLVM
/// optimisation pipeline at `optLevel`. Errors are emitted as diagnostics.
FailureOr<std::unique_ptr<llvm::Module>>
translateAndOptimize(mlir::gpu::GPUModuleOp kernels, llvm::LLVMContext &ctx,
                     const SerializeOptions &options);

/// Runs the AMDGPU backend: assembly text if `assembly`, else a relocatable
/// ELF object.
llvm::Expected<std::string> emitMachineCode(llvm::Module &module,
                                            const SerializeOptions &options,
                                            bool assembly);

/// Links a relocatable AMDGPU object into a shared code object with lld's
/// ELF driver, in process.
llvm::Expected<std::string> linkCodeObject(llvm::StringRef relocatable);

} // namespace mxgemm

#endif // MXGEMM_TARGET_SERIALIZATION_H
