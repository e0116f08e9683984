//===- StoresToAMDGPU.cpp - a wave's accumulators to the output -----------===//
//
// Lowers mxgemm.store_tile. The MMA computes every block transposed (W is
// the MFMA's A operand, WaveMmaToMfma.cpp), so lane l holds output row
// `r = l % nonK` of the block and, in registers 4u .. 4u + 3, the four
// consecutive columns `8u + 4g ..` (32x32x64) or `4g ..` (16x16x128),
// `g = l / nonK`. Each group of four is converted at once (two
// v_cvt_pk_bf16_f32 for BF16). Without staging it is stored as it is (8
// bytes, one row per lane); with a staging buffer the wave writes a block
// row into LDS the same way and reads it back 16 bytes per lane along rows,
// so that each global store writes whole rows. Rows at or past M are
// masked per lane, and only in the last tile row. In a partial last tile
// column (N not a multiple of tile_n) the wave tiles that reach past N
// store element by element, each masked by row and column.
//
//===----------------------------------------------------------------------===//

#include "MfmaEmitter.h"
#include "Patterns.h"

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;

namespace mxgemm {
namespace {

/// True inside a persistent kernel's tile walk.
bool inTileWalk(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isTileWalk(p))
      return true;
  return false;
}

/// The index `v` (a thread id, row or column: below 2^31) through an empty
/// asm with side effects, in a VGPR or, from the first lane, an SGPR. In a
/// tile walk the epilogue derives its arithmetic from such copies of the
/// thread id and the tile's origin, which LLVM can neither hoist out of
/// the walk nor share with the K loop's address arithmetic: otherwise the
/// epilogue's offsets are computed before the K loop and stay live across
/// it, and the kernel spills.
Value opaqueCopy(OpBuilder &b, Location loc, Value v, bool scalar) {
  Type i32 = b.getI32Type();
  Value in = arith::IndexCastUIOp::create(b, loc, i32, v);
  // LLVM cannot prove a wave-derived value uniform.
  if (scalar)
    in = ::mlir::ROCDL::ReadfirstlaneOp::create(b, loc, i32, in);
  Value out = LLVM::InlineAsmOp::create(
                  b, loc, i32, ValueRange{in}, /*asm_string=*/"",
                  /*constraints=*/scalar ? "=s,0" : "=v,0",
                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
                  .getResult(0);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), out);
}

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
    // A generic kernel's N is the run-time operand; the static path builds
    // exactly the ops it always did.
    Value nSize = adaptor.getNSize();
    const int64_t n = nSize ? 0 : int64_t(*op.getN());
    Value walkedTid, row0 = adaptor.getRow0(), col0 = adaptor.getCol0();
    if (inTileWalk(op)) {
      walkedTid =
          opaqueCopy(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
                     /*scalar=*/false);
      row0 = opaqueCopy(b, loc, row0, /*scalar=*/true);
      col0 = opaqueCopy(b, loc, col0, /*scalar=*/true);
    }
    MfmaEmitter e(b, loc, nonK, walkedTid);
    // Y may be a view (a generic kernel's row stride): rows ldY apart.
    Value ldY = adaptor.getYRowStride();
    auto mulN = [&](Value v) {
      return ldY ? e.mul(v, ldY) : nSize ? e.mul(v, nSize) : e.mul(v, n);
    };
    auto nIndex = [&]() { return nSize ? nSize : e.idx(n); };
    Type outElem = cast<MemRefType>(op.getY().getType()).getElementType();
    auto quadType = VectorType::get({4}, outElem);
    const uint64_t elemBytes = outElem.getIntOrFloatBitWidth() / 8;
    uint64_t stores = 0;
    // The four FP32 outputs of block (i, j) and quad u.
    auto rawQuad = [&](int64_t i, int64_t j, int64_t u) -> Value {
      const int64_t first = (i * blocksN + j) * accPer + 4 * u;
      return vector::ShuffleOp::create(
          b, loc, adaptor.getAcc(), adaptor.getAcc(),
          ArrayRef<int64_t>{first, first + 1, first + 2, first + 3});
    };
    // Accumulators computed in this function but not carried out of a loop
    // (a K loop of one trip folds away) come from MFMAs in this block. LLVM
    // 22's MachineSink moves such MFMAs, and the VALU ops that build their
    // scale operands, into a per-lane row guard below, where lanes past M
    // are off: their operand registers go stale although every lane feeds
    // the MFMA. At the start of each guarded path (a uniform branch) an
    // empty asm with side effects takes each quad, which keeps the MFMAs
    // above the guards; the unguarded path of whole tiles is unchanged
    // (test/Emulator/single-k-tile.test). A K loop that
    // mxgemm-prefetch-registers will pipeline ends the same way: its last
    // tile's MFMAs are peeled out of the loop into this block.
    Operation *accDef = adaptor.getAcc().getDefiningOp();
    auto loop = dyn_cast_or_null<scf::ForOp>(accDef);
    std::optional<APInt> trips =
        loop ? loop.getStaticTripCount() : std::nullopt;
    auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
    const bool peeledLater =
        kernel &&
        prefetchesRegisters(kernel->getAttrOfType<ConfigAttr>(kConfigAttrName));
    const bool pinForGuards =
        accDef && (!loop || (trips && trips->isOne()) || peeledLater);
    std::vector<Value> pinned; // the quads pinned in the current block
    // Emits a guarded path, its quads pinned at its start when needed.
    auto guardedPath = [&](auto emit) {
      auto f32Quad = VectorType::get({4}, b.getF32Type());
      for (int64_t i = 0; pinForGuards && i < blocksM; ++i)
        for (int64_t j = 0; j < blocksN; ++j)
          for (int64_t u = 0; u < accPer / 4; ++u)
            pinned.push_back(LLVM::InlineAsmOp::create(
                                 b, loc, f32Quad, ValueRange{rawQuad(i, j, u)},
                                 /*asm_string=*/"", /*constraints=*/"=v,0",
                                 /*has_side_effects=*/true,
                                 /*is_align_stack=*/false,
                                 LLVM::tailcallkind::TailCallKind::None,
                                 /*asm_dialect=*/nullptr,
                                 /*operand_attrs=*/nullptr)
                                 .getResult(0));
      emit();
      pinned.clear();
    };
    // The four outputs of block (i, j) and quad u, in the output type.
    auto quad = [&](int64_t i, int64_t j, int64_t u) -> Value {
      Value v = pinned.empty()
                    ? rawQuad(i, j, u)
                    : pinned[size_t((i * blocksN + j) * (accPer / 4) + u)];
      if (outElem != b.getF32Type())
        v = arith::TruncFOp::create(b, loc, quadType, v);
      return v;
    };
    // Runs `body` where `row` < M when guarded.
    auto ifRowInBounds = [&](bool guarded, Value row, auto body) {
      OpBuilder::InsertionGuard g(b);
      if (guarded) {
        Value inBounds = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, row, adaptor.getM());
        b.setInsertionPointToStart(
            scf::IfOp::create(b, loc, inBounds, false).thenBlock());
      }
      body();
    };
    // Direct: the column of a lane's quad u of block j is col0 + 4g + 32j
    // + 8u (32x32x64); four elements are naturally aligned when every row
    // starts at a multiple of four elements.
    const uint64_t alignment = !nSize && n % 4 == 0 ? 4 * elemBytes : elemBytes;
    Value colOfG =
        op.getStaging() ? Value() : e.add(col0, e.mul(e.coords.g, 4));
    auto emitDirect = [&](bool guarded) {
      for (int64_t i = 0; i < blocksM; ++i) {
        Value row = e.add(e.add(row0, i * nonK), e.coords.r);
        ifRowInBounds(guarded, row, [&] {
          Value rowStart = e.add(mulN(row), colOfG);
          for (int64_t j = 0; j < blocksN; ++j) {
            for (int64_t u = 0; u < accPer / 4; ++u) {
              // Sequenced: the op order is part of the kernel's bytes.
              Value v = quad(i, j, u);
              Value offset = e.add(rowStart, j * nonK + 8 * u);
              auto store = vector::StoreOp::create(b, loc, v, adaptor.getY(),
                                                   ValueRange{offset});
              store.setAlignment(alignment);
              ++stores;
            }
          }
        });
      }
    };
    // Staged: per block row i and chunk of `cols` columns, each lane writes
    // its quads into the wave's slice [r][col - chunk start], then reads 16
    // bytes at (rowInPass, lane's column) and stores them to Y. Slice
    // columns go through the XOR chunk permutation of the op's description.
    auto emitStaged = [&](bool guarded) {
      const int64_t cols = op.getStagingColumns();
      const int64_t perLane = 16 / elemBytes;
      const int64_t lanesPerRow = cols / perLane,
                    rowsPerPass = 64 / lanesPerRow;
      // MfmaEmitter::swizzleColumn's permutation, in element columns that
      // may point inside a chunk (the op order of each is pinned by its
      // lit test, so they are not merged).
      const int64_t rowsPerPhase = 256 / (cols * elemBytes);
      auto swizzled = [&](Value row, Value col) -> Value {
        Value chunk = arith::DivUIOp::create(b, loc, col, e.idx(perLane));
        Value within = arith::RemUIOp::create(b, loc, col, e.idx(perLane));
        Value phase = arith::DivUIOp::create(b, loc, row, e.idx(rowsPerPhase));
        Value key = arith::RemUIOp::create(b, loc, phase, e.idx(lanesPerRow));
        Value permuted = arith::XOrIOp::create(b, loc, chunk, key);
        return e.add(e.mul(permuted, perLane), within);
      };
      auto wideType = VectorType::get({perLane}, outElem);
      const uint64_t wideAlignment = (n * elemBytes) % 16 == 0 ? 16 : elemBytes;
      Value tid = walkedTid
                      ? walkedTid
                      : gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      Value wave = arith::DivUIOp::create(b, loc, tid, e.idx(64));
      Value laneRow =
          arith::DivUIOp::create(b, loc, e.coords.lane, e.idx(lanesPerRow));
      Value laneCol = e.mul(
          arith::RemUIOp::create(b, loc, e.coords.lane, e.idx(lanesPerRow)),
          perLane);
      Value quadCol = e.mul(e.coords.g, 4);
      for (int64_t i = 0; i < blocksM; ++i) {
        for (int64_t c = 0; c < int64_t(op.getWaveN()) / cols; ++c) {
          for (int64_t j = c * cols / nonK; j < (c + 1) * cols / nonK; ++j)
            for (int64_t u = 0; u < accPer / 4; ++u) {
              Value v = quad(i, j, u);
              Value col = swizzled(e.coords.r,
                                   e.add(quadCol, j * nonK - c * cols + 8 * u));
              auto write =
                  vector::StoreOp::create(b, loc, v, adaptor.getStaging(),
                                          ValueRange{wave, e.coords.r, col});
              write.setAlignment(4 * elemBytes);
            }
          for (int64_t pass = 0; pass < nonK / rowsPerPass; ++pass) {
            Value rowInBlock = e.add(laneRow, pass * rowsPerPass);
            Value sliceCol = swizzled(rowInBlock, laneCol);
            auto read =
                vector::LoadOp::create(b, loc, wideType, adaptor.getStaging(),
                                       ValueRange{wave, rowInBlock, sliceCol});
            read.setAlignment(16);
            Value row = e.add(e.add(row0, i * nonK), rowInBlock);
            ifRowInBounds(guarded, row, [&] {
              Value col = e.add(e.add(col0, c * cols), laneCol);
              auto store =
                  vector::StoreOp::create(b, loc, read, adaptor.getY(),
                                          ValueRange{e.add(mulN(row), col)});
              store.setAlignment(wideAlignment);
              ++stores;
            });
          }
        }
      }
    };
    auto emitStores = [&](bool guarded) {
      if (op.getStaging())
        emitStaged(guarded);
      else
        emitDirect(guarded);
    };
    // Past N: each element of each quad, stored where row < M and col < N
    // (slow, but only in the last tile column).
    auto emitMasked = [&] {
      Value quadCol = e.add(col0, e.mul(e.coords.g, 4));
      for (int64_t i = 0; i < blocksM; ++i) {
        Value row = e.add(e.add(row0, i * nonK), e.coords.r);
        for (int64_t j = 0; j < blocksN; ++j)
          for (int64_t u = 0; u < accPer / 4; ++u) {
            Value v = quad(i, j, u);
            for (int64_t el = 0; el < 4; ++el) {
              Value col = e.add(quadCol, j * nonK + 8 * u + el);
              Value inBounds = arith::AndIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                        adaptor.getM()),
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col,
                                        nIndex()));
              OpBuilder::InsertionGuard g(b);
              b.setInsertionPointToStart(
                  scf::IfOp::create(b, loc, inBounds, false).thenBlock());
              Value scalar = vector::ExtractOp::create(b, loc, v, el);
              memref::StoreOp::create(b, loc, scalar, adaptor.getY(),
                                      ValueRange{e.add(mulN(row), col)});
              ++stores;
            }
          }
      }
    };
    // Every wave tile but those of the last tile row lies wholly inside M:
    // one uniform test instead of a masked branch per element.
    Value tileEnd = e.add(row0, op.getWaveM());
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                        tileEnd, adaptor.getM());
    if (nSize || hasPartialTileColumn(op, n)) {
      Value colEnd = e.add(col0, op.getWaveN());
      Value insideN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                            colEnd, nIndex());
      auto splitN = scf::IfOp::create(b, loc, insideN, /*withElse=*/true);
      b.setInsertionPointToStart(splitN.elseBlock());
      guardedPath(emitMasked);
      b.setInsertionPointToStart(splitN.thenBlock());
    }
    auto split = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    b.setInsertionPointToStart(split.thenBlock());
    emitStores(/*guarded=*/false);
    b.setInsertionPointToStart(split.elseBlock());
    guardedPath([&] { emitStores(/*guarded=*/true); });
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
