//===- VectorOps.cpp - VALU handlers
//---------------------------------------===//
//
// Per-lane vector ALU instructions under EXEC. Each handler is a small
// template instance so the per-lane loop has no dispatch inside it; sources
// are read through Src (a pointer plus a lane stride of 1 for VGPRs and 0 for
// SGPRs/constants). Float ops honour the VOP3 neg/abs source modifiers; the
// bf16 packing conversion uses the numerics library's RNE rule so the
// emulator and the CPU reference round identically.
//
//===----------------------------------------------------------------------===//

#include "EmulatorImpl.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>

using namespace mxgemm::emu;

namespace {

template <typename F> inline void forLanes(const Wave &w, F f) {
  uint64_t e = w.exec();
  if (e == ~0ull) {
    for (unsigned l = 0; l < WaveSize; ++l)
      f(l);
    return;
  }
  while (e) {
    unsigned l = llvm::countr_zero(e);
    e &= e - 1;
    f(l);
  }
}

inline float fmod_(uint32_t x, uint8_t mods) {
  float f = asFloat(x);
  if (mods & 2)
    f = std::fabs(f);
  if (mods & 1)
    f = -f;
  return f;
}

// Integer/bit ops on 1-3 32-bit sources; dst is vals[0].
#define VOP_INT(NAME, NSRC, EXPR)                                              \
  Status NAME(ExecContext &, Wave &w, const Inst &I) {                         \
    Src s0(w, I.vals[1]);                                                      \
    Src s1(w, I.vals[NSRC > 1 ? 2 : 1]);                                       \
    Src s2(w, I.vals[NSRC > 2 ? 3 : 1]);                                       \
    uint32_t *d = w.v[I.vals[0].reg];                                          \
    forLanes(w, [&](unsigned l) {                                              \
      uint32_t a = s0[l], b = s1[l], c = s2[l];                                \
      (void)b;                                                                 \
      (void)c;                                                                 \
      d[l] = (EXPR);                                                           \
    });                                                                        \
    return Status::Continue;                                                   \
  }

#define VOP_F32(NAME, NSRC, EXPR)                                              \
  Status NAME(ExecContext &, Wave &w, const Inst &I) {                         \
    Src s0(w, I.vals[1]);                                                      \
    Src s1(w, I.vals[NSRC > 1 ? 2 : 1]);                                       \
    Src s2(w, I.vals[NSRC > 2 ? 3 : 1]);                                       \
    uint8_t m0 = I.vals[1].mods, m1 = I.vals[NSRC > 1 ? 2 : 1].mods,           \
            m2 = I.vals[NSRC > 2 ? 3 : 1].mods;                                \
    uint32_t *d = w.v[I.vals[0].reg];                                          \
    forLanes(w, [&](unsigned l) {                                              \
      float a = fmod_(s0[l], m0), b = fmod_(s1[l], m1), c = fmod_(s2[l], m2);  \
      (void)b;                                                                 \
      (void)c;                                                                 \
      d[l] = asBits(EXPR);                                                     \
    });                                                                        \
    return Status::Continue;                                                   \
  }

inline uint32_t bfe(uint32_t a, uint32_t off, uint32_t width) {
  off &= 31;
  width &= 31;
  if (!width)
    return 0;
  return (a >> off) & ((width >= 32) ? ~0u : ((1u << width) - 1));
}
inline uint32_t bfei(uint32_t a, uint32_t off, uint32_t width) {
  off &= 31;
  width &= 31;
  if (!width)
    return 0;
  if (off + width < 32)
    return uint32_t(int32_t(a << (32 - off - width)) >> (32 - width));
  return uint32_t(int32_t(a) >> off);
}
inline uint32_t perm(uint32_t s0, uint32_t s1, uint32_t sel) {
  uint64_t bytes = (uint64_t(s0) << 32) | s1;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    uint32_t sb = (sel >> (8 * i)) & 0xff, out;
    if (sb < 8)
      out = (bytes >> (8 * sb)) & 0xff;
    else if (sb == 12)
      out = 0;
    else if (sb >= 13)
      out = 0xff;
    else { // sign replicate of byte 1,3,5,7
      unsigned which = 2 * (sb - 8) + 1;
      out = ((bytes >> (8 * which + 7)) & 1) ? 0xff : 0;
    }
    r |= out << (8 * i);
  }
  return r;
}
inline uint32_t u24(uint32_t x) { return x & 0xffffff; }
inline int32_t i24(uint32_t x) { return int32_t(x << 8) >> 8; }

VOP_INT(movB32, 1, a)
VOP_INT(addU32, 2, a + b)
VOP_INT(subU32, 2, a - b)
VOP_INT(subrevU32, 2, b - a)
VOP_INT(mulLoU32, 2, a *b)
VOP_INT(mulHiU32, 2, uint32_t((uint64_t(a) * b) >> 32))
VOP_INT(mulHiI32, 2, uint32_t((int64_t(int32_t(a)) * int32_t(b)) >> 32))
VOP_INT(mulU32U24, 2, u24(a) * u24(b))
VOP_INT(mulHiU32U24, 2, uint32_t((uint64_t(u24(a)) * u24(b)) >> 32))
VOP_INT(mulI32I24, 2, uint32_t(i24(a) * i24(b)))
VOP_INT(mulHiI32I24, 2, uint32_t((int64_t(i24(a)) * i24(b)) >> 32))
VOP_INT(madU32U24, 3, u24(a) * u24(b) + c)
VOP_INT(madI32I24, 3, uint32_t(i24(a) * i24(b)) + c)
VOP_INT(lshlrevB32, 2, b << (a & 31))
VOP_INT(lshrrevB32, 2, b >> (a & 31))
VOP_INT(ashrrevI32, 2, uint32_t(int32_t(b) >> (a & 31)))
VOP_INT(andB32, 2, a &b)
VOP_INT(orB32, 2, a | b)
VOP_INT(xorB32, 2, a ^ b)
VOP_INT(xnorB32, 2, ~(a ^ b))
VOP_INT(notB32, 1, ~a)
VOP_INT(bfeU32, 3, bfe(a, b, c))
VOP_INT(bfeI32, 3, bfei(a, b, c))
VOP_INT(bfiB32, 3, (a & b) | (~a & c))
VOP_INT(bfmB32, 2, ((1u << (a & 31)) - 1) << (b & 31))
VOP_INT(permB32, 3, perm(a, b, c))
VOP_INT(alignbitB32, 3, uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)))
VOP_INT(alignbyteB32, 3, uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))))
VOP_INT(lshlAddU32, 3, (a << (b & 31)) + c)
VOP_INT(addLshlU32, 3, (a + b) << (c & 31))
VOP_INT(add3U32, 3, a + b + c)
VOP_INT(lshlOrB32, 3, (a << (b & 31)) | c)
VOP_INT(andOrB32, 3, (a & b) | c)
VOP_INT(or3B32, 3, a | b | c)
VOP_INT(xadU32, 3, (a ^ b) + c)
VOP_INT(minU32, 2, a < b ? a : b)
VOP_INT(maxU32, 2, a > b ? a : b)
VOP_INT(minI32, 2, int32_t(a) < int32_t(b) ? a : b)
VOP_INT(maxI32, 2, int32_t(a) > int32_t(b) ? a : b)
VOP_INT(bcntU32, 2, uint32_t(llvm::popcount(a)) + b)
/// CDNA4 ISA, V_CVT_F32_F16: exact widening (FP16 subnormals are kept in
/// the default FP16 denormal mode); a NaN keeps its sign and payload and is
/// quieted.
uint32_t f16ToF32Bits(uint32_t h) {
  uint32_t sign = (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f)
    return sign | 0x7f800000 | (mant << 13) | (mant ? 0x400000 : 0);
  if (exp == 0) {
    if (!mant)
      return sign;
    int shift = llvm::countl_zero(mant) - 21; // leading bit to bit 10
    mant = (mant << shift) & 0x3ff;
    return sign | (uint32_t(113 - shift) << 23) | (mant << 13);
  }
  return sign | ((exp + 112) << 23) | (mant << 13);
}

VOP_INT(cvtF32F16, 1, f16ToF32Bits(a & 0xffff))
VOP_INT(min3U32, 3, std::min({a, b, c}))
VOP_INT(med3U32, 3, std::max(std::min(a, b), std::min(std::max(a, b), c)))
VOP_INT(max3U32, 3, std::max({a, b, c}))
VOP_INT(min3I32, 3, uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})))
VOP_INT(max3I32, 3, uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})))
// CDNA4 ISA, V_FFBH_U32: the number of leading zeros, 0xffffffff for 0.
VOP_INT(ffbhU32, 1, a ? uint32_t(llvm::countl_zero(a)) : 0xffffffffu)
VOP_INT(cvtF32U32, 1, asBits(float(a)))
VOP_INT(cvtF32I32, 1, asBits(float(int32_t(a))))
VOP_INT(cvtF32Ubyte0, 1, asBits(float(a & 0xff)))

//===----------------------------------------------------------------------===//
// 16-bit integer VOP2/VOP3/VOPC (gfx8/gfx9 encodings, MC names *_U16_*_vi).
// The operation uses the low 16 bits of each source and produces 16 bits.
// On gfx9 (and so gfx950) the non-SDWA (e32/e64) forms of these
// instructions ZERO bits [31:16] of the destination: LLVM's
// GCNSubtarget::zeroesHigh16BitsOfDest lists V_ADD_U16, V_SUB_U16,
// V_SUBREV_U16, V_MUL_LO_U16, V_LSHLREV_B16, V_LSHRREV_B16, V_ASHRREV_I16,
// V_MAX/MIN_U16/I16 and V_MAD_U16/I16 (e32 and e64) as zeroing for every
// generation <= GFX9 (gfx10+ preserves them), and SIFoldOperands drops a
// following `v_and_b32 0xffff` on that basis. The SDWA forms place the
// 16-bit result with dst_sel/dst_unused like the 32-bit SDWA ops below.
// Shift amounts are S0[3:0].
//===----------------------------------------------------------------------===//

inline uint32_t lo16(uint32_t x) { return x & 0xffffu; }
inline int32_t i16(uint32_t x) { return int32_t(int16_t(uint16_t(x))); }

/// e64 forms carry clamp (and, for some, op_sel) as immediates; LLVM emits
/// neither for the integer 16-bit ops it selects, so a nonzero one fails the
/// run rather than being silently mis-modelled.
inline bool plain16(const Inst &I) {
  for (unsigned j = 0; j < I.numImms; ++j)
    if (I.imms[j] != 0)
      return false;
  for (unsigned j = 1; j < I.numVals; ++j)
    if (I.vals[j].mods != 0)
      return false;
  return true;
}

#define VOP_I16(NAME, NSRC, EXPR)                                              \
  Status NAME(ExecContext &ctx, Wave &w, const Inst &I) {                      \
    if (!plain16(I))                                                           \
      return ctx.fail(I, "clamp/op_sel/modifiers on a 16-bit integer op are "  \
                         "not modelled");                                      \
    Src s0(w, I.vals[1]);                                                      \
    Src s1(w, I.vals[NSRC > 1 ? 2 : 1]);                                       \
    Src s2(w, I.vals[NSRC > 2 ? 3 : 1]);                                       \
    uint32_t *d = w.v[I.vals[0].reg];                                          \
    forLanes(w, [&](unsigned l) {                                              \
      uint32_t a = s0[l], b = s1[l], c = s2[l];                                \
      (void)b;                                                                 \
      (void)c;                                                                 \
      d[l] = lo16(EXPR); /* gfx9: bits [31:16] zeroed */                       \
    });                                                                        \
    return Status::Continue;                                                   \
  }

VOP_I16(addU16, 2, a + b)
VOP_I16(subU16, 2, a - b)
VOP_I16(subrevU16, 2, b - a)
VOP_I16(mulLoU16, 2, lo16(a) * lo16(b))
VOP_I16(lshlrevB16, 2, lo16(b) << (a & 15))
VOP_I16(lshrrevB16, 2, lo16(b) >> (a & 15))
VOP_I16(ashrrevI16, 2, uint32_t(i16(b) >> (a & 15)))
VOP_I16(maxU16, 2, lo16(a) > lo16(b) ? a : b)
VOP_I16(minU16, 2, lo16(a) < lo16(b) ? a : b)
VOP_I16(maxI16, 2, i16(a) > i16(b) ? a : b)
VOP_I16(minI16, 2, i16(a) < i16(b) ? a : b)
VOP_I16(madU16, 3, lo16(a) * lo16(b) + c)
VOP_I16(madI16, 3, uint32_t(i16(a) * i16(b)) + c)

/// gfx950 V_BITOP3: any bitwise function of three sources, given by its
/// truth table `ttbl` (bit (a << 2 | b << 1 | c) is the result for source
/// bits a, b, c; LLVM's encoding, e.g. 0xf8 = S0 | (S1 & S2)).
inline uint32_t bitop3(uint32_t a, uint32_t b, uint32_t c, uint32_t ttbl) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 8; ++i)
    if (ttbl >> i & 1)
      r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
  return r;
}

/// V_BITOP3_B16 writes bits [15:0] and keeps bits [31:16]. No ISA text
/// available to us says so directly; it is what LLVM assumes (its
/// GCNSubtarget::zeroesHigh16BitsOfDest does not list the op, i.e. the high
/// half is preserved), and it is how gfx9's other op_sel-capable 16-bit VOP3
/// ops (v_mad_u16, v_fma_f16, ...) behave there, which that list marks as
/// preserving on gfx9: a destination op_sel that picks the written half only
/// makes sense if the other half is kept. op_sel and modifiers themselves
/// (never emitted by LLVM for integer bitop3) fail the run.
Status bitop3B16(ExecContext &ctx, Wave &w, const Inst &I) {
  for (unsigned j = 1; j < I.numVals; ++j)
    if (I.vals[j].mods != 0)
      return ctx.fail(I, "op_sel/modifiers on v_bitop3_b16 are not modelled");
  if (I.numImms > 1 && I.imms[1] != 0)
    return ctx.fail(I, "op_sel on v_bitop3_b16 is not modelled");
  Src s0(w, I.vals[1]), s1(w, I.vals[2]), s2(w, I.vals[3]);
  uint32_t *d = w.v[I.vals[0].reg];
  const uint32_t ttbl = uint32_t(I.imms[0]) & 0xff;
  forLanes(w, [&](unsigned l) {
    d[l] = lo16(bitop3(s0[l], s1[l], s2[l], ttbl)) | (d[l] & 0xffff0000u);
  });
  return Status::Continue;
}

inline uint32_t cvtU32(float f) {
  if (std::isnan(f) || f <= 0)
    return 0;
  if (f >= 4294967296.0f)
    return ~0u;
  return uint32_t(f);
}
inline uint32_t cvtI32(float f) {
  if (std::isnan(f))
    return 0;
  if (f >= 2147483648.0f)
    return 0x7fffffff;
  if (f <= -2147483648.0f)
    return 0x80000000u;
  return uint32_t(int32_t(f));
}

VOP_F32(addF32, 2, a + b)
VOP_F32(subF32, 2, a - b)
VOP_F32(subrevF32, 2, b - a)
VOP_F32(mulF32, 2, a *b)
VOP_F32(fmaF32, 3, std::fma(a, b, c))
VOP_F32(minF32, 2, std::fmin(a, b))

/// v_fmac_f32 (D = S0 * S1 + D, the addend tied to the destination): LLVM's
/// reciprocal refinement of an integer division by a run-time divisor (a
/// tail split's count of tail tiles).
Status fmacF32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  const uint8_t m0 = I.vals[1].mods, m1 = I.vals[2].mods;
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    d[l] = asBits(std::fma(fmod_(s0[l], m0), fmod_(s1[l], m1), fmod_(d[l], 0)));
  });
  return Status::Continue;
}

/// v_fmamk_f32 (D = S0 * K + S1) and v_fmaak_f32 (D = S0 * S1 + K): the
/// 32-bit literal K is an immediate operand without a register class, so
/// the decoder keeps it in `imms` (or, if it ever gets one, in `vals`).
/// LLVM uses them in the reciprocal refinement of an integer division by
/// a run-time divisor (a generic kernel's N or K).
template <bool KIsAddend>
Status fmaLiteralF32(ExecContext &ctx, Wave &w, const Inst &I) {
  uint32_t kBits;
  Operand s0op = I.vals[1], s1op;
  if (I.numVals >= 4) {
    const Operand &kop = I.vals[KIsAddend ? 3 : 2];
    if (kop.kind != OpKind::Imm)
      return ctx.fail(I, "expected a literal operand");
    kBits = kop.imm[0];
    s1op = I.vals[KIsAddend ? 2 : 3];
  } else if (I.numVals == 3 && I.numImms >= 1) {
    kBits = uint32_t(I.imms[0]);
    s1op = I.vals[2];
  } else {
    return ctx.fail(I, "unexpected operands for a literal FMA");
  }
  Src s0(w, s0op), s1(w, s1op);
  const float k = llvm::bit_cast<float>(kBits);
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    float a = fmod_(s0[l], s0op.mods), b = fmod_(s1[l], s1op.mods);
    d[l] = asBits(KIsAddend ? std::fma(a, b, k) : std::fma(a, k, b));
  });
  return Status::Continue;
}
VOP_F32(maxF32, 2, std::fmax(a, b))
// The hardware reciprocal is an approximation (1 ulp); compiler-generated
// integer division corrects its result, so an exact reciprocal is safe.
VOP_F32(rcpF32, 1, 1.0f / a)
VOP_F32(truncF32, 1, std::trunc(a))
VOP_F32(floorF32, 1, std::floor(a))

Status cvtU32F32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]);
  uint8_t m = I.vals[1].mods;
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) { d[l] = cvtU32(fmod_(s0[l], m)); });
  return Status::Continue;
}
Status cvtI32F32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]);
  uint8_t m = I.vals[1].mods;
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) { d[l] = cvtI32(fmod_(s0[l], m)); });
  return Status::Continue;
}

Status cvtPkBf16F32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  uint8_t m0 = I.vals[1].mods, m1 = I.vals[2].mods;
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    uint32_t lo = mxgemm::numerics::fp32ToBf16(fmod_(s0[l], m0));
    uint32_t hi = mxgemm::numerics::fp32ToBf16(fmod_(s1[l], m1));
    d[l] = lo | (hi << 16);
  });
  return Status::Continue;
}

// 64-bit results: vals[0] is a VGPR pair.
#define VOP_64(NAME, EXPR)                                                     \
  Status NAME(ExecContext &, Wave &w, const Inst &I) {                         \
    Src s0(w, I.vals[1]);                                                      \
    Src s1(w, I.vals[I.numVals > 2 ? 2 : 1]);                                  \
    uint8_t m0 = I.vals[1].mods, m1 = I.vals[I.numVals > 2 ? 2 : 1].mods;      \
    (void)m0;                                                                  \
    (void)m1;                                                                  \
    uint32_t *dlo = w.v[I.vals[0].reg], *dhi = w.v[I.vals[0].reg + 1];         \
    forLanes(w, [&](unsigned l) {                                              \
      uint64_t a = s0.u64(l), b = s1.u64(l);                                   \
      (void)b;                                                                 \
      uint64_t r = (EXPR);                                                     \
      dlo[l] = uint32_t(r);                                                    \
      dhi[l] = uint32_t(r >> 32);                                              \
    });                                                                        \
    return Status::Continue;                                                   \
  }

VOP_64(movB64, a)
VOP_64(lshlrevB64, b << (a & 63))
VOP_64(lshrrevB64, b >> (a & 63))
VOP_64(ashrrevI64, uint64_t(int64_t(b) >> (a & 63)))
// v_pk_mov_b32: op_sel (mods bit 2) of each source picks its high dword.
VOP_64(pkMovB32, ((m0 & 4) ? (a >> 32) : (a & 0xffffffffu)) |
                     (((m1 & 4) ? (b >> 32) : (b & 0xffffffffu)) << 32))

/// v_pk_add_f32 vdst[2], src0[2], src1[2] (VOP3P, CDNA3/4): two FP32 adds,
/// D[31:0] = S0' + S1' and D[63:32] = S0'' + S1''. Per source, the dword
/// feeding the low result is the high one if op_sel is set (source
/// modifier bit 2), the dword feeding the high result the high one if
/// op_sel_hi is set (bit 3, the default); neg (bit 0) and neg_hi (bit 1)
/// negate them. Rounding is the IEEE default (nearest even) of the host.
Status pkAddF32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  const uint8_t m0 = I.vals[1].mods, m1 = I.vals[2].mods;
  uint32_t *dlo = w.v[I.vals[0].reg], *dhi = w.v[I.vals[0].reg + 1];
  auto half = [](uint64_t v, uint8_t mods, bool high) {
    const bool upper = mods & (high ? 8 : 4);
    float f = asFloat(uint32_t(upper ? v >> 32 : v));
    return (mods & (high ? 2 : 1)) ? -f : f;
  };
  forLanes(w, [&](unsigned l) {
    const uint64_t a = s0.u64(l), b = s1.u64(l);
    dlo[l] = asBits(half(a, m0, false) + half(b, m1, false));
    dhi[l] = asBits(half(a, m0, true) + half(b, m1, true));
  });
  return Status::Continue;
}

/// Packed 16-bit integer VOP3P ops (v_pk_{max,min,add}_u16,
/// v_pk_lshrrev_b16) vdst, src0, src1: two 16-bit operations. Per source,
/// the half feeding the low result is the high one if op_sel is set
/// (source modifier bit 2), the half feeding the high result the high one
/// if op_sel_hi is set (bit 3, the default). The first immediate is clamp
/// (a saturating add), which is not modelled.
struct PkMaxU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return std::max(a, b); }
};
struct PkMinU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return std::min(a, b); }
};
struct PkAddU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return (a + b) & 0xffff; }
};
struct PkLshrrevB16 {
  static uint32_t f(uint32_t a, uint32_t b) { return b >> (a & 15); }
};
template <typename Op>
Status pkIntOp16(ExecContext &ctx, Wave &w, const Inst &I) {
  if (I.numImms < 1 || I.imms[0] != 0)
    return ctx.fail(I, "packed 16-bit op: clamp is not modelled");
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  const uint8_t m0 = I.vals[1].mods, m1 = I.vals[2].mods;
  uint32_t *d = w.v[I.vals[0].reg];
  auto half = [](uint32_t v, uint8_t mods, bool high) -> uint32_t {
    return (mods & (high ? 8 : 4)) ? v >> 16 : v & 0xffff;
  };
  forLanes(w, [&](unsigned l) {
    const uint32_t a = s0[l], b = s1[l];
    d[l] = Op::f(half(a, m0, false), half(b, m1, false)) |
           Op::f(half(a, m0, true), half(b, m1, true)) << 16;
  });
  return Status::Continue;
}

/// v_lshl_add_u64 vdst[2], src0[2], src1, src2[2]: (src0 << src1[2:0]) +
/// src2 (CDNA3/4 ISA: only shifts 0..4 are supported; the emulator uses the
/// low three bits like the instruction's definition).
Status lshlAddU64(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]), s2(w, I.vals[3]);
  uint32_t *dlo = w.v[I.vals[0].reg], *dhi = w.v[I.vals[0].reg + 1];
  forLanes(w, [&](unsigned l) {
    uint64_t r = (s0.u64(l) << (s1[l] & 7)) + s2.u64(l);
    dlo[l] = uint32_t(r);
    dhi[l] = uint32_t(r >> 32);
  });
  return Status::Continue;
}

/// v_bitop3_b32 vdst, src0, src1, src2 bitop3:imm: every result bit is
/// imm[(src0 << 2) | (src1 << 1) | src2] of the source bits (the truth-table
/// convention src0 = 0xf0, src1 = 0xcc, src2 = 0xaa).
Status bitop3B32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]), s2(w, I.vals[3]);
  const uint32_t table = uint32_t(I.imms[0]) & 0xff;
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) { d[l] = bitop3(s0[l], s1[l], s2[l], table); });
  return Status::Continue;
}

//===----------------------------------------------------------------------===//
// SDWA (gfx9 sub-dword addressing) forms of integer VOP1/VOP2 instructions.
// Operands: vdst, [mods] src0, [[mods] src1], clamp, dst_sel, dst_unused,
// src0_sel[, src1_sel]; sel 0..3 = BYTE_n, 4..5 = WORD_n, 6 = DWORD. A source
// field is zero-extended unless its modifier has SEXT (16); the result field
// lands at dst_sel with the other bits zero (UNUSED_PAD = 0), filled with
// its sign (UNUSED_SEXT = 1) or kept (UNUSED_PRESERVE = 2).
//===----------------------------------------------------------------------===//

inline uint32_t sdwaSelect(uint32_t x, unsigned sel, bool sext) {
  if (sel >= 6)
    return x;
  unsigned width = sel < 4 ? 8 : 16, shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  uint32_t field = (x >> shift) & ((1u << width) - 1);
  if (sext && (field >> (width - 1)))
    field |= ~((1u << width) - 1);
  return field;
}

inline uint32_t sdwaPlace(uint32_t result, uint32_t old, unsigned sel,
                          unsigned unused) {
  if (sel >= 6)
    return result;
  unsigned width = sel < 4 ? 8 : 16, shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  uint32_t fieldMask = ((1u << width) - 1) << shift;
  uint32_t placed = (result << shift) & fieldMask;
  if (unused == 2)
    return placed | (old & ~fieldMask);
  if (unused == 1 && ((result >> (width - 1)) & 1))
    placed |= ~((fieldMask) | ((1u << shift) - 1));
  return placed;
}

struct OpOr {
  static uint32_t f(uint32_t a, uint32_t b) { return a | b; }
};
struct OpAnd {
  static uint32_t f(uint32_t a, uint32_t b) { return a & b; }
};
struct OpXor {
  static uint32_t f(uint32_t a, uint32_t b) { return a ^ b; }
};
struct OpAdd {
  static uint32_t f(uint32_t a, uint32_t b) { return a + b; }
};
struct OpSub {
  static uint32_t f(uint32_t a, uint32_t b) { return a - b; }
};
struct OpSubrev {
  static uint32_t f(uint32_t a, uint32_t b) { return b - a; }
};
struct OpLshlrev {
  static uint32_t f(uint32_t a, uint32_t b) { return b << (a & 31); }
};
struct OpLshrrev {
  static uint32_t f(uint32_t a, uint32_t b) { return b >> (a & 31); }
};
struct OpAshrrev {
  static uint32_t f(uint32_t a, uint32_t b) {
    return uint32_t(int32_t(b) >> (a & 31));
  }
};
struct OpMulU24 {
  static uint32_t f(uint32_t a, uint32_t b) { return u24(a) * u24(b); }
};
struct OpMinU32 {
  static uint32_t f(uint32_t a, uint32_t b) { return a < b ? a : b; }
};
struct OpMaxU32 {
  static uint32_t f(uint32_t a, uint32_t b) { return a > b ? a : b; }
};
struct OpAddU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return lo16(a + b); }
};
struct OpSubU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return lo16(a - b); }
};
struct OpSubrevU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return lo16(b - a); }
};
struct OpMulLoU16 {
  static uint32_t f(uint32_t a, uint32_t b) { return lo16(lo16(a) * lo16(b)); }
};
struct OpLshlrevB16 {
  static uint32_t f(uint32_t a, uint32_t b) {
    return lo16(lo16(b) << (a & 15));
  }
};
struct OpLshrrevB16 {
  static uint32_t f(uint32_t a, uint32_t b) { return lo16(b) >> (a & 15); }
};
struct OpAshrrevI16 {
  static uint32_t f(uint32_t a, uint32_t b) {
    return lo16(uint32_t(i16(b) >> (a & 15)));
  }
};
struct OpMaxU16 {
  static uint32_t f(uint32_t a, uint32_t b) {
    return lo16(lo16(a) > lo16(b) ? a : b);
  }
};
struct OpMinU16 {
  static uint32_t f(uint32_t a, uint32_t b) {
    return lo16(lo16(a) < lo16(b) ? a : b);
  }
};
struct OpMov {
  static uint32_t f(uint32_t a, uint32_t) { return a; }
};
struct OpCvtF32F16 {
  static uint32_t f(uint32_t a, uint32_t) { return f16ToF32Bits(a & 0xffff); }
};
struct OpNot {
  static uint32_t f(uint32_t a, uint32_t) { return ~a; }
};

template <typename Op, unsigned NSrc>
Status sdwaOp(ExecContext &ctx, Wave &w, const Inst &I) {
  constexpr unsigned NumSels = NSrc + 2;
  if (I.numImms < NumSels)
    return ctx.fail(I, "SDWA operand layout not understood");
  const int64_t *sel = &I.imms[I.numImms - NumSels];
  unsigned dstSel = unsigned(sel[0]), dstUnused = unsigned(sel[1]);
  unsigned sel0 = unsigned(sel[2]), sel1 = NSrc > 1 ? unsigned(sel[3]) : 6;
  if (I.vals[0].kind != OpKind::Vgpr)
    return ctx.fail(I, "SDWA with a non-VGPR destination is not modelled");
  const Operand &o0 = I.vals[1], &o1 = I.vals[NSrc > 1 ? 2 : 1];
  if ((o0.mods | (NSrc > 1 ? o1.mods : 0)) & 3)
    return ctx.fail(I, "SDWA neg/abs on an integer operation");
  bool sx0 = o0.mods & 16, sx1 = o1.mods & 16;
  Src s0(w, o0), s1(w, o1);
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    uint32_t a = sdwaSelect(s0[l], sel0, sx0);
    uint32_t b = NSrc > 1 ? sdwaSelect(s1[l], sel1, sx1) : 0;
    d[l] = sdwaPlace(Op::f(a, b), d[l], dstSel, dstUnused);
  });
  return Status::Continue;
}

//===----------------------------------------------------------------------===//
// DPP (gfx9 data-parallel primitives) forms of integer VOP1/VOP2
// instructions: src0 is read from another lane of the same row. Operands:
// vdst, old (tied to vdst), src0[, src1], dpp_ctrl, row_mask, bank_mask,
// bound_ctrl. Modelled: quad_perm (dpp_ctrl 0x00-0xff: lane 4k + i reads
// lane 4k + sel_i). A lane whose row or bank is masked off keeps vdst; one
// whose source lane is inactive gets src0 = 0 with bound_ctrl, else keeps
// vdst (the CDNA3/CDNA4 ISA, "DPP").
//===----------------------------------------------------------------------===//

template <typename Op, unsigned NSrc>
Status dppOp(ExecContext &ctx, Wave &w, const Inst &I) {
  if (I.numImms < 4 || I.numVals != NSrc + 2 ||
      I.vals[0].kind != OpKind::Vgpr || I.vals[1].kind != OpKind::Vgpr ||
      I.vals[1].reg != I.vals[0].reg || I.vals[2].kind != OpKind::Vgpr)
    return ctx.fail(I, "DPP operand layout not understood");
  const int64_t *dpp = &I.imms[I.numImms - 4];
  uint32_t ctrl = uint32_t(dpp[0]), rowMask = uint32_t(dpp[1]),
           bankMask = uint32_t(dpp[2]);
  bool boundCtrl = dpp[3] != 0;
  if (ctrl > 0xff)
    return ctx.fail(I, "DPP control 0x" + llvm::utohexstr(ctrl) +
                           " is not modelled (only quad_perm)");
  if ((I.vals[2].mods | (NSrc > 1 ? I.vals[3].mods : 0)) & 3)
    return ctx.fail(I, "DPP neg/abs on an integer operation");
  // Read every source lane before any destination lane changes (vdst may
  // be src0).
  uint32_t src0[WaveSize];
  const uint32_t *v0 = w.v[I.vals[2].reg];
  uint64_t exec = w.exec();
  for (unsigned l = 0; l < WaveSize; ++l) {
    unsigned from = (l & ~3u) | ((ctrl >> (2 * (l & 3))) & 3);
    src0[l] = (exec >> from) & 1 ? v0[from] : 0;
  }
  Src s1(w, I.vals[NSrc > 1 ? 3 : 2]);
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    unsigned from = (l & ~3u) | ((ctrl >> (2 * (l & 3))) & 3);
    if (!((rowMask >> (l / 16)) & 1) || !((bankMask >> ((l & 15) / 4)) & 1))
      return;
    if (!((exec >> from) & 1) && !boundCtrl)
      return;
    d[l] = Op::f(src0[l], NSrc > 1 ? s1[l] : 0);
  });
  return Status::Continue;
}

struct OpCvtF32U32 {
  static uint32_t f(uint32_t a, uint32_t) { return asBits(float(a)); }
};

/// SDWA VOP1 ops with a float result carry clamp and omod before the
/// selects; the emulator models neither, so a nonzero one fails the run.
template <typename Op>
Status sdwaFloatResult(ExecContext &ctx, Wave &w, const Inst &I) {
  if (I.numImms < 5 || I.imms[I.numImms - 5] != 0 || I.imms[I.numImms - 4] != 0)
    return ctx.fail(I, "SDWA clamp/omod are not modelled");
  return sdwaOp<Op, 1>(ctx, w, I);
}

/// gfx950's VOP3 forms of v_alignbit/v_alignbyte carry an op_sel operand
/// (16-bit halves); the emulator models op_sel = 0, the plain 32-bit form,
/// which is what LLVM emits for 32-bit funnel shifts.
template <Handler Plain>
Status withZeroOpSel(ExecContext &ctx, Wave &w, const Inst &I) {
  bool opSel = I.numImms && I.imms[I.numImms - 1] != 0;
  for (unsigned j = 1; j < I.numVals; ++j)
    opSel |= (I.vals[j].mods & 12) != 0;
  if (opSel)
    return ctx.fail(I, "op_sel on this instruction is not modelled");
  return Plain(ctx, w, I);
}

/// Carry-out ops: vals = vdst, sdst, src0, src1 [, carry-in].
template <int Kind> Status carryOp(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[2]), s1(w, I.vals[3]);
  uint64_t cin = I.numVals > 4 ? sread64(w, I.vals[4]) : 0;
  uint32_t *d = w.v[I.vals[0].reg];
  uint64_t cout = 0;
  forLanes(w, [&](unsigned l) {
    uint64_t a = s0[l], b = s1[l], c = (cin >> l) & 1, r;
    bool carry;
    switch (Kind) {
    case 0:
      r = a + b;
      carry = r >> 32;
      break; // add_co
    case 1:
      r = a - b;
      carry = b > a;
      break; // sub_co
    case 2:
      r = b - a;
      carry = a > b;
      break; // subrev_co
    case 3:
      r = a + b + c;
      carry = r >> 32;
      break; // addc_co
    case 4:
      r = a - b - c;
      carry = b + c > a;
      break; // subb_co
    default:
      r = b - a - c;
      carry = a + c > b;
      break; // subbrev_co
    }
    d[l] = uint32_t(r);
    cout |= uint64_t(carry) << l;
  });
  swrite64(w, I.vals[1], cout);
  return Status::Continue;
}

/// v_mad_u64_u32 vdst[2], sdst, src0, src1, src2[2].
Status madU64U32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[2]), s1(w, I.vals[3]), s2(w, I.vals[4]);
  uint32_t *dlo = w.v[I.vals[0].reg], *dhi = w.v[I.vals[0].reg + 1];
  uint64_t cout = 0;
  forLanes(w, [&](unsigned l) {
    unsigned __int128 r =
        (unsigned __int128)(uint64_t(s0[l]) * s1[l]) + s2.u64(l);
    dlo[l] = uint32_t(r);
    dhi[l] = uint32_t(uint64_t(r) >> 32);
    cout |= uint64_t(r >> 64 ? 1 : 0) << l;
  });
  swrite64(w, I.vals[1], cout);
  return Status::Continue;
}

/// v_mad_i64_i32 vdst[2], sdst, src0, src1, src2[2]: signed 32 x 32 -> 64
/// plus a 64-bit addend (LLVM uses it for address offsets); sdst gets the
/// lanes whose result overflows 64 bits.
Status madI64I32(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[2]), s1(w, I.vals[3]), s2(w, I.vals[4]);
  uint32_t *dlo = w.v[I.vals[0].reg], *dhi = w.v[I.vals[0].reg + 1];
  uint64_t cout = 0;
  forLanes(w, [&](unsigned l) {
    __int128 r =
        __int128(int64_t(int32_t(s0[l])) * int32_t(s1[l])) + int64_t(s2.u64(l));
    dlo[l] = uint32_t(r);
    dhi[l] = uint32_t(uint64_t(r) >> 32);
    cout |= uint64_t(r != __int128(int64_t(r)) ? 1 : 0) << l;
  });
  swrite64(w, I.vals[1], cout);
  return Status::Continue;
}

/// v_cndmask_b32 vdst, src0, src1, mask.
Status cndmask(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  uint64_t mask = sread64(w, I.vals[3]);
  uint8_t m0 = I.vals[1].mods, m1 = I.vals[2].mods;
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    uint32_t a = s0[l], b = s1[l];
    if (m0 & 2)
      a &= 0x7fffffffu;
    if (m0 & 1)
      a ^= 0x80000000u;
    if (m1 & 2)
      b &= 0x7fffffffu;
    if (m1 & 1)
      b ^= 0x80000000u;
    d[l] = ((mask >> l) & 1) ? b : a;
  });
  return Status::Continue;
}

/// Compares: param = op (0 F,1 LT,2 EQ,3 LE,4 GT,5 NE/LG,6 GE,7 O,8 U,9 NGE,
/// 10 NLG,11 NGT,12 NLE,13 NEQ,14 NLT,15 TRU) | type << 4 (0 u32, 1 i32,
/// 2 u64, 3 i64, 4 f32, 5 u16, 6 i16: the low 16 bits of each source) |
/// 0x100 for CMPX. vals = sdst, src0, src1.
template <typename T> bool cmp(unsigned op, T a, T b) {
  switch (op) {
  case 0:
    return false;
  case 1:
    return a < b;
  case 2:
    return a == b;
  case 3:
    return a <= b;
  case 4:
    return a > b;
  case 5:
    return a != b;
  case 6:
    return a >= b;
  default:
    return true;
  }
}
bool cmpF(unsigned op, float a, float b) {
  bool unord = std::isnan(a) || std::isnan(b);
  switch (op) {
  case 0:
    return false;
  case 1:
    return a < b;
  case 2:
    return a == b;
  case 3:
    return a <= b;
  case 4:
    return a > b;
  case 5:
    return a < b || a > b; // LG
  case 6:
    return a >= b;
  case 7:
    return !unord;
  case 8:
    return unord;
  case 9:
    return !(a >= b);
  case 10:
    return !(a < b || a > b);
  case 11:
    return !(a > b);
  case 12:
    return !(a <= b);
  case 13:
    return !(a == b);
  case 14:
    return !(a < b);
  default:
    return true;
  }
}
Status vcmp(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  unsigned op = I.param & 15, type = (I.param >> 4) & 7;
  uint8_t m0 = I.vals[1].mods, m1 = I.vals[2].mods;
  uint64_t result = 0;
  forLanes(w, [&](unsigned l) {
    bool r;
    switch (type) {
    case 0:
      r = cmp<uint32_t>(op, s0[l], s1[l]);
      break;
    case 1:
      r = cmp<int32_t>(op, int32_t(s0[l]), int32_t(s1[l]));
      break;
    case 2:
      r = cmp<uint64_t>(op, s0.u64(l), s1.u64(l));
      break;
    case 3:
      r = cmp<int64_t>(op, int64_t(s0.u64(l)), int64_t(s1.u64(l)));
      break;
    case 5:
      r = cmp<uint32_t>(op, lo16(s0[l]), lo16(s1[l]));
      break;
    case 6:
      r = cmp<int32_t>(op, i16(s0[l]), i16(s1[l]));
      break;
    default:
      r = cmpF(op, fmod_(s0[l], m0), fmod_(s1[l], m1));
      break;
    }
    result |= uint64_t(r) << l;
  });
  if (I.param & 0x100) {
    w.setExec(result);
    if (I.numVals > 0 &&
        !(I.vals[0].kind == OpKind::Sgpr && I.vals[0].reg == SlotExecLo))
      swrite64(w, I.vals[0], result);
  } else {
    swrite64(w, I.vals[0], result);
  }
  return Status::Continue;
}

/// gfx9 SDWA VOPC (v_cmp_*_u16/i16/u32/i32_sdwa): vals = sdst (VCC or an
/// SGPR pair), [mods] src0, [mods] src1; the last two immediates are
/// src0_sel and src1_sel. Each source field is selected (zero-extended, or
/// sign-extended with the SEXT modifier) and then compared with the
/// instruction's type, which for 16-bit compares uses its low 16 bits.
Status vcmpSdwa(ExecContext &ctx, Wave &w, const Inst &I) {
  if (I.numImms < 2 || I.numVals < 3)
    return ctx.fail(I, "SDWA VOPC operand layout not understood");
  if (I.vals[0].kind != OpKind::Sgpr)
    return ctx.fail(I, "SDWA VOPC without an SGPR destination");
  if (I.param & 0x100)
    return ctx.fail(I, "SDWA V_CMPX is not modelled");
  const Operand &o0 = I.vals[1], &o1 = I.vals[2];
  if ((o0.mods | o1.mods) & 3)
    return ctx.fail(I, "SDWA neg/abs on an integer compare");
  for (unsigned j = 0; j + 2 < I.numImms; ++j)
    if (I.imms[j] != 0)
      return ctx.fail(I, "SDWA VOPC clamp is not modelled");
  unsigned sel0 = unsigned(I.imms[I.numImms - 2]);
  unsigned sel1 = unsigned(I.imms[I.numImms - 1]);
  bool sx0 = o0.mods & 16, sx1 = o1.mods & 16;
  unsigned op = I.param & 15, type = (I.param >> 4) & 7;
  Src s0(w, o0), s1(w, o1);
  uint64_t result = 0;
  forLanes(w, [&](unsigned l) {
    uint32_t a = sdwaSelect(s0[l], sel0, sx0);
    uint32_t b = sdwaSelect(s1[l], sel1, sx1);
    bool r;
    switch (type) {
    case 0:
      r = cmp<uint32_t>(op, a, b);
      break;
    case 1:
      r = cmp<int32_t>(op, int32_t(a), int32_t(b));
      break;
    case 5:
      r = cmp<uint32_t>(op, lo16(a), lo16(b));
      break;
    default:
      r = cmp<int32_t>(op, i16(a), i16(b));
      break;
    }
    result |= uint64_t(r) << l;
  });
  // Lanes outside EXEC read as 0 (as for the VOP3 compares).
  swrite64(w, I.vals[0], result);
  return Status::Continue;
}

Status readfirstlane(ExecContext &, Wave &w, const Inst &I) {
  uint64_t e = w.exec();
  unsigned lane = e ? llvm::countr_zero(e) : 0;
  Src s(w, I.vals[1]);
  swrite(w, I.vals[0], s[lane]);
  return Status::Continue;
}
Status readlane(ExecContext &, Wave &w, const Inst &I) {
  Src s(w, I.vals[1]);
  swrite(w, I.vals[0], s[sread(w, I.vals[2]) & 63]);
  return Status::Continue;
}
Status writelane(ExecContext &, Wave &w, const Inst &I) {
  // vals: vdst, ssrc, lane select, (tied vdst_in)
  w.v[I.vals[0].reg][sread(w, I.vals[2]) & 63] = sread(w, I.vals[1]);
  return Status::Continue;
}
template <bool Hi> Status mbcnt(ExecContext &, Wave &w, const Inst &I) {
  Src s0(w, I.vals[1]), s1(w, I.vals[2]);
  uint32_t *d = w.v[I.vals[0].reg];
  forLanes(w, [&](unsigned l) {
    unsigned bitsBelow = Hi ? (l > 32 ? l - 32 : 0) : (l < 32 ? l : 32);
    uint32_t m = bitsBelow >= 32 ? ~0u : ((1u << bitsBelow) - 1);
    d[l] = uint32_t(llvm::popcount(s0[l] & m)) + s1[l];
  });
  return Status::Continue;
}
Status vnop(ExecContext &, Wave &, const Inst &) { return Status::Continue; }

} // namespace

void mxgemm::emu::registerValuHandlers(void (*add)(llvm::StringRef, Handler,
                                                   uint32_t, uint16_t)) {
  struct {
    const char *name;
    Handler fn;
  } ops[] = {
      {"V_MOV_B32", movB32},
      {"V_ADD_U32", addU32},
      {"V_SUB_U32", subU32},
      {"V_SUBREV_U32", subrevU32},
      {"V_MUL_LO_U32", mulLoU32},
      {"V_MUL_HI_U32", mulHiU32},
      {"V_MUL_HI_I32", mulHiI32},
      {"V_MUL_U32_U24", mulU32U24},
      {"V_MUL_HI_U32_U24", mulHiU32U24},
      {"V_MUL_I32_I24", mulI32I24},
      {"V_MUL_HI_I32_I24", mulHiI32I24},
      {"V_MAD_U32_U24", madU32U24},
      {"V_MAD_I32_I24", madI32I24},
      {"V_LSHLREV_B32", lshlrevB32},
      {"V_LSHRREV_B32", lshrrevB32},
      {"V_ASHRREV_I32", ashrrevI32},
      {"V_AND_B32", andB32},
      {"V_OR_B32", orB32},
      {"V_XOR_B32", xorB32},
      {"V_XNOR_B32", xnorB32},
      {"V_NOT_B32", notB32},
      {"V_BFE_U32", bfeU32},
      {"V_BFE_I32", bfeI32},
      {"V_BFI_B32", bfiB32},
      {"V_BFM_B32", bfmB32},
      {"V_PERM_B32", permB32},
      {"V_ALIGNBIT_B32", alignbitB32},
      {"V_ALIGNBYTE_B32", alignbyteB32},
      {"V_LSHL_ADD_U32", lshlAddU32},
      {"V_ADD_LSHL_U32", addLshlU32},
      {"V_ADD3_U32", add3U32},
      {"V_LSHL_OR_B32", lshlOrB32},
      {"V_AND_OR_B32", andOrB32},
      {"V_OR3_B32", or3B32},
      {"V_BITOP3_B16", bitop3B16},
      {"V_XAD_U32", xadU32},
      {"V_MIN_U32", minU32},
      {"V_MAX_U32", maxU32},
      {"V_MIN_I32", minI32},
      {"V_MAX_I32", maxI32},
      {"V_BCNT_U32_B32", bcntU32},
      {"V_CVT_F32_F16", cvtF32F16},
      {"V_MIN3_U32", min3U32},
      {"V_MAX3_U32", max3U32},
      {"V_MED3_U32", med3U32},
      {"V_PK_MAX_U16", pkIntOp16<PkMaxU16>},
      {"V_PK_MIN_U16", pkIntOp16<PkMinU16>},
      {"V_PK_ADD_U16", pkIntOp16<PkAddU16>},
      {"V_PK_LSHRREV_B16", pkIntOp16<PkLshrrevB16>},
      {"V_MIN3_I32", min3I32},
      {"V_MAX3_I32", max3I32},
      {"V_FFBH_U32", ffbhU32},
      {"V_CVT_F32_U32", cvtF32U32},
      {"V_CVT_F32_I32", cvtF32I32},
      {"V_CVT_F32_UBYTE0", cvtF32Ubyte0},
      {"V_CVT_U32_F32", cvtU32F32},
      {"V_CVT_I32_F32", cvtI32F32},
      {"V_ADD_F32", addF32},
      {"V_SUB_F32", subF32},
      {"V_SUBREV_F32", subrevF32},
      {"V_MUL_F32", mulF32},
      {"V_FMA_F32", fmaF32},
      {"V_FMAC_F32", fmacF32},
      {"V_FMAMK_F32", fmaLiteralF32<false>},
      {"V_FMAAK_F32", fmaLiteralF32<true>},
      {"V_MIN_F32", minF32},
      {"V_MAX_F32", maxF32},
      {"V_RCP_F32", rcpF32},
      {"V_RCP_IFLAG_F32", rcpF32},
      {"V_TRUNC_F32", truncF32},
      {"V_FLOOR_F32", floorF32},
      {"V_CVT_PK_BF16_F32", cvtPkBf16F32},
      {"V_MOV_B64", movB64},
      {"V_LSHLREV_B64", lshlrevB64},
      {"V_LSHRREV_B64", lshrrevB64},
      {"V_ASHRREV_I64", ashrrevI64},
      {"V_PK_MOV_B32", pkMovB32},
      {"V_PK_ADD_F32", pkAddF32},
      {"V_ADD_CO_U32", carryOp<0>},
      {"V_SUB_CO_U32", carryOp<1>},
      {"V_SUBREV_CO_U32", carryOp<2>},
      {"V_ADDC_CO_U32", carryOp<3>},
      {"V_SUBB_CO_U32", carryOp<4>},
      {"V_SUBBREV_CO_U32", carryOp<5>},
      {"V_MAD_U64_U32", madU64U32},
      {"V_LSHL_ADD_U64", lshlAddU64},
      {"V_BITOP3_B32", bitop3B32},
      {"V_ALIGNBIT_B32_opsel", withZeroOpSel<alignbitB32>},
      {"V_ALIGNBYTE_B32_opsel", withZeroOpSel<alignbyteB32>},
      {"V_OR_B32_sdwa", sdwaOp<OpOr, 2>},
      {"V_AND_B32_sdwa", sdwaOp<OpAnd, 2>},
      {"V_XOR_B32_sdwa", sdwaOp<OpXor, 2>},
      {"V_ADD_U32_sdwa", sdwaOp<OpAdd, 2>},
      {"V_SUB_U32_sdwa", sdwaOp<OpSub, 2>},
      {"V_SUBREV_U32_sdwa", sdwaOp<OpSubrev, 2>},
      {"V_LSHLREV_B32_sdwa", sdwaOp<OpLshlrev, 2>},
      {"V_LSHRREV_B32_sdwa", sdwaOp<OpLshrrev, 2>},
      {"V_ASHRREV_I32_sdwa", sdwaOp<OpAshrrev, 2>},
      {"V_MUL_U32_U24_sdwa", sdwaOp<OpMulU24, 2>},
      {"V_MIN_U32_sdwa", sdwaOp<OpMinU32, 2>},
      {"V_MAX_U32_sdwa", sdwaOp<OpMaxU32, 2>},
      {"V_MAX_U32_dpp", dppOp<OpMaxU32, 2>},
      {"V_MIN_U32_dpp", dppOp<OpMinU32, 2>},
      {"V_MOV_B32_dpp", dppOp<OpMov, 1>},
      {"V_ADD_U16", addU16},
      {"V_SUB_U16", subU16},
      {"V_SUBREV_U16", subrevU16},
      {"V_MUL_LO_U16", mulLoU16},
      {"V_LSHLREV_B16", lshlrevB16},
      {"V_LSHRREV_B16", lshrrevB16},
      {"V_ASHRREV_I16", ashrrevI16},
      {"V_MAX_U16", maxU16},
      {"V_MIN_U16", minU16},
      {"V_MAX_I16", maxI16},
      {"V_MIN_I16", minI16},
      {"V_MAD_U16", madU16},
      {"V_MAD_I16", madI16},
      // gfx9 names of the VI-encoded v_mad_u16/i16 (high half zeroed).
      {"V_MAD_LEGACY_U16", madU16},
      {"V_MAD_LEGACY_I16", madI16},
      {"V_ADD_U16_sdwa", sdwaOp<OpAddU16, 2>},
      {"V_SUB_U16_sdwa", sdwaOp<OpSubU16, 2>},
      {"V_SUBREV_U16_sdwa", sdwaOp<OpSubrevU16, 2>},
      {"V_MUL_LO_U16_sdwa", sdwaOp<OpMulLoU16, 2>},
      {"V_LSHLREV_B16_sdwa", sdwaOp<OpLshlrevB16, 2>},
      {"V_LSHRREV_B16_sdwa", sdwaOp<OpLshrrevB16, 2>},
      {"V_ASHRREV_I16_sdwa", sdwaOp<OpAshrrevI16, 2>},
      {"V_MAX_U16_sdwa", sdwaOp<OpMaxU16, 2>},
      {"V_MIN_U16_sdwa", sdwaOp<OpMinU16, 2>},
      {"V_MOV_B32_sdwa", sdwaOp<OpMov, 1>},
      {"V_NOT_B32_sdwa", sdwaOp<OpNot, 1>},
      {"V_CVT_F32_F16_sdwa", sdwaOp<OpCvtF32F16, 1>},
      {"V_CVT_F32_U32_sdwa", sdwaFloatResult<OpCvtF32U32>},
      {"V_CNDMASK_B32", cndmask},
      {"V_READFIRSTLANE_B32", readfirstlane},
      {"V_READLANE_B32", readlane},
      {"V_WRITELANE_B32", writelane},
      {"V_MBCNT_LO_U32_B32", mbcnt<false>},
      {"V_MBCNT_HI_U32_B32", mbcnt<true>},
      // AGPRs are slots 256..511 of the same file: moves are plain moves.
      {"V_ACCVGPR_READ_B32", movB32},
      {"V_ACCVGPR_WRITE_B32", movB32},
      {"V_ACCVGPR_MOV_B32", movB32},
      {"V_NOP", vnop}};
  for (auto &e : ops)
    add(e.name, e.fn, 0, 0);
  // Low result dword from low source dwords only (see FlagLowToHigh): LLVM
  // adds a 32-bit offset to the low half with v_mad_u64_u32 and a garbage
  // high half it then discards.
  add("V_MAD_U64_U32", madU64U32, 0, FlagLowToHigh);
  add("V_MAD_I64_I32", madI64I32, 0, FlagLowToHigh);
  add("V_LSHL_ADD_U64", lshlAddU64, 0, FlagLowToHigh);
  add("V_LSHLREV_B64", lshlrevB64, 0, FlagLowToHigh);
  const char *intOps[] = {"F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"};
  const char *types[] = {"U32", "I32", "U64", "I64", "F32", "U16", "I16"};
  for (unsigned t : {0u, 1u, 2u, 3u, 5u, 6u})
    for (unsigned o = 0; o < 8; ++o) {
      std::string n = std::string(intOps[o]) + "_" + types[t];
      add("V_CMP_" + n, vcmp, o | (t << 4), 0);
      add("V_CMPX_" + n, vcmp, o | (t << 4) | 0x100, 0);
      if (t == 0 || t == 1 || t >= 5)
        add("V_CMP_" + n + "_sdwa", vcmpSdwa, o | (t << 4), 0);
    }
  const char *fOps[] = {"F", "LT",  "EQ",  "LE",  "GT",  "LG",  "GE",  "O",
                        "U", "NGE", "NLG", "NGT", "NLE", "NEQ", "NLT", "TRU"};
  for (unsigned o = 0; o < 16; ++o) {
    add(std::string("V_CMP_") + fOps[o] + "_F32", vcmp, o | (4 << 4), 0);
    add(std::string("V_CMPX_") + fOps[o] + "_F32", vcmp, o | (4 << 4) | 0x100,
        0);
  }
}
