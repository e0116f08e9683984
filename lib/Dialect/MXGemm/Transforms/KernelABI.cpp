//===- KernelABI.cpp - the mxgemm kernel ABI in IR terms
//---------------------===//
//
// Argument types of the generated kernels (DESIGN.md section 4).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::mxgemm;

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

KernelSignature mlir::mxgemm::getKernelSignature(MLIRContext *ctx,
                                                 ScaledMatmulOp op) {
  Builder b(ctx);
  int64_t n = op.getN(), k = op.getK();
  Type xElem = op.getX().getType().getElementType();
  Type wElem = op.getW().getType().getElementType();
  Type yElem = op.getY().getType().getElementType();
  Type scale = op.getXScales().getType().getElementType();
  auto flat = [](int64_t size, Type elem) {
    return MemRefType::get({size}, elem);
  };
  KernelSignature sig;
  sig.argTypes = {flat(kRuntimeSizedExtent, xElem),
                  flat(kRuntimeSizedExtent, scale),
                  flat(n * k, wElem),
                  flat(op.getWScales().getType().getNumElements(), scale),
                  flat(kRuntimeSizedExtent, yElem),
                  b.getI32Type()};
  sig.problem = b.getDictionaryAttr({
      b.getNamedAttr("n", b.getI64IntegerAttr(n)),
      b.getNamedAttr("k", b.getI64IntegerAttr(k)),
      b.getNamedAttr("x_format", b.getStringAttr(typeName(xElem))),
      b.getNamedAttr("w_format", b.getStringAttr(typeName(wElem))),
      b.getNamedAttr("w_scale", b.getStringAttr(stringifyWeightScaleGranularity(
                                    op.getWScale()))),
      b.getNamedAttr("out_type", b.getStringAttr(typeName(yElem))),
  });
  return sig;
}
