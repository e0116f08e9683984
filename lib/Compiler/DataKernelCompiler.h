//===- DataKernelCompiler.h - data-movement kernels to code objects -*- C++
//-*-===//
//
// The part compileQuantize and compilePackPanels share: the one-op module
// through mxgemm-quantize-to-gfx950 (the data-movement kernels' pipeline),
// serialised like a GEMM kernel, and a descriptor with the common fields
// of include/mxgemm/Contract/DataKernelDescriptor.h beside the kind's own.
// Internal to MXGemmCompiler.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_COMPILER_DATAKERNELCOMPILER_H
#define MXGEMM_LIB_COMPILER_DATAKERNELCOMPILER_H

#include "mxgemm/Compiler/KernelCompiler.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace mxgemm::compiler {

/// Runs mxgemm-quantize-to-gfx950 on `module` up to `options.stage` and
/// returns its output; `kernel` is the function the pipeline turns into
/// the kernel. For HSACO, `descriptorJson` receives `fields` (kind, version
/// and the kind's own fields) with kernel, target, resources,
/// code_object_sha256, mxgemm_version and llvm_version added.
mlir::FailureOr<std::string> compileDataKernel(mlir::ModuleOp module,
                                               const CompileOptions &options,
                                               llvm::StringRef kernel,
                                               llvm::json::Object fields,
                                               std::string &descriptorJson);

} // namespace mxgemm::compiler

#endif // MXGEMM_LIB_COMPILER_DATAKERNELCOMPILER_H
