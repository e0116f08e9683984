//===- Quantize.h - OCP MX quantization and random MX data ------*- C++ -*-===//
//
// Turns FP32 data into MXFP8 (FP8 codes plus one E8M0 scale per 32 K
// elements, per row or per 32x32 block), back into floats, and generates
// deterministic random MX operands for tests and benchmarks. Random data is
// derived from raw std::mt19937_64 draws only, so a seed gives the same bytes
// on every platform and standard library, and every 32-block gets its own
// random scale (a uniform scale would hide layout bugs, see docs/Design.md
// section 9).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_NUMERICS_QUANTIZE_H
#define MXGEMM_NUMERICS_QUANTIZE_H

#include "mxgemm/Numerics/MXNumerics.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace mxgemm::numerics {

/// An owned MX matrix [rows, cols] (cols % 32 == 0) with its scales:
/// [rows, cols/32] for PerRow, [ceil(rows/32), cols/32] for Block32x32.
struct MXMatrix {
  int64_t rows = 0, cols = 0;
  FP8Format format = FP8Format::E4M3;
  ScaleGranularity granularity = ScaleGranularity::PerRow;
  std::vector<uint8_t> data;
  std::vector<uint8_t> scales;

  int64_t scaleRows() const {
    return granularity == ScaleGranularity::PerRow ? rows : (rows + 31) / 32;
  }
  int64_t scaleCols() const { return cols / kMXBlockSize; }
  /// The E8M0 scale byte applying to element (r, c).
  uint8_t scaleAt(int64_t r, int64_t c) const {
    int64_t sr = granularity == ScaleGranularity::PerRow ? r : r / 32;
    return scales[sr * scaleCols() + c / kMXBlockSize];
  }
};

/// Largest finite value and exponent of the largest binade (8 / 15).
double fp8MaxFinite(FP8Format format);
int fp8MaxExponent(FP8Format format);

/// FP8 code nearest to `value` (round to nearest, ties to even, subnormals
/// kept). Finite values beyond the largest finite saturate to it; NaN gives
/// the canonical NaN (0x7f / 0x7e) with the sign kept; +-inf gives +-max
/// for E4M3 (it has no inf) and +-inf for E5M2.
uint8_t encodeFP8(double value, FP8Format format);

/// OCP MX v1.0 quantization of `data` [rows, k] (k % 32 == 0): for each
/// block, shared exponent = floor(log2(amax)) - fp8MaxExponent(format),
/// clamped to [-127, 127] (scale byte = exponent + 127); elements are
/// encodeFP8(x / 2^exponent). An all-zero block gets scale byte 127; a block
/// containing NaN or inf gets the NaN scale 255. Block32x32 shares one scale
/// across 32 rows x 32 columns.
MXMatrix quantizeMX(const float *data, int64_t rows, int64_t k,
                    FP8Format format,
                    ScaleGranularity granularity = ScaleGranularity::PerRow);

/// Element values 2^(s-127) * decode(code), computed in double and rounded to
/// FP32 (E5M2 values above FLT_MAX become inf).
std::vector<float> dequantizeMX(const MXMatrix &matrix);

/// Random finite FP8 codes: 1/8 zeros (either sign), 1/8 subnormals, the
/// rest uniform over the finite normal codes.
void fillRandomFP8(std::mt19937_64 &rng, FP8Format format, uint8_t *out,
                   size_t count);

/// Random E8M0 scale bytes uniform in [minExp, maxExp] (0 <= min <= max <=
/// 254).
void fillRandomScales(std::mt19937_64 &rng, uint8_t *out, size_t count,
                      int minExp = 127 - 8, int maxExp = 127 + 8);

/// A random MX matrix with a different random scale per block. Same seed,
/// same matrix, on every platform.
MXMatrix randomMXMatrix(uint64_t seed, int64_t rows, int64_t cols,
                        FP8Format format,
                        ScaleGranularity granularity = ScaleGranularity::PerRow,
                        int minScaleExp = 127 - 8, int maxScaleExp = 127 + 8);

} // namespace mxgemm::numerics

#endif // MXGEMM_NUMERICS_QUANTIZE_H
