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

#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
  Value lane, r, g;
};

class MfmaEmitter {
public:
  MfmaEmitter(OpBuilder &b, Location loc, int64_t nonK)
      : b(b), loc(loc), nonK(nonK) {
    // Workgroups are whole waves along x, so tid % 64 is the wave64 lane.
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    coords.lane = arith::RemUIOp::create(b, loc, tid, idx(64));
    coords.r = arith::RemUIOp::create(b, loc, coords.lane, idx(nonK));
    coords.g = arith::DivUIOp::create(b, loc, coords.lane, idx(nonK));
  }

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value add(Value a, int64_t c) { return c == 0 ? a : add(a, idx(c)); }
  Value mul(Value a, int64_t c) {
    return arith::MulIOp::create(b, loc, a, idx(c));
  }

  /// Continues in a branch taken only where `v < bound` (the caller keeps
  /// an InsertionGuard to come back out).
  void enterIfBelow(Value v, int64_t bound) {
    Value below =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v, idx(bound));
    auto branch = scf::IfOp::create(b, loc, below, /*withElse=*/false);
    b.setInsertionPointToStart(branch.thenBlock());
  }

  /// The 32 operand bytes of this lane for the MFMA step starting at
  /// element `kBase` of the row that starts at `rowBase`: bytes 0..15 are
  /// `k = 16g + 0..15`, bytes 16..31 are `k = half + 16g + 0..15` with
  /// `half` = 32 (32x32x64) or 64 (16x16x128).
  Value loadOperand(Value mem, Value rowBase, Value kBase) {
    Value groupOffset = mul(coords.g, 16);
    Value rowK = add(rowBase, kBase);
    Value first = add(rowK, groupOffset);
    return loadHalves(mem, {}, first, std::nullopt, /*alignment=*/std::nullopt);
  }

  /// Same bytes as loadOperand, from W packed in MFMA panels: the lane's 32
  /// bytes are contiguous at `panelBase` (its lane slot in the first panel
  /// of the block) + kBase * nonK (a panel spans kStep elements of K and
  /// 2048 = kStep * nonK bytes).
  Value loadOperandFromPanels(Value mem, Value panelBase, Value kBase) {
    Value first = add(panelBase, mul(kBase, nonK));
    return loadHalves(mem, {}, first, add(first, 16), /*alignment=*/16);
  }

  /// Same bytes as loadOperand, from the wave's LDS view [rows, tile_k]:
  /// row `row` (in the view) at K offset `kBase` (in the tile).
  Value loadOperandFromLds(Value view, Value row, int64_t kBase,
                           bool xorSwizzle) {
    Value col = add(mul(coords.g, 16), kBase);
    if (!xorSwizzle) {
      // 16-byte aligned so that each half is one ds_read_b128.
      return loadHalves(view, {row}, col, std::nullopt, /*alignment=*/16);
    }
    int64_t rowBytes = cast<MemRefType>(view.getType()).getDimSize(1);
    Value hiCol = add(col, nonK == 32 ? 32 : 64);
    return loadHalves(view, {row}, swizzleColumn(row, col, rowBytes),
                      swizzleColumn(row, hiCol, rowBytes), /*alignment=*/16);
  }

  /// The byte column where logical column `col` (a multiple of 16) of ring
  /// row `row` lives under lds_layout = xor: 16-byte chunks are permuted by
  /// XOR with (row / rowsPerBankSweep) % chunksPerRow, so that the 16 lanes
  /// of a ds_read_b128 phase (16 consecutive rows, same column) hit 16
  /// different 4-bank groups. The permutation is its own inverse.
  Value swizzleColumn(Value row, Value col, int64_t rowBytes) {
    const int64_t chunks = rowBytes / 16;
    const int64_t rowsPerSweep = std::max<int64_t>(1, 256 / rowBytes);
    Value sweep = arith::DivUIOp::create(b, loc, row, idx(rowsPerSweep));
    Value key = arith::RemUIOp::create(b, loc, sweep, idx(chunks));
    Value chunk = arith::DivUIOp::create(b, loc, col, idx(16));
    Value swizzled = arith::XOrIOp::create(b, loc, chunk, key);
    return mul(swizzled, 16);
  }

  /// The two 16-byte halves of a lane's operand, at `first` and `half`
  /// elements later (32 for 32x32x64, 64 for 16x16x128) along the last
  /// index, concatenated into the 32-byte MFMA operand.
  Value loadHalves(Value mem, ValueRange leading, Value first,
                   std::optional<Value> second,
                   std::optional<uint64_t> alignment) {
    auto elem = cast<MemRefType>(mem.getType()).getElementType();
    auto halfType = VectorType::get({16}, elem);
    auto load = [&](Value last) {
      SmallVector<Value> indices(leading.begin(), leading.end());
      indices.push_back(last);
      auto op = vector::LoadOp::create(b, loc, halfType, mem, indices);
      if (alignment)
        op.setAlignment(*alignment);
      return op.getResult();
    };
    Value lo = load(first);
    Value hi = load(second ? *second : add(first, nonK == 32 ? 32 : 64));
    SmallVector<int64_t> all(32);
    for (int64_t i = 0; i < 32; ++i)
      all[i] = i;
    return vector::ShuffleOp::create(b, loc, lo, hi, all);
  }

  /// The scale operand: byte 0 of the VGPR is the E8M0 scale of row/column
  /// `r`, K-block `g` of the step (lane `b * nonK + r` supplies block b).
  /// The MFMA reads only the byte op_sel picks (0), so the other three are
  /// left zero: the byte is zero-extended into the register, as the
  /// unsigned byte load already does, instead of merged into a constant.
  Value loadScale(Value mem, Value scaleRowBase, Value kBlock) {
    Type e8m0 = cast<MemRefType>(mem.getType()).getElementType();
    Value s = memref::LoadOp::create(
        b, loc, mem, ValueRange{add(add(scaleRowBase, kBlock), coords.g)});
    Value bits = arith::BitcastOp::create(b, loc, b.getI8Type(), s);
    Value word = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
    Value vec = vector::BroadcastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), word);
    return vector::BitCastOp::create(b, loc, VectorType::get({4}, e8m0), vec);
  }

  OpBuilder &b;
  Location loc;
  int64_t nonK;
  LaneCoords coords;
};

/// True if `op` is (or holds) a copy into LDS, lowered or not.
bool isLdsCopy(Operation *op) {
  bool found = false;
  op->walk([&](Operation *q) {
    if (isa<CopyToLdsOp, amdgpu::GatherToLDSOp>(q))
      found = true;
    if (auto store = dyn_cast<vector::StoreOp>(q))
      found |= gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
          store.getBase().getType());
  });
  return found;
}

/// Where the MMA's global loads (scales, packed or direct operands) go. In
/// a pipelined loop the refill copies of a later tile sit between the
/// barrier that publishes this tile and the MMA; vmcnt retires in issue
/// order, so loads issued after those copies could only be waited for by
/// also waiting for the copies (LLVM inserts vmcnt(0)), which serializes
/// the pipeline. Issued before the copies, they leave the copies in flight.
Operation *globalLoadPoint(WaveMmaOp op) {
  bool crossesCopies = false;
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode()) {
    if (isa<RingBarrierOp>(p))
      return crossesCopies ? p->getNextNode() : op.getOperation();
    crossesCopies |= isLdsCopy(p);
  }
  return op;
}

void lowerWaveMma(WaveMmaOp op) {
  Operation *loadPoint = globalLoadPoint(op);
  const bool hoistLoads = loadPoint != op.getOperation();
  OpBuilder b(loadPoint);
  Location loc = op.getLoc();
  const int64_t nonK = op.getMfmaMN(), kStep = op.getMfmaKSize();
  const int64_t k = op.getK(), kBlocks = k / 32;
  const int64_t blocksM = op.getBlocksM(), blocksN = op.getBlocksN();
  const int64_t accPer = op.getAccPerBlock();
  MfmaEmitter e(b, loc, nonK);

  // Rows past M re-read the last valid row: in bounds, never stored.
  Value lastRow = arith::SubIOp::create(b, loc, op.getM(), e.idx(1));
  SmallVector<Value> xRowBase, xsRowBase, wRowBase, wsRowBase, wPanelBase;
  const int64_t panelsPerBlock = k / ::mxgemm::contract::panelKStep(nonK);
  for (int64_t i = 0; i < blocksM; ++i) {
    Value row = e.add(e.add(op.getRow0(), i * nonK), e.coords.r);
    row = arith::MinUIOp::create(b, loc, row, lastRow);
    xRowBase.push_back(e.mul(row, k));
    xsRowBase.push_back(e.mul(row, kBlocks));
  }
  for (int64_t j = 0; j < blocksN; ++j) {
    Value col = e.add(e.add(op.getCol0(), j * nonK), e.coords.r);
    wRowBase.push_back(e.mul(col, k));
    Value blockIndex = arith::DivUIOp::create(
        b, loc, e.add(op.getCol0(), j * nonK), e.idx(nonK));
    wPanelBase.push_back(e.add(
        e.mul(blockIndex, panelsPerBlock * ::mxgemm::contract::kPanelBytes),
        e.mul(e.coords.lane, 32)));
    Value scaleRow =
        op.getWScale() == WeightScaleGranularity::PerRow
            ? col
            : arith::DivUIOp::create(b, loc, col, e.idx(32)).getResult();
    wsRowBase.push_back(e.mul(scaleRow, kBlocks));
  }

  // Row `i * nonK + r` of a wave's LDS view, for either operand.
  SmallVector<Value> tileRow;
  for (int64_t i = 0; i < std::max(blocksM, blocksN); ++i)
    tileRow.push_back(e.add(e.coords.r, i * nonK));

  auto blockType = VectorType::get({accPer}, b.getF32Type());
  auto i32 = [&](int64_t v) { return b.getI32IntegerAttr(v); };
  Value acc = op.getAcc();
  const int64_t accSize = op.getAcc().getType().getNumElements();
  // Per step: the operands (null where they come from LDS) and scales.
  const int64_t steps = op.getTileK() / kStep;
  SmallVector<SmallVector<Value>> aOf(steps), aScaleOf(steps), bOf(steps),
      bScaleOf(steps);
  auto loadGlobals = [&](int64_t step) {
    Value kBase = e.add(op.getK0(), step * kStep);
    Value kBlock = arith::DivUIOp::create(b, loc, kBase, e.idx(32));
    for (int64_t i = 0; i < blocksM; ++i) {
      aOf[step].push_back(op.getXTile()
                              ? Value()
                              : e.loadOperand(op.getX(), xRowBase[i], kBase));
      aScaleOf[step].push_back(
          e.loadScale(op.getXScales(), xsRowBase[i], kBlock));
    }
    for (int64_t j = 0; j < blocksN; ++j) {
      Value w;
      if (op.getWPanels())
        w = e.loadOperandFromPanels(op.getW(), wPanelBase[j], kBase);
      else if (!op.getWTile())
        w = e.loadOperand(op.getW(), wRowBase[j], kBase);
      bOf[step].push_back(w);
      bScaleOf[step].push_back(
          e.loadScale(op.getWScales(), wsRowBase[j], kBlock));
    }
  };
  if (hoistLoads) {
    for (int64_t step = 0; step < steps; ++step)
      loadGlobals(step);
    b.setInsertionPoint(op);
  }
  for (int64_t step = 0; step < steps; ++step) {
    if (!hoistLoads)
      loadGlobals(step);
    SmallVector<Value> &a = aOf[step], &aScale = aScaleOf[step],
                       &bOp = bOf[step], &bScale = bScaleOf[step];
    for (int64_t i = 0; i < blocksM; ++i)
      if (!a[i])
        a[i] = e.loadOperandFromLds(op.getXTile(), tileRow[i], step * kStep,
                                    op.getXorSwizzle());
    for (int64_t j = 0; j < blocksN; ++j)
      if (!bOp[j])
        bOp[j] = e.loadOperandFromLds(op.getWTile(), tileRow[j], step * kStep,
                                      op.getXorSwizzle());
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
  auto emitStores = [&](bool guarded) {
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
          OpBuilder::InsertionGuard g(b);
          if (guarded) {
            Value inBounds = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, row, op.getM());
            b.setInsertionPointToStart(
                scf::IfOp::create(b, loc, inBounds, false).thenBlock());
          }
          Value offset = e.add(e.mul(row, op.getN()), col);
          memref::StoreOp::create(b, loc, v, op.getY(), ValueRange{offset});
        }
      }
    }
  };
  // Every wave tile but those of the last tile row lies wholly inside M:
  // one uniform test instead of a masked branch per element.
  Value tileEnd = e.add(op.getRow0(), op.getWaveM());
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                      tileEnd, op.getM());
  auto split = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
  b.setInsertionPointToStart(split.thenBlock());
  emitStores(/*guarded=*/false);
  b.setInsertionPointToStart(split.elseBlock());
  emitStores(/*guarded=*/true);
  op.erase();
}

/// global_load_lds_dwordx4 writes 16 bytes per lane to LDS at a wave-uniform
/// base + 16 * lane, so a wave fills 1024 contiguous bytes of the ring slot;
/// each lane loads the global 16 bytes that belong at its position. Lanes
/// that land in a row's padding load that row's first chunk (in bounds,
/// never read back).
void lowerAsyncCopy(CopyToLdsOp op, OpBuilder &b, MfmaEmitter &e, Value wave,
                    Value lane) {
  Location loc = op.getLoc();
  const int64_t rowBytes = op.getDst().getType().getDimSize(2);
  const int64_t rowChunks = rowBytes / 16, dataChunks = op.getTileK() / 16;
  const int64_t spanChunks = op.getRows() * rowChunks;
  const int64_t perIter = 64 * op.getNumWaves();
  Value lastRow = arith::SubIOp::create(b, loc, op.getRowLimit(), e.idx(1));
  Value waveChunk = e.mul(wave, 64);
  auto transfer = VectorType::get({16}, op.getSrc().getType().getElementType());
  for (int64_t it = 0; it * perIter < spanChunks; ++it) {
    OpBuilder::InsertionGuard guard(b);
    Value waveBase = e.add(waveChunk, it * perIter);
    // Only the waves whose 64 chunks exist take part (wave-uniform).
    if ((it + 1) * perIter > spanChunks)
      e.enterIfBelow(waveBase, spanChunks);
    Value chunk = arith::AddIOp::create(b, loc, waveBase, lane);
    Value row = arith::DivUIOp::create(b, loc, chunk, e.idx(rowChunks));
    Value col = arith::RemUIOp::create(b, loc, chunk, e.idx(rowChunks));
    if (op.getXorSwizzle())
      col = arith::DivUIOp::create(
          b, loc, e.swizzleColumn(row, e.mul(col, 16), rowBytes), e.idx(16));
    if (rowChunks != dataChunks) {
      Value isData = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           col, e.idx(dataChunks));
      col = arith::SelectOp::create(b, loc, isData, col, e.idx(0));
    }
    Value srcRow = arith::AddIOp::create(b, loc, op.getRow0(), row);
    srcRow = arith::MinUIOp::create(b, loc, srcRow, lastRow);
    Value srcRowK = e.mul(srcRow, op.getK());
    Value srcK = arith::AddIOp::create(b, loc, srcRowK, op.getK0());
    Value srcIndex = arith::AddIOp::create(b, loc, srcK, e.mul(col, 16));
    // The wave's first byte in the slot, as (row, column) of the ring.
    Value baseByte = e.mul(waveBase, 16);
    Value dstRow = arith::DivUIOp::create(b, loc, baseByte, e.idx(rowBytes));
    Value dstCol = arith::RemUIOp::create(b, loc, baseByte, e.idx(rowBytes));
    amdgpu::GatherToLDSOp::create(
        b, loc, op.getSrc(), ValueRange{srcIndex}, op.getDst(),
        ValueRange{op.getStage(), dstRow, dstCol}, TypeAttr::get(transfer));
  }
}

/// Global -> VGPR -> LDS, one 16-byte chunk of real data per lane per step.
void lowerSyncCopy(CopyToLdsOp op, OpBuilder &b, MfmaEmitter &e, Value tid) {
  Location loc = op.getLoc();
  const int64_t dataChunks = op.getTileK() / 16;
  const int64_t total = op.getRows() * dataChunks;
  const int64_t perIter = 64 * op.getNumWaves();
  Value lastRow = arith::SubIOp::create(b, loc, op.getRowLimit(), e.idx(1));
  auto chunkType =
      VectorType::get({16}, op.getSrc().getType().getElementType());
  for (int64_t it = 0; it * perIter < total; ++it) {
    OpBuilder::InsertionGuard guard(b);
    Value chunk = e.add(tid, it * perIter);
    if ((it + 1) * perIter > total)
      e.enterIfBelow(chunk, total);
    Value row = arith::DivUIOp::create(b, loc, chunk, e.idx(dataChunks));
    Value col =
        e.mul(arith::RemUIOp::create(b, loc, chunk, e.idx(dataChunks)), 16);
    Value dstCol =
        op.getXorSwizzle()
            ? e.swizzleColumn(row, col, op.getDst().getType().getDimSize(2))
            : col;
    Value srcRow = arith::AddIOp::create(b, loc, op.getRow0(), row);
    srcRow = arith::MinUIOp::create(b, loc, srcRow, lastRow);
    Value srcRowK = e.mul(srcRow, op.getK());
    Value srcK = arith::AddIOp::create(b, loc, srcRowK, op.getK0());
    Value srcIndex = arith::AddIOp::create(b, loc, srcK, col);
    Value data = vector::LoadOp::create(b, loc, chunkType, op.getSrc(),
                                        ValueRange{srcIndex});
    auto store = vector::StoreOp::create(
        b, loc, data, op.getDst(), ValueRange{op.getStage(), row, dstCol});
    store.setAlignment(16);
  }
}

void lowerCopy(CopyToLdsOp op) {
  OpBuilder b(op);
  MfmaEmitter e(b, op.getLoc(), /*nonK=*/64);
  Value tid = gpu::ThreadIdOp::create(b, op.getLoc(), gpu::Dimension::x);
  if (op.getMode() == Staging::LdsAsync) {
    Value wave = arith::DivUIOp::create(b, op.getLoc(), tid, e.idx(64));
    lowerAsyncCopy(op, b, e, wave, e.coords.r);
  } else {
    lowerSyncCopy(op, b, e, tid);
  }
  op.erase();
}

void lowerWait(WaitCopiesOp op) {
  OpBuilder b(op);
  amdgpu::MemoryCounterWaitOp::create(
      b, op.getLoc(), b.getI32IntegerAttr(op.getPending()),
      /*store=*/nullptr, /*ds=*/b.getI32IntegerAttr(0), /*exp=*/nullptr,
      /*tensor=*/nullptr);
  op.erase();
}

/// s_barrier between single-thread fences: the compiler may not move memory
/// operations across it, and no wait is added (see RingBarrierOp).
void lowerRingBarrier(RingBarrierOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "singlethread");
  ROCDL::SBarrierOp::create(b, loc);
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "singlethread");
  op.erase();
}

struct MXGemmLowerMmaPass
    : public impl::MXGemmLowerMmaBase<MXGemmLowerMmaPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    SmallVector<RingBarrierOp> barriers;
    getOperation()->walk([&](Operation *op) {
      if (isa<WaveMmaOp, StoreTileOp, CopyToLdsOp, WaitCopiesOp>(op))
        ops.push_back(op);
      else if (auto barrier = dyn_cast<RingBarrierOp>(op))
        barriers.push_back(barrier);
    });
    for (Operation *op : ops) {
      // The kernel ABI promises packed W; only stage-copies makes the MMA
      // read it that way, so lowering without it would misread W.
      if (auto mma = dyn_cast<WaveMmaOp>(op)) {
        auto kernel = mma->getParentOfType<gpu::GPUFuncOp>();
        auto config = kernel
                          ? kernel->getAttrOfType<ConfigAttr>(kConfigAttrName)
                          : ConfigAttr();
        if (config && config.getStageW() == Staging::PackedRegisters &&
            !mma.getWPanels()) {
          mma.emitOpError("kernel takes W packed in MFMA panels (stage_w = "
                          "packed_registers) but this op reads row-major W; "
                          "run mxgemm-stage-copies first");
          return signalPassFailure();
        }
      }
    }
    for (Operation *op : ops) {
      if (auto mma = dyn_cast<WaveMmaOp>(op))
        lowerWaveMma(mma);
      else if (auto store = dyn_cast<StoreTileOp>(op))
        lowerStoreTile(store);
      else if (auto copy = dyn_cast<CopyToLdsOp>(op))
        lowerCopy(copy);
      else if (auto wait = dyn_cast<WaitCopiesOp>(op))
        lowerWait(wait);
    }
    // Last: the MMAs look for their publishing barrier.
    for (RingBarrierOp barrier : barriers)
      lowerRingBarrier(barrier);
  }
};

} // namespace
} // namespace mlir::mxgemm
