//===- KernelLibrary.h - the kernels the runtime dispatches to --*- C++ -*-===//
//
// The runtime's view of a kernel library: every entry of a tuning database
// joined with its kernel descriptor and code object, checked against each
// other (the descriptor must describe the entry's problem and config), and
// sorted by (dispatch key, m_min) so that the hot path is a binary search
// over data that never changes after it is built: no allocation, no lock.
// The embedded library is built once, on first use, from the files
// cmake/MXGemmKernelLibrary.cmake embeds.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_KERNELLIBRARY_H
#define MXGEMM_LIB_RUNTIME_KERNELLIBRARY_H

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::runtime {

/// (N, K, X type, W type, W-scale granularity, output type) packed into one
/// integer. N and K are at most 2^24 (the contract's limit).
using DispatchKey = uint64_t;

constexpr DispatchKey makeDispatchKey(int64_t n, int64_t k, mxgemm_dtype x,
                                      mxgemm_dtype w,
                                      mxgemm_scale_granularity ws,
                                      mxgemm_dtype out) {
  return (uint64_t(n) << 40) | (uint64_t(k) << 16) | (uint64_t(x & 0xf) << 12) |
         (uint64_t(w & 0xf) << 8) | (uint64_t(ws & 0xf) << 4) |
         uint64_t(out & 0xf);
}

/// Where each kernel argument comes from, resolved once per kernel from its
/// descriptor so that a launch packs the kernarg buffer without comparing
/// argument names.
struct ArgumentPacking {
  /// Largest kernarg segment the launch path packs (on the stack).
  static constexpr uint32_t kMaxBytes = 256;
  enum class Source : uint8_t {
    X,
    XScales,
    W,
    WScales,
    Y,
    M,
    Workspace,
    Phase,
    N,
    K,
    LdX,
    LdXScales,
    LdY
  };
  struct Slot {
    Source source = Source::X;
    uint32_t offset = 0, size = 0;
  };
  Slot slots[13];
  uint32_t count = 0;
  /// The kernarg segment size (the code object's kernarg_segment_bytes).
  uint32_t bytes = 0;
  /// Split-K: the kernel takes a workspace and is launched twice (Phase 0
  /// then 1).
  bool splitK = false;
  /// The kernel takes the row strides of X, its scales and Y (a generic
  /// kernel): it serves views of the activations.
  bool rowStrides = false;

  /// The packing of `descriptor`'s arguments, or why this runtime cannot
  /// pass them (an argument it does not know, one outside the segment, a
  /// segment larger than kMaxBytes).
  static contract::ErrorMessage build(const contract::KernelDescriptor &d,
                                      ArgumentPacking &out);
};

/// One dispatchable kernel.
struct KernelEntry {
  DispatchKey key = 0;
  contract::TuningEntry tuning;
  contract::KernelDescriptor descriptor;
  /// The descriptor as embedded (mxgemm_kernel_descriptor returns it).
  std::string descriptorJson;
  /// The config as the body of #mxgemm.config<...> (plans show it).
  std::string configText;
  const unsigned char *codeObject = nullptr;
  size_t codeObjectSize = 0;
  ArgumentPacking packing;

  mxgemm_weight_layout wLayout() const {
    return descriptor.wLayout == contract::WeightLayout::MfmaPanels
               ? MXGEMM_WEIGHTS_MFMA_PANELS
               : MXGEMM_WEIGHTS_ROW_MAJOR;
  }
};

struct KernelLibrary {
  /// The tuned entries, sorted by (key, tuning.mMin), then from index
  /// `tunedCount` on the generic kernels (run-time N and K, key 0, their
  /// M range in `tuning`), which serve any key of their formats.
  std::vector<KernelEntry> entries;
  size_t tunedCount = 0;
  /// Why the library could not be built ("" when it was).
  std::string error;

  /// The library embedded at build time.
  static const KernelLibrary &embedded();
};

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_KERNELLIBRARY_H
