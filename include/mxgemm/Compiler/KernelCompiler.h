//===- KernelCompiler.h - one problem in, one code object out ------*- C++
//-*-===//
//
// The library behind mxgemm-compile, the AOT kernel library build and the
// compiler-side C API: build the problem IR from a spec, run the
// mxgemm-to-gfx950 pipeline, serialise, and describe the result (sidecar).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_COMPILER_KERNELCOMPILER_H
#define MXGEMM_COMPILER_KERNELCOMPILER_H

#include "mxgemm/Target/CodeObjectMetadata.h"
#include "mxgemm/Target/Serialization.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::mxgemm {

/// A GEMM problem family: everything but M, which is a runtime argument.
struct ProblemSpec {
  std::string name = "mxgemm_kernel";
  int64_t n = 0, k = 0;
  std::string xFormat = "f8E4M3FN"; // or f8E5M2
  std::string wFormat = "f8E4M3FN";
  std::string wScale = "block32x32"; // or per_row
  std::string outType = "bf16";      // or f32
  /// Body of #mxgemm.config<...> (the text between the angle brackets), or
  /// empty for the default config.
  std::string config;
};

/// The default config when a spec gives none: 128x128x128 tiles of 2x2
/// waves of 32x32x64 MFMAs with direct operand loads.
std::string getDefaultConfigText();

/// The problem as MLIR source: one func.func with one mxgemm.scaled_matmul.
std::string buildProblemSource(const ProblemSpec &spec);

/// Parses `source` into a module of `ctx` (which must have the mxgemm
/// registry); parse and verifier errors go to the context's diagnostics.
OwningOpRef<ModuleOp> parseProblem(MLIRContext *ctx, llvm::StringRef source);

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
  /// For HSACO: the sidecar (kernel name, arguments, grid mapping,
  /// resources read back from the code object).
  llvm::json::Object sidecar;
};

/// Runs the pipeline on `module` (in place) up to `options.stage`.
/// Failures are reported as diagnostics on the module's context.
FailureOr<CompileResult> compileProblem(ModuleOp module,
                                        const CompileOptions &options);

} // namespace mlir::mxgemm

#endif // MXGEMM_COMPILER_KERNELCOMPILER_H
