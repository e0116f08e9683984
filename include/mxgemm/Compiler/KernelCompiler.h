//===- KernelCompiler.h - one problem in, one code object out ---*- C++ -*-===//
//
// The library behind mxgemm-compile, the AOT kernel library build and the
// compiler-side C API: validate a problem spec once, build its IR with an
// OpBuilder, run the mxgemm-to-gfx950 pipeline, serialise, and describe the
// result with the contract's kernel descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_COMPILER_KERNELCOMPILER_H
#define MXGEMM_COMPILER_KERNELCOMPILER_H

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Dialect/MXGemm/IR/ConfigText.h" // parseConfigBody
#include "mxgemm/Support/MLIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mxgemm {

/// A GEMM problem family and the config to compile it with; M is a runtime
/// argument of the kernel.
struct ProblemSpec {
  /// Kernel symbol; empty: "mxgemm_n<N>_k<K>".
  std::string name;
  ::mxgemm::contract::GemmProblem problem;
  ::mxgemm::contract::KernelConfig config;
  /// Where the config came from (ConfigChoice::sourceLabel); recorded on
  /// the kernel function as kConfigSourceAttrName and in the descriptor's
  /// `config_source`. Empty: not recorded.
  std::string configSource;
};

/// The discardable attribute of the problem's func.func that carries
/// ProblemSpec::configSource through the module to the descriptor.
inline constexpr llvm::StringLiteral kConfigSourceAttrName =
    "mxgemm.config_source";

/// The kernel symbol `spec` gets (its name, or the default).
std::string getKernelName(const ProblemSpec &spec);

/// The one validation of a spec, shared by mxgemm-compile and the C API: a
/// kernel name that is an identifier ([A-Za-z_][A-Za-z0-9_$.]*, at most 256
/// characters), a valid problem, a config the verifier accepts on `chip`,
/// and the problem-config rules.
::mxgemm::contract::ErrorMessage validateProblemSpec(const ProblemSpec &spec,
                                                     llvm::StringRef chip);

/// Builds the problem (one func.func holding one mxgemm.scaled_matmul) into
/// a new module of `ctx`, which must have the mxgemm registry. Returns null
/// after emitting a diagnostic when the spec is invalid.
OwningOpRef<ModuleOp> buildProblem(MLIRContext *ctx, const ProblemSpec &spec,
                                   llvm::StringRef chip = "gfx950");

enum class EmitStage { MLIR, LLVM, ISA, HSACO };

struct CompileOptions {
  std::string chip = "gfx950";
  unsigned optLevel = 3;
  unsigned codeObjectVersion = 500;
  EmitStage stage = EmitStage::HSACO;
  bool printIRAfterAll = false;
};

struct CompileResult {
  /// MLIR/LLVM/ISA text, or the code object bytes for HSACO.
  std::string output;
  /// For HSACO: the kernel descriptor (resources read back from the code
  /// object, its SHA-256, the compiler versions).
  ::mxgemm::contract::KernelDescriptor descriptor;
};

/// Runs the pipeline on `module` (in place) up to `options.stage`.
/// Failures are reported as diagnostics on the module's context.
FailureOr<CompileResult> compileProblem(ModuleOp module,
                                        const CompileOptions &options);

/// "mxgemm <version>, LLVM <version>" and the values the descriptor records.
llvm::StringRef getMXGemmVersion();
llvm::StringRef getLLVMVersion();

} // namespace mxgemm

#endif // MXGEMM_COMPILER_KERNELCOMPILER_H
