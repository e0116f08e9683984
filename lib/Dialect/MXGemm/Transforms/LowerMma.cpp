//===- LowerMma.cpp - mxgemm-lower-mma: wave ops -> amdgpu.scaled_mfma
//-------===//
//
// The one place that knows the gfx950 scaled-MFMA register layouts
// (DESIGN.md section 9). Every lane loads exactly the operand bytes and the
// scale byte the hardware expects of it, so the MFMA chain needs no
// shuffles; a layout error here shows up as wrong numbers on the emulator's
// per-block-scale tests, never as a crash.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "mxgemm-lower-mma"

namespace mlir::mxgemm {
#define GEN_PASS_DEF_MXGEMMLOWERMMA
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"
} // namespace mlir::mxgemm

namespace mlir::mxgemm {
namespace {

/// Per-lane coordinates of an MFMA operand: lane l holds row/column
/// `r = l % nonK` and K-group `g = l / nonK`.
struct LaneCoords {
  Value r, g;
};

class MfmaEmitter {
public:
  MfmaEmitter(OpBuilder &b, Location loc, int64_t nonK)
      : b(b), loc(loc), nonK(nonK) {
    // Workgroups are whole waves along x, so tid % 64 is the wave64 lane.
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value lane = arith::RemUIOp::create(b, loc, tid, idx(64));
    coords.r = arith::RemUIOp::create(b, loc, lane, idx(nonK));
    coords.g = arith::DivUIOp::create(b, loc, lane, idx(nonK));
  }

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value add(Value a, int64_t c) { return c == 0 ? a : add(a, idx(c)); }
  Value mul(Value a, int64_t c) {
    return arith::MulIOp::create(b, loc, a, idx(c));
  }

  /// The 32 operand bytes of this lane for the MFMA step starting at
  /// element `kBase` of the row that starts at `rowBase`: bytes 0..15 are
  /// `k = 16g + 0..15`, bytes 16..31 are `k = half + 16g + 0..15` with
  /// `half` = 32 (32x32x64) or 64 (16x16x128).
  Value loadOperand(Value mem, Value rowBase, Value kBase) {
    auto elem = cast<MemRefType>(mem.getType()).getElementType();
    auto halfType = VectorType::get({16}, elem);
    Value groupOffset = mul(coords.g, 16);
    Value rowK = add(rowBase, kBase);
    Value first = add(rowK, groupOffset);
    Value lo = vector::LoadOp::create(b, loc, halfType, mem, first);
    Value hi = vector::LoadOp::create(b, loc, halfType, mem,
                                      add(first, nonK == 32 ? 32 : 64));
    SmallVector<int64_t> all(32);
    for (int64_t i = 0; i < 32; ++i)
      all[i] = i;
    return vector::ShuffleOp::create(b, loc, lo, hi, all);
  }

  /// The scale operand: byte 0 of the VGPR is the E8M0 scale of row/column
  /// `r`, K-block `g` of the step (lane `b * nonK + r` supplies block b).
  Value loadScale(Value mem, Value scaleRowBase, Value kBlock) {
    Type e8m0 = cast<MemRefType>(mem.getType()).getElementType();
    Value s = memref::LoadOp::create(
        b, loc, mem, ValueRange{add(add(scaleRowBase, kBlock), coords.g)});
    auto vecType = VectorType::get({4}, e8m0);
    Value zero = arith::ConstantOp::create(
        b, loc, vecType,
        DenseElementsAttr::get(vecType, b.getFloatAttr(e8m0, 1.0)));
    return vector::InsertOp::create(b, loc, s, zero, ArrayRef<int64_t>{0});
  }

  OpBuilder &b;
  Location loc;
  int64_t nonK;
  LaneCoords coords;
};

void lowerWaveMma(WaveMmaOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  const int64_t nonK = op.getMfmaMN(), kStep = op.getMfmaKSize();
  const int64_t k = op.getK(), kBlocks = k / 32;
  const int64_t blocksM = op.getBlocksM(), blocksN = op.getBlocksN();
  const int64_t accPer = op.getAccPerBlock();
  MfmaEmitter e(b, loc, nonK);

  // Rows past M re-read the last valid row: in bounds, never stored.
  Value lastRow = arith::SubIOp::create(b, loc, op.getM(), e.idx(1));
  SmallVector<Value> xRowBase, xsRowBase, wRowBase, wsRowBase;
  for (int64_t i = 0; i < blocksM; ++i) {
    Value row = e.add(e.add(op.getRow0(), i * nonK), e.coords.r);
    row = arith::MinUIOp::create(b, loc, row, lastRow);
    xRowBase.push_back(e.mul(row, k));
    xsRowBase.push_back(e.mul(row, kBlocks));
  }
  for (int64_t j = 0; j < blocksN; ++j) {
    Value col = e.add(e.add(op.getCol0(), j * nonK), e.coords.r);
    wRowBase.push_back(e.mul(col, k));
    Value scaleRow =
        op.getWScale() == WeightScaleGranularity::PerRow
            ? col
            : arith::DivUIOp::create(b, loc, col, e.idx(32)).getResult();
    wsRowBase.push_back(e.mul(scaleRow, kBlocks));
  }

  auto blockType = VectorType::get({accPer}, b.getF32Type());
  auto i32 = [&](int64_t v) { return b.getI32IntegerAttr(v); };
  Value acc = op.getAcc();
  const int64_t accSize = op.getAcc().getType().getNumElements();
  for (int64_t step = 0, e2 = op.getTileK() / kStep; step < e2; ++step) {
    Value kBase = e.add(op.getK0(), step * kStep);
    Value kBlock = arith::DivUIOp::create(b, loc, kBase, e.idx(32));
    SmallVector<Value> a, aScale, bOp, bScale;
    for (int64_t i = 0; i < blocksM; ++i) {
      a.push_back(e.loadOperand(op.getX(), xRowBase[i], kBase));
      aScale.push_back(e.loadScale(op.getXScales(), xsRowBase[i], kBlock));
    }
    for (int64_t j = 0; j < blocksN; ++j) {
      bOp.push_back(e.loadOperand(op.getW(), wRowBase[j], kBase));
      bScale.push_back(e.loadScale(op.getWScales(), wsRowBase[j], kBlock));
    }
    for (int64_t i = 0; i < blocksM; ++i) {
      for (int64_t j = 0; j < blocksN; ++j) {
        int64_t offset = (i * blocksN + j) * accPer;
        // Shuffles, not strided slices: they lower straight to LLVM.
        SmallVector<int64_t> extract, insert;
        for (int64_t t = 0; t < accPer; ++t)
          extract.push_back(offset + t);
        for (int64_t t = 0; t < accSize; ++t)
          insert.push_back(
              t >= offset && t < offset + accPer ? accSize + (t - offset) : t);
        Value c = vector::ShuffleOp::create(b, loc, acc, acc, extract);
        Value d = amdgpu::ScaledMFMAOp::create(
            b, loc, blockType, i32(nonK), i32(nonK), i32(kStep), a[i], bOp[j],
            c, aScale[i], bScale[j], i32(0), i32(0));
        acc = vector::ShuffleOp::create(b, loc, acc, d, insert);
      }
    }
  }
  op.replaceAllUsesWith(acc);
  op.erase();
}

void lowerStoreTile(StoreTileOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  const int64_t nonK = op.getMfma() == MfmaShape::M32N32K64 ? 32 : 16;
  const int64_t accPer = nonK * nonK / 64;
  const int64_t blocksM = op.getWaveM() / nonK, blocksN = op.getWaveN() / nonK;
  MfmaEmitter e(b, loc, nonK);
  Type outElem = cast<MemRefType>(op.getY().getType()).getElementType();
  // D layout: lane l register t holds D[row(t, g)][r].
  Value rowOfG = e.mul(e.coords.g, 4);
  for (int64_t i = 0; i < blocksM; ++i) {
    for (int64_t j = 0; j < blocksN; ++j) {
      Value col = e.add(e.add(op.getCol0(), j * nonK), e.coords.r);
      for (int64_t t = 0; t < accPer; ++t) {
        int64_t rowConst = nonK == 32 ? 8 * (t >> 2) + (t & 3) : t;
        Value row = e.add(e.add(op.getRow0(), i * nonK + rowConst), rowOfG);
        Value v = vector::ExtractOp::create(
            b, loc, op.getAcc(),
            ArrayRef<int64_t>{(i * blocksN + j) * accPer + t});
        if (outElem != v.getType())
          v = arith::TruncFOp::create(b, loc, outElem, v);
        Value inBounds = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, row, op.getM());
        auto guard = scf::IfOp::create(b, loc, inBounds, false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(guard.thenBlock());
        Value offset = e.add(e.mul(row, op.getN()), col);
        memref::StoreOp::create(b, loc, v, op.getY(), ValueRange{offset});
      }
    }
  }
  op.erase();
}

struct MXGemmLowerMmaPass
    : public impl::MXGemmLowerMmaBase<MXGemmLowerMmaPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<WaveMmaOp> mmas;
    SmallVector<StoreTileOp> stores;
    getOperation()->walk([&](Operation *op) {
      if (auto mma = dyn_cast<WaveMmaOp>(op))
        mmas.push_back(mma);
      else if (auto store = dyn_cast<StoreTileOp>(op))
        stores.push_back(store);
    });
    for (WaveMmaOp op : mmas)
      lowerWaveMma(op);
    for (StoreTileOp op : stores)
      lowerStoreTile(op);
  }
};

} // namespace
} // namespace mlir::mxgemm
