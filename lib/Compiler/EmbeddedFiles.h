//===- EmbeddedFiles.h - files embedded into the compiler -------*- C++ -*-===//
//
// The tuning database the compiler ships with ("tuning-database.json",
// tuning/gfx950.json at build time), embedded by
// cmake/MXGemmEmbedFiles.cmake like the runtime's kernel library, for
// `--config=auto` (mxgemm/Compiler/KernelCompiler.h).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_COMPILER_EMBEDDEDFILES_H
#define MXGEMM_LIB_COMPILER_EMBEDDEDFILES_H

#include "mxgemm/Support/EmbeddedFile.h"

namespace mxgemm::compiler {

using ::mxgemm::EmbeddedFile;

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

} // namespace mxgemm::compiler

#endif // MXGEMM_LIB_COMPILER_EMBEDDEDFILES_H
