//===- PackPanelsCompiler.h - mxgemm.pack_panels to a code object -*- C++
//-*-===//
//
// The weight-packing kernel through the quantize pipeline
// (mxgemm-quantize-to-gfx950) and the shared serialisation path, with a
// descriptor of kind "mxgemm-pack-panels".
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_COMPILER_PACKPANELSCOMPILER_H
#define MXGEMM_COMPILER_PACKPANELSCOMPILER_H

#include "mxgemm/Compiler/KernelCompiler.h"

namespace mxgemm {

/// True if `module` holds an mxgemm.pack_panels (mxgemm-compile's dispatch).
bool containsPackPanels(ModuleOp module);

/// Runs mxgemm-quantize-to-gfx950 on `module` (one mxgemm.pack_panels) up
/// to `options.stage`. For HSACO, `descriptorJson` receives the kernel's
/// descriptor.
FailureOr<std::string> compilePackPanels(ModuleOp module,
                                         const CompileOptions &options,
                                         std::string &descriptorJson);

} // namespace mxgemm

#endif // MXGEMM_COMPILER_PACKPANELSCOMPILER_H
