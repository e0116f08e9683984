//===- LowerQuantize.cpp - mxgemm-lower-quantize: op -> gfx950 kernel -----===//
//
// A stream: with row-major [M, K] and K % 32 == 0 the 32-element blocks
// are contiguous and numbered like the scales. A block is spread over a
// quad of lanes (8 values each) so that every load instruction of a wave
// reads whole 128-byte lines; the quad agrees on the block's amax through
// two DPP max steps. The element conversion is integer arithmetic on the
// bit patterns so that it is the reference quantizer's rule
// (numerics::encodeFP8) by construction.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Dialect/MXGemm/Transforms/DataKernel.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

#include <optional>

using namespace mlir;

#define DEBUG_TYPE "mxgemm-lower-quantize"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMLOWERQUANTIZE
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// Threads per workgroup: four wave64s, one per SIMD of a gfx950 CU.
constexpr int64_t kQuantizeWorkgroupSize = 256;
/// Blocks per workgroup (the runtime's grid rule,
/// contract::QuantizeDescriptor::kBlocksPerWorkgroup).
constexpr int64_t kBlocksPerWorkgroup = 256;
/// A block is spread over a quad of lanes, each holding 8 consecutive
/// values (16 bytes of BF16/FP16), so that consecutive lanes read
/// consecutive 16-byte pieces and one load instruction of a wave covers
/// whole cache lines; each lane does kChunksPerLane such pieces.
constexpr int64_t kLanesPerBlock = 4;
constexpr int64_t kValuesPerLane = numerics::kMXBlockSize / kLanesPerBlock;
constexpr int64_t kChunksPerLane =
    kBlocksPerWorkgroup * kLanesPerBlock / kQuantizeWorkgroupSize;

/// The parameters of the integer FP8 encoder (numerics::encodeFP8's table).
struct FP8Encoding {
  int32_t mantBits, minNormalExp, maxExp, maxCode, nanCode, infCode;
};

FP8Encoding getEncoding(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return {3, -6, 8, 0x7e, 0x7f, 0x7e};
  return {2, -14, 15, 0x7b, 0x7e, 0x7c};
}

/// Shared exponent of a block with finite amax bits `amax`:
/// floor(log2(amax)) - emax clamped to [-127, 127], 0 for an all-zero
/// block; a subnormal amax (biased exponent 0) lands below -127 and clamps
/// like the reference.
Value buildSharedExponent(OpBuilder &b, Location loc, Value amax,
                          const FP8Encoding &enc) {
  auto scalar = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  Value amaxExp = arith::ShRUIOp::create(b, loc, amax, scalar(23));
  Value e = arith::SubIOp::create(b, loc, amaxExp, scalar(127 + enc.maxExp));
  e = arith::MaxSIOp::create(b, loc, e, scalar(-127));
  e = arith::MinSIOp::create(b, loc, e, scalar(127));
  Value allZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, amax, scalar(0));
  return arith::SelectOp::create(b, loc, allZero, scalar(0), e);
}

/// The smallest shared exponent the short path takes: its subnormal-range
/// operand 2^-(E + emin - p - 2) times a value must stay an FP32 normal.
int32_t minFastExponent(const FP8Encoding &enc) {
  return -124 - enc.minNormalExp + enc.mantBits;
}

/// Packs 4k code magnitudes (i32 lanes below 2^16) into k little-endian
/// dwords, byte i = code i. With `saturate`, each code is first limited to
/// `saturate` with one v_pk_min_u16 per two codes: dword halves pair codes
/// (i, i + 2) and (i + 1, i + 3), joined by a shift of 8.
Value packCodes(OpBuilder &b, Location loc, Value codes,
                std::optional<int64_t> saturate) {
  const int64_t n = cast<VectorType>(codes.getType()).getNumElements();
  auto i32 = b.getI32Type();
  auto halves = VectorType::get({2}, b.getI16Type());
  auto scalar = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  auto code = [&](int64_t i) -> Value {
    return vector::ExtractOp::create(b, loc, codes, ArrayRef<int64_t>{i});
  };
  auto pair = [&](int64_t i, int64_t j) -> Value {
    Value x = vector::FromElementsOp::create(
        b, loc, halves,
        ValueRange{arith::TruncIOp::create(b, loc, b.getI16Type(), code(i)),
                   arith::TruncIOp::create(b, loc, b.getI16Type(), code(j))});
    if (saturate)
      x = arith::MinUIOp::create(
          b, loc, x,
          arith::ConstantOp::create(
              b, loc, halves,
              DenseElementsAttr::get(halves, b.getI16IntegerAttr(*saturate))));
    return vector::ExtractOp::create(
        b, loc, vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), x),
        ArrayRef<int64_t>{0});
  };
  SmallVector<Value> words;
  for (int64_t i = 0; i < n; i += 4)
    words.push_back(arith::OrIOp::create(
        b, loc, pair(i, i + 2),
        arith::ShLIOp::create(b, loc, pair(i + 1, i + 3), scalar(8))));
  return vector::FromElementsOp::create(b, loc, VectorType::get({n / 4}, i32),
                                        words);
}

/// The code magnitudes of values with magnitudes `abs` (FP32 bit patterns)
/// and shared exponent `e`, for every block (the reference's algorithm step
/// by step), packed.
Value buildExactCodes(OpBuilder &b, Location loc, Value abs, Value e,
                      const FP8Encoding &enc) {
  const int64_t n = cast<VectorType>(abs.getType()).getNumElements();
  auto i32 = b.getI32Type();
  auto vecI32 = VectorType::get({n}, i32);
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, vecI32, DenseElementsAttr::get(vecI32, b.getI32IntegerAttr(v)));
  };
  auto toVec = [&](Value s) -> Value {
    return vector::BroadcastOp::create(b, loc, vecI32, s);
  };
  // Every element as mant * 2^(exp - 23) with mant in [2^23, 2^24) (0 for
  // zeros): FP32 subnormals are normalised with a leading-zero count.
  Value isSub = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, abs,
                                      splat(0x800000));
  Value lz = LLVM::CountLeadingZerosOp::create(b, loc, vecI32, abs,
                                               /*is_zero_poison=*/false);
  Value subShift = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, lz, splat(8)), splat(0));
  Value subMant = arith::ShLIOp::create(b, loc, abs, subShift);
  Value subExp = arith::SubIOp::create(b, loc, splat(-118), lz);
  Value normMant = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, abs, splat(0x7fffff)),
      splat(0x800000));
  Value normExp = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, abs, splat(23)), splat(127));
  Value mant = arith::SelectOp::create(b, loc, isSub, subMant, normMant);
  Value exp = arith::SelectOp::create(b, loc, isSub, subExp, normExp);

  // The scaled value's binade t = exp - e; below the FP8 normal range the
  // quantum stays that of the smallest binade (subnormal codes).
  Value t = arith::SubIOp::create(b, loc, exp, toVec(e));
  Value deficit = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, splat(enc.minNormalExp), t),
      splat(0));
  // Shifts of 25 or more give 0 (mant < 2^24); cap at 31 to stay defined.
  Value shift = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, deficit, splat(23 - enc.mantBits)),
      splat(31));
  Value q = arith::ShRUIOp::create(b, loc, mant, shift);
  Value one = splat(1);
  Value mask = arith::SubIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, one, shift), one);
  Value rem = arith::AndIOp::create(b, loc, mant, mask);
  Value half = arith::ShLIOp::create(b, loc, one,
                                     arith::SubIOp::create(b, loc, shift, one));
  Value above =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, rem, half);
  Value tie =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, half);
  Value odd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, loc, q, one), splat(0));
  Value up = arith::OrIOp::create(b, loc, above,
                                  arith::AndIOp::create(b, loc, tie, odd));
  Value rounded = arith::AddIOp::create(
      b, loc, q, arith::ExtUIOp::create(b, loc, vecI32, up));
  // (binade - emin) << mantBits + significand: a carry out of the
  // significand moves to the next binade by itself.
  Value binade = arith::MaxSIOp::create(b, loc, t, splat(enc.minNormalExp));
  Value code = arith::AddIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, binade, splat(enc.minNormalExp)),
          splat(enc.mantBits)),
      rounded);
  code = arith::MinSIOp::create(b, loc, code, splat(enc.maxCode));
  Value isInf = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, abs,
                                      splat(0x7f800000));
  Value isNan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, abs,
                                      splat(0x7f800000));
  code = arith::SelectOp::create(b, loc, isInf, splat(enc.infCode), code);
  code = arith::SelectOp::create(b, loc, isNan, splat(enc.nanCode), code);
  return packCodes(b, loc, code, std::nullopt);
}

/// The codes of a block with finite values and e >= minFastExponent: no
/// normalisation, no variable shift. With S the scale 2^e:
///  - |x| >= 2^(e + emin) (an FP8 normal): subtracting (e - bias) from the
///    FP32 exponent field makes the bits those of |x| / S with the FP8
///    bias; rounding to nearest even at bit 23 - p (the BF16 trick) and a
///    shift leave the code, carries included; a minimum saturates it.
///  - below (an FP8 subnormal or zero): |x| 2^-(e + emin - p) is below
///    2^p; adding 2^23 in FP32 rounds it to an integer, to nearest even
///    (v_add_f32, all operands normal), and that integer is the code. The
///    scaling is exponent arithmetic on |x| clamped from below at
///    2^(e + emin - p - 2) (anything below rounds to 0 anyway), so it
///    stays an FP32 normal.
Value buildFastCodes(OpBuilder &b, Location loc, Value abs, Value e,
                     const FP8Encoding &enc) {
  const int64_t n = cast<VectorType>(abs.getType()).getNumElements();
  auto i32 = b.getI32Type();
  auto vecI32 = VectorType::get({n}, i32);
  auto vecF32 = VectorType::get({n}, b.getF32Type());
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, vecI32, DenseElementsAttr::get(vecI32, b.getI32IntegerAttr(v)));
  };
  auto scalar = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  // Per-block constants (scalars per lane, then broadcast).
  auto exponentBits = [&](int64_t offset) -> Value {
    return vector::BroadcastOp::create(
        b, loc, vecI32,
        arith::ShLIOp::create(b, loc,
                              arith::AddIOp::create(b, loc, e, scalar(offset)),
                              scalar(23)));
  };
  const int64_t p = enc.mantBits, emin = enc.minNormalExp;
  const int64_t bias = 1 - emin, shift = 23 - p;
  Value normalStart = exponentBits(127 + emin); // bits of 2^(e + emin)
  // 2^(shift-1) - 1 - ((e + 127 - bias) << 23): rebias and round in one add.
  Value rebiasAndHalf = vector::BroadcastOp::create(
      b, loc, vecI32,
      arith::SubIOp::create(
          b, loc, scalar((int64_t(1) << (shift - 1)) - 1),
          arith::ShLIOp::create(
              b, loc, arith::AddIOp::create(b, loc, e, scalar(127 - bias)),
              scalar(23))));
  Value subScale = exponentBits(emin - p); // (e + emin - p) << 23
  Value subFloor = exponentBits(127 + emin - p - 2);

  // Normal range: (abs - rebias + 2^(shift-1) - 1 + lsb) >> shift.
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, abs, splat(shift)), splat(1));
  Value rounded = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, abs, rebiasAndHalf), lsb);
  // Saturated when packed; below 2^16 (|x| / S < 2^(emax + 1)), or where
  // it wrapped (|x| below the FP8 normals) replaced by the subnormal code.
  Value normal = arith::ShRUIOp::create(b, loc, rounded, splat(shift));

  // Subnormal range, only in a wave where some lane's block has an element
  // below 2^(e + emin) (rare for activations: about 2^-14 of amax).
  Value smallest =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::MINUI, abs);
  Value anyBelow = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, smallest,
      arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, scalar(127 + emin)),
          scalar(23)));
  auto below = scf::IfOp::create(b, loc, TypeRange{vecI32}, anyBelow,
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(below.thenBlock());
  {
    // Subnormal range: bits(|x| 2^-(e + emin - p) + 2^23) - bits(2^23).
    Value scaled = arith::SubIOp::create(
        b, loc, arith::MaxUIOp::create(b, loc, abs, subFloor), subScale);
    Value magic = arith::ConstantOp::create(
        b, loc, vecF32,
        DenseElementsAttr::get(vecF32, b.getF32FloatAttr(8388608.0f)));
    Value sum = arith::AddFOp::create(
        b, loc, arith::BitcastOp::create(b, loc, vecF32, scaled), magic);
    // bits(sum) - bits(2^23) is the code.
    Value sub = arith::SubIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, vecI32, sum),
        splat(0x4b000000));

    Value isNormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           abs, normalStart);
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::SelectOp::create(b, loc, isNormal, normal, sub)});
  }
  b.setInsertionPointToStart(below.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{normal});
  b.setInsertionPointAfter(below);
  return packCodes(b, loc, below.getResult(0), enc.maxCode);
}

/// A 16-bit input format: BF16 or FP16.
struct HalfFormat {
  int64_t mantBits, bias;
};

HalfFormat getHalfFormat(Type element) {
  return element.isBF16() ? HalfFormat{7, 127} : HalfFormat{10, 15};
}

/// buildFastCodes on BF16/FP16 magnitudes, two per dword (`absPairs`),
/// when every element is a normal of the input format and an FP8 normal or
/// above: the same rebias-and-round on the 16-bit pattern, with the
/// rounding bit at m - p for an m-bit input significand (for BF16, the top
/// half of the FP32 pattern, the results are equal by construction; FP16
/// is rebiased from its own exponent bias). Each half's (|x| - rebias)
/// lies in [0, 2^16) then, so one 32-bit add3 rounds both halves without a
/// carry between them; a v_pk_lshrrev_b16 and a v_pk_min_u16 finish two
/// codes, and a byte permutation packs four.
Value buildFastCodes16(OpBuilder &b, Location loc, Value absPairs, Value e,
                       const FP8Encoding &enc, const HalfFormat &in) {
  auto words = cast<VectorType>(absPairs.getType());
  const int64_t n = 2 * words.getNumElements();
  auto halves = VectorType::get({n}, b.getI16Type());
  auto scalar = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  auto wordSplat = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, words,
        DenseElementsAttr::get(words, b.getI32IntegerAttr(int32_t(v))));
  };
  auto halfSplat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, halves,
        DenseElementsAttr::get(halves, b.getI16IntegerAttr(int16_t(v))));
  };
  const int64_t p = enc.mantBits, bias = 1 - enc.minNormalExp;
  const int64_t shift = in.mantBits - p;
  // k = 2^(shift-1) - 1 - ((e + inBias - bias) << m) in both halves:
  // k * 0x10001 (modulo 2^32).
  Value k = arith::SubIOp::create(
      b, loc, scalar((int64_t(1) << (shift - 1)) - 1),
      arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, scalar(in.bias - bias)),
          scalar(in.mantBits)));
  Value kk = vector::BroadcastOp::create(
      b, loc, words, arith::MulIOp::create(b, loc, k, scalar(0x10001)));
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, absPairs, wordSplat(shift)),
      wordSplat(0x00010001));
  Value rounded = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, absPairs, kk), lsb);
  Value code = arith::MinUIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc,
                             vector::BitCastOp::create(b, loc, halves, rounded),
                             halfSplat(shift)),
      halfSplat(enc.maxCode));
  // v_perm_b32 (llvm.amdgcn.perm: byte i of the result is byte sel_i of
  // {src0, src1}, src1 the low dword): bytes 0 and 2 of two dwords, four
  // codes. LLVM does not find this permutation in a byte shuffle of codes
  // it knows to be below 2^8.
  Value codeWords = vector::BitCastOp::create(b, loc, words, code);
  Value select = scalar(0x06040200);
  SmallVector<Value> packed;
  for (int64_t i = 0; i < words.getNumElements(); i += 2) {
    Value lo =
        vector::ExtractOp::create(b, loc, codeWords, ArrayRef<int64_t>{i});
    Value hi =
        vector::ExtractOp::create(b, loc, codeWords, ArrayRef<int64_t>{i + 1});
    packed.push_back(
        LLVM::CallIntrinsicOp::create(b, loc, b.getI32Type(),
                                      b.getStringAttr("llvm.amdgcn.perm"),
                                      ValueRange{hi, lo, select})
            .getResult(0));
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({n / 4}, b.getI32Type()), packed);
}

/// DPP quad permutations (dpp_ctrl quad_perm:[1,0,3,2] and [2,3,0,1]):
/// after a max with each in turn, every lane of a quad holds the quad's max.
constexpr uint32_t kQuadSwapPairs = 0xb1, kQuadSwapHalves = 0x4e;

/// The maximum of the i32 `v` over the four lanes of a quad (the lanes that
/// share a block). rocdl.update.dpp with full row and bank masks: LLVM folds
/// each permutation into the DPP source of a v_max_u32, so the reduction
/// costs two VALU instructions and no LDS traffic. All four lanes of a quad
/// are active wherever this runs (every branch condition is per block).
Value buildQuadMax(OpBuilder &b, Location loc, Value v) {
  Value poison = LLVM::PoisonOp::create(b, loc, v.getType());
  for (uint32_t perm : {kQuadSwapPairs, kQuadSwapHalves}) {
    Value other = ROCDL::DPPUpdateOp::create(b, loc, v.getType(), poison, v,
                                             perm, /*rowMask=*/0xf,
                                             /*bankMask=*/0xf,
                                             /*boundCtrl=*/true);
    v = arith::MaxUIOp::create(b, loc, v, other);
  }
  return v;
}

/// One lane's share of a block: `values` are the kLanesPerBlock-th part of
/// the block at element `offset` (lane q of the block's quad holds values
/// 8q..8q+7). Writes their 8 codes at `codes[offset]` when `valid`, and
/// has `storeScale` write the block's scale byte (i8) when `writesScale`
/// (lane 0 of a valid quad).
void buildChunk(OpBuilder &b, Location loc, Value values, Value codes,
                Value offset, Value valid, Value writesScale,
                llvm::function_ref<void(OpBuilder &, Value)> storeScale,
                const FP8Encoding &enc) {
  auto inType = cast<VectorType>(values.getType());
  const int64_t n = inType.getNumElements();
  auto i32 = b.getI32Type();
  auto vecI32 = VectorType::get({n}, i32);
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, vecI32, DenseElementsAttr::get(vecI32, b.getI32IntegerAttr(v)));
  };
  auto scalar = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };

  // Magnitudes as FP32 bit patterns, computed two at a time on the packed
  // BF16/FP16 words (widening is exact).
  auto words = VectorType::get({n * inType.getElementTypeBitWidth() / 32}, i32);
  auto wordSplat = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, words,
        DenseElementsAttr::get(words, b.getI32IntegerAttr(int32_t(v))));
  };
  Value raw = vector::BitCastOp::create(b, loc, words, values);
  // BF16/FP16: the magnitudes stay 16-bit patterns (abs16, two per dword
  // in absPairs) on the common path; widen() builds the FP32 ones where a
  // path needs them.
  const bool packed = !inType.getElementType().isF32();
  const bool isBF16 = inType.getElementType().isBF16();
  Value abs, abs16, absPairs;
  auto widen = [&]() -> Value {
    if (!isBF16) {
      Value halves = vector::BitCastOp::create(b, loc, inType, absPairs);
      return arith::BitcastOp::create(
          b, loc, vecI32,
          arith::ExtFOp::create(b, loc, VectorType::get({n}, b.getF32Type()),
                                halves));
    }
    // A BF16 pattern is the top half of the FP32 one.
    Value even = arith::ShLIOp::create(b, loc, absPairs, wordSplat(16));
    Value odd = arith::AndIOp::create(b, loc, absPairs, wordSplat(0xffff0000));
    SmallVector<int64_t> interleave;
    for (int64_t i = 0; i < n / 2; ++i)
      interleave.append({i, n / 2 + i});
    return vector::ShuffleOp::create(b, loc, even, odd, interleave);
  };
  if (!packed) {
    abs = arith::AndIOp::create(b, loc, raw, wordSplat(0x7fffffff));
  } else {
    absPairs = arith::AndIOp::create(b, loc, raw, wordSplat(0x7fff7fff));
    abs16 = vector::BitCastOp::create(
        b, loc, VectorType::get({n}, b.getI16Type()), absPairs);
  }
  // The sign bits, already at bit 7 of each code byte: the top byte of
  // each value, picked by one byte permutation per 4 values.
  const int64_t bytesPerValue = inType.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> topBytes;
  for (int64_t i = 0; i < n; ++i)
    topBytes.push_back(i * bytesPerValue + bytesPerValue - 1);
  auto rawBytes = VectorType::get({n * bytesPerValue}, b.getI8Type());
  auto codeWords = VectorType::get({n / 4}, i32);
  Value signs = arith::AndIOp::create(
      b, loc,
      vector::BitCastOp::create(
          b, loc, codeWords,
          vector::ShuffleOp::create(
              b, loc, vector::BitCastOp::create(b, loc, rawBytes, values),
              vector::BitCastOp::create(b, loc, rawBytes, values), topBytes)),
      arith::ConstantOp::create(
          b, loc, codeWords,
          DenseElementsAttr::get(codeWords,
                                 b.getI32IntegerAttr(int32_t(0x80808080)))));

  // The block's amax; |x| bit patterns order like |x|. A block with a NaN
  // or inf takes the general path, which takes the amax of its finite
  // elements.
  Value largest;
  if (packed) {
    Value local16 = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::MAXUI, abs16);
    Value quad16 =
        buildQuadMax(b, loc, arith::ExtUIOp::create(b, loc, i32, local16));
    if (isBF16) {
      largest = arith::ShLIOp::create(b, loc, quad16, scalar(16));
    } else {
      Value half = arith::BitcastOp::create(
          b, loc, b.getF16Type(),
          arith::TruncIOp::create(b, loc, b.getI16Type(), quad16));
      largest = arith::BitcastOp::create(
          b, loc, i32, arith::ExtFOp::create(b, loc, b.getF32Type(), half));
    }
  } else {
    largest = buildQuadMax(
        b, loc,
        vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXUI, abs));
  }
  Value nonFinite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          largest, scalar(0x7f800000));
  Value e = buildSharedExponent(b, loc, largest, enc);
  Value scale = arith::AddIOp::create(b, loc, e, scalar(127));
  scale = arith::SelectOp::create(b, loc, nonFinite, scalar(255), scale);

  // The common block takes the short path; a block with a NaN or inf, or
  // one so small that the short path's exponent arithmetic would leave the
  // FP32 normal range, takes the general one (a divergent branch that costs
  // nothing when no lane of the wave takes it; the four lanes of a block
  // always agree).
  Value tooSmall = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, e,
                                         scalar(minFastExponent(enc)));
  Value general = arith::OrIOp::create(b, loc, nonFinite, tooSmall);
  auto branch = scf::IfOp::create(b, loc, TypeRange{codeWords}, general,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  {
    if (packed)
      abs = widen();
    Value finite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, abs,
                                         splat(0x7f800000));
    Value finiteAbs = arith::SelectOp::create(b, loc, finite, abs, splat(0));
    Value amax =
        buildQuadMax(b, loc,
                     vector::ReductionOp::create(
                         b, loc, vector::CombiningKind::MAXUI, finiteAbs));
    Value finiteE = buildSharedExponent(b, loc, amax, enc);
    scf::YieldOp::create(b, loc, buildExactCodes(b, loc, abs, finiteE, enc));
  }
  b.setInsertionPointToStart(branch.elseBlock());
  if (!packed) {
    scf::YieldOp::create(b, loc, buildFastCodes(b, loc, abs, e, enc));
  } else {
    // The 16-bit path when no element is below the FP8 normals (2^(e +
    // emin)) or the input format's normals, else the FP32 one with its
    // subnormal step.
    const HalfFormat in = getHalfFormat(inType.getElementType());
    Value smallest = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::MINUI, abs16);
    Value normalStart = arith::TruncIOp::create(
        b, loc, b.getI16Type(),
        arith::ShLIOp::create(
            b, loc,
            arith::MaxSIOp::create(
                b, loc,
                arith::AddIOp::create(b, loc, e,
                                      scalar(in.bias + enc.minNormalExp)),
                scalar(1)),
            scalar(in.mantBits)));
    Value anyBelow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           smallest, normalStart);
    auto below = scf::IfOp::create(b, loc, TypeRange{codeWords}, anyBelow,
                                   /*withElseRegion=*/true);
    b.setInsertionPointToStart(below.thenBlock());
    scf::YieldOp::create(b, loc, buildFastCodes(b, loc, widen(), e, enc));
    b.setInsertionPointToStart(below.elseBlock());
    scf::YieldOp::create(b, loc,
                         buildFastCodes16(b, loc, absPairs, e, enc, in));
    b.setInsertionPointAfter(below);
    scf::YieldOp::create(b, loc, below.getResult(0));
  }
  b.setInsertionPointAfter(branch);

  auto store = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
  b.setInsertionPointToStart(store.thenBlock());
  Value codeBytes = vector::BitCastOp::create(
      b, loc, VectorType::get({n}, b.getI8Type()),
      arith::OrIOp::create(b, loc, branch.getResult(0), signs));
  vector::StoreOp::create(b, loc, codeBytes, codes, ValueRange{offset});
  b.setInsertionPointAfter(store);
  auto storeIf =
      scf::IfOp::create(b, loc, writesScale, /*withElseRegion=*/false);
  b.setInsertionPointToStart(storeIf.thenBlock());
  storeScale(b, arith::TruncIOp::create(b, loc, b.getI8Type(), scale));
  b.setInsertionPointAfter(storeIf);
}

/// Stores the scale byte of the block `local` blocks after (rowStart,
/// colStart) (the workgroup's first block, row-major) at its place in the
/// MFMA-native `layout` (contract/ScaleLayout.h: chunks of R rows x 4G
/// blocks, a lane's G-block steps in one dword). The blocks of the last row
/// and the last column also write the padding beyond them (127, E8M0 1.0):
/// rows up to a multiple of R, blocks up to whole chunks, so that nobody
/// else must.
void storeNativeScale(OpBuilder &b, Location loc, Value scales, Value byte,
                      Value rowStart, Value colStart, Value local, Value m,
                      Value kBlocks, contract::ScaleLayout layout) {
  const int64_t rowGroup = contract::scaleLayoutRowGroup(layout);
  const int64_t steps = contract::scaleLayoutBlocksPerStep(layout);
  const int64_t chunkBlocks = 4 * steps;
  // Rows (< M < 2^31) and columns (< K/32 < 2^26) in 32 bits; only the
  // chunk number times 256 needs 64 (one 32 x 32 -> 64-bit multiply).
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  auto to32 = [&](Value v) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i32, v);
  };
  auto to64 = [&](Value v) -> Value {
    return arith::ExtUIOp::create(b, loc, i64, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, c(y));
  };
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, c(y));
  };
  Value kb = to32(kBlocks), rows = to32(m);
  Value chunks = div(add(kb, c(chunkBlocks - 1)), chunkBlocks);
  auto offsetOf = [&](Value row, Value col) -> Value {
    Value chunk = add(mul(to64(div(row, rowGroup)), to64(chunks)),
                      to64(div(col, chunkBlocks)));
    Value lane = add(mul(rem(col, steps), c(rowGroup)), rem(row, rowGroup));
    Value inChunk = add(mul(lane, c(4)), rem(div(col, steps), 4));
    Value offset = add(mul(chunk, arith::ConstantIntOp::create(
                                      b, loc, contract::kScaleChunkBytes, 64)),
                       to64(inChunk));
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), offset);
  };
  // colStart + local < K/32 + 256 < 2^27: one 32-bit division per block.
  Value t = add(to32(colStart), to32(local));
  Value q = arith::DivUIOp::create(b, loc, t, kb);
  Value row = add(to32(rowStart), q);
  Value col = arith::SubIOp::create(b, loc, t, mul(q, kb));
  Value lastRow =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, row,
                            arith::SubIOp::create(b, loc, rows, c(1)));
  Value lastCol =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, col,
                            arith::SubIOp::create(b, loc, kb, c(1)));
  auto edge =
      scf::IfOp::create(b, loc, arith::OrIOp::create(b, loc, lastRow, lastCol),
                        /*withElseRegion=*/false);
  b.setInsertionPointToStart(edge.thenBlock());
  {
    Value rowEnd = arith::SelectOp::create(
        b, loc, lastRow,
        mul(div(add(rows, c(rowGroup - 1)), rowGroup), c(rowGroup)),
        add(row, c(1)));
    Value colEnd = arith::SelectOp::create(
        b, loc, lastCol, mul(chunks, c(chunkBlocks)), add(col, c(1)));
    Value one = arith::ConstantIntOp::create(b, loc, 127, 8);
    auto padRows = scf::ForOp::create(b, loc, row, rowEnd, c(1));
    b.setInsertionPointToStart(padRows.getBody());
    auto padCols = scf::ForOp::create(b, loc, col, colEnd, c(1));
    b.setInsertionPointToStart(padCols.getBody());
    memref::StoreOp::create(b, loc, one, scales,
                            ValueRange{offsetOf(padRows.getInductionVar(),
                                                padCols.getInductionVar())});
  }
  b.setInsertionPointAfter(edge);
  // After the padding loop, which also wrote this block's own place.
  memref::StoreOp::create(b, loc, byte, scales, ValueRange{offsetOf(row, col)});
}

struct MXGemmLowerQuantizePass
    : public impl::MXGemmLowerQuantizeBase<MXGemmLowerQuantizePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // rocdl.update.dpp (the quad reduction) and llvm.call_intrinsic (the
    // code permutation). Declared here, not in Passes.td, so that the
    // generated pass header every transform includes stays unchanged.
    registry.insert<LLVM::LLVMDialect, ROCDL::ROCDLDialect>();
  }

  void runOnOperation() override {
    SmallVector<QuantizeOp> ops;
    getOperation().walk([&](QuantizeOp op) { ops.push_back(op); });
    for (QuantizeOp op : ops) {
      if (failed(lower(op)))
        return signalPassFailure();
      ++numKernels;
    }
  }

  LogicalResult lower(QuantizeOp op) {
    func::FuncOp func = getDataKernelFunction(op, getOperation());
    if (!func)
      return failure();
    MLIRContext *ctx = &getContext();
    Type inElem = op.getInput().getType().getElementType();
    Type codeElem = op.getCodes().getType().getElementType();
    auto flat = [](Type elem) {
      return MemRefType::get({kRuntimeSizedExtent}, elem);
    };
    OpBuilder b(ctx);
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    Location loc = op.getLoc();
    gpu::GPUFuncOp kernel = createDataKernel(
        b, loc, func, {flat(inElem), flat(i8), flat(i8), i32, i32},
        kQuantizeWorkgroupSize);
    LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": kernel @" << func.getName()
                            << " (" << inElem << " -> " << codeElem << ")\n");

    Block &body = kernel.getBody().front();
    b.setInsertionPointToStart(&body);
    Value input = body.getArgument(0), codes = body.getArgument(1);
    Value scales = body.getArgument(2);
    auto index = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    };
    // M * K / 32 blocks in 64-bit index arithmetic: M, K < 2^31.
    Value rows = index(body.getArgument(3));
    Value blocksPerRow = arith::DivUIOp::create(
        b, loc, index(body.getArgument(4)),
        arith::ConstantIndexOp::create(b, loc, numerics::kMXBlockSize));
    Value numBlocks = arith::MulIOp::create(b, loc, rows, blocksPerRow);
    auto constIndex = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto constI32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    // The workgroup's blocks start at firstBlock; the last workgroup may
    // hold fewer than kBlocksPerWorkgroup, and one past the grid's end
    // (a launch larger than the rule) none.
    Value firstBlock = arith::MulIOp::create(
        b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
        constIndex(kBlocksPerWorkgroup));
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      firstBlock, numBlocks);
    // An MFMA-native layout needs the first block's row and column, once
    // per workgroup (uniform).
    Value rowStart, colStart;
    if (op.getScaleLayout() != ScaleLayout::RowMajor) {
      rowStart = arith::DivUIOp::create(b, loc, firstBlock, blocksPerRow);
      colStart = arith::RemUIOp::create(b, loc, firstBlock, blocksPerRow);
    }
    auto guard = scf::IfOp::create(b, loc, any, /*withElse=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
    Value remaining = arith::IndexCastUIOp::create(
        b, loc, i32,
        arith::MinUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, numBlocks, firstBlock),
            constIndex(kBlocksPerWorkgroup)));
    Value lastLocal = arith::SubIOp::create(b, loc, remaining, constI32(1));
    Value tid = arith::IndexCastUIOp::create(
        b, loc, i32, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value quad = arith::ShRUIOp::create(b, loc, tid, constI32(2));
    Value quadLane =
        arith::AndIOp::create(b, loc, tid, constI32(kLanesPerBlock - 1));
    Value laneOffset = index(
        arith::MulIOp::create(b, loc, quadLane, constI32(kValuesPerLane)));
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         quadLane, constI32(0));
    // All loads first, so that the four are in flight together. A lane past
    // the end loads (and converts) the last block again but stores nothing.
    auto valuesType = VectorType::get({kValuesPerLane}, inElem);
    SmallVector<Value> values, offsets, blocks, locals, valid;
    for (int64_t j = 0; j < kChunksPerLane; ++j) {
      Value local = arith::AddIOp::create(
          b, loc, quad, constI32(j * kQuantizeWorkgroupSize / kLanesPerBlock));
      valid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            local, remaining));
      locals.push_back(index(arith::MinUIOp::create(b, loc, local, lastLocal)));
      Value block = arith::AddIOp::create(b, loc, firstBlock, locals.back());
      Value offset = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, block,
                                constIndex(numerics::kMXBlockSize)),
          laneOffset);
      blocks.push_back(block);
      offsets.push_back(offset);
      values.push_back(vector::LoadOp::create(b, loc, valuesType, input,
                                              ValueRange{offset}));
    }
    const contract::ScaleLayout layout =
        contract::ScaleLayout(op.getScaleLayout());
    for (int64_t j = 0; j < kChunksPerLane; ++j)
      buildChunk(
          b, loc, values[j], codes, offsets[j], valid[j],
          arith::AndIOp::create(b, loc, valid[j], leader),
          [&](OpBuilder &sb, Value byte) {
            if (layout == contract::ScaleLayout::RowMajor)
              memref::StoreOp::create(sb, loc, byte, scales,
                                      ValueRange{blocks[j]});
            else
              storeNativeScale(sb, loc, scales, byte, rowStart, colStart,
                               locals[j], rows, blocksPerRow, layout);
          },
          getEncoding(codeElem));
    b.setInsertionPointAfter(guard);
    gpu::ReturnOp::create(b, loc);
    func.erase();
    return success();
  }
};

} // namespace
} // namespace mxgemm
