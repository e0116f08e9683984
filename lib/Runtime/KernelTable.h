//===- KernelTable.h - the embedded AOT kernel library ----------*- C++ -*-===//
//
// The dispatch table generated at build time by tuning/mxgemm_tuning.py from
// the tuning database: one immutable entry per (dispatch key, M range) with
// its code object embedded as bytes and its launch geometry from the
// mxgemm-compile sidecar. Sorted by (key, m_min) so that the hot path is a
// binary search over constant data: no allocation, no lock.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_KERNELTABLE_H
#define MXGEMM_LIB_RUNTIME_KERNELTABLE_H

#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <cstddef>
#include <cstdint>

namespace mxgemm::runtime {

/// (N, K, X type, W type, W-scale granularity, output type) packed into one
/// integer; the arch is gfx950 for every entry of this library. N and K are
/// below 2^24 (checked by the database tool and before packing at run time).
using DispatchKey = uint64_t;

constexpr DispatchKey makeDispatchKey(int64_t n, int64_t k, mxgemm_dtype x,
                                      mxgemm_dtype w,
                                      mxgemm_scale_granularity ws,
                                      mxgemm_dtype out) {
  return (uint64_t(n) << 40) | (uint64_t(k) << 16) | (uint64_t(x & 0xf) << 12) |
         (uint64_t(w & 0xf) << 8) | (uint64_t(ws & 0xf) << 4) |
         uint64_t(out & 0xf);
}

/// One tuned kernel. Everything here is compile-time constant data.
struct KernelEntry {
  DispatchKey key;
  int64_t mMin, mMax;
  int64_t n, k;
  const char *entryName;  // tuning-database name
  const char *kernelName; // symbol in the code object
  const char *arch;
  const unsigned char *codeObject;
  size_t codeObjectSize;
  uint32_t workgroupSize, programTileM, tileN, numTilesN, ldsBytes;
  uint32_t kernargBytes, vgprCount, agprCount, sgprCount, kStep;
  bool packedWeights; // stage_w = packed_registers
  // Program-id -> tile swizzle (mxgemm-group-tiles); 1, 0, false = row-major.
  uint32_t groupM, groupN;
  bool xcdRemap;
  const char *config, *note;
};

extern const KernelEntry kKernelTable[];
extern const size_t kKernelTableSize;

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_KERNELTABLE_H
