//===- LowerQuantize.cpp - mxgemm-lower-quantize: op -> gfx950 kernel -----===//
//
// One lane per 32-element block: with row-major [M, K] and K % 32 == 0 the
// blocks are contiguous and numbered like the scales, so no lane needs
// another lane's data and the kernel is a pure stream. The element
// conversion is integer arithmetic on the FP32 bit pattern so that it is
// the reference quantizer's rule (numerics::encodeFP8) by construction.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-lower-quantize"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMLOWERQUANTIZE
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// Threads per workgroup: four wave64s, one per SIMD of a gfx950 CU.
constexpr int64_t kQuantizeWorkgroupSize = 256;

/// The parameters of the integer FP8 encoder (numerics::encodeFP8's table).
struct FP8Encoding {
  int32_t mantBits, minNormalExp, maxExp, maxCode, nanCode, infCode;
};

FP8Encoding getEncoding(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return {3, -6, 8, 0x7e, 0x7f, 0x7e};
  return {2, -14, 15, 0x7b, 0x7e, 0x7c};
}

gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
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

/// The codes of 32 values (FP32 bits `bits`, magnitudes `abs`) with shared
/// exponent `e`, for every block (the reference's algorithm step by step).
Value buildExactCodes(OpBuilder &b, Location loc, Value bits, Value abs,
                      Value e, const FP8Encoding &enc) {
  const int64_t n = numerics::kMXBlockSize;
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
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, splat(24)), splat(0x80));
  code = arith::OrIOp::create(b, loc, code, sign);
  return arith::TruncIOp::create(b, loc, VectorType::get({n}, b.getI8Type()),
                                 code);
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
Value buildFastCodes(OpBuilder &b, Location loc, Value bits, Value abs, Value e,
                     const FP8Encoding &enc) {
  const int64_t n = numerics::kMXBlockSize;
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
  // Per-block constants (one lane, one block: scalars, then broadcast).
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
  Value normal = arith::MinUIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, splat(shift)),
      splat(enc.maxCode));

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
    // bits(sum) - bits(2^23) is the code; only its low byte is kept, and
    // bits(2^23) = 0x4b000000 has none.
    Value sub = arith::BitcastOp::create(b, loc, vecI32, sum);

    Value isNormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           abs, normalStart);
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::SelectOp::create(b, loc, isNormal, normal, sub)});
  }
  b.setInsertionPointToStart(below.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{normal});
  b.setInsertionPointAfter(below);
  Value code = below.getResult(0);
  // The sign on bytes: the top byte of each FP32 pattern, masked.
  auto vecI8 = VectorType::get({n}, b.getI8Type());
  Value signByte = arith::TruncIOp::create(
      b, loc, vecI8, arith::ShRUIOp::create(b, loc, bits, splat(24)));
  Value sign = arith::AndIOp::create(
      b, loc, signByte,
      arith::ConstantOp::create(
          b, loc, vecI8,
          DenseElementsAttr::get(vecI8,
                                 b.getIntegerAttr(b.getI8Type(), 0x80))));
  return arith::OrIOp::create(
      b, loc, arith::TruncIOp::create(b, loc, vecI8, code), sign);
}

/// Builds the body of one lane: quantize the block of 32 values at
/// `input[base]` into `codes[base]` and `scales[block]`.
void buildBlock(OpBuilder &b, Location loc, Value input, Value codes,
                Value scales, Value block, Type inElem,
                const FP8Encoding &enc) {
  const int64_t n = numerics::kMXBlockSize;
  auto i32 = b.getI32Type();
  auto vecI32 = VectorType::get({n}, i32);
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, vecI32, DenseElementsAttr::get(vecI32, b.getI32IntegerAttr(v)));
  };
  auto scalar = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  Value base = arith::MulIOp::create(b, loc, block,
                                     arith::ConstantIndexOp::create(b, loc, n));

  // FP32 bit patterns of the 32 values (BF16/FP16 widen exactly).
  Value values = vector::LoadOp::create(b, loc, VectorType::get({n}, inElem),
                                        input, ValueRange{base});
  if (!inElem.isF32())
    values = arith::ExtFOp::create(b, loc, VectorType::get({n}, b.getF32Type()),
                                   values);
  Value bits = arith::BitcastOp::create(b, loc, vecI32, values);
  Value abs = arith::AndIOp::create(b, loc, bits, splat(0x7fffffff));

  // amax; |x| bit patterns order like |x|. A block with a NaN or inf
  // takes the general path, which takes the amax of its finite elements.
  Value largest =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXUI, abs);
  Value nonFinite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          largest, scalar(0x7f800000));
  Value e = buildSharedExponent(b, loc, largest, enc);
  Value scale = arith::AddIOp::create(b, loc, e, scalar(127));
  scale = arith::SelectOp::create(b, loc, nonFinite, scalar(255), scale);
  memref::StoreOp::create(b, loc,
                          arith::TruncIOp::create(b, loc, b.getI8Type(), scale),
                          scales, ValueRange{block});

  // The common block takes the short path; a block with a NaN or inf, or
  // one so small that the short path's exponent arithmetic would leave the
  // FP32 normal range, takes the general one (a divergent branch that costs
  // nothing when no lane of the wave takes it).
  Value tooSmall = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, e,
                                         scalar(minFastExponent(enc)));
  Value general = arith::OrIOp::create(b, loc, nonFinite, tooSmall);
  auto bytesType = VectorType::get({n}, b.getI8Type());
  auto branch = scf::IfOp::create(b, loc, TypeRange{bytesType}, general,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  {
    Value finite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, abs,
                                         splat(0x7f800000));
    Value finiteAbs = arith::SelectOp::create(b, loc, finite, abs, splat(0));
    Value amax = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::MAXUI, finiteAbs);
    Value finiteE = buildSharedExponent(b, loc, amax, enc);
    scf::YieldOp::create(b, loc,
                         buildExactCodes(b, loc, bits, abs, finiteE, enc));
  }
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, buildFastCodes(b, loc, bits, abs, e, enc));
  b.setInsertionPointAfter(branch);
  Value bytes = branch.getResult(0);
  vector::StoreOp::create(b, loc, bytes, codes, ValueRange{base});
}

struct MXGemmLowerQuantizePass
    : public impl::MXGemmLowerQuantizeBase<MXGemmLowerQuantizePass> {
  using Base::Base;

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
    ModuleOp module = getOperation();
    auto func = op->getParentOfType<func::FuncOp>();
    if (!func || func->getParentOp() != module)
      return op.emitOpError("must be inside a top-level func.func");
    for (Operation &other : func.getBody().front())
      if (&other != op.getOperation() && !isa<func::ReturnOp>(other))
        return other.emitOpError("cannot be compiled into an mxgemm kernel: "
                                 "the function must contain only one "
                                 "mxgemm.quantize");
    MLIRContext *ctx = &getContext();
    Type inElem = op.getInput().getType().getElementType();
    Type codeElem = op.getCodes().getType().getElementType();
    auto flat = [](Type elem) {
      return MemRefType::get({kRuntimeSizedExtent}, elem);
    };
    OpBuilder b(ctx);
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
    b.setInsertionPointToEnd(kernels.getBody());
    Location loc = op.getLoc();
    auto kernel = gpu::GPUFuncOp::create(
        b, loc, func.getName(),
        b.getFunctionType({flat(inElem), flat(i8), flat(i8), i32, i32}, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    kernel.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({kQuantizeWorkgroupSize, 1, 1}));
    kernel->setAttr("rocdl.flat_work_group_size",
                    b.getStringAttr(Twine(kQuantizeWorkgroupSize) + "," +
                                    Twine(kQuantizeWorkgroupSize)));
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
    Value numBlocks = arith::MulIOp::create(
        b, loc, index(body.getArgument(3)),
        arith::DivUIOp::create(
            b, loc, index(body.getArgument(4)),
            arith::ConstantIndexOp::create(b, loc, numerics::kMXBlockSize)));
    Value block = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
            arith::ConstantIndexOp::create(b, loc, kQuantizeWorkgroupSize)),
        gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          block, numBlocks);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
    buildBlock(b, loc, input, codes, scales, block, inElem,
               getEncoding(codeElem));
    b.setInsertionPointAfter(guard);
    gpu::ReturnOp::create(b, loc);
    func.erase();
    return success();
  }
};

} // namespace
} // namespace mxgemm
