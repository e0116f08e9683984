//===- CopiesToAMDGPU.cpp - workgroup copies of K tiles into LDS ----------===//
//
// Lowers mxgemm.copy_to_lds: lds_async to gfx950 global_load_lds_dwordx4
// (amdgpu.gather_to_lds), lds_sync to global loads and 16-byte LDS stores.
// Also recognises a copy in either form, for the MMA pattern's placement of
// its global loads.
//
//===----------------------------------------------------------------------===//

#include "MfmaEmitter.h"
#include "Patterns.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;

namespace mxgemm {
namespace {

/// What one lowering emitted, for the pass statistics.
struct CopyInstructionCounts {
  int64_t globalLoads = 0, transfers = 0;
};

/// global_load_lds_dwordx4 writes 16 bytes per lane to LDS at a wave-uniform
/// base + 16 * lane, so a wave fills 1024 contiguous bytes of the ring slot;
/// each lane loads the global 16 bytes that belong at its position. Lanes
/// that land in a row's padding load that row's first chunk (in bounds,
/// never read back).
CopyInstructionCounts lowerAsyncCopy(CopyToLdsOp op, CopyToLdsOp::Adaptor src,
                                     OpBuilder &b, MfmaEmitter &e, Value wave,
                                     Value lane) {
  Location loc = op.getLoc();
  CopyInstructionCounts emitted;
  const int64_t rowBytes = op.getDst().getType().getDimSize(2);
  const int64_t rowChunks = rowBytes / 16, dataChunks = op.getTileK() / 16;
  const int64_t spanChunks = op.getRows() * rowChunks;
  const int64_t perIter = 64 * op.getNumWaves();
  Value lastRow = arith::SubIOp::create(b, loc, src.getRowLimit(), e.idx(1));
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
    Value srcRow = e.minRow32(e.add(src.getRow0(), row), lastRow);
    Value srcRowK = e.mul(srcRow, op.getK());
    // The lane's part first: it does not change along the K loop.
    Value laneIndex = arith::AddIOp::create(b, loc, srcRowK, e.mul(col, 16));
    Value srcIndex = arith::AddIOp::create(b, loc, laneIndex, src.getK0());
    // The wave's first byte in the slot, as (row, column) of the ring.
    Value baseByte = e.mul(waveBase, 16);
    Value dstRow = arith::DivUIOp::create(b, loc, baseByte, e.idx(rowBytes));
    Value dstCol = arith::RemUIOp::create(b, loc, baseByte, e.idx(rowBytes));
    amdgpu::GatherToLDSOp::create(
        b, loc, src.getSrc(), ValueRange{srcIndex}, src.getDst(),
        ValueRange{src.getStage(), dstRow, dstCol}, TypeAttr::get(transfer));
    ++emitted.transfers;
  }
  return emitted;
}

/// Global -> VGPR -> LDS, one 16-byte chunk of real data per lane per step.
CopyInstructionCounts lowerSyncCopy(CopyToLdsOp op, CopyToLdsOp::Adaptor src,
                                    OpBuilder &b, MfmaEmitter &e, Value tid) {
  Location loc = op.getLoc();
  CopyInstructionCounts emitted;
  const int64_t dataChunks = op.getTileK() / 16;
  const int64_t total = op.getRows() * dataChunks;
  const int64_t perIter = 64 * op.getNumWaves();
  Value lastRow = arith::SubIOp::create(b, loc, src.getRowLimit(), e.idx(1));
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
    Value srcRow = e.minRow32(e.add(src.getRow0(), row), lastRow);
    Value srcRowK = e.mul(srcRow, op.getK());
    Value srcK = arith::AddIOp::create(b, loc, srcRowK, src.getK0());
    Value srcIndex = arith::AddIOp::create(b, loc, srcK, col);
    Value data = vector::LoadOp::create(b, loc, chunkType, src.getSrc(),
                                        ValueRange{srcIndex});
    auto store = vector::StoreOp::create(
        b, loc, data, src.getDst(), ValueRange{src.getStage(), row, dstCol});
    store.setAlignment(16);
    ++emitted.globalLoads;
    ++emitted.transfers;
  }
  return emitted;
}

/// Marks the entry-block op that holds the wave index made uniform.
constexpr llvm::StringLiteral kUniformWaveAttr = "mxgemm.uniform_wave";

/// The wave's index in the workgroup (thread_id.x / 64) through
/// v_readfirstlane, computed once at the kernel's entry. LLVM cannot prove
/// thread_id.x / 64 wave-uniform, so without it every LDS-DMA destination
/// (a wave-uniform M0) is computed per lane in the loop and moved to M0
/// by a v_readfirstlane; from an SGPR it is scalar arithmetic. Outside a
/// gpu.func (unit tests of the pattern): thread_id.x / 64 at `b`.
Value uniformWaveIndex(OpBuilder &b, Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func)
    return arith::DivUIOp::create(
        b, op->getLoc(),
        gpu::ThreadIdOp::create(b, op->getLoc(), gpu::Dimension::x),
        arith::ConstantIndexOp::create(b, op->getLoc(), 64));
  Block &entry = func.getBody().front();
  for (Operation &candidate : entry)
    if (candidate.hasAttr(kUniformWaveAttr))
      return candidate.getResult(0);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&entry);
  Location loc = op->getLoc();
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value wave = arith::DivUIOp::create(
      b, loc, tid, arith::ConstantIndexOp::create(b, loc, 64));
  Value uniform = readFirstLane(b, wave);
  uniform.getDefiningOp()->setAttr(kUniformWaveAttr, b.getUnitAttr());
  return uniform;
}

class CopyToLdsLowering : public CountingPattern<CopyToLdsOp> {
public:
  using CountingPattern::CountingPattern;

  LogicalResult
  matchAndRewrite(CopyToLdsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MfmaEmitter e(rewriter, loc, /*nonK=*/64);
    CopyInstructionCounts emitted;
    if (op.getMode() == Staging::LdsAsync) {
      // No memory operation may be scheduled across the end of a group of
      // LDS-DMA copies. The hardware counts them in vmcnt only (LLVM PR
      // 179305), LLVM 22 in lgkmcnt too: an LDS read moved above them would
      // get an lgkmcnt wait that skips the DMAs issued after it, which on
      // the hardware does not wait for that read. ALU work and MFMAs may
      // cross (mask 0x40F): a full barrier cost fused_qkv's M <= 256 kernel
      // 21% in mxgemm-sim.
      // sched_barrier mask: ALU, VALU, SALU, MFMA, transcendental.
      constexpr int32_t kAluMayCross = 0x1 | 0x2 | 0x4 | 0x8 | 0x400;
      auto isAsyncCopy = [](Operation *other) {
        auto copy = dyn_cast_or_null<CopyToLdsOp>(other);
        return copy && copy.getMode() == Staging::LdsAsync;
      };
      Value wave = uniformWaveIndex(rewriter, op);
      emitted = lowerAsyncCopy(op, adaptor, rewriter, e, wave, e.coords.r);
      if (!isAsyncCopy(op->getNextNode()))
        ROCDL::SchedBarrier::create(rewriter, loc,
                                    rewriter.getI32IntegerAttr(kAluMayCross));
    } else {
      emitted = lowerSyncCopy(
          op, adaptor, rewriter, e,
          gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    }
    rewriter.eraseOp(op);
    count(&MXGemmToAMDGPUCounts::ldsCopies);
    count(&MXGemmToAMDGPUCounts::ldsCopyInstructions, emitted.transfers);
    count(&MXGemmToAMDGPUCounts::globalLoads, emitted.globalLoads);
    return success();
  }
};

} // namespace

Value readFirstLane(OpBuilder &b, Value v) {
  // An earlier call's chain: index_castui, readfirstlane, index_castui.
  for (Operation *toI32 : v.getUsers()) {
    if (!isa<arith::IndexCastUIOp>(toI32) || !toI32->hasOneUse())
      continue;
    Operation *lane = *toI32->user_begin();
    if (!isa<ROCDL::ReadfirstlaneOp>(lane) || !lane->hasOneUse())
      continue;
    if (auto toIndex = dyn_cast<arith::IndexCastUIOp>(*lane->user_begin()))
      return toIndex;
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(v);
  Location loc = v.getLoc();
  Value i32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v);
  Value uniform = ROCDL::ReadfirstlaneOp::create(b, loc, b.getI32Type(), i32);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), uniform);
}

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

void populateCopiesToAMDGPUPatterns(RewritePatternSet &patterns,
                                    MXGemmToAMDGPUCounts *counts) {
  patterns.add<CopyToLdsLowering>(patterns.getContext(), counts);
}

} // namespace mxgemm
