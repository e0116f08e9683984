//===- GroupTiles.cpp - mxgemm-group-tiles: program id -> tile ------------===//
//
// Expands mxgemm.program_tile into index arithmetic. The mapping decides
// which tiles run concurrently and therefore how much operand data they
// share in L2; keeping it in one pass keeps every kernel's order auditable.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/TileGrouping.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-group-tiles"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMGROUPTILES
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// TileGrouping.h's arithmetic policy over index-typed arith ops.
struct IndexTileArith {
  using Value = ::mlir::Value;
  OpBuilder &b;
  Location loc;
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divu(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value remu(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value selectLt(Value x, Value y, Value t, Value e) {
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
    return arith::SelectOp::create(b, loc, lt, t, e);
  }
};

void expandProgramTile(ProgramTileOp op) {
  OpBuilder b(op);
  IndexTileArith arith{b, op.getLoc()};
  if (Value tilesN = op.getNumTilesNSize()) {
    // A generic kernel's run-time N: row-major order (the verifier's
    // rule), TileGrouping.h's `groupM = 1, groupN = 0` case.
    Value tileM = arith.divu(op.getPid(), tilesN);
    Value tileN = arith.remu(op.getPid(), tilesN);
    op.replaceAllUsesWith(ValueRange{tileM, tileN});
    op.erase();
    return;
  }
  auto [tileM, tileN] = ::mxgemm::contract::mapProgramToTile(
      arith, op.getPid(), op.getNumTilesM(), *op.getNumTilesN(), op.getGroupM(),
      op.getGroupN(), op.getXcdRemap(), op.getNumXcds());
  op.replaceAllUsesWith(ValueRange{tileM, tileN});
  op.erase();
}

struct MXGemmGroupTilesPass
    : public impl::MXGemmGroupTilesBase<MXGemmGroupTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<ProgramTileOp> ops;
    getOperation()->walk([&](ProgramTileOp op) { ops.push_back(op); });
    for (ProgramTileOp op : ops) {
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": group_m = " << op.getGroupM()
                              << ", group_n = " << op.getGroupN()
                              << ", xcd_remap = " << op.getXcdRemap() << "\n");
      // group_m = 1, group_n = 0 without remapping is plain row-major.
      if (op.getGroupM() != 1 || op.getGroupN() != 0 || op.getXcdRemap())
        ++numGroupedOrders;
      expandProgramTile(op);
      ++numProgramTiles;
    }
  }
};

} // namespace
} // namespace mxgemm
