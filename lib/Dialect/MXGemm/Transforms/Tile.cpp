//===- Tile.cpp - mxgemm-tile: problem op -> gfx950 kernel ----------------===//
//
// Builds the kernel skeleton every later pass refines: the ABI of
// docs/Design.md section 4, the workgroup-id -> tile mapping (as
// mxgemm.program_tile, so the grouping pass owns the swizzle), the per-wave
// sub-tile and the K loop of wave-level MMA steps.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/Target/TargetModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-tile"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMTILE
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// Returns the kernel container of the module, creating it if needed.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
}

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
  const int64_t n = op.getN(), k = op.getK();
  const int64_t progTileM = config.getProgramTileM();
  const int64_t waveM = progTileM / config.getWavesM();
  const int64_t waveN = config.getTileN() / config.getWavesN();
  const int64_t accSize = config.getAccumulatorRegsPerLane();

  KernelSignature sig = getKernelSignature(ctx, op);
  gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
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
  Value numTilesM = arith::CeilDivUIOp::create(b, loc, m, cst(progTileM));
  Value pid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  auto tile = ProgramTileOp::create(
      b, loc, b.getIndexType(), b.getIndexType(), pid, numTilesM,
      b.getI64IntegerAttr(llvm::divideCeil(n, config.getTileN())),
      b.getI64IntegerAttr(config.getGroupM()),
      b.getI64IntegerAttr(config.getGroupN()),
      b.getBoolAttr(config.getXcdRemap()),
      b.getI64IntegerAttr(target->numXcds));

  // Wave coordinates inside the workgroup, waves_n-major.
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value wave = arith::DivUIOp::create(b, loc, tid, cst(64));
  Value waveRow = arith::DivUIOp::create(b, loc, wave, cst(config.getWavesN()));
  Value waveCol = arith::RemUIOp::create(b, loc, wave, cst(config.getWavesN()));
  auto affine2 = [&](Value a, int64_t sa, Value c, int64_t sc) -> Value {
    Value lhs = arith::MulIOp::create(b, loc, a, cst(sa));
    Value rhs = arith::MulIOp::create(b, loc, c, cst(sc));
    return arith::AddIOp::create(b, loc, lhs, rhs);
  };
  Value row0 = affine2(tile.getTileMIndex(), progTileM, waveRow, waveM);
  Value col0 = affine2(tile.getTileNIndex(), config.getTileN(), waveCol, waveN);

  auto accType = VectorType::get({accSize}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  auto kLoop = scf::ForOp::create(b, loc, cst(0), cst(k),
                                  cst(config.getTileK()), ValueRange{zero});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value acc = kLoop.getRegionIterArgs()[0];
    Value next = WaveMmaOp::create(
        b, loc, accType, x, xs, w, ws, acc, row0, col0, kLoop.getInductionVar(),
        m, /*x_tile=*/Value(), /*w_tile=*/Value(), /*xor_swizzle=*/UnitAttr(),
        /*w_panels=*/UnitAttr(), /*pingpong_pending=*/IntegerAttr(),
        MfmaShapeAttr::get(ctx, config.getMfma()), b.getI64IntegerAttr(waveM),
        b.getI64IntegerAttr(waveN), b.getI64IntegerAttr(config.getTileK()),
        b.getI64IntegerAttr(k), op.getWScaleAttr());
    scf::YieldOp::create(b, loc, next);
  }
  StoreTileOp::create(b, loc, kLoop.getResult(0), y, row0, col0, m,
                      /*staging=*/Value(),
                      MfmaShapeAttr::get(ctx, config.getMfma()),
                      b.getI64IntegerAttr(waveM), b.getI64IntegerAttr(waveN),
                      b.getI64IntegerAttr(n));
  gpu::ReturnOp::create(b, loc);
  func.erase();
  return success();
}

} // namespace
} // namespace mxgemm
