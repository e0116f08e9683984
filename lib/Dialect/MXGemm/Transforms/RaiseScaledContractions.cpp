//===- RaiseScaledContractions.cpp - upstream MX GEMMs to mxgemm ----------===//
//
// Compilers that embed mxgemm emit upstream MLIR: an MX GEMM is a linalg
// contraction of arith.scaling_extf operands whose E8M0 scales are broadcast
// along K in blocks of 32. This pass recognises that shape and replaces it
// with mxgemm.scaled_matmul_tensor. It is a pattern match over use-def
// chains, not a greedy rewrite: every candidate either matches completely or
// is left alone with a remark that names the first rule it breaks, so a user
// can see why a GEMM was not taken.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/ConfigText.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-raise-scaled-contractions"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMRAISESCALEDCONTRACTIONS
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

namespace contract = ::mxgemm::contract;

/// The attribute that opts a contraction in under `require-opt-in`.
constexpr StringLiteral kOptInAttr = "mxgemm.accept_mx_rounding";

/// Why a candidate was not raised (the remark text after "not raised to
/// mxgemm: ").
struct Miss {
  std::string reason;
};

template <typename T> using Matched = std::variant<T, Miss>;

/// An FP8 tensor with its E8M0 scales, before the broadcast.
struct ScaledOperand {
  Value values; // [R, K] FP8
  Value scales; // [R or ceil(R/32), K/32] E8M0
  WeightScaleGranularity granularity;
  SmallVector<Operation *> producers; // to erase once dead
};

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

bool isFP8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// `expr` is `d<dim> floordiv <block>`; returns the block, or 0.
int64_t floorDivBlock(AffineExpr expr, unsigned dim) {
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin || bin.getKind() != AffineExprKind::FloorDiv)
    return 0;
  auto d = dyn_cast<AffineDimExpr>(bin.getLHS());
  auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (!d || !c || d.getPosition() != dim)
    return 0;
  return c.getValue();
}

bool isDim(AffineExpr expr, unsigned dim) {
  auto d = dyn_cast<AffineDimExpr>(expr);
  return d && d.getPosition() == dim;
}

/// The block yields its first argument unchanged (a pure broadcast/copy).
bool yieldsFirstArgument(Block *body) {
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  return yield && yield.getNumOperands() == 1 &&
         yield.getOperand(0) == body->getArgument(0) &&
         body->getOperations().size() == 1;
}

std::string blockSizeMiss(const char *what, int64_t block) {
  return std::string(what) + " are broadcast in blocks of " +
         std::to_string(block) +
         " along K; the MX format has one scale per 32 K elements";
}

/// The [R, K/32] source of scales broadcast to [R, K] along K in blocks of
/// 32, and the granularity the broadcast implies.
Matched<ScaledOperand> matchScaleBroadcast(Value broadcast, bool isWeight,
                                           const char *what) {
  ScaledOperand result;
  Operation *def = broadcast.getDefiningOp();
  std::string name = what;
  if (auto generic = dyn_cast_or_null<linalg::GenericOp>(def)) {
    if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
        generic.getNumLoops() != 2 || generic.getNumReductionLoops() != 0 ||
        !yieldsFirstArgument(generic.getBody()) ||
        !generic.getIndexingMapsArray()[1].isIdentity())
      return Miss{name + " come from a linalg.generic that is not a "
                         "broadcast of its input"};
    AffineMap map = generic.getIndexingMapsArray()[0];
    if (map.getNumResults() != 2)
      return Miss{name + " are not broadcast from a 2-D tensor"};
    int64_t kBlock = floorDivBlock(map.getResult(1), 1);
    if (kBlock == 0)
      return Miss{name + " are not broadcast along K (input map " + [&] {
        std::string s;
        llvm::raw_string_ostream os(s);
        os << map;
        return s;
      }() + ")"};
    if (kBlock != contract::kScaleBlock)
      return Miss{blockSizeMiss(what, kBlock)};
    if (isDim(map.getResult(0), 0)) {
      result.granularity = WeightScaleGranularity::PerRow;
    } else if (int64_t rowBlock = floorDivBlock(map.getResult(0), 0)) {
      if (!isWeight)
        return Miss{name + " are shared by blocks of rows; the MX contract "
                           "has one activation scale per row"};
      if (rowBlock != contract::kScaleBlock)
        return Miss{name + " are shared by blocks of " +
                    std::to_string(rowBlock) +
                    " rows; mxgemm takes one per row or per 32x32 block"};
      result.granularity = WeightScaleGranularity::Block32x32;
    } else {
      return Miss{name + " are not indexed by row (or 32-row block)"};
    }
    result.scales = generic.getDpsInputs()[0];
    result.producers.push_back(generic);
    return result;
  }
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
    auto bcast = collapse.getSrc().getDefiningOp<linalg::BroadcastOp>();
    SmallVector<ReassociationIndices> reassoc =
        collapse.getReassociationIndices();
    if (!bcast || reassoc.size() != 2 ||
        reassoc[0] != ReassociationIndices{0} ||
        reassoc[1] != ReassociationIndices{1, 2} ||
        bcast.getDimensions() != ArrayRef<int64_t>{2})
      return Miss{name + " are not a [R, K/32] -> [R, K/32, B] "
                         "linalg.broadcast collapsed to [R, K]"};
    auto type = cast<ShapedType>(bcast.getInit().getType());
    if (type.isDynamicDim(2))
      return Miss{name + " are broadcast in blocks of dynamic size"};
    if (type.getDimSize(2) != contract::kScaleBlock)
      return Miss{blockSizeMiss(what, type.getDimSize(2))};
    result.granularity = WeightScaleGranularity::PerRow;
    result.scales = bcast.getInput();
    result.producers.push_back(collapse);
    result.producers.push_back(bcast);
    return result;
  }
  return Miss{name + " are not a broadcast of an E8M0 tensor along K (" +
              (def ? "produced by " + def->getName().getStringRef().str()
                   : std::string("a block argument")) +
              ")"};
}

/// `value` = arith.scaling_extf(FP8 [R, K], broadcast E8M0 scales) to f32.
Matched<ScaledOperand> matchScaledOperand(Value value, bool isWeight) {
  const char *what = isWeight ? "W scales" : "X scales";
  const char *operand = isWeight ? "B" : "A";
  auto ext = value.getDefiningOp<arith::ScalingExtFOp>();
  if (!ext)
    return Miss{std::string("operand ") + operand +
                " is not an arith.scaling_extf"};
  Type in = getElementTypeOrSelf(ext.getIn().getType());
  Type scale = getElementTypeOrSelf(ext.getScale().getType());
  Type out = getElementTypeOrSelf(ext.getType());
  if (!isFP8(in))
    return Miss{std::string("operand ") + operand + " extends " + typeStr(in) +
                "; mxgemm takes f8E4M3FN or f8E5M2"};
  if (!isa<Float8E8M0FNUType>(scale))
    return Miss{std::string("operand ") + operand + " is scaled by " +
                typeStr(scale) + "; the MX format uses f8E8M0FNU scales"};
  if (!out.isF32())
    return Miss{std::string("operand ") + operand + " is extended to " +
                typeStr(out) + "; the MX contract multiplies in f32"};
  Matched<ScaledOperand> scales =
      matchScaleBroadcast(ext.getScale(), isWeight, what);
  if (auto *miss = std::get_if<Miss>(&scales))
    return *miss;
  ScaledOperand result = std::get<ScaledOperand>(std::move(scales));
  result.values = ext.getIn();
  result.producers.insert(result.producers.begin(), ext);
  return result;
}

/// The body is `yield(addf(acc, mulf(a, b)))`, up to commutation.
bool isMulAddBody(Block *body) {
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 || body->getNumArguments() != 3)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1),
        acc = body->getArgument(2);
  for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())}) {
    auto mul = rhs.getDefiningOp<arith::MulFOp>();
    if (lhs != acc || !mul)
      continue;
    if ((mul.getLhs() == a && mul.getRhs() == b) ||
        (mul.getLhs() == b && mul.getRhs() == a))
      return body->getOperations().size() == 3;
  }
  return false;
}

/// The f32 result rounded to bf16 (nearest even) by its one user.
struct Truncation {
  Operation *op = nullptr;
  Value init; // the generic's destination; null for arith.truncf
};

bool isNearestEven(arith::TruncFOp trunc) {
  std::optional<arith::RoundingMode> mode = trunc.getRoundingmode();
  return !mode || *mode == arith::RoundingMode::to_nearest_even;
}

std::optional<Truncation> findBF16Truncation(Value result) {
  if (!result.hasOneUse())
    return std::nullopt;
  Operation *user = *result.getUsers().begin();
  if (auto trunc = dyn_cast<arith::TruncFOp>(user)) {
    if (getElementTypeOrSelf(trunc.getType()).isBF16() && isNearestEven(trunc))
      return Truncation{trunc, Value()};
    return std::nullopt;
  }
  auto generic = dyn_cast<linalg::GenericOp>(user);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  Block *body = generic.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto trunc = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  if (body->getOperations().size() != 2 || !trunc ||
      trunc.getIn() != body->getArgument(0) || !trunc.getType().isBF16() ||
      !isNearestEven(trunc))
    return std::nullopt;
  return Truncation{generic, generic.getDpsInits()[0]};
}

/// `value` is linalg.fill of +0.0 (f32); returns the fill.
linalg::FillOp matchZeroFill(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return nullptr;
  // An arith.constant, not m_Constant: trait checks through a copy of the
  // pass in libMXGemmCAPI.so must not depend on template TypeIDs.
  auto constant = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto zero = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  if (!zero || !zero.getValue().isPosZero())
    return nullptr;
  return fill;
}

struct RaiseScaledContractionsPass
    : impl::MXGemmRaiseScaledContractionsBase<RaiseScaledContractionsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (config.empty()) {
      configAttr = ConfigAttr::getDefault(ctx);
      return success();
    }
    FailureOr<contract::KernelConfig> parsed = parseConfigBody(ctx, config);
    if (failed(parsed))
      return failure(); // parseConfigBody emitted the diagnostic
    configAttr = ConfigAttr::get(ctx, *parsed);
    return success();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::GenericOp, linalg::MatmulOp, linalg::ContractOp>(op) &&
          op.hasPureTensorSemantics() &&
          llvm::any_of(op.getDpsInputs(), [](Value v) {
            return v.getDefiningOp<arith::ScalingExtFOp>() != nullptr;
          }))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates) {
      if (std::optional<Miss> miss = raise(op)) {
        op->emitRemark("not raised to mxgemm: ") << miss->reason;
        ++numMissed;
      } else {
        ++numRaised;
      }
    }
  }

  /// Replaces `op` (and its bf16 truncation) if it matches; otherwise says
  /// why not and changes nothing.
  std::optional<Miss> raise(linalg::LinalgOp op);

  ConfigAttr configAttr;
};

std::optional<Miss> RaiseScaledContractionsPass::raise(linalg::LinalgOp op) {
  MLIRContext *ctx = op.getContext();
  // The contraction: (m, n, k) -> (m, k), (n, k), (m, n), K reduced.
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 3)
    return Miss{"not a two-operand contraction over three loops"};
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> expected = {AffineMap::get(3, 0, {m, k}, ctx),
                                     AffineMap::get(3, 0, {n, k}, ctx),
                                     AffineMap::get(3, 0, {m, n}, ctx)};
  if (op.getIndexingMapsArray() != expected)
    return Miss{"indexing maps are not (m, k), (n, k) -> (m, n): the "
                "weights must be [N, K] (B transposed, K contiguous)"};
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[0] != utils::IteratorType::parallel ||
      iterators[1] != utils::IteratorType::parallel ||
      iterators[2] != utils::IteratorType::reduction)
    return Miss{"iterators are not parallel, parallel, reduction"};
  if (!isMulAddBody(op.getBlock()))
    return Miss{"the body is not a floating-point multiply-add"};
  Value acc = op.getDpsInits()[0];
  Type accType = getElementTypeOrSelf(acc.getType());
  if (!accType.isF32())
    return Miss{"accumulates in " + typeStr(accType) +
                "; the MX contract accumulates in f32"};
  linalg::FillOp fill = matchZeroFill(acc);
  if (!fill)
    return Miss{"the accumulator does not start from a linalg.fill of +0.0"};

  Matched<ScaledOperand> xMatch = matchScaledOperand(op.getDpsInputs()[0],
                                                     /*isWeight=*/false);
  if (auto *miss = std::get_if<Miss>(&xMatch))
    return *miss;
  Matched<ScaledOperand> wMatch = matchScaledOperand(op.getDpsInputs()[1],
                                                     /*isWeight=*/true);
  if (auto *miss = std::get_if<Miss>(&wMatch))
    return *miss;
  ScaledOperand &x = std::get<ScaledOperand>(xMatch);
  ScaledOperand &w = std::get<ScaledOperand>(wMatch);

  // The problem, checked by the contract before any IR is built, so a
  // mismatch is a remark and never a verifier failure.
  auto xType = cast<RankedTensorType>(x.values.getType());
  auto wType = cast<RankedTensorType>(w.values.getType());
  if (!wType.hasStaticShape())
    return Miss{"N and K must be static, got weights " + typeStr(wType)};
  Value result = op->getResult(0);
  std::optional<Truncation> trunc = findBF16Truncation(result);
  contract::GemmProblem problem;
  problem.n = wType.getDimSize(0);
  problem.k = wType.getDimSize(1);
  problem.xType = *toContractElementType(xType.getElementType());
  problem.wType = *toContractElementType(wType.getElementType());
  problem.wScale = toContract(w.granularity);
  problem.outType =
      trunc ? contract::ElementType::BF16 : contract::ElementType::F32;
  if (contract::ErrorMessage error = contract::validateProblem(problem))
    return Miss{*error};
  auto xsType = cast<RankedTensorType>(x.scales.getType());
  auto wsType = cast<RankedTensorType>(w.scales.getType());
  if (xsType.getRank() != 2 || xsType.getDimSize(1) != problem.scaleColumns())
    return Miss{"X scales must be [M, K/32] = [M, " +
                std::to_string(problem.scaleColumns()) + "], got " +
                typeStr(xsType)};
  if (wsType.getRank() != 2 ||
      wsType.getDimSize(0) != problem.weightScaleRows() ||
      wsType.getDimSize(1) != problem.scaleColumns())
    return Miss{"W scales must be [" +
                std::to_string(problem.weightScaleRows()) + ", " +
                std::to_string(problem.scaleColumns()) + "], got " +
                typeStr(wsType)};
  if (!xsType.isDynamicDim(0) && !xType.isDynamicDim(0) &&
      xsType.getDimSize(0) != xType.getDimSize(0))
    return Miss{"X scales have " + std::to_string(xsType.getDimSize(0)) +
                " rows but X has " + std::to_string(xType.getDimSize(0))};
  if (contract::ErrorMessage error =
          contract::verifyProblemConfig(problem, configAttr.getKernelConfig()))
    return Miss{"the config does not fit the problem: " + *error};
  if (requireOptIn && !op->hasAttr(kOptInAttr))
    return Miss{"matches, but require-opt-in is set and the contraction "
                "has no " +
                kOptInAttr.str() + " attribute (raising changes the rounding)"};

  // Rewrite: the destination is the truncation's or the fill's, or a new
  // tensor.empty for arith.truncf.
  Operation *root = trunc ? trunc->op : op.getOperation();
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(root);
  Location loc = op.getLoc();
  Value init;
  if (!trunc) {
    init = fill.getOutputs()[0];
  } else if (trunc->init) {
    init = trunc->init;
  } else {
    auto outType = cast<RankedTensorType>(root->getResult(0).getType());
    SmallVector<Value> dynSizes;
    if (outType.isDynamicDim(0))
      dynSizes.push_back(tensor::DimOp::create(rewriter, loc, x.values, 0));
    init = tensor::EmptyOp::create(rewriter, loc, outType, dynSizes);
  }
  auto raised = ScaledMatmulTensorOp::create(
      rewriter, loc, root->getResult(0).getType(), x.values, x.scales, w.values,
      w.scales, init, configAttr,
      WeightScaleGranularityAttr::get(ctx, w.granularity));
  rewriter.replaceOp(root, raised.getResult());

  // Erase what the rewrite left dead: the matched producers and, through
  // them, their own dead operands (tensor.empty destinations, constants).
  // Producers still used elsewhere stay.
  SmallVector<Operation *> worklist;
  if (trunc)
    worklist.push_back(op);
  worklist.push_back(fill);
  llvm::append_range(worklist, x.producers);
  llvm::append_range(worklist, w.producers);
  llvm::DenseSet<Operation *> erased;
  // First in, first out: an op still used when first seen is seen again
  // after its last user goes.
  for (size_t i = 0; i < worklist.size(); ++i) {
    Operation *producer = worklist[i];
    if (erased.contains(producer) || !producer->use_empty() ||
        !isOpTriviallyDead(producer))
      continue;
    for (Value operand : producer->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(producer);
    rewriter.eraseOp(producer);
  }
  return std::nullopt;
}

} // namespace
} // namespace mxgemm
