//===- MXNumerics.h - bit-exact MX (OCP MXFP8) arithmetic -------*- C++ -*-===//
//
// The numeric contract of docs/Design.md section 1, shared by the CPU reference
// and the emulator's MFMA so that both round identically: FP8 decoding, E8M0
// scales, one exact-sum-then-round-once FP32 accumulation per MFMA K-step,
// and BF16 round-to-nearest-even. No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_NUMERICS_MXNUMERICS_H
#define MXGEMM_NUMERICS_MXNUMERICS_H

#include "mxgemm/Contract/Formats.h"

#include <cstdint>

namespace mxgemm::numerics {

/// FP8 element formats; the values are the MFMA cbsz/blgp encodings.
enum class FP8Format : uint8_t { E4M3 = 0, E5M2 = 1 };

/// Value of an FP8 encoding (NaN and, for E5M2, +-inf as IEEE doubles).
double decodeFP8(uint8_t bits, FP8Format format);

/// One MFMA K-step for one output element (docs/Design.md section 1):
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

/// Granularity of the weight scales (docs/Design.md section 1): one E8M0
/// scale per row and 32-element K-block (OCP MX), or one per 32x32 (row, K)
/// block. The contract's enum (one spelling per format).
using ::mxgemm::contract::ScaleGranularity;

/// E8M0 encoding of NaN; every other byte e means 2^(e - 127).
constexpr uint8_t kE8M0NaN = 255;
/// Number of K elements sharing one E8M0 scale.
constexpr int kMXBlockSize = 32;

/// Value of an E8M0 scale byte (NaN for 255).
double decodeE8M0(uint8_t bits);

/// True for the FP8 NaN encodings (E4M3: S.1111.111; E5M2: S.11111.xx, xx!=0).
bool isFP8NaN(uint8_t bits, FP8Format format);

/// Batched MFMA step: the same computation as mxStepAccumulate for every
/// (m, n) of a `rows` x `cols` tile, bit-identical to calling it per element,
/// but decoding each operand row once instead of once per output element
/// (what the emulator's MFMA and the CPU reference need):
///   acc[m*ldAcc + n] = mxStepAccumulate(acc[m*ldAcc + n],
///       a + m*lda, formatA, b + n*ldb, formatB,
///       scaleA + m*ldScaleA, scaleB + n*ldScaleB, numBlocks)
/// Row m of `a` and row n of `b` hold `numBlocks * 32` encodings contiguous
/// along K. A scale stride of 0 shares one scale row between all rows (the
/// 32x32 weight-scale granularity within one 32-row group).
void mxMfmaTile(float *acc, int64_t ldAcc, int rows, int cols, const uint8_t *a,
                int64_t lda, FP8Format formatA, const uint8_t *b, int64_t ldb,
                FP8Format formatB, const uint8_t *scaleA, int64_t ldScaleA,
                const uint8_t *scaleB, int64_t ldScaleB, int numBlocks);

} // namespace mxgemm::numerics

#endif // MXGEMM_NUMERICS_MXNUMERICS_H
