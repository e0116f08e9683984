//===- QuantizeOp.cpp - mxgemm.quantize verifier
//---------------------------===//
//
// The shapes of the three operands must agree wherever they are static, so
// that a kernel built from the op never reads or writes past a buffer whose
// size the IR states.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Numerics/MXNumerics.h"

using namespace mlir;
using namespace mxgemm;

LogicalResult QuantizeOp::verify() {
  MemRefType inTy = getInput().getType(), codesTy = getCodes().getType();
  MemRefType scalesTy = getScales().getType();
  for (auto [name, ty] : {std::pair<StringRef, MemRefType>{"input", inTy},
                          {"codes", codesTy},
                          {"scales", scalesTy}})
    if (!ty.getLayout().isIdentity())
      return emitOpError() << name
                           << " must be contiguous row-major (identity "
                              "layout), got "
                           << ty;
  // Static extents must agree; ShapedType::kDynamic matches anything.
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  const int64_t block = numerics::kMXBlockSize;
  int64_t m = inTy.getDimSize(0), k = inTy.getDimSize(1);
  if (!ShapedType::isDynamic(k) && (k <= 0 || k % block != 0))
    return emitOpError() << "K must be a positive multiple of " << block
                         << ", got " << k;
  if (mismatch(m, codesTy.getDimSize(0)) || mismatch(k, codesTy.getDimSize(1)))
    return emitOpError() << "codes must have the input's shape [M, K], got "
                         << codesTy << " for " << inTy;
  if (getScaleLayout() != ScaleLayout::RowMajor) {
    // The flat bytes of the MFMA-native layout (contract/ScaleLayout.h).
    if (scalesTy.getRank() != 1)
      return emitOpError() << "scales in "
                           << stringifyScaleLayout(getScaleLayout())
                           << " must be a flat byte tensor (rank 1), got "
                           << scalesTy;
    if (ShapedType::isDynamic(m) || ShapedType::isDynamic(k) ||
        scalesTy.isDynamicDim(0))
      return success();
    std::optional<uint64_t> bytes = contract::scaleTensorBytes(
        contract::ScaleLayout(getScaleLayout()), m, k / block);
    if (!bytes || int64_t(*bytes) != scalesTy.getDimSize(0))
      return emitOpError() << "scales in "
                           << stringifyScaleLayout(getScaleLayout())
                           << " must hold "
                           << (bytes ? std::to_string(*bytes)
                                     : std::string("an overflowing count of"))
                           << " bytes for " << inTy << ", got " << scalesTy;
    return success();
  }
  if (scalesTy.getRank() != 2)
    return emitOpError() << "row-major scales must be [M, K/32], got "
                         << scalesTy;
  int64_t scaleCols = ShapedType::isDynamic(k) ? k : k / block;
  if (mismatch(m, scalesTy.getDimSize(0)) ||
      mismatch(codesTy.getDimSize(0), scalesTy.getDimSize(0)) ||
      mismatch(scaleCols, scalesTy.getDimSize(1)))
    return emitOpError() << "scales must be [M, K/32], got " << scalesTy
                         << " for " << inTy;
  return success();
}
