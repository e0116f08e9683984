//===- EmbeddedFile.h - a file embedded into a library ----------*- C++ -*-===//
//
// One row of a table that cmake/MXGemmEmbedFiles.cmake generates: a file's
// name and bytes, followed by a NUL byte that `size` does not count (text
// files are C strings too). The runtime embeds its kernel library this way
// (lib/Runtime/EmbeddedFiles.h), the compiler its tuning database
// (lib/Compiler/EmbeddedFiles.h); each declares its own table.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SUPPORT_EMBEDDEDFILE_H
#define MXGEMM_SUPPORT_EMBEDDEDFILE_H

#include <cstddef>

namespace mxgemm {

struct EmbeddedFile {
  const char *name;
  const unsigned char *data;
  size_t size;
};

} // namespace mxgemm

#endif // MXGEMM_SUPPORT_EMBEDDEDFILE_H
