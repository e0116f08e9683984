//===- Reference.h - CPU reference for block-scaled MXFP8 GEMMs -*- C++ -*-===//
//
// The CPU reference of docs/Design.md section 1: Y = X . W^T with per-32 E8M0
// scales, accumulated in FP32 one MFMA K-step at a time through
// mxStepAccumulate, so that a correct kernel (and the emulator) reproduces it
// bit for bit. Blocked and multi-threaded, and able to compute only some
// output tiles, because the workload's 16384^3 problems are checked on
// sampled tiles. Also an FP64 reference and error helpers for the tolerance
// check that complements the bit-exact one. No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_NUMERICS_REFERENCE_H
#define MXGEMM_NUMERICS_REFERENCE_H

#include "mxgemm/Numerics/MXNumerics.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mxgemm::numerics {

/// Borrowed views of the GEMM operands (all row-major, K contiguous).
/// Requires K % 32 == 0.
struct MXGemmOperands {
  int64_t m = 0, n = 0, k = 0;
  /// X [M, K] FP8 codes and Xs [M, K/32] E8M0 scales.
  const uint8_t *x = nullptr;
  const uint8_t *xScales = nullptr;
  FP8Format xFormat = FP8Format::E4M3;
  /// W [N, K] FP8 codes; Ws [N, K/32] (PerRow) or [ceil(N/32), K/32]
  /// (Block32x32, scale row n / 32).
  const uint8_t *w = nullptr;
  const uint8_t *wScales = nullptr;
  FP8Format wFormat = FP8Format::E4M3;
  ScaleGranularity wScaleGranularity = ScaleGranularity::PerRow;
};

enum class OutputType : uint8_t { BF16, F32 };

/// Half-open rectangle [rowBegin, rowEnd) x [colBegin, colEnd) of Y.
struct OutputRegion {
  int64_t rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;
};

struct ReferenceOptions {
  /// K elements per MFMA step (64 for 32x32x64, 128 for 16x16x128); a
  /// multiple of 32. If K is not a multiple, the last step is shorter.
  int kStep = 64;
  /// Split-K segment boundaries [0, b1, ..., K] (docs/Design.md, "Split
  /// K: the segment rule"): each segment is accumulated from +0 by the step
  /// rule, then the partials are added in ascending order in FP32 (nearest
  /// even). Empty means one segment, [0, K]. Boundaries must be ascending
  /// multiples of kStep.
  std::vector<int64_t> kSegments;
  /// Where kSegments apply: a tail split's tail tiles (docs/Design.md,
  /// "Tail split"); empty = everywhere. Outputs outside every region are
  /// one segment, [0, K].
  std::vector<OutputRegion> kSegmentRegions;
  /// Worker threads; 0 means std::thread::hardware_concurrency().
  unsigned numThreads = 0;
};

/// Full Y [M, N] row-major: uint16_t BF16 bits for OutputType::BF16, float
/// for OutputType::F32.
void referenceGemm(const MXGemmOperands &ops, OutputType outputType, void *y,
                   const ReferenceOptions &options = {});

/// Only `region` of Y; `out` points at Y[rowBegin, colBegin] and rows are
/// `ldOut` elements apart.
void referenceGemmRegion(const MXGemmOperands &ops, const OutputRegion &region,
                         OutputType outputType, void *out, int64_t ldOut,
                         const ReferenceOptions &options = {});

/// Only the given tiles of Y, written at their places in the full-size,
/// row-major `y` (ld = N); other elements are not touched.
void referenceGemmTiles(const MXGemmOperands &ops,
                        const std::vector<OutputRegion> &tiles,
                        OutputType outputType, void *y,
                        const ReferenceOptions &options = {});

/// FP64 reference for tolerance checks: out = plain double sum, in increasing
/// k, of dequantized products (NaN/inf propagate as in IEEE double). If
/// `absSum` is non-null it receives sum_k |product|, the natural scale for
/// error bounds when Y itself cancels to near zero. Both point at element
/// (rowBegin, colBegin) with leading dimension `ldOut`.
void referenceGemmFP64(const MXGemmOperands &ops, const OutputRegion &region,
                       double *out, int64_t ldOut, double *absSum = nullptr,
                       unsigned numThreads = 0);

/// max_i |got_i - ref_i| / max(|ref_i|, absFloor). Two NaNs agree; a NaN on
/// one side only, or an inf mismatch, gives +inf.
double maxRelativeError(const float *got, const double *ref, size_t count,
                        double absFloor = 1e-30);
/// The same for BF16 bits.
double maxRelativeErrorBf16(const uint16_t *got, const double *ref,
                            size_t count, double absFloor = 1e-30);
/// max_i |got_i - ref_i| / max(scale_i, absFloor), with scale = absSum from
/// referenceGemmFP64: bounded by the accumulation error even under
/// cancellation.
double maxNormalizedError(const float *got, const double *ref,
                          const double *scale, size_t count,
                          double absFloor = 1e-30);

} // namespace mxgemm::numerics

#endif // MXGEMM_NUMERICS_REFERENCE_H
