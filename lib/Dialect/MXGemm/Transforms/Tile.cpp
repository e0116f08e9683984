//===- Tile.cpp - mxgemm-tile: problem op -> gfx950 kernel ----------------===//
//
// Builds the kernel skeleton every later pass refines: the ABI of
// docs/Design.md section 4, the workgroup-id -> tile mapping (as
// mxgemm.program_tile, so the grouping pass owns the swizzle), the per-wave
// sub-tile and the K loop of wave-level MMA steps.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/DataKernel.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Target/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-tile"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMTILE
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

struct MXGemmTilePass : public impl::MXGemmTileBase<MXGemmTilePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    target = ::mxgemm::target::findTargetModel(chip);
    if (!target) {
      module.emitError("mxgemm-tile: unsupported chip '")
          << chip << "' (only gfx950 is supported)";
      return signalPassFailure();
    }
    SmallVector<ScaledMatmulOp> problems;
    module.walk([&](ScaledMatmulOp op) { problems.push_back(op); });
    for (ScaledMatmulOp op : problems) {
      if (failed(tileProblem(module, op)))
        return signalPassFailure();
      ++numKernels;
    }
  }

  LogicalResult tileProblem(ModuleOp module, ScaledMatmulOp op);

  /// The target model of `chip`.
  const ::mxgemm::target::TargetModel *target = nullptr;
};

/// Phase 1 of a split-K kernel: the k_splits workgroups of a tile share its
/// outputs (workgroup s takes the s-th of k_splits equal runs of the tile's
/// row-major outputs); each output inside M x N is the sum of its k_splits
/// partials of the workspace in ascending segment order (one FP32 rounding
/// per addition, docs/Design.md "Split K"), stored in Y's type. One thread
/// sums one output, so sharing the outputs changes no bit; it spreads the
/// reduction over the whole grid instead of the segment-0 workgroups.
/// Threads walk a run in order, so a wave's loads and stores are contiguous.
/// A tail split's workspace holds one program tile per tail tile and
/// segment (tile `tailIndex` of `tailTiles`); other workspaces are k_splits
/// planes of M x N.
void buildSplitReduction(OpBuilder &b, Location loc, ConfigAttr config,
                         ProgramTileOp tile, Value segment, Value m, int64_t n,
                         Value work, Value y, Value tailTiles = Value(),
                         Value tailIndex = Value()) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  const int64_t progTileM = config.getProgramTileM(), tileN = config.getTileN();
  const int64_t splits = config.getKSplits(),
                threads = config.getWorkgroupSize();
  // Four consecutive outputs of a row per thread where N and tile_n allow:
  // 16-byte partial loads instead of 4-byte ones (a quarter of the memory
  // instructions and address arithmetic; sums and bits unchanged).
  const int64_t vec = tileN % 4 == 0 && n % 4 == 0 ? 4 : 1;
  const int64_t run =
      llvm::alignTo(llvm::divideCeil(progTileM * tileN, splits), vec);
  Value rowBase =
      arith::MulIOp::create(b, loc, tile.getTileMIndex(), cst(progTileM));
  Value colBase =
      arith::MulIOp::create(b, loc, tile.getTileNIndex(), cst(tileN));
  Value plane = arith::MulIOp::create(b, loc, m, cst(n));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // This workgroup's run [begin, end), cut to the tile's rows inside M (a
  // decode tile holds a few, so most runs are empty).
  Value rowsLeft = arith::SubIOp::create(b, loc, m, rowBase);
  Value tileEnd = arith::MinUIOp::create(
      b, loc, cst(progTileM * tileN),
      arith::MulIOp::create(b, loc, rowsLeft, cst(tileN)));
  Value begin = arith::MulIOp::create(b, loc, segment, cst(run));
  Value end = arith::MinUIOp::create(
      b, loc, tileEnd, arith::AddIOp::create(b, loc, begin, cst(run)));
  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, begin, end);
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false).thenBlock());
  Type outElem = cast<MemRefType>(y.getType()).getElementType();
  // The `vec` FP32 partials of the workspace from `index`.
  auto loadPartials = [&](Value index) -> Value {
    if (vec == 1)
      return memref::LoadOp::create(b, loc, work, ValueRange{index});
    return vector::LoadOp::create(b, loc,
                                  VectorType::get({vec}, b.getF32Type()), work,
                                  ValueRange{index});
  };
  // Segment s's partial of output `index` (element e of the tile).
  auto partialIndex = [&](int64_t s, Value index, Value e) -> Value {
    if (!tailTiles)
      return s == 0 ? index
                    : arith::AddIOp::create(
                          b, loc, arith::MulIOp::create(b, loc, plane, cst(s)),
                          index);
    Value slot = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tailTiles, cst(s)), tailIndex);
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, slot, cst(progTileM * tileN)), e);
  };
  // The sums of the `vec` outputs from `index` (element e), in Y's type.
  auto sumAt = [&](Value index, Value e) {
    Value sum = loadPartials(partialIndex(0, index, e));
    for (int64_t s = 1; s < splits; ++s)
      sum = arith::AddFOp::create(b, loc, sum,
                                  loadPartials(partialIndex(s, index, e)));
    if (outElem != b.getF32Type())
      sum = arith::TruncFOp::create(
          b, loc, vec == 1 ? outElem : VectorType::get({vec}, outElem), sum);
    return sum;
  };
  auto storeAt = [&](Value value, Value index) {
    if (vec == 1)
      memref::StoreOp::create(b, loc, value, y, ValueRange{index});
    else
      vector::StoreOp::create(b, loc, value, y, ValueRange{index});
  };
  auto coordinates = [&](Value e) {
    Value row = arith::AddIOp::create(
        b, loc, rowBase, arith::DivUIOp::create(b, loc, e, cst(tileN)));
    Value col = arith::AddIOp::create(
        b, loc, colBase, arith::RemUIOp::create(b, loc, e, cst(tileN)));
    return std::make_pair(row, col);
  };
  auto indexOf = [&](Value row, Value col) -> Value {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, cst(n)), col);
  };

  // Unrolled: each thread's outputs are loaded together (out-of-bounds
  // ones from the tile's first output, always inside M x N), so their
  // latencies overlap; the stores are masked. Long runs with many
  // segments keep a loop instead (code size).
  Value lane = vec == 1 ? tid : arith::MulIOp::create(b, loc, tid, cst(vec));
  const int64_t perThread = llvm::divideCeil(run, threads * vec);
  if (perThread * splits <= 256) {
    Value first = indexOf(rowBase, colBase);
    SmallVector<Value> valid, index, element, sum;
    for (int64_t i = 0; i < perThread; ++i) {
      Value e = arith::AddIOp::create(
          b, loc, begin,
          arith::AddIOp::create(b, loc, lane, cst(i * threads * vec)));
      auto [row, col] = coordinates(e);
      valid.push_back(arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, e, end),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col,
                                cst(n))));
      index.push_back(arith::SelectOp::create(b, loc, valid.back(),
                                              indexOf(row, col), first));
      element.push_back(
          tailTiles ? arith::SelectOp::create(b, loc, valid.back(), e, cst(0))
                    : Value());
    }
    for (int64_t i = 0; i < perThread; ++i)
      sum.push_back(sumAt(index[i], element[i]));
    for (int64_t i = 0; i < perThread; ++i) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(
          scf::IfOp::create(b, loc, valid[i], /*withElse=*/false).thenBlock());
      storeAt(sum[i], index[i]);
    }
    return;
  }
  auto loop =
      scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, begin, lane),
                         end, cst(threads * vec));
  b.setInsertionPointToStart(loop.getBody());
  auto [row, col] = coordinates(loop.getInductionVar());
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cst(n));
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, inside, /*withElse=*/false).thenBlock());
  Value index = indexOf(row, col);
  storeAt(sumAt(index, loop.getInductionVar()), index);
}

LogicalResult MXGemmTilePass::tileProblem(ModuleOp module, ScaledMatmulOp op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func->getParentOp() != module)
    return op.emitOpError("must be inside a top-level func.func");
  // The function is the kernel's specification: nothing else may live in it.
  for (Operation &other : func.getBody().front())
    if (&other != op.getOperation() && !isa<func::ReturnOp>(other))
      return other.emitOpError("cannot be compiled into an mxgemm kernel: "
                               "the function must contain only one "
                               "mxgemm.scaled_matmul");

  MLIRContext *ctx = module.getContext();
  ConfigAttr config = op.getConfig();
  // The attribute was verified against gfx950; the kernel is for `chip`.
  if (auto error =
          ::mxgemm::contract::verifyConfig(config.getKernelConfig(), *target))
    return op.emitOpError("config cannot target ") << chip << ": " << *error;
  const ::mxgemm::contract::GemmProblem problem = op.getProblem();
  const int64_t n = problem.n, k = problem.k;
  const int64_t progTileM = config.getProgramTileM();
  const int64_t waveM = progTileM / config.getWavesM();
  const int64_t waveN = config.getTileN() / config.getWavesN();
  const int64_t accSize = config.getAccumulatorRegsPerLane();

  KernelSignature sig = getKernelSignature(ctx, op);
  gpu::GPUModuleOp kernels = lookupOrCreateKernelModule(module);
  OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
  Location loc = op.getLoc();
  auto kernel = gpu::GPUFuncOp::create(b, loc, func.getName(),
                                       b.getFunctionType(sig.argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t wgSize = config.getWorkgroupSize();
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({wgSize, 1, 1}));
  kernel->setAttr("rocdl.flat_work_group_size",
                  b.getStringAttr(Twine(wgSize) + "," + Twine(wgSize)));
  if (config.getWavesPerEU() > 0)
    kernel->setAttr("rocdl.waves_per_eu",
                    b.getI32IntegerAttr(config.getWavesPerEU()));
  kernel->setAttr(kConfigAttrName, config);
  kernel->setAttr(kProblemAttrName, sig.problem);
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": kernel @" << func.getName()
                          << " (n = " << n << ", k = " << k << "): " << config
                          << "\n");

  Block &body = kernel.getBody().front();
  b.setInsertionPointToStart(&body);
  Value x = body.getArgument(0), xs = body.getArgument(1);
  Value w = body.getArgument(2), ws = body.getArgument(3);
  Value y = body.getArgument(4), mI32 = body.getArgument(5);

  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value m = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), mI32);
  // A generic kernel's N and K: the arguments after M (a static one of the
  // two is a constant), passed to every op that needs them at run time.
  // Then the row strides of X, its scales and Y (views of activations).
  Value nSize, kSize, ldX, ldXs, ldY;
  if (problem.isGeneric()) {
    auto index = [&](unsigned arg) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                          body.getArgument(arg));
    };
    auto extent = [&](int64_t staticValue, unsigned arg) -> Value {
      if (staticValue != ::mxgemm::contract::kDynamicExtent)
        return cst(staticValue);
      return index(arg);
    };
    nSize = extent(n, 6);
    kSize = extent(k, 7);
    ldX = index(8);
    ldXs = index(9);
    ldY = index(10);
  }
  Value numTilesM = arith::CeilDivUIOp::create(b, loc, m, cst(progTileM));
  const int64_t numTilesN = nSize ? 0 : llvm::divideCeil(n, config.getTileN());
  Value numTilesNSize;
  if (nSize)
    numTilesNSize =
        arith::CeilDivUIOp::create(b, loc, nSize, cst(config.getTileN()));
  Value pid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // A persistent workgroup walks the tiles pid, pid + grid, ...; the grid is
  // min(tiles, persistent x CUs), the launch rule of contract::TileGrid.
  if (config.getPersistent() > 0) {
    Value numTiles = arith::MulIOp::create(
        b, loc, numTilesM, numTilesNSize ? numTilesNSize : cst(numTilesN));
    Value grid = arith::MinUIOp::create(
        b, loc, numTiles, cst(config.getPersistent() * target->numCus));
    // The iteration argument counts walked tiles (no division by the
    // run-time grid needed to know where a tile's K tiles sit in a ring).
    // The walk counts in i32 (the launch rule keeps the tile count below
    // 2^31 - grid): gfx950 has no ordered 64-bit scalar compare, so an index
    // walk would hold its bound in a VGPR pair across the K loops.
    auto i32 = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v);
    };
    auto walk = scf::ForOp::create(b, loc, i32(pid), i32(numTiles), i32(grid),
                                   ValueRange{cst(0)});
    walk->setAttr(kTileWalkAttrName, b.getUnitAttr());
    b.setInsertionPointToStart(walk.getBody());
    auto yield =
        scf::YieldOp::create(b, loc,
                             ValueRange{arith::AddIOp::create(
                                 b, loc, walk.getRegionIterArgs()[0], cst(1))});
    b.setInsertionPoint(yield.getOperand(0).getDefiningOp());
    pid = arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                       walk.getInductionVar());
  }
  // Split-K grids are 2-D: workgroup id y is the K segment.
  const int64_t splits = config.getKSplits();
  const bool tailSplit = config.getTailSplit();
  Value segment;
  if (splits > 1 && !tailSplit)
    segment = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  // A tail split's 1-D grids (docs/Design.md, "Tail split"): the first
  // launch runs the `whole` tiles as usual, then one workgroup per tail
  // tile and segment (tail tile j = unit % tail, segment unit / tail); the
  // second launch has the tail units alone.
  // `isPartials`: this launch is phase 0 (built here for a tail split,
  // with the phases below otherwise).
  Value tailTiles, tailIndex, inTail, isPartials, wholePid, tailPid;
  auto isPhase0 = [&] {
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, body.getArgument(7),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  };
  if (tailSplit) {
    Value numTiles = arith::MulIOp::create(b, loc, numTilesM, cst(numTilesN));
    tailTiles = arith::RemUIOp::create(b, loc, numTiles, cst(target->numCus));
    Value whole = arith::SubIOp::create(b, loc, numTiles, tailTiles);
    isPartials = isPhase0();
    Value unit = arith::SelectOp::create(
        b, loc, isPartials, arith::SubIOp::create(b, loc, pid, whole), pid);
    inTail = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, pid, whole),
        arith::XOrIOp::create(
            b, loc, isPartials,
            arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)));
    // Never a division by zero: without tail tiles no unit reaches here.
    Value divisor = arith::MaxUIOp::create(b, loc, tailTiles, cst(1));
    tailIndex = arith::RemUIOp::create(b, loc, unit, divisor);
    wholePid = pid;
    tailPid = arith::AddIOp::create(b, loc, whole, tailIndex);
    pid = arith::SelectOp::create(b, loc, inTail, tailPid, pid);
    segment = arith::SelectOp::create(
        b, loc, inTail, arith::DivUIOp::create(b, loc, unit, divisor), cst(0));
  }
  // The program tile of workgroup `tileIndex` and its wave's origin.
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value wave = arith::DivUIOp::create(b, loc, tid, cst(64));
  Value waveRow = arith::DivUIOp::create(b, loc, wave, cst(config.getWavesN()));
  Value waveCol = arith::RemUIOp::create(b, loc, wave, cst(config.getWavesN()));
  auto affine2 = [&](Value a, int64_t sa, Value c, int64_t sc) -> Value {
    Value lhs = arith::MulIOp::create(b, loc, a, cst(sa));
    Value rhs = arith::MulIOp::create(b, loc, c, cst(sc));
    return arith::AddIOp::create(b, loc, lhs, rhs);
  };
  auto programTile = [&](Value tileIndex) {
    return ProgramTileOp::create(b, loc, b.getIndexType(), b.getIndexType(),
                                 tileIndex, numTilesM, numTilesNSize,
                                 numTilesNSize ? IntegerAttr()
                                               : b.getI64IntegerAttr(numTilesN),
                                 b.getI64IntegerAttr(config.getGroupM()),
                                 b.getI64IntegerAttr(config.getGroupN()),
                                 b.getBoolAttr(config.getXcdRemap()),
                                 b.getI64IntegerAttr(target->numXcds));
  };
  auto waveOrigin = [&](ProgramTileOp t) -> std::pair<Value, Value> {
    return {affine2(t.getTileMIndex(), progTileM, waveRow, waveM),
            affine2(t.getTileNIndex(), config.getTileN(), waveCol, waveN)};
  };
  auto tile = programTile(pid);
  auto [row0, col0] = waveOrigin(tile);

  // Phase 0 of a split-K kernel: the K loop over this workgroup's segment
  // (whole K tiles from kOrigin) into its FP32 plane of the workspace.
  Value out = y, outRow0 = row0, outRows = m, kOrigin;
  int64_t loopK = k;
  if (splits > 1) {
    Value work = body.getArgument(6);
    if (!isPartials)
      isPartials = isPhase0();
    auto phases = scf::IfOp::create(b, loc, isPartials, /*withElse=*/true);
    b.setInsertionPointToStart(phases.elseBlock());
    buildSplitReduction(b, loc, config, tile, segment, m, n, work, y, tailTiles,
                        tailIndex);
    b.setInsertionPointToStart(phases.thenBlock());
    loopK = k / splits;
    if (!tailSplit) {
      kOrigin = arith::MulIOp::create(b, loc, segment, cst(loopK));
      Value planeRow0 = arith::MulIOp::create(b, loc, segment, m);
      out = work;
      outRow0 = arith::AddIOp::create(b, loc, planeRow0, row0);
      outRows = arith::AddIOp::create(b, loc, planeRow0, m);
    }
  }
  auto accType = VectorType::get({accSize}, b.getF32Type());
  // The config's scale layouts: the verifier allows only the MFMA-native
  // layout of the config's own MFMA shape besides row-major.
  auto nativeScales = [&](ScaleLayout layout) {
    return layout == ScaleLayout::RowMajor ? UnitAttr() : b.getUnitAttr();
  };
  Value zero = arith::ConstantOp::create(
      b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  // The K loop from kOrigin (when set) over kBound, as ceil(K / tile_k)
  // trips for a run-time K (the last one masks its tail); returns the
  // accumulators.
  auto buildKLoop = [&](Value kBound, Value kOrigin, Value row0,
                        Value col0) -> Value {
    auto kLoop = scf::ForOp::create(b, loc, cst(0), kBound,
                                    cst(config.getTileK()), ValueRange{zero});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value acc = kLoop.getRegionIterArgs()[0];
    Value k0 = kLoop.getInductionVar();
    if (kOrigin)
      k0 = arith::AddIOp::create(b, loc, kOrigin, k0);
    Value next = WaveMmaOp::create(
        b, loc, accType, x, xs, w, ws, acc, row0, col0, k0, m, nSize, kSize,
        ldX, ldXs, /*x_tile=*/Value(), /*w_tile=*/Value(),
        /*x_scale_words=*/Value(), /*w_scale_words=*/Value(),
        /*scale_words_tile=*/IntegerAttr(), /*xor_swizzle=*/UnitAttr(),
        /*w_panels=*/UnitAttr(), nativeScales(config.getXScaleLayout()),
        nativeScales(config.getWScaleLayout()),
        /*pingpong_pending=*/IntegerAttr(), /*pingpong_refills=*/IntegerAttr(),
        MfmaShapeAttr::get(ctx, config.getMfma()), b.getI64IntegerAttr(waveM),
        b.getI64IntegerAttr(waveN), b.getI64IntegerAttr(config.getTileK()),
        kSize ? IntegerAttr() : b.getI64IntegerAttr(k), op.getWScaleAttr());
    scf::YieldOp::create(b, loc, next);
    return kLoop.getResult(0);
  };
  if (tailSplit) {
    // The whole tiles run all of K and store Y (first, so that
    // mxgemm-stage-stores stages it); the tail units their segment and its
    // FP32 partials. Two loops, so that each has a constant trip count.
    auto units =
        scf::IfOp::create(b, loc,
                          arith::XOrIOp::create(b, loc, inTail,
                                                arith::ConstantIntOp::create(
                                                    b, loc, b.getI1Type(), 1)),
                          /*withElse=*/true);
    // Each branch computes its own tile origin: LLVM would otherwise hoist
    // the address arithmetic the two prologues share above the branch, and
    // the structurized branches keep it live across the first K loop.
    // A tail unit's partials go to program tile (segment * tail + j) of
    // the workspace, rows tile_n apart.
    b.setInsertionPointToStart(units.elseBlock());
    auto [tailRow, tailCol] = waveOrigin(programTile(tailPid));
    Value segmentOrigin = arith::MulIOp::create(b, loc, segment, cst(loopK));
    Value slot = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, segment, tailTiles), tailIndex);
    Value tailRow0 = affine2(slot, progTileM, waveRow, waveM);
    Value tailCol0 = arith::MulIOp::create(b, loc, waveCol, cst(waveN));
    Value tailRows =
        arith::MulIOp::create(b, loc, tailTiles, cst(splits * progTileM));
    StoreTileOp::create(
        b, loc, buildKLoop(cst(loopK), segmentOrigin, tailRow, tailCol),
        body.getArgument(6), tailRow0, tailCol0, tailRows, Value(), Value(),
        /*staging=*/Value(), MfmaShapeAttr::get(ctx, config.getMfma()),
        b.getI64IntegerAttr(waveM), b.getI64IntegerAttr(waveN),
        b.getI64IntegerAttr(config.getTileN()));
    b.setInsertionPointToStart(units.thenBlock());
    std::tie(row0, col0) = waveOrigin(programTile(wholePid));
    outRow0 = row0;
    loopK = k;
  }
  Value kBound = kSize ? kSize : cst(loopK);
  StoreTileOp::create(b, loc, buildKLoop(kBound, kOrigin, row0, col0), out,
                      outRow0, col0, outRows, nSize, ldY, /*staging=*/Value(),
                      MfmaShapeAttr::get(ctx, config.getMfma()),
                      b.getI64IntegerAttr(waveM), b.getI64IntegerAttr(waveN),
                      nSize ? IntegerAttr() : b.getI64IntegerAttr(n));
  b.setInsertionPointToEnd(&body);
  gpu::ReturnOp::create(b, loc);
  func.erase();
  return success();
}

} // namespace
} // namespace mxgemm
