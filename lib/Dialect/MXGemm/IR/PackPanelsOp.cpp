//===- PackPanelsOp.cpp - mxgemm.pack_panels verifier ---------------------===//
//
// The panel shape must be one the contract defines and the static extents
// must hold whole panels, so that a kernel built from the op never reads or
// writes past a buffer whose size the IR states.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mxgemm;

LogicalResult PackPanelsOp::verify() {
  const int64_t nonK = getNonK();
  if (nonK != 32 && nonK != 16)
    return emitOpError() << "non_k must be 32 (m32n32k64) or 16 "
                            "(m16n16k128), got "
                         << nonK;
  MemRefType wTy = getW().getType(), packedTy = getPacked().getType();
  for (auto [name, ty] :
       {std::pair<StringRef, MemRefType>{"w", wTy}, {"packed", packedTy}})
    if (!ty.getLayout().isIdentity())
      return emitOpError() << name
                           << " must be contiguous (identity layout), got "
                           << ty;
  const int64_t kStep = contract::panelKStep(nonK);
  const int64_t n = wTy.getDimSize(0), k = wTy.getDimSize(1);
  if (!ShapedType::isDynamic(n) && (n <= 0 || n % nonK != 0))
    return emitOpError() << "N must be a positive multiple of non_k = " << nonK
                         << ", got " << n;
  if (!ShapedType::isDynamic(k) && (k <= 0 || k % kStep != 0))
    return emitOpError() << "K must be a positive multiple of " << kStep
                         << " for non_k = " << nonK << ", got " << k;
  const int64_t size = packedTy.getDimSize(0);
  int64_t bytes = 0;
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(k) &&
      !ShapedType::isDynamic(size) &&
      (llvm::MulOverflow(n, k, bytes) || size != bytes))
    return emitOpError() << "packed must hold N * K bytes (N = " << n
                         << ", K = " << k << "), got " << packedTy;
  return success();
}
