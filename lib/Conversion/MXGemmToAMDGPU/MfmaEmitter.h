//===- MfmaEmitter.h - per-lane MFMA layout arithmetic ----------*- C++ -*-===//
//
// The one place that knows the gfx950 scaled-MFMA register layouts
// (docs/Design.md section 9), shared by the MMA, copy and store patterns. Every
// lane loads exactly the operand bytes and the scale byte the hardware
// expects of it, so the MFMA chain needs no shuffles; a layout error here
// shows up as wrong numbers on the emulator's per-block-scale tests, never
// as a crash.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_CONVERSION_MXGEMMTOAMDGPU_MFMAEMITTER_H
#define MXGEMM_LIB_CONVERSION_MXGEMMTOAMDGPU_MFMAEMITTER_H

#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mxgemm {

/// Per-lane coordinates of an MFMA operand: lane l holds row/column
/// `r = l % nonK` and K-group `g = l / nonK`.
struct LaneCoords {
  Value lane, r, g;
};

/// Builds the index arithmetic and the loads of one lane at the builder's
/// insertion point. The op order it produces is part of the kernels' byte
/// identity (the backend schedules from it): keep it when editing.
class MfmaEmitter {
public:
  /// `tid`, when given, is the thread id to derive the lane from.
  MfmaEmitter(OpBuilder &b, Location loc, int64_t nonK, Value tid = {})
      : b(b), loc(loc), nonK(nonK) {
    // Workgroups are whole waves along x, so tid % 64 is the wave64 lane.
    if (!tid)
      tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
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
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, loc, a, c); }

  /// min(row, last) of two row (or W column) indices, computed in 32 bits
  /// and zero-extended. Both stay below 2^32 (M is at most INT32_MAX and N
  /// at most 2^24, plus a tile); in 64 bits each clamp costs a 64-bit
  /// compare and two selects where v_min_u32 is one instruction.
  Value minRow32(Value row, Value last) {
    auto narrow = [&](Value v) {
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v)
          .getResult();
    };
    // Sequenced: the IR's order must not depend on the host compiler.
    Value row32 = narrow(row), last32 = narrow(last);
    Value clamped = arith::MinUIOp::create(b, loc, row32, last32);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), clamped);
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
    if (masksK())
      return loadMaskedOperand(mem, rowBase, add(kBase, groupOffset));
    Value rowK = add(rowBase, kBase);
    Value first = add(rowK, groupOffset);
    return loadHalves(mem, {}, first, std::nullopt, /*alignment=*/std::nullopt);
  }

  /// Set when K is not a multiple of tile_k (direct loads only): the bytes
  /// of a K tail's steps past K are read from an in-bounds address and
  /// replaced by zeros, their scales by 1.0. Both operands are zeroed, so
  /// every product past K is +0 and the step sums only the blocks below K,
  /// as the reference's last, shorter step does. (A scale alone cannot
  /// zero a product: E8M0 has no zero.)
  std::optional<int64_t> kLimit;
  /// A generic kernel's run-time K (and K / 32), masked the same way in
  /// every step, since any K may come.
  Value kLimitValue, kBlocksLimitValue;
  bool masksK() const { return kLimit || kLimitValue; }
  /// K and K / 32 as index values (created here for a static K).
  Value kLimitIndex() { return kLimit ? idx(*kLimit) : kLimitValue; }
  Value kBlocksLimitIndex() {
    return kLimit ? idx(*kLimit / 32) : kBlocksLimitValue;
  }

  /// loadOperand's bytes with the K tail masked: each 16-byte half lies
  /// inside one MX block, so it is wholly below K or wholly past it.
  Value loadMaskedOperand(Value mem, Value rowBase, Value kFirst) {
    auto halfType =
        VectorType::get({16}, cast<MemRefType>(mem.getType()).getElementType());
    Value zeros =
        arith::ConstantOp::create(b, loc, halfType, b.getZeroAttr(halfType));
    auto half = [&](Value kElem) {
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          kElem, kLimitIndex());
      Value kSafe = arith::SelectOp::create(b, loc, valid, kElem, idx(0));
      Value v = vector::LoadOp::create(b, loc, halfType, mem,
                                       ValueRange{add(rowBase, kSafe)});
      return arith::SelectOp::create(b, loc, valid, v, zeros).getResult();
    };
    Value lo = half(kFirst);
    Value hi = half(add(kFirst, nonK == 32 ? 32 : 64));
    globalLoads += 2;
    return concatHalves(lo, hi);
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
    auto memType = cast<MemRefType>(mem.getType());
    auto halfType = VectorType::get({16}, memType.getElementType());
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
    (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(memType) ? dsReads
                                                              : globalLoads) +=
        2;
    return concatHalves(lo, hi);
  }

  /// Two 16-byte halves as the 32-byte MFMA operand.
  Value concatHalves(Value lo, Value hi) {
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
    // Under a K tail, a block at or past K reads block 0 and becomes 1.0.
    Value index, valid;
    if (masksK()) {
      Value block = add(kBlock, coords.g);
      valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, block,
                                    kBlocksLimitIndex());
      index = add(scaleRowBase,
                  arith::SelectOp::create(b, loc, valid, block, idx(0)));
    } else {
      index = add(add(scaleRowBase, kBlock), coords.g);
    }
    Value word = loadScaleByte(mem, index);
    if (valid) {
      Value one = arith::ConstantIntOp::create(b, loc, 127, 32); // 2^0
      word = arith::SelectOp::create(b, loc, valid, word, one);
    }
    return asScaleVector(word);
  }

  /// The per-lane part of a scale address in an MFMA-native layout
  /// (Contract/ScaleLayout.h) for this lane's row (or column) `row` of a
  /// tensor with `chunks` 256-byte chunks per row group: the row group's
  /// first chunk plus the lane's dword. Loop-invariant, like a row base.
  Value nativeScaleLaneBase(Value row, int64_t chunks) {
    Value group = arith::DivUIOp::create(b, loc, row, idx(nonK));
    Value inGroup = arith::RemUIOp::create(b, loc, row, idx(nonK));
    return add(mul(group, chunks * contract::kScaleChunkBytes),
               mul(add(mul(coords.g, nonK), inGroup), 4));
  }

  /// The scale operand of the MFMA step at K element `kBase` (`kStep` per
  /// step) from an MFMA-native layout: step `s` is byte `s % 4` of the
  /// lane's dword in chunk `s / 4`. Across the wave the load reads one
  /// contiguous run of 64 dwords' bytes instead of a byte from each of 16
  /// or 32 rows.
  Value loadNativeScale(Value mem, Value laneBase, Value kBase, int64_t kStep) {
    Value step = arith::DivUIOp::create(b, loc, kBase, idx(kStep));
    Value chunk = arith::DivUIOp::create(b, loc, step, idx(4));
    Value byte = arith::RemUIOp::create(b, loc, step, idx(4));
    Value index =
        add(laneBase, add(mul(chunk, contract::kScaleChunkBytes), byte));
    return asScaleVector(loadScaleByte(mem, index));
  }

  /// The E8M0 byte at `index` of `mem`, zero-extended to an i32.
  Value loadScaleByte(Value mem, Value index) {
    Value s = memref::LoadOp::create(b, loc, mem, ValueRange{index});
    ++globalLoads;
    Value bits = arith::BitcastOp::create(b, loc, b.getI8Type(), s);
    return arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
  }

  /// A scale operand of one MFMA step: the VGPR and the byte of it that
  /// the instruction reads (scalesIdx, the op_sel byte select).
  struct StepScale {
    Value vgpr;
    int32_t byteSelect = 0;
  };

  /// Scales per wide load: the step scales of a tile come from one 4- or
  /// 8-byte load per row when its E8M0 blocks are contiguous and aligned.
  /// 0 when the tile's steps need the one-byte loads of loadScale: one
  /// step has no load to save. (With K a multiple of tile_k, as the
  /// verifier requires, a row's blocks are always aligned for the load; the
  /// alignment test guards a K that is not.)
  static int64_t wideScaleBytes(int64_t steps, int64_t kStep, int64_t k) {
    const int64_t tileBlocks = steps * kStep / 32, kBlocks = k / 32;
    const int64_t bytes = std::min<int64_t>(8, tileBlocks);
    if (steps < 2 || tileBlocks % 4 != 0 || kBlocks % bytes != 0)
      return 0;
    return bytes;
  }

  /// The scales of row (or column) `scaleRowBase` for `bytes` E8M0 blocks
  /// from `kBlock` (a multiple of `bytes`, and so is the row base: the
  /// load is aligned), shifted right by this lane's K-group `g` so that
  /// the block `g` of each step sits at a byte the MFMA can select. Step
  /// `s` of the load then reads byte `s * kStep / 32` (wideStepScale).
  /// Replaces `bytes / (kStep / 32)` one-byte loads with one.
  Value loadWideScales(Value mem, Value scaleRowBase, Value kBlock,
                       int64_t bytes) {
    Value load = loadScaleRun(mem, scaleRowBase, kBlock, bytes);
    Type word = b.getIntegerType(8 * bytes);
    Value packed =
        vector::BitCastOp::create(b, loc, VectorType::get({1}, word), load);
    Value value =
        vector::ExtractOp::create(b, loc, packed, ArrayRef<int64_t>{0});
    Value shift = arith::IndexCastUIOp::create(b, loc, word, mul(coords.g, 8));
    return arith::ShRUIOp::create(b, loc, value, shift);
  }

  /// The scale operand of the step whose first block is `blockInLoad`
  /// blocks into a loadWideScales result.
  StepScale wideStepScale(Value shifted, int64_t blockInLoad) {
    Value dword = shifted;
    if (shifted.getType().getIntOrFloatBitWidth() == 64) {
      Value high = arith::ShRUIOp::create(
          b, loc, shifted,
          arith::ConstantIntOp::create(b, loc, shifted.getType(),
                                       32 * (blockInLoad / 4)));
      dword = arith::TruncIOp::create(b, loc, b.getI32Type(), high);
    }
    return {asScaleVector(dword), int32_t(blockInLoad % 4)};
  }

  /// The scale operand of the step whose first block is `blockInRow` blocks
  /// into MFMA block row `block` of mxgemm.load_wave_scales words
  /// (`dwordsPerBlock` dwords per block row, rows in turn): its
  /// dword shifted right by this lane's K-group `g`, as loadWideScales
  /// shifts (a step's blocks never straddle a dword: 2 or 4 per step).
  StepScale wordsStepScale(Value words, int64_t dwordsPerBlock, int64_t block,
                           int64_t blockInRow) {
    Value dword = vector::ExtractOp::create(
        b, loc, words,
        ArrayRef<int64_t>{block * dwordsPerBlock + blockInRow / 4});
    Value shift =
        arith::IndexCastUIOp::create(b, loc, b.getI32Type(), mul(coords.g, 8));
    return {asScaleVector(arith::ShRUIOp::create(b, loc, dword, shift)),
            int32_t(blockInRow % 4)};
  }

  /// `bytes` E8M0 blocks from `kBlock` of row `scaleRowBase` with one
  /// load, aligned to its width (both are multiples of it).
  Value loadScaleRun(Value mem, Value scaleRowBase, Value kBlock,
                     int64_t bytes) {
    Type e8m0 = cast<MemRefType>(mem.getType()).getElementType();
    auto load =
        vector::LoadOp::create(b, loc, VectorType::get({bytes}, e8m0), mem,
                               ValueRange{add(scaleRowBase, kBlock)});
    load.setAlignment(bytes);
    // From the constant address space the backend loads with s_load.
    auto space = dyn_cast_or_null<IntegerAttr>(
        cast<MemRefType>(mem.getType()).getMemorySpace());
    ++(space && space.getInt() == kConstantAddressSpace ? scalarLoads
                                                        : globalLoads);
    return load;
  }

  /// loadScaleRun's blocks as dwords (mxgemm.load_wave_scales).
  Value loadScaleWords(Value mem, Value scaleRowBase, Value kBlock,
                       int64_t bytes) {
    Value load = loadScaleRun(mem, scaleRowBase, kBlock, bytes);
    return vector::BitCastOp::create(
        b, loc, VectorType::get({bytes / 4}, b.getI32Type()), load);
  }

  /// loadScaleWords' dwords at a wave-uniform offset, through the constant
  /// address space: the backend then loads them with s_load_dword* into
  /// SGPRs, off the vector-memory path (a load from the global address
  /// space would need proof that no store of the kernel clobbers it).
  Value loadUniformScaleWords(Value mem, Value scaleRowBase, Value kBlock,
                              int64_t bytes) {
    auto type = cast<MemRefType>(mem.getType());
    auto constantType = MemRefType::get(
        type.getShape(), type.getElementType(), type.getLayout(),
        b.getI64IntegerAttr(kConstantAddressSpace));
    Value constant =
        memref::MemorySpaceCastOp::create(b, loc, constantType, mem);
    return loadScaleWords(constant, scaleRowBase, kBlock, bytes);
  }

  /// AMDGPU's constant address space (read-only for the whole kernel).
  static constexpr int64_t kConstantAddressSpace = 4;

  /// An i32 as the vector<4xf8E8M0FNU> scale operand of amdgpu.scaled_mfma.
  Value asScaleVector(Value word) {
    Value vec = vector::BroadcastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), word);
    return vector::BitCastOp::create(
        b, loc, VectorType::get({4}, b.getType<mlir::Float8E8M0FNUType>()),
        vec);
  }

  OpBuilder &b;
  Location loc;
  int64_t nonK;
  LaneCoords coords;
  /// Loads emitted so far, by memory: what the pass statistics report.
  int64_t globalLoads = 0, scalarLoads = 0, dsReads = 0;
};

} // namespace mxgemm

#endif // MXGEMM_LIB_CONVERSION_MXGEMMTOAMDGPU_MFMAEMITTER_H
