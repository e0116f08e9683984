//===- EmbeddedFiles.h - files embedded into the runtime --------*- C++ -*-===//
//
// The AOT kernel library as bytes (cmake/MXGemmKernelLibrary.cmake): the
// tuning database ("tuning-database.json"), and per entry its code object
// ("<entry>.hsaco") and kernel descriptor ("<entry>.hsaco.json"). Each file
// is followed by a NUL byte that `size` does not count.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_EMBEDDEDFILES_H
#define MXGEMM_LIB_RUNTIME_EMBEDDEDFILES_H

#include "mxgemm/Support/EmbeddedFile.h"

namespace mxgemm::runtime {

using ::mxgemm::EmbeddedFile;

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

/// The quantize kernels (cmake/MXGemmQuantizeKernels.cmake): per kernel
/// "<kernel>.hsaco" and "<kernel>.hsaco.json".
namespace quantize {
extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;
} // namespace quantize

/// The weight-packing kernels (lib/Runtime/CMakeLists.txt,
/// cmake/MXGemmEmbeddedKernels.cmake): per kernel "<kernel>.hsaco" and
/// "<kernel>.hsaco.json".
namespace pack {
extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;
} // namespace pack

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_EMBEDDEDFILES_H
