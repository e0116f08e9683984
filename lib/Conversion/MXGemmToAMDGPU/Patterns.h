//===- Patterns.h - the MXGemmToAMDGPU patterns, by concern -----*- C++ -*-===//
//
// One populate function per file of patterns (MMA, copies, stores, waits and
// barriers); populateMXGemmToAMDGPUConversionPatterns adds them all.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_CONVERSION_MXGEMMTOAMDGPU_PATTERNS_H
#define MXGEMM_LIB_CONVERSION_MXGEMMTOAMDGPU_PATTERNS_H

#include "mxgemm/Conversion/MXGemmToAMDGPU/MXGemmToAMDGPU.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mxgemm {

/// A conversion pattern that adds what it emits to optional counts.
template <typename SourceOp>
class CountingPattern : public OpConversionPattern<SourceOp> {
public:
  CountingPattern(MLIRContext *ctx, MXGemmToAMDGPUCounts *counts)
      : OpConversionPattern<SourceOp>(ctx), counts(counts) {}

protected:
  void count(uint64_t MXGemmToAMDGPUCounts::*field, uint64_t n = 1) const {
    if (counts)
      counts->*field += n;
  }

private:
  MXGemmToAMDGPUCounts *counts;
};

/// True if `op` is, or holds, a copy into LDS, lowered or not
/// (CopiesToAMDGPU.cpp).
bool isLdsCopy(Operation *op);
/// `v` (an index), wave-uniform but not provably so for LLVM (derived from
/// thread_id.x / 64), through v_readfirstlane right after its definition,
/// since LLVM does not hoist the convergent readfirstlane out of a loop;
/// an earlier call's result for `v` is reused (CopiesToAMDGPU.cpp).
Value readFirstLane(OpBuilder &b, Value v);
/// The config of the kernel `op` is in, or null (WaveMmaToMfma.cpp).
ConfigAttr kernelConfig(Operation *op);
/// Whether N (the problem's) leaves the last tile column of `op`'s kernel
/// partial: its wave tiles then reach past N and are masked.
bool hasPartialTileColumn(Operation *op, int64_t n);
/// True if `op` is a ring barrier or the last op of a lowered one
/// (SyncToAMDGPU.cpp).
bool endsRingBarrier(Operation *op);
/// The turn of a ping-pong wave between its LDS reads and its MFMAs: wait
/// for all but `pendingLoads` vector-memory loads, s_barrier, raise the
/// priority (SyncToAMDGPU.cpp, WaveMmaOp).
void emitPingPongTurn(OpBuilder &b, Location loc, int64_t pendingLoads);
/// The end of a ping-pong wave's first MFMA turn of a two-turn K tile:
/// lower the priority and s_barrier (the other group's turn), nothing
/// scheduled across it (SyncToAMDGPU.cpp, WaveMmaOp's pingpong_refills).
void emitPingPongYield(OpBuilder &b, Location loc);

/// mxgemm.wave_mma (WaveMmaToMfma.cpp).
void populateWaveMmaToMfmaPatterns(RewritePatternSet &patterns,
                                   MXGemmToAMDGPUCounts *counts);
/// mxgemm.copy_to_lds (CopiesToAMDGPU.cpp).
void populateCopiesToAMDGPUPatterns(RewritePatternSet &patterns,
                                    MXGemmToAMDGPUCounts *counts);
/// mxgemm.store_tile (StoresToAMDGPU.cpp).
void populateStoresToAMDGPUPatterns(RewritePatternSet &patterns,
                                    MXGemmToAMDGPUCounts *counts);
/// mxgemm.wait_copies and mxgemm.ring_barrier (SyncToAMDGPU.cpp).
void populateSyncToAMDGPUPatterns(RewritePatternSet &patterns,
                                  MXGemmToAMDGPUCounts *counts);

} // namespace mxgemm

#endif // MXGEMM_LIB_CONVERSION_MXGEMMTOAMDGPU_PATTERNS_H
