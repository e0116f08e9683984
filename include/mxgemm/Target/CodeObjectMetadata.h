//===- CodeObjectMetadata.h - compiler-side names ---------------*- C++ -*-===//
//
// The metadata reader is mxgemm/Target/CodeObject.h; these are the names the
// compiler's sidecar code (KernelCompiler.{h,cpp}) was written against, kept
// so that the reader could move without touching the kernel contract. New
// code uses mxgemm::target directly.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_CODEOBJECTMETADATA_H
#define MXGEMM_TARGET_CODEOBJECTMETADATA_H

#include "mxgemm/Target/CodeObject.h"

namespace mxgemm {
using KernelResources = target::KernelMetadata;
using CodeObjectInfo = target::CodeObjectMetadata;
} // namespace mxgemm

#endif // MXGEMM_TARGET_CODEOBJECTMETADATA_H
