//===- StoresToAMDGPU.cpp - a wave's accumulators to the output -----------===//
//
// Lowers mxgemm.store_tile: reads each accumulator out of the MFMA D layout
// (docs/Design.md section 9), converts it to the output type and stores it,
// masking rows at or past M only in the last tile row.
//
//===----------------------------------------------------------------------===//

#include "MfmaEmitter.h"
#include "Patterns.h"

using namespace mlir;

namespace mxgemm {
namespace {

class StoreTileLowering : public CountingPattern<StoreTileOp> {
public:
  using CountingPattern::CountingPattern;

  LogicalResult
  matchAndRewrite(StoreTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    const int64_t nonK =
        ::mxgemm::target::kGFX950.getMfma(toContract(op.getMfma())).m;
    const int64_t accPer = nonK * nonK / 64;
    const int64_t blocksM = op.getWaveM() / nonK,
                  blocksN = op.getWaveN() / nonK;
    MfmaEmitter e(b, loc, nonK);
    Type outElem = cast<MemRefType>(op.getY().getType()).getElementType();
    // D layout: lane l register t holds D[row(t, g)][r].
    Value rowOfG = e.mul(e.coords.g, 4);
    uint64_t stores = 0;
    auto emitStores = [&](bool guarded) {
      for (int64_t i = 0; i < blocksM; ++i) {
        for (int64_t j = 0; j < blocksN; ++j) {
          Value col = e.add(e.add(adaptor.getCol0(), j * nonK), e.coords.r);
          for (int64_t t = 0; t < accPer; ++t) {
            int64_t rowConst = nonK == 32 ? 8 * (t >> 2) + (t & 3) : t;
            Value row =
                e.add(e.add(adaptor.getRow0(), i * nonK + rowConst), rowOfG);
            Value v = vector::ExtractOp::create(
                b, loc, adaptor.getAcc(),
                ArrayRef<int64_t>{(i * blocksN + j) * accPer + t});
            if (outElem != v.getType())
              v = arith::TruncFOp::create(b, loc, outElem, v);
            OpBuilder::InsertionGuard g(b);
            if (guarded) {
              Value inBounds = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ult, row, adaptor.getM());
              b.setInsertionPointToStart(
                  scf::IfOp::create(b, loc, inBounds, false).thenBlock());
            }
            Value offset = e.add(e.mul(row, op.getN()), col);
            memref::StoreOp::create(b, loc, v, adaptor.getY(),
                                    ValueRange{offset});
            ++stores;
          }
        }
      }
    };
    // Every wave tile but those of the last tile row lies wholly inside M:
    // one uniform test instead of a masked branch per element.
    Value tileEnd = e.add(adaptor.getRow0(), op.getWaveM());
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                        tileEnd, adaptor.getM());
    auto split = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    b.setInsertionPointToStart(split.thenBlock());
    emitStores(/*guarded=*/false);
    b.setInsertionPointToStart(split.elseBlock());
    emitStores(/*guarded=*/true);
    rewriter.eraseOp(op);
    count(&MXGemmToAMDGPUCounts::stores, stores);
    return success();
  }
};

} // namespace

void populateStoresToAMDGPUPatterns(RewritePatternSet &patterns,
                                    MXGemmToAMDGPUCounts *counts) {
  patterns.add<StoreTileLowering>(patterns.getContext(), counts);
}

} // namespace mxgemm
