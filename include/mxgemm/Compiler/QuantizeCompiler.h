//===- QuantizeCompiler.h - mxgemm.quantize to a code object ----*- C++ -*-===//
//
// The quantize kernel's counterpart of compileProblem: builds or takes a
// module holding one mxgemm.quantize, runs mxgemm-quantize-to-gfx950 and
// serialises it. Its descriptor is a small JSON document of its own
// (docs/Numerics.md, "Device quantization"): the GEMM descriptor
// (KernelDescriptor) describes N, K, tiles and MFMAs, none of which a
// quantize kernel has.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_COMPILER_QUANTIZECOMPILER_H
#define MXGEMM_COMPILER_QUANTIZECOMPILER_H

#include "mxgemm/Compiler/KernelCompiler.h"

namespace mxgemm {

/// A quantize kernel: "bf16" | "f16" | "f32" values to "e4m3" | "e5m2".
struct QuantizeSpec {
  std::string name; // empty: "mxgemm_quantize_<in>_<format>"
  std::string inType = "bf16";
  std::string format = "e4m3";
};

std::string getQuantizeKernelName(const QuantizeSpec &spec);

/// One func.func holding one mxgemm.quantize on dynamic [M, K] memrefs.
/// Null after a diagnostic when the spec is invalid.
OwningOpRef<ModuleOp> buildQuantize(MLIRContext *ctx, const QuantizeSpec &spec);

/// True if `module` holds an mxgemm.quantize (mxgemm-compile's dispatch).
bool containsQuantize(ModuleOp module);

/// Runs mxgemm-quantize-to-gfx950 on `module` up to `options.stage`. For
/// HSACO, `descriptorJson` receives the kernel's descriptor.
FailureOr<std::string> compileQuantize(ModuleOp module,
                                       const CompileOptions &options,
                                       std::string &descriptorJson);

} // namespace mxgemm

#endif // MXGEMM_COMPILER_QUANTIZECOMPILER_H
