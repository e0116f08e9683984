//===- LowerToUpstream.cpp - mxgemm-lower-to-upstream: a portable reference
//===//
//
// Rewrites the problem-level GEMM as upstream linalg + arith.scaling_extf,
// the inverse of mxgemm-raise-scaled-contractions, so any upstream backend
// (the CPU path through mlir-runner, for one) can run an mxgemm problem as a
// reference. One linalg.generic dequantizes and multiplies in its body, so
// no [M, K] dequantized operand is materialised.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-lower-to-upstream"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMLOWERTOUPSTREAM
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// The operands of either form of the op; `out` is Y (memref) or init
/// (tensor).
struct GemmOperands {
  Value x, xs, w, ws, out;
  WeightScaleGranularity wScale;
};

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

/// The [M, N] f32 accumulator: `out` itself for f32 output, else a new
/// tensor / buffer of M (from X) by N.
Value createF32Like(OpBuilder &b, Location loc, Value out, Value x) {
  auto shaped = cast<ShapedType>(out.getType());
  Type f32 = b.getF32Type();
  SmallVector<Value> dyn;
  if (shaped.isDynamicDim(0))
    dyn.push_back(isTensor(x) ? Value(tensor::DimOp::create(b, loc, x, 0))
                              : Value(memref::DimOp::create(b, loc, x, 0)));
  if (isTensor(out))
    return tensor::EmptyOp::create(b, loc, shaped.getShape(), f32, dyn);
  return memref::AllocOp::create(b, loc,
                                 MemRefType::get(shaped.getShape(), f32), dyn);
}

/// Builds the reference before the op; returns Y for the tensor form.
Value buildReference(OpBuilder &b, Location loc, const GemmOperands &g) {
  MLIRContext *ctx = b.getContext();
  const bool tensors = isTensor(g.out);
  Type f32 = b.getF32Type();
  Type outElem = cast<ShapedType>(g.out.getType()).getElementType();
  Value acc = outElem.isF32() ? g.out : createF32Like(b, loc, g.out, g.x);
  // Destination-style results: one on tensors, none on memrefs.
  SmallVector<Type, 1> accResult;
  if (tensors)
    accResult.push_back(acc.getType());

  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  auto fill = linalg::FillOp::create(b, loc, accResult, ValueRange{zero},
                                     ValueRange{acc});
  if (tensors)
    acc = fill.getResult(0);

  // Y[m, n] = sum_k scaling_extf(X[m, k], Xs[m, k / 32])
  //               * scaling_extf(W[n, k], Ws[n or n / 32, k / 32])
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  AffineExpr wRow = g.wScale == WeightScaleGranularity::Block32x32
                        ? n.floorDiv(::mxgemm::contract::kScaleBlock)
                        : n;
  AffineExpr kBlock = k.floorDiv(::mxgemm::contract::kScaleBlock);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {m, k}, ctx),
                                 AffineMap::get(3, 0, {m, kBlock}, ctx),
                                 AffineMap::get(3, 0, {n, k}, ctx),
                                 AffineMap::get(3, 0, {wRow, kBlock}, ctx),
                                 AffineMap::get(3, 0, {m, n}, ctx)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  auto contraction = linalg::GenericOp::create(
      b, loc, accResult, ValueRange{g.x, g.xs, g.w, g.ws}, ValueRange{acc},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value a =
            arith::ScalingExtFOp::create(nb, nloc, f32, args[0], args[1], {});
        Value bv =
            arith::ScalingExtFOp::create(nb, nloc, f32, args[2], args[3], {});
        Value p = arith::MulFOp::create(nb, nloc, a, bv);
        Value s = arith::AddFOp::create(nb, nloc, args[4], p);
        linalg::YieldOp::create(nb, nloc, s);
      });
  if (tensors)
    acc = contraction.getResult(0);
  if (outElem.isF32())
    return tensors ? acc : Value();

  // Y = bf16(acc), round to nearest even.
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<Type, 1> outResult;
  if (tensors)
    outResult.push_back(g.out.getType());
  auto trunc = linalg::GenericOp::create(
      b, loc, outResult, ValueRange{acc}, ValueRange{g.out},
      SmallVector<AffineMap>{id, id},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value t = arith::TruncFOp::create(nb, nloc, outElem, args[0]);
        linalg::YieldOp::create(nb, nloc, t);
      });
  if (tensors)
    return trunc.getResult(0);
  memref::DeallocOp::create(b, loc, acc);
  return Value();
}

struct LowerToUpstreamPass
    : impl::MXGemmLowerToUpstreamBase<LowerToUpstreamPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<ScaledMatmulOp, ScaledMatmulTensorOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      if (auto mm = dyn_cast<ScaledMatmulOp>(op)) {
        buildReference(rewriter, op->getLoc(),
                       {mm.getX(), mm.getXScales(), mm.getW(), mm.getWScales(),
                        mm.getY(), mm.getWScale()});
        rewriter.eraseOp(op);
      } else {
        auto t = cast<ScaledMatmulTensorOp>(op);
        Value y = buildReference(rewriter, op->getLoc(),
                                 {t.getX(), t.getXScales(), t.getW(),
                                  t.getWScales(), t.getInit(), t.getWScale()});
        rewriter.replaceOp(op, y);
      }
      ++numLowered;
    }
  }
};

} // namespace
} // namespace mxgemm
