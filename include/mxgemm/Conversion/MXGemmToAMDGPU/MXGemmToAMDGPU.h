//===- MXGemmToAMDGPU.h - wave-level mxgemm ops to AMDGPU -------*- C++ -*-===//
//
// The conversion patterns of convert-mxgemm-to-amdgpu, for passes that want
// to lower mxgemm's wave-level ops together with their own patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONVERSION_MXGEMMTOAMDGPU_MXGEMMTOAMDGPU_H
#define MXGEMM_CONVERSION_MXGEMMTOAMDGPU_MXGEMMTOAMDGPU_H

#include "mxgemm/Support/MLIR.h"

#include <cstdint>

namespace mxgemm {
class WaveMmaOp;

/// What the patterns emitted, counted as they rewrite (the pass reports it
/// as its statistics). Counts are of ops in the IR, not of executions.
struct MXGemmToAMDGPUCounts {
  uint64_t mfmas = 0;
  uint64_t hoistedMmas = 0;
  uint64_t dsReads = 0;
  uint64_t globalLoads = 0;
  uint64_t scalarLoads = 0;
  uint64_t ldsCopies = 0;
  uint64_t ldsCopyInstructions = 0;
  uint64_t waits = 0;
  uint64_t barriers = 0;
  uint64_t stores = 0;
};

/// Adds the patterns that lower mxgemm.wave_mma, mxgemm.store_tile,
/// mxgemm.copy_to_lds, mxgemm.wait_copies and mxgemm.ring_barrier for
/// gfx950. The patterns need no type converter. `counts`, if given, must
/// outlive the conversion.
void populateMXGemmToAMDGPUConversionPatterns(
    RewritePatternSet &patterns, MXGemmToAMDGPUCounts *counts = nullptr);

/// Marks the mxgemm dialect illegal: after a conversion with this target,
/// no mxgemm op is left.
void configureMXGemmToAMDGPUConversionLegality(ConversionTarget &target);

/// True if the kernel around `op` takes W packed in MFMA panels
/// (stage_w = packed_registers) but `op` reads W row-major, i.e.
/// mxgemm-stage-copies did not run. Lowering such an op would misread W, so
/// the MMA pattern refuses to.
bool readsPackedWeightsRowMajor(WaveMmaOp op);

} // namespace mxgemm

#endif // MXGEMM_CONVERSION_MXGEMMTOAMDGPU_MXGEMMTOAMDGPU_H
