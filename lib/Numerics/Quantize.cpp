//===- Quantize.cpp - OCP MX quantization and random MX data --------------===//
//
// The quantizer follows OCP MX v1.0 section 6.3 (shared exponent from the
// block's largest magnitude, elements rounded to nearest even); the choices
// the spec leaves open (saturation, all-zero and non-finite blocks) are fixed
// here and documented in Quantize.h and docs/Numerics.md. Conversions use
// doubles, which hold every FP32 input and every scaled FP8 value exactly.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/Quantize.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mxgemm::numerics;

namespace {

struct FP8Params {
  int bias, mantBits, minNormalExp, maxExp;
  double maxFinite;
  uint8_t maxCode, nanCode, infCode;
};

const FP8Params &params(FP8Format format) {
  static const FP8Params e4m3{7, 3, -6, 8, 448.0, 0x7e, 0x7f, 0x7e};
  static const FP8Params e5m2{15, 2, -14, 15, 57344.0, 0x7b, 0x7e, 0x7c};
  return format == FP8Format::E4M3 ? e4m3 : e5m2;
}

// Quantizes one block whose elements are at data[r * ld + c] for r < nr,
// c < nc, writing codes at the same positions of `codes`. Returns the scale.
uint8_t quantizeBlock(const float *data, int64_t ld, int64_t nr, int64_t nc,
                      FP8Format format, uint8_t *codes) {
  double amax = 0;
  bool nonFinite = false;
  for (int64_t r = 0; r < nr; ++r)
    for (int64_t c = 0; c < nc; ++c) {
      float v = data[r * ld + c];
      nonFinite |= !std::isfinite(v);
      if (std::isfinite(v))
        amax = std::max(amax, double(std::fabs(v)));
    }
  int sharedExp = 0;
  uint8_t scale = 127;
  if (amax > 0) {
    int e;
    std::frexp(amax, &e); // amax in [2^(e-1), 2^e)
    sharedExp = std::clamp(e - 1 - params(format).maxExp, -127, 127);
    scale = uint8_t(sharedExp + 127);
  }
  if (nonFinite)
    scale = kE8M0NaN;
  for (int64_t r = 0; r < nr; ++r)
    for (int64_t c = 0; c < nc; ++c)
      codes[r * ld + c] =
          encodeFP8(std::ldexp(double(data[r * ld + c]), -sharedExp), format);
  return scale;
}

} // namespace

double mxgemm::numerics::fp8MaxFinite(FP8Format format) {
  return params(format).maxFinite;
}

int mxgemm::numerics::fp8MaxExponent(FP8Format format) {
  return params(format).maxExp;
}

uint8_t mxgemm::numerics::encodeFP8(double value, FP8Format format) {
  const FP8Params &p = params(format);
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value))
    return sign | p.nanCode;
  double a = std::fabs(value);
  if (std::isinf(a))
    return sign | p.infCode;
  if (a == 0)
    return sign;
  int e;
  std::frexp(a, &e);
  int exp = std::max(e - 1, p.minNormalExp);
  // Significand in units of the target's ulp at this exponent; nearbyint
  // rounds ties to even in the default rounding mode.
  double n = std::nearbyint(std::ldexp(a, p.mantBits - exp));
  const double implicit = std::ldexp(1.0, p.mantBits);
  if (n >= 2 * implicit) {
    n /= 2;
    ++exp;
  }
  if (n == 0)
    return sign;
  if (std::ldexp(n, exp - p.mantBits) > p.maxFinite)
    return sign | p.maxCode;
  if (n < implicit) // Subnormal: exponent field 0.
    return sign | uint8_t(n);
  int field = exp + p.bias;
  return sign | uint8_t((field << p.mantBits) | int(n - implicit));
}

MXMatrix mxgemm::numerics::quantizeMX(const float *data, int64_t rows,
                                      int64_t k, FP8Format format,
                                      ScaleGranularity granularity) {
  assert(k % kMXBlockSize == 0 && "K must be a multiple of 32");
  MXMatrix result;
  result.rows = rows;
  result.cols = k;
  result.format = format;
  result.granularity = granularity;
  result.data.resize(size_t(rows * k));
  result.scales.resize(size_t(result.scaleRows() * result.scaleCols()));
  const int64_t groupRows =
      granularity == ScaleGranularity::PerRow ? 1 : kMXBlockSize;
  for (int64_t sr = 0; sr < result.scaleRows(); ++sr) {
    int64_t r0 = sr * groupRows;
    int64_t nr = std::min(groupRows, rows - r0);
    for (int64_t sc = 0; sc < result.scaleCols(); ++sc) {
      int64_t offset = r0 * k + sc * kMXBlockSize;
      result.scales[sr * result.scaleCols() + sc] =
          quantizeBlock(data + offset, k, nr, kMXBlockSize, format,
                        result.data.data() + offset);
    }
  }
  return result;
}

std::vector<float> mxgemm::numerics::dequantizeMX(const MXMatrix &matrix) {
  std::vector<float> out(size_t(matrix.rows * matrix.cols));
  for (int64_t r = 0; r < matrix.rows; ++r)
    for (int64_t c = 0; c < matrix.cols; ++c) {
      size_t i = size_t(r * matrix.cols + c);
      out[i] = float(decodeE8M0(matrix.scaleAt(r, c)) *
                     decodeFP8(matrix.data[i], matrix.format));
    }
  return out;
}

void mxgemm::numerics::fillRandomFP8(std::mt19937_64 &rng, FP8Format format,
                                     uint8_t *out, size_t count) {
  const int mantBits = params(format).mantBits;
  const uint64_t mantMax = (uint64_t(1) << mantBits) - 1;
  for (size_t i = 0; i < count; ++i) {
    // Only raw 64-bit draws: std::*_distribution is implementation-defined.
    uint64_t r = rng();
    uint8_t sign = (r >> 16) & 1 ? 0x80 : 0;
    switch ((r >> 8) & 7) {
    case 0:
      out[i] = sign;
      break;
    case 1:
      out[i] = sign | uint8_t(1 + (r >> 24) % mantMax);
      break;
    default: {
      uint8_t code = uint8_t(r);
      // Fold the NaN/inf codes onto finite ones (flip the exponent's msb).
      bool special = format == FP8Format::E4M3 ? (code & 0x7f) == 0x7f
                                               : (code & 0x7c) == 0x7c;
      out[i] = special ? code ^ 0x40 : code;
    }
    }
  }
}

void mxgemm::numerics::fillRandomScales(std::mt19937_64 &rng, uint8_t *out,
                                        size_t count, int minExp, int maxExp) {
  assert(0 <= minExp && minExp <= maxExp && maxExp <= 254);
  const uint64_t span = uint64_t(maxExp - minExp + 1);
  for (size_t i = 0; i < count; ++i)
    out[i] = uint8_t(minExp + int(rng() % span));
}

MXMatrix mxgemm::numerics::randomMXMatrix(uint64_t seed, int64_t rows,
                                          int64_t cols, FP8Format format,
                                          ScaleGranularity granularity,
                                          int minScaleExp, int maxScaleExp) {
  assert(cols % kMXBlockSize == 0 && "cols must be a multiple of 32");
  MXMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.format = format;
  m.granularity = granularity;
  m.data.resize(size_t(rows * cols));
  m.scales.resize(size_t(m.scaleRows() * m.scaleCols()));
  std::mt19937_64 rng(seed);
  fillRandomFP8(rng, format, m.data.data(), m.data.size());
  fillRandomScales(rng, m.scales.data(), m.scales.size(), minScaleExp,
                   maxScaleExp);
  return m;
}
