//===- MXNumerics.h - bit-exact MX (OCP MXFP8) arithmetic ----------*- C++ -*-===//
//
// The numeric contract of DESIGN.md section 1, shared by the CPU reference
// and the emulator's MFMA so that both round identically: FP8 decoding, E8M0
// scales, one exact-sum-then-round-once FP32 accumulation per MFMA K-step,
// and BF16 round-to-nearest-even. No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_NUMERICS_MXNUMERICS_H
#define MXGEMM_NUMERICS_MXNUMERICS_H

#include <cstdint>

namespace mxgemm::numerics {

/// FP8 element formats; the values are the MFMA cbsz/blgp encodings.
enum class FP8Format : uint8_t { E4M3 = 0, E5M2 = 1 };

/// Value of an FP8 encoding (NaN and, for E5M2, +-inf as IEEE doubles).
double decodeFP8(uint8_t bits, FP8Format format);

/// One MFMA K-step for one output element (DESIGN.md section 1):
///   acc' = round_to_fp32_rne(acc + sum_b 2^(sa[b]-127) * 2^(sb[b]-127) *
///                                   sum_{i<32} a[32b+i] * b[32b+i])
/// with the sum computed exactly and rounded once (subnormals kept).
/// `a` and `b` hold `numBlocks * 32` FP8 encodings contiguous along K;
/// `scaleA`/`scaleB` hold `numBlocks` E8M0 exponents (255 = NaN).
/// Any NaN operand, NaN scale or inf - inf makes the result NaN.
float mxStepAccumulate(float acc, const uint8_t *a, FP8Format formatA,
                       const uint8_t *b, FP8Format formatB,
                       const uint8_t *scaleA, const uint8_t *scaleB,
                       int numBlocks);

/// FP32 -> BF16 bits, round to nearest even; NaN stays (quiet) NaN.
uint16_t fp32ToBf16(float value);
/// BF16 bits -> FP32 (exact).
float bf16ToFp32(uint16_t bits);

} // namespace mxgemm::numerics

#endif // MXGEMM_NUMERICS_MXNUMERICS_H
