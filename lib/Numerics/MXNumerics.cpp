//===- MXNumerics.cpp - bit-exact MX (OCP MXFP8) arithmetic ---------------===//
//
// Implements the numeric contract of docs/Design.md section 1 without floating
// point on the exact path: every FP8 code is an integer times a fixed power of
// two (E4M3: x * 2^-9, E5M2: x * 2^-16), so a 32-element block dot product is
// an exact int64 (E4M3 x E4M3, mixed) or __int128 (E5M2 x E5M2) sum, and an
// MFMA step is a handful of (integer, exponent) terms. Those are summed in one
// __int128 window when they fit (the common case) and otherwise in a
// multi-word fixed-point accumulator that covers every reachable exponent, and
// the exact sum is rounded to FP32 once. The emulator runs this once per
// output element per MFMA, so the fast path avoids heap, doubles and branches
// that depend on data other than the NaN/inf screen.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/MXNumerics.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mxgemm::numerics;

namespace {

using i128 = __int128;
using u128 = unsigned __int128;

//===----------------------------------------------------------------------===//
// Decode tables
//===----------------------------------------------------------------------===//

// E4M3FN code -> value * 2^9 (the smallest subnormal is 2^-9). NaN -> 0; NaN
// codes are screened before the tables are used.
constexpr int32_t e4m3Fixed(unsigned code) {
  unsigned exp = (code >> 3) & 15, man = code & 7;
  if ((code & 0x7f) == 0x7f)
    return 0;
  int32_t mag = exp == 0 ? int32_t(man) : int32_t(8 + man) << (exp - 1);
  return (code & 0x80) ? -mag : mag;
}

// E5M2 code -> value * 2^16 (the smallest subnormal is 2^-16). Inf/NaN -> 0.
constexpr int64_t e5m2Fixed(unsigned code) {
  unsigned exp = (code >> 2) & 31, man = code & 3;
  if (exp == 31)
    return 0;
  int64_t mag = exp == 0 ? int64_t(man) : int64_t(4 + man) << (exp - 1);
  return (code & 0x80) ? -mag : mag;
}

template <typename T, typename F> constexpr std::array<T, 256> makeTable(F f) {
  std::array<T, 256> table{};
  for (unsigned i = 0; i < 256; ++i)
    table[i] = f(i);
  return table;
}

constexpr std::array<int32_t, 256> kE4M3Table = makeTable<int32_t>(e4m3Fixed);
constexpr std::array<int64_t, 256> kE5M2Table = makeTable<int64_t>(e5m2Fixed);

constexpr int kE4M3FracBits = 9;
constexpr int kE5M2FracBits = 16;

inline int fracBits(FP8Format format) {
  return format == FP8Format::E4M3 ? kE4M3FracBits : kE5M2FracBits;
}

inline int64_t fixedValue(uint8_t code, FP8Format format) {
  return format == FP8Format::E4M3 ? kE4M3Table[code] : kE5M2Table[code];
}

// True if any of `n` (a multiple of 8) codes is NaN (E4M3) or inf/NaN (E5M2).
// SWAR: masking the exponent/mantissa bits that make a code special and adding
// one unit sets bit 7 of a byte exactly when all those bits were ones, and
// cannot carry into the next byte.
inline bool hasSpecialCode(const uint8_t *codes, int n, FP8Format format) {
  const uint64_t mask =
      format == FP8Format::E4M3 ? 0x7f7f7f7f7f7f7f7fULL : 0x7c7c7c7c7c7c7c7cULL;
  const uint64_t unit =
      format == FP8Format::E4M3 ? 0x0101010101010101ULL : 0x0404040404040404ULL;
  uint64_t any = 0;
  for (int i = 0; i < n; i += 8) {
    uint64_t word;
    std::memcpy(&word, codes + i, 8);
    any |= (word & mask) + unit;
  }
  return (any & 0x8080808080808080ULL) != 0;
}

inline bool hasNaNScale(const uint8_t *scales, int n) {
  bool any = false;
  for (int i = 0; i < n; ++i)
    any |= scales[i] == kE8M0NaN;
  return any;
}

//===----------------------------------------------------------------------===//
// Rounding an exact (sign, magnitude, exponent) to FP32
//===----------------------------------------------------------------------===//

inline int bitLength(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }
inline int bitLength(u128 x) {
  uint64_t hi = uint64_t(x >> 64);
  return hi ? 128 - __builtin_clzll(hi) : bitLength(uint64_t(x));
}

inline float floatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t bitsFromFloat(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// Rounds (-1)^negative * mag * 2^exp to the nearest FP32, ties to even,
// subnormals kept, overflow to infinity. `mag` must be non-zero.
float roundToFloat(bool negative, u128 mag, int exp) {
  int top = exp + bitLength(mag) - 1;
  int lsb = top - 23 > -149 ? top - 23 : -149;
  int shift = lsb - exp;
  uint64_t q;
  if (shift <= 0) {
    q = uint64_t(mag << -shift);
  } else if (shift > 128) {
    q = 0; // Everything lies below half an ulp of the smallest subnormal.
  } else {
    u128 half = u128(1) << (shift - 1);
    u128 rem = shift == 128 ? mag : mag & ((u128(1) << shift) - 1);
    q = shift == 128 ? 0 : uint64_t(mag >> shift);
    if (rem > half || (rem == half && (q & 1)))
      ++q;
  }
  // With q including the implicit bit, adding it to the exponent field of
  // (lsb + 149) carries into the exponent exactly when rounding overflows the
  // significand, and encodes subnormals (lsb == -149, q < 2^23) unchanged.
  int64_t bits = (int64_t(lsb + 149) << 23) + int64_t(q);
  if (bits >= 0x7f800000)
    bits = 0x7f800000;
  return floatFromBits(uint32_t(bits) | (negative ? 0x80000000u : 0u));
}

//===----------------------------------------------------------------------===//
// Wide accumulator for sums that do not fit a 128-bit window
//===----------------------------------------------------------------------===//

// Two's complement fixed point with bit 0 worth 2^kBaseExp. The lowest
// reachable bit is 2^-286 (E5M2 x E5M2 subnormals, both scales 2^-127) and the
// highest is below 2^291 * numBlocks, so 11 words cover every case.
class WideAccumulator {
public:
  static constexpr int kWords = 11;
  static constexpr int kBaseExp = -320;

  void add(i128 value, int exp) {
    int pos = exp - kBaseExp;
    int word = pos / 64, bit = pos % 64;
    uint64_t lo = uint64_t(u128(value)), hi = uint64_t(u128(value) >> 64);
    uint64_t ext = value < 0 ? ~uint64_t(0) : 0;
    uint64_t parts[3];
    if (bit == 0) {
      parts[0] = lo;
      parts[1] = hi;
      parts[2] = ext;
    } else {
      parts[0] = lo << bit;
      parts[1] = (hi << bit) | (lo >> (64 - bit));
      parts[2] = (ext << bit) | (hi >> (64 - bit));
    }
    uint64_t carry = 0;
    for (int i = word; i < kWords; ++i) {
      uint64_t addend = i - word < 3 ? parts[i - word] : ext;
      u128 sum = u128(words[i]) + addend + carry;
      words[i] = uint64_t(sum);
      carry = uint64_t(sum >> 64);
    }
  }

  // Rounds the exact content to FP32; `zeroResult` is returned for exact 0.
  float round(float zeroResult) const {
    uint64_t mag[kWords];
    bool negative = int64_t(words[kWords - 1]) < 0;
    uint64_t carry = 1;
    for (int i = 0; i < kWords; ++i) {
      if (negative) {
        u128 sum = u128(~words[i]) + carry;
        mag[i] = uint64_t(sum);
        carry = uint64_t(sum >> 64);
      } else {
        mag[i] = words[i];
      }
    }
    int topWord = kWords - 1;
    while (topWord >= 0 && mag[topWord] == 0)
      --topWord;
    if (topWord < 0)
      return zeroResult;
    int topBit = topWord * 64 + bitLength(mag[topWord]) - 1;
    // Keep a 128-bit window under the leading bit; the rest only matters as a
    // sticky bit, which sits far below FP32's rounding position.
    int low = topBit >= 127 ? topBit - 127 : 0;
    u128 window = 0;
    for (int i = 0; i < 128; i += 64)
      window |= u128(bitsAt(mag, low + i)) << i;
    bool sticky = false;
    for (int i = 0; i < low / 64; ++i)
      sticky |= mag[i] != 0;
    if (low % 64)
      sticky |= (mag[low / 64] & ((uint64_t(1) << (low % 64)) - 1)) != 0;
    return roundToFloat(negative, window | u128(sticky), kBaseExp + low);
  }

private:
  static uint64_t bitsAt(const uint64_t *mag, int pos) {
    int word = pos / 64, bit = pos % 64;
    uint64_t lo = word < kWords ? mag[word] >> bit : 0;
    uint64_t hi = bit && word + 1 < kWords ? mag[word + 1] << (64 - bit) : 0;
    return lo | hi;
  }

  uint64_t words[kWords] = {};
};

//===----------------------------------------------------------------------===//
// Exact step sum
//===----------------------------------------------------------------------===//

// Splits a finite FP32 into (integer significand, exponent).
inline void splitFloat(uint32_t bits, int64_t &mant, int &exp) {
  int biased = (bits >> 23) & 0xff;
  int64_t frac = bits & 0x7fffff;
  if (biased == 0) {
    mant = frac;
    exp = -149;
  } else {
    mant = frac | 0x800000;
    exp = biased - 150;
  }
  if (bits & 0x80000000u)
    mant = -mant;
}

inline u128 absValue(i128 v) { return v < 0 ? -u128(v) : u128(v); }

// acc + sum_b sums[b] * 2^exps[b], exact, rounded once. All inputs finite
// except possibly acc (NaN/inf pass through: the products are finite here).
template <typename Sum>
float finishStep(float acc, const Sum *sums, const int *exps, int n) {
  uint32_t accBits = bitsFromFloat(acc);
  int lo = std::numeric_limits<int>::max(),
      hi = std::numeric_limits<int>::min();
  int terms = 0;
  for (int b = 0; b < n; ++b) {
    if (sums[b] == 0)
      continue;
    ++terms;
    lo = exps[b] < lo ? exps[b] : lo;
    int top = exps[b] + bitLength(absValue(sums[b]));
    hi = top > hi ? top : hi;
  }
  // Adding an exact zero leaves acc unchanged (this keeps -0 and NaN/inf).
  if (terms == 0 || (accBits & 0x7f800000) == 0x7f800000)
    return acc;
  int64_t accMant = 0;
  int accExp = 0;
  if (accBits & 0x7fffffff) {
    splitFloat(accBits, accMant, accExp);
    ++terms;
    lo = accExp < lo ? accExp : lo;
    int top = accExp + bitLength(uint64_t(accMant < 0 ? -accMant : accMant));
    hi = top > hi ? top : hi;
  }
  int headroom = bitLength(uint64_t(terms));
  if (hi - lo + headroom <= 127) {
    u128 sum = accMant ? u128(i128(accMant)) << (accExp - lo) : 0;
    for (int b = 0; b < n; ++b)
      if (sums[b])
        sum += u128(i128(sums[b])) << (exps[b] - lo);
    i128 s = i128(sum);
    if (s == 0)
      return 0.0f; // Exact cancellation rounds to +0 (IEEE RNE).
    return roundToFloat(s < 0, absValue(s), lo);
  }
  WideAccumulator wide;
  if (accMant)
    wide.add(accMant, accExp);
  for (int b = 0; b < n; ++b)
    if (sums[b])
      wide.add(i128(sums[b]), exps[b]);
  return wide.round(0.0f);
}

// The batched tile's inner loop for the default format: decoded E4M3 values
// fit int32, so with AVX2 the 32 products vectorize (vpmuldq); the clone is
// picked at load time, and the result is the same integer either way.
// Not under ThreadSanitizer: its instrumented ifunc resolver runs before
// the sanitizer runtime is up and crashes the process at load.
#if defined(__x86_64__) && defined(__has_attribute) &&                         \
    !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones)
__attribute__((target_clones("avx2", "default")))
#endif
#endif
int64_t dotE4M3Decoded(const int32_t *a, const int32_t *b) {
  int64_t s = 0;
  for (int i = 0; i < kMXBlockSize; ++i)
    s += int64_t(a[i]) * b[i];
  return s;
}

// Block dot products in fixed point, one specialisation per format pair.
template <FP8Format FA, FP8Format FB> struct BlockDot {
  // E4M3 x E5M2 (either order): |product| < 2^50, |sum of 32| < 2^55.
  using Sum = int64_t;
  using Elem = int64_t;
  static constexpr int kFracBits = kE4M3FracBits + kE5M2FracBits;
  static Sum dot(const uint8_t *a, const uint8_t *b) {
    Sum s = 0;
    for (int i = 0; i < kMXBlockSize; ++i)
      s += fixedValue(a[i], FA) * fixedValue(b[i], FB);
    return s;
  }
  static Sum dot(const int64_t *a, const int64_t *b) {
    Sum s = 0;
    for (int i = 0; i < kMXBlockSize; ++i)
      s += a[i] * b[i];
    return s;
  }
};

template <> struct BlockDot<FP8Format::E4M3, FP8Format::E4M3> {
  // |product| <= 2^35.7, |sum of 32| < 2^41.
  using Sum = int64_t;
  using Elem = int32_t;
  static constexpr int kFracBits = 2 * kE4M3FracBits;
  static Sum dot(const uint8_t *a, const uint8_t *b) {
    Sum s = 0;
    for (int i = 0; i < kMXBlockSize; ++i)
      s += int64_t(kE4M3Table[a[i]]) * kE4M3Table[b[i]];
    return s;
  }
  static Sum dot(const int32_t *a, const int32_t *b) {
    return dotE4M3Decoded(a, b);
  }
};

template <> struct BlockDot<FP8Format::E5M2, FP8Format::E5M2> {
  // |product| < 2^64, |sum of 32| < 2^69: needs 128 bits.
  using Sum = i128;
  using Elem = int64_t;
  static constexpr int kFracBits = 2 * kE5M2FracBits;
  static Sum dot(const uint8_t *a, const uint8_t *b) {
    Sum s = 0;
    for (int i = 0; i < kMXBlockSize; ++i)
      s += i128(kE5M2Table[a[i]]) * kE5M2Table[b[i]];
    return s;
  }
  static Sum dot(const int64_t *a, const int64_t *b) {
    Sum s = 0;
    for (int i = 0; i < kMXBlockSize; ++i)
      s += i128(a[i]) * b[i];
    return s;
  }
};

// Steps with more blocks than this go through the wide accumulator directly.
constexpr int kMaxFastBlocks = 16;

template <FP8Format FA, FP8Format FB>
float finiteStep(float acc, const uint8_t *a, const uint8_t *b,
                 const uint8_t *scaleA, const uint8_t *scaleB, int numBlocks) {
  using Dot = BlockDot<FA, FB>;
  typename Dot::Sum sums[kMaxFastBlocks];
  int exps[kMaxFastBlocks];
  for (int blk = 0; blk < numBlocks; ++blk) {
    sums[blk] = Dot::dot(a + kMXBlockSize * blk, b + kMXBlockSize * blk);
    exps[blk] = int(scaleA[blk]) + int(scaleB[blk]) - 254 - Dot::kFracBits;
  }
  return finishStep(acc, sums, exps, numBlocks);
}

// Any number of blocks, finite operands and scales: wide accumulator only.
float finiteStepWide(float acc, const uint8_t *a, FP8Format fa,
                     const uint8_t *b, FP8Format fb, const uint8_t *scaleA,
                     const uint8_t *scaleB, int numBlocks) {
  uint32_t accBits = bitsFromFloat(acc);
  if ((accBits & 0x7f800000) == 0x7f800000)
    return acc;
  WideAccumulator wide;
  bool anyTerm = false;
  int frac = fracBits(fa) + fracBits(fb);
  for (int blk = 0; blk < numBlocks; ++blk) {
    i128 s = 0;
    for (int i = 0; i < kMXBlockSize; ++i) {
      int k = kMXBlockSize * blk + i;
      s += i128(fixedValue(a[k], fa)) * fixedValue(b[k], fb);
    }
    if (s == 0)
      continue;
    anyTerm = true;
    wide.add(s, int(scaleA[blk]) + int(scaleB[blk]) - 254 - frac);
  }
  if (!anyTerm)
    return acc;
  if (accBits & 0x7fffffff) {
    int64_t mant;
    int exp;
    splitFloat(accBits, mant, exp);
    wide.add(mant, exp);
  }
  return wide.round(0.0f);
}

float dispatchFiniteStep(float acc, const uint8_t *a, FP8Format fa,
                         const uint8_t *b, FP8Format fb, const uint8_t *scaleA,
                         const uint8_t *scaleB, int numBlocks) {
  if (numBlocks > kMaxFastBlocks)
    return finiteStepWide(acc, a, fa, b, fb, scaleA, scaleB, numBlocks);
  constexpr FP8Format E4 = FP8Format::E4M3, E5 = FP8Format::E5M2;
  if (fa == E4)
    return fb == E4 ? finiteStep<E4, E4>(acc, a, b, scaleA, scaleB, numBlocks)
                    : finiteStep<E4, E5>(acc, a, b, scaleA, scaleB, numBlocks);
  return fb == E4 ? finiteStep<E5, E4>(acc, a, b, scaleA, scaleB, numBlocks)
                  : finiteStep<E5, E5>(acc, a, b, scaleA, scaleB, numBlocks);
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// The step when some operand is NaN/inf or some scale is NaN. NaN wins; then
// IEEE rules for the infinities (inf * 0 = NaN, inf - inf = NaN); a step
// whose infinities were all consistent has an infinite result.
float specialStep(float acc, const uint8_t *a, FP8Format fa, const uint8_t *b,
                  FP8Format fb, const uint8_t *scaleA, const uint8_t *scaleB,
                  int numBlocks) {
  if (std::isnan(acc) || hasNaNScale(scaleA, numBlocks) ||
      hasNaNScale(scaleB, numBlocks))
    return kNaN;
  int n = numBlocks * kMXBlockSize;
  for (int i = 0; i < n; ++i)
    if (isFP8NaN(a[i], fa) || isFP8NaN(b[i], fb))
      return kNaN;
  bool posInf = std::isinf(acc) && acc > 0, negInf = std::isinf(acc) && acc < 0;
  for (int i = 0; i < n; ++i) {
    double x = decodeFP8(a[i], fa), y = decodeFP8(b[i], fb);
    if (!std::isinf(x) && !std::isinf(y))
      continue;
    if (x == 0 || y == 0)
      return kNaN;
    ((x < 0) != (y < 0) ? negInf : posInf) = true;
  }
  if (posInf && negInf)
    return kNaN;
  if (posInf)
    return std::numeric_limits<float>::infinity();
  if (negInf)
    return -std::numeric_limits<float>::infinity();
  // Only reachable if the screen was conservative; compute normally.
  return dispatchFiniteStep(acc, a, fa, b, fb, scaleA, scaleB, numBlocks);
}

inline bool needsSpecialStep(float acc, const uint8_t *a, FP8Format fa,
                             const uint8_t *b, FP8Format fb,
                             const uint8_t *scaleA, const uint8_t *scaleB,
                             int numBlocks) {
  int n = numBlocks * kMXBlockSize;
  return hasSpecialCode(a, n, fa) | hasSpecialCode(b, n, fb) |
         hasNaNScale(scaleA, numBlocks) | hasNaNScale(scaleB, numBlocks);
}

//===----------------------------------------------------------------------===//
// Batched tile
//===----------------------------------------------------------------------===//

constexpr int kTileMaxBlocks = 4;
constexpr int kTileMaxCols = 32;

template <FP8Format FA, FP8Format FB>
void tileKernel(float *acc, int64_t ldAcc, int rows, int cols, const uint8_t *a,
                int64_t lda, const uint8_t *b, int64_t ldb,
                const uint8_t *scaleA, int64_t ldScaleA, const uint8_t *scaleB,
                int64_t ldScaleB, int numBlocks) {
  using Dot = BlockDot<FA, FB>;
  const int k = numBlocks * kMXBlockSize;
  using Elem = typename Dot::Elem;
  Elem bFixed[kTileMaxCols][kTileMaxBlocks * kMXBlockSize];
  bool bSpecial[kTileMaxCols];
  for (int n = 0; n < cols; ++n) {
    const uint8_t *row = b + n * ldb;
    bSpecial[n] = hasSpecialCode(row, k, FB) |
                  hasNaNScale(scaleB + n * ldScaleB, numBlocks);
    for (int i = 0; i < k; ++i)
      bFixed[n][i] = Elem(fixedValue(row[i], FB));
  }
  Elem aFixed[kTileMaxBlocks * kMXBlockSize];
  for (int m = 0; m < rows; ++m) {
    const uint8_t *aRow = a + m * lda;
    const uint8_t *sa = scaleA + m * ldScaleA;
    bool aSpecial = hasSpecialCode(aRow, k, FA) | hasNaNScale(sa, numBlocks);
    for (int i = 0; i < k; ++i)
      aFixed[i] = Elem(fixedValue(aRow[i], FA));
    float *accRow = acc + m * ldAcc;
    for (int n = 0; n < cols; ++n) {
      const uint8_t *sb = scaleB + n * ldScaleB;
      if (aSpecial || bSpecial[n]) {
        accRow[n] = specialStep(accRow[n], aRow, FA, b + n * ldb, FB, sa, sb,
                                numBlocks);
        continue;
      }
      typename Dot::Sum sums[kTileMaxBlocks];
      int exps[kTileMaxBlocks];
      for (int blk = 0; blk < numBlocks; ++blk) {
        sums[blk] = Dot::dot(aFixed + kMXBlockSize * blk,
                             bFixed[n] + kMXBlockSize * blk);
        exps[blk] = int(sa[blk]) + int(sb[blk]) - 254 - Dot::kFracBits;
      }
      accRow[n] = finishStep(accRow[n], sums, exps, numBlocks);
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

double mxgemm::numerics::decodeFP8(uint8_t bits, FP8Format format) {
  bool negative = bits & 0x80;
  if (format == FP8Format::E4M3) {
    if ((bits & 0x7f) == 0x7f)
      return std::numeric_limits<double>::quiet_NaN();
    double v = std::ldexp(double(kE4M3Table[bits]), -kE4M3FracBits);
    // Keep the sign of -0 (the fixed-point table cannot).
    return negative && v == 0 ? -0.0 : v;
  }
  if ((bits & 0x7c) == 0x7c) {
    if (bits & 3)
      return std::numeric_limits<double>::quiet_NaN();
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  double v = std::ldexp(double(kE5M2Table[bits]), -kE5M2FracBits);
  return negative && v == 0 ? -0.0 : v;
}

double mxgemm::numerics::decodeE8M0(uint8_t bits) {
  if (bits == kE8M0NaN)
    return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, int(bits) - 127);
}

bool mxgemm::numerics::isFP8NaN(uint8_t bits, FP8Format format) {
  if (format == FP8Format::E4M3)
    return (bits & 0x7f) == 0x7f;
  return (bits & 0x7c) == 0x7c && (bits & 3) != 0;
}

float mxgemm::numerics::mxStepAccumulate(float acc, const uint8_t *a,
                                         FP8Format formatA, const uint8_t *b,
                                         FP8Format formatB,
                                         const uint8_t *scaleA,
                                         const uint8_t *scaleB, int numBlocks) {
  if (numBlocks <= 0)
    return acc;
  if (needsSpecialStep(acc, a, formatA, b, formatB, scaleA, scaleB, numBlocks))
    return specialStep(acc, a, formatA, b, formatB, scaleA, scaleB, numBlocks);
  return dispatchFiniteStep(acc, a, formatA, b, formatB, scaleA, scaleB,
                            numBlocks);
}

void mxgemm::numerics::mxMfmaTile(float *acc, int64_t ldAcc, int rows, int cols,
                                  const uint8_t *a, int64_t lda,
                                  FP8Format formatA, const uint8_t *b,
                                  int64_t ldb, FP8Format formatB,
                                  const uint8_t *scaleA, int64_t ldScaleA,
                                  const uint8_t *scaleB, int64_t ldScaleB,
                                  int numBlocks) {
  if (numBlocks <= 0)
    return;
  if (numBlocks > kTileMaxBlocks) {
    for (int m = 0; m < rows; ++m)
      for (int n = 0; n < cols; ++n)
        acc[m * ldAcc + n] = mxStepAccumulate(
            acc[m * ldAcc + n], a + m * lda, formatA, b + n * ldb, formatB,
            scaleA + m * ldScaleA, scaleB + n * ldScaleB, numBlocks);
    return;
  }
  constexpr FP8Format E4 = FP8Format::E4M3, E5 = FP8Format::E5M2;
  for (int n0 = 0; n0 < cols; n0 += kTileMaxCols) {
    int nc = cols - n0 < kTileMaxCols ? cols - n0 : kTileMaxCols;
    float *accC = acc + n0;
    const uint8_t *bC = b + n0 * ldb;
    const uint8_t *sbC = scaleB + n0 * ldScaleB;
    if (formatA == E4 && formatB == E4)
      tileKernel<E4, E4>(accC, ldAcc, rows, nc, a, lda, bC, ldb, scaleA,
                         ldScaleA, sbC, ldScaleB, numBlocks);
    else if (formatA == E4)
      tileKernel<E4, E5>(accC, ldAcc, rows, nc, a, lda, bC, ldb, scaleA,
                         ldScaleA, sbC, ldScaleB, numBlocks);
    else if (formatB == E4)
      tileKernel<E5, E4>(accC, ldAcc, rows, nc, a, lda, bC, ldb, scaleA,
                         ldScaleA, sbC, ldScaleB, numBlocks);
    else
      tileKernel<E5, E5>(accC, ldAcc, rows, nc, a, lda, bC, ldb, scaleA,
                         ldScaleA, sbC, ldScaleB, numBlocks);
  }
}

uint16_t mxgemm::numerics::fp32ToBf16(float value) {
  uint32_t bits = bitsFromFloat(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return uint16_t((bits >> 16) | 0x0040); // Quiet NaN, sign kept.
  // Adding 0x7fff plus the kept lsb rounds to nearest, ties to even; a carry
  // into the exponent (including to inf) is the correct result.
  uint32_t lsb = (bits >> 16) & 1;
  return uint16_t((bits + 0x7fffu + lsb) >> 16);
}

float mxgemm::numerics::bf16ToFp32(uint16_t bits) {
  return floatFromBits(uint32_t(bits) << 16);
}
