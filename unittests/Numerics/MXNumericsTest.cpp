//===- MXNumericsTest.cpp - bit-exactness of the MX step ------------------===//
//
// Checks the numeric contract against evaluations written independently of
// the library: FP8 decoding from the bit fields with ldexp, and the MFMA step
// as an arbitrary-precision sign-magnitude sum (32-bit limbs, terms taken from
// frexp of the decoded doubles) rounded by the hardware's long double ->
// float conversion. Hand-built cases pin ties, subnormals, overflow,
// cancellation, the single rounding per step, and the NaN/inf rules.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/MXNumerics.h"
#include "mxgemm/Numerics/Quantize.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace mxgemm::numerics;

namespace {

constexpr FP8Format E4 = FP8Format::E4M3;
constexpr FP8Format E5 = FP8Format::E5M2;

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Decoding straight from the OCP field definitions.
double fieldDecode(uint8_t code, FP8Format format) {
  int sign = code >> 7;
  int expBits = format == E4 ? 4 : 3 + 2; // E4M3: 4, E5M2: 5
  int mantBits = 7 - expBits;
  int bias = format == E4 ? 7 : 15;
  int e = (code >> mantBits) & ((1 << expBits) - 1);
  int m = code & ((1 << mantBits) - 1);
  double s = sign ? -1.0 : 1.0;
  if (format == E4 && e == 15 && m == 7)
    return std::numeric_limits<double>::quiet_NaN();
  if (format == E5 && e == 31)
    return m ? std::numeric_limits<double>::quiet_NaN()
             : s * std::numeric_limits<double>::infinity();
  if (e == 0)
    return s * std::ldexp(double(m), 1 - bias - mantBits);
  return s * std::ldexp(double((1 << mantBits) + m), e - bias - mantBits);
}

bool sameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool sameFloat(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return bitsOf(a) == bitsOf(b);
}

//===----------------------------------------------------------------------===//
// Independent exact evaluation
//===----------------------------------------------------------------------===//

// Non-negative big fixed point, bit 0 worth 2^kBase.
struct BigFixed {
  static constexpr int kBase = -448;
  static constexpr int kLimbs = 32; // 1024 bits
  uint32_t limb[kLimbs] = {};

  void add(uint64_t mant, int exp) {
    int pos = exp - kBase;
    ASSERT_GE(pos, 0);
    // Spread mant << pos over limbs.
    for (int bit = 0; bit < 64; ++bit) {
      if (!((mant >> bit) & 1))
        continue;
      int p = pos + bit;
      int i = p / 32;
      uint64_t carry = uint64_t(1) << (p % 32);
      for (; carry && i < kLimbs; ++i) {
        uint64_t s = uint64_t(limb[i]) + carry;
        limb[i] = uint32_t(s);
        carry = s >> 32;
      }
    }
  }
  int compare(const BigFixed &o) const {
    for (int i = kLimbs - 1; i >= 0; --i)
      if (limb[i] != o.limb[i])
        return limb[i] < o.limb[i] ? -1 : 1;
    return 0;
  }
  // *this -= o, requires *this >= o.
  void subtract(const BigFixed &o) {
    int64_t borrow = 0;
    for (int i = 0; i < kLimbs; ++i) {
      int64_t d = int64_t(limb[i]) - o.limb[i] - borrow;
      borrow = d < 0;
      limb[i] = uint32_t(d);
    }
  }
  int topBit() const {
    for (int i = kLimbs - 1; i >= 0; --i)
      if (limb[i])
        return i * 32 + 31 - __builtin_clz(limb[i]);
    return -1;
  }
  bool bit(int p) const { return p >= 0 && ((limb[p / 32] >> (p % 32)) & 1); }
};

// Splits a finite non-zero double into odd integer * 2^exp.
void splitDouble(double v, uint64_t &mant, int &exp) {
  int e;
  double f = std::frexp(std::fabs(v), &e);
  mant = uint64_t(std::ldexp(f, 53));
  exp = e - 53;
  while (!(mant & 1)) {
    mant >>= 1;
    ++exp;
  }
}

// The reference step: exact arithmetic on the field-decoded values; NaN/inf
// by the IEEE rules stated in docs/Design.md section 1.
float exactStep(float acc, const uint8_t *a, FP8Format fa, const uint8_t *b,
                FP8Format fb, const uint8_t *sa, const uint8_t *sb, int nb) {
  static_assert(LDBL_MANT_DIG >= 64, "test needs a >= 64-bit long double");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (std::isnan(acc))
    return nan;
  bool posInf = std::isinf(acc) && acc > 0, negInf = std::isinf(acc) && acc < 0;
  BigFixed pos, neg;
  bool anyProduct = false;
  for (int blk = 0; blk < nb; ++blk) {
    if (sa[blk] == 255 || sb[blk] == 255)
      return nan;
    for (int i = 0; i < 32; ++i) {
      double x = fieldDecode(a[32 * blk + i], fa);
      double y = fieldDecode(b[32 * blk + i], fb);
      if (std::isnan(x) || std::isnan(y))
        return nan;
    }
  }
  for (int blk = 0; blk < nb; ++blk)
    for (int i = 0; i < 32; ++i) {
      double x = fieldDecode(a[32 * blk + i], fa);
      double y = fieldDecode(b[32 * blk + i], fb);
      if (std::isinf(x) || std::isinf(y)) {
        if (x == 0 || y == 0)
          return nan;
        ((x < 0) != (y < 0) ? negInf : posInf) = true;
        continue;
      }
      if (x == 0 || y == 0)
        continue;
      uint64_t mx, my;
      int ex, ey;
      splitDouble(x, mx, ex);
      splitDouble(y, my, ey);
      int exp = ex + ey + int(sa[blk]) - 127 + int(sb[blk]) - 127;
      ((x < 0) != (y < 0) ? neg : pos).add(mx * my, exp);
      anyProduct = true;
    }
  if (posInf && negInf)
    return nan;
  if (posInf || negInf)
    return posInf ? INFINITY : -INFINITY;
  BigFixed productsPos = pos, productsNeg = neg;
  if (!anyProduct || productsPos.compare(productsNeg) == 0)
    return acc; // Exact zero added: acc unchanged.
  if (acc != 0) {
    uint64_t m;
    int e;
    splitDouble(acc, m, e);
    (acc < 0 ? neg : pos).add(m, e);
  }
  int cmp = pos.compare(neg);
  if (cmp == 0)
    return 0.0f;
  bool negative = cmp < 0;
  BigFixed mag = negative ? neg : pos;
  mag.subtract(negative ? pos : neg);
  int top = mag.topBit();
  // Top 64 bits plus a sticky bit, then one hardware rounding.
  uint64_t window = 0;
  for (int i = 0; i < 64; ++i)
    window |= uint64_t(mag.bit(top - 63 + i)) << i;
  bool sticky = false;
  for (int p = 0; p < top - 63; ++p)
    sticky |= mag.bit(p);
  window |= sticky;
  long double v = std::ldexp((long double)window, top - 63 + BigFixed::kBase);
  float r = float(v);
  return negative ? -r : r;
}

struct StepData {
  int nb;
  std::vector<uint8_t> a, b, sa, sb;
  explicit StepData(int nb)
      : nb(nb), a(32 * nb, 0), b(32 * nb, 0), sa(nb, 127), sb(nb, 127) {}
  float run(float acc, FP8Format fa = E4, FP8Format fb = E4) const {
    return mxStepAccumulate(acc, a.data(), fa, b.data(), fb, sa.data(),
                            sb.data(), nb);
  }
  float exact(float acc, FP8Format fa = E4, FP8Format fb = E4) const {
    return exactStep(acc, a.data(), fa, b.data(), fb, sa.data(), sb.data(), nb);
  }
};

constexpr uint8_t kE4One = 0x38, kE4MinusOne = 0xb8, kE4OneHalf = 0x3c;
constexpr uint8_t kE4NaN = 0x7f;
constexpr uint8_t kE5One = 0x3c, kE5MinusOne = 0xbc, kE5Inf = 0x7c,
                  kE5MinusInf = 0xfc, kE5NaN = 0x7e;

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

TEST(MXNumericsDecode, EveryE4M3Code) {
  for (int c = 0; c < 256; ++c)
    EXPECT_TRUE(sameDouble(decodeFP8(uint8_t(c), E4), fieldDecode(c, E4)))
        << "code " << c;
  EXPECT_EQ(decodeFP8(0x7e, E4), 448.0);
  EXPECT_EQ(decodeFP8(0x01, E4), std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isnan(decodeFP8(0xff, E4)));
}

TEST(MXNumericsDecode, EveryE5M2Code) {
  for (int c = 0; c < 256; ++c)
    EXPECT_TRUE(sameDouble(decodeFP8(uint8_t(c), E5), fieldDecode(c, E5)))
        << "code " << c;
  EXPECT_EQ(decodeFP8(0x7b, E5), 57344.0);
  EXPECT_EQ(decodeFP8(0x01, E5), std::ldexp(1.0, -16));
  EXPECT_EQ(decodeFP8(kE5MinusInf, E5), -INFINITY);
}

TEST(MXNumericsDecode, E8M0AndNaNPredicate) {
  for (int e = 0; e < 255; ++e)
    EXPECT_EQ(decodeE8M0(uint8_t(e)), std::ldexp(1.0, e - 127));
  EXPECT_TRUE(std::isnan(decodeE8M0(255)));
  for (int c = 0; c < 256; ++c) {
    EXPECT_EQ(isFP8NaN(uint8_t(c), E4), std::isnan(fieldDecode(c, E4)));
    EXPECT_EQ(isFP8NaN(uint8_t(c), E5), std::isnan(fieldDecode(c, E5)));
  }
}

//===----------------------------------------------------------------------===//
// Random steps against the exact evaluation
//===----------------------------------------------------------------------===//

float randomAcc(std::mt19937_64 &rng) {
  uint64_t r = rng();
  switch (r % 6) {
  case 0:
    return 0.0f;
  case 1: // Subnormal.
    return floatOf(uint32_t(r >> 8) & 0x807fffffu);
  default: { // Exponent near the products' (biased 100..154) with any bits.
    uint32_t exp = 100 + uint32_t((r >> 8) % 55);
    return floatOf((uint32_t(r >> 20) & 0x807fffffu) | (exp << 23));
  }
  }
}

void checkRandomSteps(FP8Format fa, FP8Format fb, int nb, int minScale,
                      int maxScale, int iterations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  StepData d(nb);
  int mismatches = 0;
  for (int it = 0; it < iterations; ++it) {
    fillRandomFP8(rng, fa, d.a.data(), d.a.size());
    fillRandomFP8(rng, fb, d.b.data(), d.b.size());
    fillRandomScales(rng, d.sa.data(), nb, minScale, maxScale);
    fillRandomScales(rng, d.sb.data(), nb, minScale, maxScale);
    float acc = randomAcc(rng);
    float got = d.run(acc, fa, fb), want = d.exact(acc, fa, fb);
    if (!sameFloat(got, want) && ++mismatches < 5)
      ADD_FAILURE() << "it " << it << " acc " << acc << " got " << got
                    << " want " << want;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(MXNumericsStep, RandomE4M3MatchesExact) {
  checkRandomSteps(E4, E4, 2, 119, 135, 4000, 1);
  checkRandomSteps(E4, E4, 4, 119, 135, 4000, 2);
}

TEST(MXNumericsStep, RandomE5M2AndMixedMatchExact) {
  checkRandomSteps(E5, E5, 2, 119, 135, 3000, 3);
  checkRandomSteps(E5, E5, 4, 119, 135, 3000, 4);
  checkRandomSteps(E4, E5, 4, 119, 135, 3000, 5);
  checkRandomSteps(E5, E4, 2, 119, 135, 3000, 6);
}

TEST(MXNumericsStep, RandomFullScaleRangeMatchesExact) {
  // Scales over the whole E8M0 range: exercises the wide accumulator,
  // subnormal and overflowing results.
  checkRandomSteps(E4, E4, 4, 0, 254, 3000, 7);
  checkRandomSteps(E5, E5, 4, 0, 254, 3000, 8);
  checkRandomSteps(E4, E5, 2, 0, 254, 3000, 9);
}

TEST(MXNumericsStep, RandomManyBlocksMatchesExact) {
  // More blocks than the fixed-size fast path holds.
  checkRandomSteps(E4, E4, 20, 100, 154, 300, 10);
  checkRandomSteps(E5, E4, 17, 0, 254, 300, 11);
}

TEST(MXNumericsStep, TileMatchesPerElementStep) {
  std::mt19937_64 rng(12);
  for (FP8Format fa : {E4, E5})
    for (FP8Format fb : {E4, E5})
      for (int nb : {1, 2, 4, 5}) {
        const int rows = 7, cols = 37, k = 32 * nb, lda = k + 32;
        std::vector<uint8_t> a(rows * lda), b(cols * k), sa(rows * nb),
            sb(cols * nb);
        fillRandomFP8(rng, fa, a.data(), a.size());
        fillRandomFP8(rng, fb, b.data(), b.size());
        fillRandomScales(rng, sa.data(), sa.size(), 110, 144);
        fillRandomScales(rng, sb.data(), sb.size(), 110, 144);
        // A few specials: a NaN element, an inf, a NaN scale.
        a[lda + 3] = fa == E4 ? kE4NaN : kE5NaN;
        b[5 * k + 1] = fb == E5 ? kE5Inf : kE4NaN;
        sb[9 * nb] = 255;
        std::vector<float> acc(rows * cols), want(rows * cols);
        for (float &v : acc)
          v = randomAcc(rng);
        for (int m = 0; m < rows; ++m)
          for (int n = 0; n < cols; ++n)
            want[m * cols + n] =
                mxStepAccumulate(acc[m * cols + n], &a[m * lda], fa, &b[n * k],
                                 fb, &sa[m * nb], &sb[n * nb], nb);
        mxMfmaTile(acc.data(), cols, rows, cols, a.data(), lda, fa, b.data(), k,
                   fb, sa.data(), nb, sb.data(), nb, nb);
        for (int i = 0; i < rows * cols; ++i)
          ASSERT_TRUE(sameFloat(acc[i], want[i]))
              << "nb " << nb << " element " << i;
      }
}

//===----------------------------------------------------------------------===//
// Hand-built cases
//===----------------------------------------------------------------------===//

TEST(MXNumericsStep, TiesRoundToEven) {
  // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: stays 1.
  StepData d(2);
  d.a[0] = kE4One;
  d.b[0] = kE4One;
  d.sb[0] = 127 - 24;
  EXPECT_EQ(d.run(1.0f), 1.0f);
  // (1 + 2^-23) + 2^-24 is halfway to 1 + 2^-22, which is even: rounds up.
  float onePlus = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(d.run(onePlus), std::nextafter(onePlus, 2.0f));
  // Same magnitudes, negative.
  d.a[0] = kE4MinusOne;
  EXPECT_EQ(d.run(-1.0f), -1.0f);
  EXPECT_EQ(d.run(-onePlus), -std::nextafter(onePlus, 2.0f));
  // 1 - 2^-25 from a different block: halfway between 1 - 2^-24 and 1 below
  // 1.0 (ulp 2^-24 there), rounds to the even 1.0.
  StepData e(2);
  e.a[32] = kE4MinusOne;
  e.b[32] = kE4One;
  e.sa[1] = 127 - 25;
  EXPECT_EQ(e.run(1.0f), 1.0f);
}

TEST(MXNumericsStep, RoundsOncePerStep) {
  // Block 0 contributes 2^-24 (a tie on its own), block 1 a further 2^-60.
  // The exact sum 1 + 2^-24 + 2^-60 is above the tie: one rounding gives
  // 1 + 2^-23; rounding after each block would give 1.
  StepData d(2);
  d.a[0] = kE4One;
  d.b[0] = kE4One;
  d.sb[0] = 127 - 24;
  d.a[32] = kE4One;
  d.b[32] = kE4One;
  d.sb[1] = 127 - 60;
  float once = d.run(1.0f);
  EXPECT_EQ(once, std::nextafter(1.0f, 2.0f));
  float perBlock = (1.0f + std::ldexp(1.0f, -24)) + std::ldexp(1.0f, -60);
  EXPECT_EQ(perBlock, 1.0f);
  EXPECT_NE(once, perBlock);
}

TEST(MXNumericsStep, CancellationKeepsTinyTerms) {
  // +2^20 and -2^20 from blocks with different scales cancel exactly; the
  // 2^-100 of the third block survives.
  StepData d(4);
  d.a[0] = kE4One, d.b[0] = kE4One, d.sa[0] = 127 + 20;
  d.a[32] = kE4MinusOne, d.b[32] = kE4One, d.sb[1] = 127 + 20;
  d.a[64] = kE4One, d.b[64] = kE4One, d.sa[2] = 127 - 50, d.sb[2] = 127 - 50;
  EXPECT_EQ(d.run(0.0f), std::ldexp(1.0f, -100));
  // Cancelling against the accumulator.
  StepData e(2);
  e.a[0] = kE4MinusOne, e.b[0] = kE4One, e.sa[0] = 127 + 20;
  e.a[32] = kE4One, e.b[32] = kE4One, e.sa[1] = 127 - 50, e.sb[1] = 127 - 50;
  EXPECT_EQ(e.run(std::ldexp(1.0f, 20)), std::ldexp(1.0f, -100));
  // Exact cancellation to zero gives +0.
  StepData z(1);
  z.a[0] = kE4MinusOne, z.b[0] = kE4One;
  float r = z.run(1.0f);
  EXPECT_EQ(r, 0.0f);
  EXPECT_FALSE(std::signbit(r));
}

TEST(MXNumericsStep, SubnormalResults) {
  StepData d(1);
  d.a[0] = kE4OneHalf, d.b[0] = kE4One, d.sa[0] = 0, d.sb[0] = 127 - 13;
  // 1.5 * 2^-140 is exact as a subnormal.
  EXPECT_EQ(d.run(0.0f), 1.5f * std::ldexp(1.0f, -140));
  // 1.5 * 2^-149: halfway between 1 and 2 subnormal ulps -> 2 ulps.
  d.sb[0] = 127 - 22;
  EXPECT_EQ(bitsOf(d.run(0.0f)), 2u);
  // 2^-150: halfway between 0 and the smallest subnormal -> 0, sign kept.
  d.a[0] = kE4MinusOne, d.sb[0] = 127 - 23;
  float r = d.run(0.0f);
  EXPECT_EQ(bitsOf(r), 0x80000000u);
  // Subnormal accumulator plus subnormal product.
  d.a[0] = kE4One, d.sb[0] = 127 - 22;
  EXPECT_EQ(bitsOf(d.run(floatOf(5))), 6u);
}

TEST(MXNumericsStep, OverflowToInfinity) {
  StepData d(1);
  d.a[0] = 0x7e, d.b[0] = 0x7e, d.sa[0] = 254, d.sb[0] = 254;
  EXPECT_EQ(d.run(0.0f), INFINITY);
  d.a[0] = 0xfe;
  EXPECT_EQ(d.run(0.0f), -INFINITY);
  // FLT_MAX + half an ulp (2^103) ties to even, which is infinity.
  StepData t(2);
  t.a[0] = kE4One, t.b[0] = kE4One, t.sa[0] = 127 + 103;
  EXPECT_EQ(t.run(FLT_MAX), INFINITY);
  // Just below the tie stays FLT_MAX.
  t.a[32] = kE4MinusOne, t.b[32] = kE4One, t.sa[1] = 127 + 80;
  EXPECT_EQ(t.run(FLT_MAX), FLT_MAX);
}

TEST(MXNumericsStep, NaNPropagation) {
  StepData d(2);
  d.a[40] = kE4NaN; // Multiplied by 0, still NaN.
  EXPECT_TRUE(std::isnan(d.run(1.0f)));
  d.a[40] = 0xff;
  EXPECT_TRUE(std::isnan(d.run(1.0f)));
  StepData s(2);
  s.sb[1] = 255; // NaN scale on an all-zero block.
  EXPECT_TRUE(std::isnan(s.run(1.0f)));
  StepData z(2);
  EXPECT_TRUE(std::isnan(z.run(NAN)));
  z.a[0] = kE4One, z.b[0] = kE4One;
  EXPECT_TRUE(std::isnan(z.run(NAN)));
  // All-zero step leaves the accumulator, including -0, unchanged.
  StepData zero(2);
  EXPECT_EQ(bitsOf(zero.run(-0.0f)), 0x80000000u);
}

TEST(MXNumericsStep, E5M2Infinities) {
  StepData d(2);
  d.a[0] = kE5Inf, d.b[0] = kE5One;
  EXPECT_EQ(d.run(1.0f, E5, E5), INFINITY);
  d.b[0] = kE5MinusOne;
  EXPECT_EQ(d.run(1.0f, E5, E5), -INFINITY);
  d.b[0] = 0x80; // inf * -0
  EXPECT_TRUE(std::isnan(d.run(1.0f, E5, E5)));
  // inf - inf across blocks.
  StepData e(2);
  e.a[0] = kE5Inf, e.b[0] = kE5One, e.a[33] = kE5MinusInf, e.b[33] = kE5One;
  EXPECT_TRUE(std::isnan(e.run(0.0f, E5, E5)));
  // Accumulator infinities.
  StepData f(1);
  f.a[0] = kE5Inf, f.b[0] = kE5MinusOne;
  EXPECT_TRUE(std::isnan(f.run(INFINITY, E5, E5)));
  EXPECT_EQ(f.run(-INFINITY, E5, E5), -INFINITY);
  StepData g(1);
  g.a[0] = kE5One, g.b[0] = kE5One;
  EXPECT_EQ(g.run(-INFINITY, E5, E5), -INFINITY);
  // Mixed formats: E5M2 inf times an E4M3 value.
  StepData h(1);
  h.a[0] = kE5Inf, h.b[0] = kE4OneHalf;
  EXPECT_EQ(h.run(0.0f, E5, E4), INFINITY);
  // Each of these agrees with the independent evaluation.
  for (const StepData *s : {&d, &e, &f, &g})
    EXPECT_TRUE(sameFloat(s->run(2.0f, E5, E5), s->exact(2.0f, E5, E5)));
}

//===----------------------------------------------------------------------===//
// BF16
//===----------------------------------------------------------------------===//

TEST(MXNumericsBf16, RoundToNearestEven) {
  EXPECT_EQ(fp32ToBf16(1.0f), 0x3f80);
  EXPECT_EQ(fp32ToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);     // tie, even
  EXPECT_EQ(fp32ToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82); // tie, up
  EXPECT_EQ(fp32ToBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3f81);
  EXPECT_EQ(fp32ToBf16(-1.0f - std::ldexp(1.0f, -8)), 0xbf80);
  EXPECT_EQ(fp32ToBf16(floatOf(0x00008000)), 0x0000); // subnormal tie
  EXPECT_EQ(fp32ToBf16(floatOf(0x00018000)), 0x0002);
  EXPECT_EQ(fp32ToBf16(FLT_MAX), 0x7f80); // overflows to inf
  EXPECT_EQ(fp32ToBf16(INFINITY), 0x7f80);
  EXPECT_EQ(fp32ToBf16(-INFINITY), 0xff80);
  EXPECT_EQ(fp32ToBf16(-0.0f), 0x8000);
}

TEST(MXNumericsBf16, NaNStaysQuietNaN) {
  EXPECT_EQ(fp32ToBf16(floatOf(0x7fc00000)), 0x7fc0);
  // A signalling NaN whose payload lies only in the dropped bits must not
  // become inf.
  EXPECT_EQ(fp32ToBf16(floatOf(0x7f800001)), 0x7fc0);
  EXPECT_EQ(fp32ToBf16(floatOf(0xff800001)), 0xffc0);
  EXPECT_EQ(fp32ToBf16(floatOf(0x7fffffff)), 0x7fff);
}

TEST(MXNumericsBf16, EveryCodeRoundTrips) {
  for (uint32_t c = 0; c < 65536; ++c) {
    float f = bf16ToFp32(uint16_t(c));
    EXPECT_EQ(bitsOf(f), c << 16);
    if (!std::isnan(f)) {
      EXPECT_EQ(fp32ToBf16(f), c);
    }
  }
}

} // namespace
