//===- ReferenceTest.cpp - CPU reference GEMM -----------------------------===//
//
// The blocked, multi-threaded reference must equal a naive single-threaded
// loop over mxStepAccumulate bit for bit, for both weight-scale
// granularities, both K-steps and both output types; subsets must equal the
// same part of the full result; and the FP32 result must stay within the
// accumulation error bound of the FP64 reference.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/Reference.h"
#include "mxgemm/Numerics/Quantize.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace mxgemm::numerics;

namespace {

struct Problem {
  MXMatrix x, w;
  MXGemmOperands ops() const {
    MXGemmOperands o;
    o.m = x.rows;
    o.n = w.rows;
    o.k = x.cols;
    o.x = x.data.data();
    o.xScales = x.scales.data();
    o.xFormat = x.format;
    o.w = w.data.data();
    o.wScales = w.scales.data();
    o.wFormat = w.format;
    o.wScaleGranularity = w.granularity;
    return o;
  }
};

Problem makeProblem(int64_t m, int64_t n, int64_t k, FP8Format fx, FP8Format fw,
                    ScaleGranularity g, uint64_t seed) {
  return {randomMXMatrix(seed, m, k, fx),
          randomMXMatrix(seed + 1, n, k, fw, g)};
}

// The definition, one element at a time.
std::vector<float> naiveGemm(const MXGemmOperands &o, int kStep) {
  std::vector<float> y(size_t(o.m * o.n));
  int64_t kb = o.k / 32;
  for (int64_t m = 0; m < o.m; ++m)
    for (int64_t n = 0; n < o.n; ++n) {
      int64_t sr = o.wScaleGranularity == ScaleGranularity::PerRow ? n : n / 32;
      float acc = 0;
      for (int64_t k0 = 0; k0 < o.k; k0 += kStep) {
        int nb = int(std::min<int64_t>(kStep, o.k - k0) / 32);
        acc = mxStepAccumulate(
            acc, o.x + m * o.k + k0, o.xFormat, o.w + n * o.k + k0, o.wFormat,
            o.xScales + m * kb + k0 / 32, o.wScales + sr * kb + k0 / 32, nb);
      }
      y[size_t(m * o.n + n)] = acc;
    }
  return y;
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

TEST(ReferenceGemm, MatchesNaiveLoopBitForBit) {
  uint64_t seed = 100;
  for (ScaleGranularity g :
       {ScaleGranularity::PerRow, ScaleGranularity::Block32x32})
    for (int kStep : {64, 128})
      for (int formats = 0; formats < 4; ++formats) {
        FP8Format fx = FP8Format(formats & 1), fw = FP8Format(formats >> 1);
        Problem p = makeProblem(37, 70, 320, fx, fw, g, seed += 2);
        MXGemmOperands o = p.ops();
        std::vector<float> want = naiveGemm(o, kStep);
        ReferenceOptions opts;
        opts.kStep = kStep;
        opts.numThreads = 3;
        std::vector<float> f32(want.size());
        std::vector<uint16_t> bf16(want.size());
        referenceGemm(o, OutputType::F32, f32.data(), opts);
        referenceGemm(o, OutputType::BF16, bf16.data(), opts);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_TRUE(sameBits(f32[i], want[i]))
              << "kStep " << kStep << " element " << i;
          ASSERT_EQ(bf16[i], fp32ToBf16(want[i])) << "element " << i;
        }
      }
}

TEST(ReferenceGemm, KStepChangesRounding) {
  // Different K-steps round at different places; with random data the two
  // must differ somewhere, or the parameter is not being honoured.
  Problem p = makeProblem(32, 32, 512, FP8Format::E4M3, FP8Format::E4M3,
                          ScaleGranularity::PerRow, 7);
  std::vector<float> a(32 * 32), b(32 * 32);
  ReferenceOptions o64, o128;
  o64.kStep = 64;
  o128.kStep = 128;
  referenceGemm(p.ops(), OutputType::F32, a.data(), o64);
  referenceGemm(p.ops(), OutputType::F32, b.data(), o128);
  EXPECT_NE(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
}

// The segment rule, written out: each segment from +0 by the step rule,
// then the partials added in ascending order in FP32.
std::vector<float> naiveSegmentedGemm(const MXGemmOperands &o, int kStep,
                                      const std::vector<int64_t> &bounds) {
  std::vector<float> y(size_t(o.m * o.n));
  int64_t kb = o.k / 32;
  for (int64_t m = 0; m < o.m; ++m)
    for (int64_t n = 0; n < o.n; ++n) {
      int64_t sr = o.wScaleGranularity == ScaleGranularity::PerRow ? n : n / 32;
      float total = 0;
      for (size_t s = 0; s + 1 < bounds.size(); ++s) {
        float part = 0;
        for (int64_t k0 = bounds[s]; k0 < bounds[s + 1]; k0 += kStep)
          part = mxStepAccumulate(
              part, o.x + m * o.k + k0, o.xFormat, o.w + n * o.k + k0,
              o.wFormat, o.xScales + m * kb + k0 / 32,
              o.wScales + sr * kb + k0 / 32,
              int(std::min<int64_t>(kStep, bounds[s + 1] - k0) / 32));
        total = s == 0 ? part : total + part;
      }
      y[size_t(m * o.n + n)] = total;
    }
  return y;
}

TEST(ReferenceGemm, KSegmentsFollowTheSegmentRule) {
  Problem p = makeProblem(19, 45, 768, FP8Format::E4M3, FP8Format::E5M2,
                          ScaleGranularity::Block32x32, 31);
  MXGemmOperands o = p.ops();
  for (int kStep : {64, 128}) {
    const std::vector<int64_t> bounds = {0, 256, 512, 768};
    std::vector<float> want = naiveSegmentedGemm(o, kStep, bounds);
    ReferenceOptions opts;
    opts.kStep = kStep;
    opts.kSegments = bounds;
    std::vector<float> got(want.size()), whole(want.size());
    referenceGemm(o, OutputType::F32, got.data(), opts);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_TRUE(sameBits(got[i], want[i])) << "element " << i;
    // The segments change the rounding somewhere, or they are ignored.
    opts.kSegments.clear();
    referenceGemm(o, OutputType::F32, whole.data(), opts);
    EXPECT_NE(std::memcmp(got.data(), whole.data(), got.size() * 4), 0);
    // One segment [0, K] is the unsplit result.
    opts.kSegments = {0, 768};
    referenceGemm(o, OutputType::F32, got.data(), opts);
    EXPECT_EQ(std::memcmp(got.data(), whole.data(), got.size() * 4), 0);
  }
}

TEST(ReferenceGemm, GranularityIsHonoured) {
  // Reading block scales as per-row (or vice versa) must change the result.
  Problem p = makeProblem(8, 64, 128, FP8Format::E4M3, FP8Format::E4M3,
                          ScaleGranularity::PerRow, 9);
  MXGemmOperands o = p.ops();
  std::vector<float> perRow(8 * 64), block(8 * 64);
  referenceGemm(o, OutputType::F32, perRow.data());
  o.wScaleGranularity = ScaleGranularity::Block32x32;
  referenceGemm(o, OutputType::F32, block.data());
  EXPECT_NE(std::memcmp(perRow.data(), block.data(), perRow.size() * 4), 0);
}

TEST(ReferenceGemm, SubsetsEqualFullResult) {
  for (ScaleGranularity g :
       {ScaleGranularity::PerRow, ScaleGranularity::Block32x32}) {
    Problem p =
        makeProblem(70, 100, 256, FP8Format::E4M3, FP8Format::E5M2, g, 21);
    MXGemmOperands o = p.ops();
    ReferenceOptions opts;
    opts.kStep = 128;
    std::vector<uint16_t> full(70 * 100);
    referenceGemm(o, OutputType::BF16, full.data(), opts);

    // A region starting off the 32-column grid, written with a padded ld.
    OutputRegion region{5, 41, 17, 83};
    const int64_t ld = 80;
    std::vector<uint16_t> sub(36 * ld, 0xdead);
    referenceGemmRegion(o, region, OutputType::BF16, sub.data(), ld, opts);
    for (int64_t r = region.rowBegin; r < region.rowEnd; ++r)
      for (int64_t c = region.colBegin; c < region.colEnd; ++c)
        ASSERT_EQ(sub[(r - region.rowBegin) * ld + (c - region.colBegin)],
                  full[r * 100 + c]);

    // Tiles into a full-size buffer; untouched elements keep their value.
    std::vector<OutputRegion> tiles = {
        {0, 16, 0, 16}, {32, 48, 64, 80}, {64, 70, 90, 100}};
    std::vector<uint16_t> tiled(70 * 100, 0xbeef);
    referenceGemmTiles(o, tiles, OutputType::BF16, tiled.data(), opts);
    for (int64_t r = 0; r < 70; ++r)
      for (int64_t c = 0; c < 100; ++c) {
        bool inTile = false;
        for (const OutputRegion &t : tiles)
          inTile |= r >= t.rowBegin && r < t.rowEnd && c >= t.colBegin &&
                    c < t.colEnd;
        ASSERT_EQ(tiled[r * 100 + c], inTile ? full[r * 100 + c] : 0xbeef)
            << r << "," << c;
      }
  }
}

TEST(ReferenceGemm, WithinToleranceOfFP64) {
  const int64_t m = 40, n = 48, k = 1024;
  for (FP8Format f : {FP8Format::E4M3, FP8Format::E5M2}) {
    Problem p = makeProblem(m, n, k, f, f, ScaleGranularity::Block32x32, 31);
    MXGemmOperands o = p.ops();
    std::vector<float> y(m * n);
    referenceGemm(o, OutputType::F32, y.data());
    std::vector<double> ref(m * n), abs(m * n);
    referenceGemmFP64(o, {0, m, 0, n}, ref.data(), n, abs.data(), 2);
    // One FP32 rounding per 64-element step: error <= steps * 2^-24 * sum|p|
    // (+ the FP64 sum's own error, far smaller).
    double bound = double(k / 64) * std::ldexp(1.0, -24);
    double err = maxNormalizedError(y.data(), ref.data(), abs.data(), m * n);
    EXPECT_LE(err, bound);
    EXPECT_GT(err, 0.0); // FP32 accumulation does round somewhere.
  }
  // All-positive data: no cancellation, so plain relative error is bounded
  // too, including the BF16 output rounding (half an ulp: 2^-8 relative).
  Problem p = makeProblem(m, n, k, FP8Format::E4M3, FP8Format::E4M3,
                          ScaleGranularity::PerRow, 41);
  for (uint8_t &c : p.x.data)
    c &= 0x7f;
  for (uint8_t &c : p.w.data)
    c &= 0x7f;
  MXGemmOperands o = p.ops();
  std::vector<uint16_t> y(m * n);
  referenceGemm(o, OutputType::BF16, y.data());
  std::vector<double> ref(m * n);
  referenceGemmFP64(o, {0, m, 0, n}, ref.data(), n);
  EXPECT_LE(maxRelativeErrorBf16(y.data(), ref.data(), m * n),
            std::ldexp(1.0, -8) + double(k / 64) * std::ldexp(1.0, -23));
}

TEST(ReferenceGemm, NaNScaleMakesAffectedOutputsNaN) {
  Problem p = makeProblem(32, 64, 128, FP8Format::E4M3, FP8Format::E4M3,
                          ScaleGranularity::Block32x32, 51);
  p.w.scales[1 * 4 + 2] = 255; // Weight block rows 32..63, K block 2.
  std::vector<float> y(32 * 64);
  referenceGemm(p.ops(), OutputType::F32, y.data());
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 64; ++c)
      EXPECT_EQ(std::isnan(y[r * 64 + c]), c >= 32) << r << "," << c;
}

TEST(ReferenceErrors, NaNAndInfHandling) {
  float got[3] = {NAN, 1.0f, INFINITY};
  double ref[3] = {NAN, 1.0, INFINITY};
  EXPECT_EQ(maxRelativeError(got, ref, 3), 0.0);
  ref[1] = NAN;
  EXPECT_TRUE(std::isinf(maxRelativeError(got, ref, 3)));
  double ref2[1] = {2.0};
  float got2[1] = {2.5f};
  EXPECT_DOUBLE_EQ(maxRelativeError(got2, ref2, 1), 0.25);
}

} // namespace
