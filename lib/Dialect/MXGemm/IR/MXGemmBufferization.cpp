//===- MXGemmBufferization.cpp - one-shot bufferization of the tensor op --===//
//
// mxgemm.scaled_matmul_tensor bufferizes to mxgemm.scaled_matmul on its
// operands' buffers, writing into the buffer of `init`. `init` is written in
// full and never read, so one-shot bufferization needs no copy of it (a
// tensor.empty destination becomes a plain allocation).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mxgemm;

bool ScaledMatmulTensorOp::bufferizesToMemoryRead(OpOperand &operand,
                                                  const AnalysisState &) {
  return operand.get() != getInit();
}

bool ScaledMatmulTensorOp::bufferizesToMemoryWrite(OpOperand &operand,
                                                   const AnalysisState &) {
  return operand.get() == getInit();
}

AliasingValueList
ScaledMatmulTensorOp::getAliasingValues(OpOperand &operand,
                                        const AnalysisState &) {
  if (operand.get() != getInit())
    return {};
  return {{getResult(), BufferRelation::Equivalent}};
}

LogicalResult
ScaledMatmulTensorOp::bufferize(RewriterBase &rewriter,
                                const BufferizationOptions &options,
                                BufferizationState &state) {
  SmallVector<Value, 5> buffers;
  for (Value tensor : getOperands()) {
    FailureOr<Value> buffer = getBuffer(rewriter, tensor, options, state);
    if (failed(buffer))
      return failure();
    // The kernel ABI takes contiguous row-major operands (docs/Design.md
    // section 4); a strided buffer cannot be passed without a copy.
    auto type = dyn_cast<MemRefType>(buffer->getType());
    if (!type || !type.getLayout().isIdentity())
      return emitOpError("needs identity-layout (contiguous row-major) "
                         "buffers, got ")
             << buffer->getType()
             << "; bufferize function boundaries with "
                "function-boundary-type-conversion=identity-layout-map";
    buffers.push_back(*buffer);
  }
  rewriter.setInsertionPoint(getOperation());
  ScaledMatmulOp::create(rewriter, getLoc(), buffers[0], buffers[1], buffers[2],
                         buffers[3], buffers[4], getConfigAttr(),
                         getWScaleAttr());
  replaceOpWithBufferizedValues(rewriter, getOperation(), buffers[4]);
  return success();
}
