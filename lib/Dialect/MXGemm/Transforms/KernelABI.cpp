//===- KernelABI.cpp - the mxgemm kernel ABI in IR terms ------------------===//
//
// The kernel signature of docs/Design.md section 4, built from the
// contract's argument list (Contract/KernelABI.h) so that the IR and the
// kernel descriptor name the same arguments in the same order.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Contract/KernelABI.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mxgemm;
namespace contract = ::mxgemm::contract;

KernelSignature mxgemm::getKernelSignature(MLIRContext *ctx,
                                           ScaledMatmulOp op) {
  Builder b(ctx);
  const contract::GemmProblem problem = op.getProblem();
  Type xElem = op.getX().getType().getElementType();
  Type wElem = op.getW().getType().getElementType();
  Type yElem = op.getY().getType().getElementType();
  Type scale = op.getXScales().getType().getElementType();
  auto flat = [](int64_t size, Type elem) {
    return MemRefType::get({size}, elem);
  };
  KernelSignature sig;
  const contract::KernelConfig config = op.getConfig().getKernelConfig();
  for (const contract::KernelArgument &arg :
       contract::kernelArguments(problem, config)) {
    Type type;
    if (arg.name == contract::kArgX)
      type = flat(kRuntimeSizedExtent, xElem);
    else if (arg.name == contract::kArgXScales)
      type = flat(kRuntimeSizedExtent, scale);
    else if (arg.name == contract::kArgW)
      type = flat(problem.isGeneric() ? kRuntimeSizedExtent
                                      : problem.n * problem.k,
                  wElem);
    else if (arg.name == contract::kArgWScales)
      // In the layout the kernel reads (MFMA-native layouts are padded;
      // the verified problem keeps the count far below int64).
      type = flat(problem.isGeneric()
                      ? kRuntimeSizedExtent
                      : int64_t(*contract::scaleTensorBytes(
                            config.wScaleLayout, problem.weightScaleRows(),
                            problem.scaleColumns())),
                  scale);
    else if (arg.name == contract::kArgY)
      type = flat(kRuntimeSizedExtent, yElem);
    else if (arg.name == contract::kArgM || arg.name == contract::kArgPhase ||
             arg.name == contract::kArgN || arg.name == contract::kArgK ||
             arg.name == contract::kArgLdX ||
             arg.name == contract::kArgLdXScales ||
             arg.name == contract::kArgLdY)
      type = b.getI32Type();
    else if (arg.name == contract::kArgWorkspace)
      type = flat(kRuntimeSizedExtent, b.getF32Type());
    assert(type && "an argument of the contract has no IR type here");
    sig.argTypes.push_back(type);
  }
  auto name = [&](auto s) { return b.getStringAttr(std::string_view(s)); };
  // A run-time extent is "?", as in the descriptor.
  auto extent = [&](int64_t v) -> Attribute {
    if (v == contract::kDynamicExtent)
      return name("?");
    return b.getI64IntegerAttr(v);
  };
  sig.problem = b.getDictionaryAttr({
      b.getNamedAttr("n", extent(problem.n)),
      b.getNamedAttr("k", extent(problem.k)),
      b.getNamedAttr("x_format", name(elementTypeName(problem.xType))),
      b.getNamedAttr("w_format", name(elementTypeName(problem.wType))),
      b.getNamedAttr("w_scale", name(scaleGranularityName(problem.wScale))),
      b.getNamedAttr("out_type", name(elementTypeName(problem.outType))),
  });
  return sig;
}
