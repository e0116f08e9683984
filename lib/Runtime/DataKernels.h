//===- DataKernels.h - the runtime's embedded data-movement kernels -*- C++
//-*-===//
//
// What mxgemm_quantize (Quantize.cpp) and mxgemm_pack_weights
// (PackWeights.cpp) share about their embedded kernels: each code object is
// checked once per process against its descriptor (target, SHA-256, an
// AMDGPU ELF that defines the kernel), loaded into a context's device on
// first use, and launched with one packed argument buffer. And the host
// path of the rewrites no kernel does (in-place packing, mxgemm_pack_scales).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_DATAKERNELS_H
#define MXGEMM_LIB_RUNTIME_DATAKERNELS_H

#include "EmbeddedFiles.h"
#include "RuntimeInternal.h"

#include "mxgemm/Contract/DataKernelDescriptor.h"

#include <functional>
#include <string>

namespace mxgemm::runtime {

/// An embedded kernel's checked code object.
struct DataKernelImage {
  const unsigned char *codeObject = nullptr;
  size_t codeObjectSize = 0;
  /// Why the kernel cannot be used ("" when it can): a build defect.
  std::string error;
};

/// The file `name` of an embedded table, or null.
const EmbeddedFile *findEmbeddedFile(const EmbeddedFile *table, size_t count,
                                     const std::string &name);

/// Checks `code` against the parsed descriptor `d` of the kernel `name`:
/// the descriptor names it, is for gfx950, has the code object's SHA-256,
/// and the code object is an AMDGPU ELF for its chip defining the kernel.
/// "" (and `image` set) when it can be used, else why not.
std::string checkDataKernel(const EmbeddedFile *code,
                            const contract::DataKernelDescriptor &d,
                            const std::string &name, DataKernelImage &image);

/// Loads `image` into the context's device and looks `kernel` up; a
/// failure is kept in `m.error`. The "code_object" test hook applies.
void loadDataKernel(Context &ctx, const DataKernelImage &image,
                    const std::string &kernel, EmbeddedModule &m);

/// Launches `m` on `stream` with `workgroups` 1-D workgroups of
/// `workgroupSize` and the packed argument buffer `args` (`argBytes`, the
/// descriptor's kernarg segment size). `what` prefixes a HIP error.
mxgemm_status launchDataKernel(Context &ctx, const char *what,
                               const EmbeddedModule &m, uint32_t workgroups,
                               uint32_t workgroupSize, void *args,
                               size_t argBytes, void *stream);

/// A one-time rewrite with no device kernel (in-place weight packing, scale
/// layouts): after `stream`'s work so far, copies `srcBytes` from the
/// device to the host, has `rewrite(src, dst)` fill `dstBytes` host bytes
/// and copies them to `dst` on the device. Both copies are synchronous, so
/// `dst` may overlap `src`. `rewrite` returning false is INTERNAL with
/// `what`.
mxgemm_status rewriteThroughHost(
    Context &ctx, const void *src, size_t srcBytes, void *dst, size_t dstBytes,
    void *stream, const char *what,
    const std::function<bool(const uint8_t *, uint8_t *)> &rewrite);

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_DATAKERNELS_H
