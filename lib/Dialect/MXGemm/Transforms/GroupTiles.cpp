//===- GroupTiles.cpp - mxgemm-group-tiles: program id -> tile
//----------------===//
//
// Expands mxgemm.program_tile into index arithmetic. The mapping decides
// which tiles run concurrently and therefore how much operand data they
// share in L2; keeping it in one pass keeps every kernel's order auditable.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "mxgemm-group-tiles"

namespace mlir::mxgemm {
#define GEN_PASS_DEF_MXGEMMGROUPTILES
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"
} // namespace mlir::mxgemm

namespace mlir::mxgemm {
namespace {

LogicalResult expandProgramTile(ProgramTileOp op) {
  if (op.getGroupM() != 1 || op.getGroupN() != 0)
    return op.emitOpError("tile grouping group_m = ")
           << op.getGroupM() << ", group_n = " << op.getGroupN()
           << " is not implemented yet; only row-major order (group_m = 1, "
              "group_n = 0) is";
  if (op.getXcdRemap())
    return op.emitOpError("xcd_remap is not implemented yet");
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value numTilesN = arith::ConstantIndexOp::create(b, loc, op.getNumTilesN());
  Value tm = arith::DivUIOp::create(b, loc, op.getPid(), numTilesN);
  Value tn = arith::RemUIOp::create(b, loc, op.getPid(), numTilesN);
  op.replaceAllUsesWith(ValueRange{tm, tn});
  op.erase();
  return success();
}

struct MXGemmGroupTilesPass
    : public impl::MXGemmGroupTilesBase<MXGemmGroupTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<ProgramTileOp> ops;
    getOperation()->walk([&](ProgramTileOp op) { ops.push_back(op); });
    for (ProgramTileOp op : ops)
      if (failed(expandProgramTile(op)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::mxgemm
