//===- MXGemmToAMDGPUTest.cpp - the MXGemmToAMDGPU pattern API ------------===//
//
// The entry points a pass of someone else's uses: the patterns with their
// counts (which the pass reports as statistics, and which a release build of
// MLIR cannot print) and the legality that leaves no mxgemm op behind.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Conversion/Passes.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
#include "mxgemm/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mxgemm;

namespace {

/// A pipelined kernel: X through a 2-slot LDS ring of 128 x 144 bytes
/// (lds_async, padded), W packed in panels, wave tile 128 x 64 of 32x32x64
/// blocks (4 x 2), K tile 128 (2 MFMA steps).
constexpr llvm::StringLiteral kPipelinedProblem = R"mlir(
func.func @pipelined(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                     %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                     %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128,
                               waves_m = 1, waves_n = 4, stage_x = lds_async,
                               stage_w = packed_registers, stages = 2,
                               lds_layout = padded>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>,
        memref<256x512xf8E4M3FN>, memref<8x16xf8E8M0FNU>
        into memref<?x256xbf16>
  return
}
)mlir";

class MXGemmToAMDGPUTest : public ::testing::Test {
protected:
  MXGemmToAMDGPUTest() {
    DialectRegistry registry;
    ::mxgemm::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// The problem after the passes before the conversion (with or without
  /// mxgemm-group-tiles).
  OwningOpRef<ModuleOp> kernelBeforeConversion(bool groupTiles) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kPipelinedProblem, &ctx);
    if (!module)
      return nullptr;
    PassManager pm(&ctx);
    pm.addPass(createMXGemmTile());
    OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
    if (groupTiles)
      kernels.addPass(createMXGemmGroupTiles());
    kernels.addPass(createMXGemmStageCopies());
    kernels.addPass(createMXGemmPipeline());
    if (failed(pm.run(*module)))
      return nullptr;
    return module;
  }

  LogicalResult convert(ModuleOp module, MXGemmToAMDGPUCounts *counts) {
    ConversionTarget target(ctx);
    configureMXGemmToAMDGPUConversionLegality(target);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&ctx);
    populateMXGemmToAMDGPUConversionPatterns(patterns, counts);
    return applyPartialConversion(module, target, std::move(patterns));
  }

  template <typename OpTy>
  static uint64_t countOps(ModuleOp module,
                           function_ref<bool(OpTy)> filter = nullptr) {
    uint64_t n = 0;
    module.walk([&](OpTy op) { n += !filter || filter(op); });
    return n;
  }

  static bool inLds(Value memref) {
    return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
        cast<MemRefType>(memref.getType()));
  }

  MLIRContext ctx;
};

TEST_F(MXGemmToAMDGPUTest, CountsAreTheOpsThePatternsEmit) {
  OwningOpRef<ModuleOp> module = kernelBeforeConversion(/*groupTiles=*/true);
  ASSERT_TRUE(module);
  MXGemmToAMDGPUCounts counts;
  ASSERT_TRUE(succeeded(convert(*module, &counts)));

  // By hand: 2 K-steps x 4 x 2 blocks of MFMAs; 2 halves of X from LDS per
  // block row and step; 2 halves of each W panel block per step and one
  // 4-byte scale load per block row and column serving both steps, from
  // global memory; the prologue copy and the refill, each 5 passes of 256
  // chunks over 128 x 9; 128 accumulators per lane stored four at a time in
  // the unguarded and the guarded branch.
  EXPECT_EQ(counts.mfmas, 16u);
  EXPECT_EQ(counts.hoistedMmas, 1u);
  EXPECT_EQ(counts.dsReads, 16u);
  EXPECT_EQ(counts.globalLoads, 8u + 6u);
  EXPECT_EQ(counts.ldsCopies, 2u);
  EXPECT_EQ(counts.ldsCopyInstructions, 10u);
  EXPECT_EQ(counts.waits, 1u);
  EXPECT_EQ(counts.barriers, 1u);
  EXPECT_EQ(counts.stores, 2u * 128u / 4u);

  // And what is in the IR, so that the counts cannot drift from it.
  ModuleOp m = *module;
  EXPECT_EQ(counts.mfmas, countOps<amdgpu::ScaledMFMAOp>(m));
  EXPECT_EQ(counts.dsReads, countOps<vector::LoadOp>(m, [](vector::LoadOp op) {
              return inLds(op.getBase());
            }));
  EXPECT_EQ(counts.globalLoads,
            countOps<vector::LoadOp>(m, [](vector::LoadOp op) {
              return !inLds(op.getBase());
            }) + countOps<memref::LoadOp>(m));
  EXPECT_EQ(counts.ldsCopyInstructions, countOps<amdgpu::GatherToLDSOp>(m));
  EXPECT_EQ(counts.waits, countOps<amdgpu::MemoryCounterWaitOp>(m));
  EXPECT_EQ(counts.barriers, countOps<ROCDL::SBarrierOp>(m));
  EXPECT_EQ(counts.stores,
            countOps<vector::StoreOp>(m) + countOps<memref::StoreOp>(m));
  EXPECT_EQ(countOps<Operation *>(m,
                                  [](Operation *op) {
                                    return isa_and_nonnull<MXGemmDialect>(
                                        op->getDialect());
                                  }),
            0u);
}

TEST_F(MXGemmToAMDGPUTest, CountsAreOptional) {
  OwningOpRef<ModuleOp> module = kernelBeforeConversion(/*groupTiles=*/true);
  ASSERT_TRUE(module);
  EXPECT_TRUE(succeeded(convert(*module, /*counts=*/nullptr)));
  EXPECT_EQ(countOps<amdgpu::ScaledMFMAOp>(*module), 16u);
}

TEST_F(MXGemmToAMDGPUTest, AnOpWithoutAPatternFailsTheConversion) {
  // Without mxgemm-group-tiles, mxgemm.program_tile is left: the legality
  // makes that a failure, not a partial lowering.
  OwningOpRef<ModuleOp> module = kernelBeforeConversion(/*groupTiles=*/false);
  ASSERT_TRUE(module);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    diagnostic = d.str();
    return success();
  });
  EXPECT_TRUE(failed(convert(*module, /*counts=*/nullptr)));
  EXPECT_NE(diagnostic.find("mxgemm.program_tile"), std::string::npos)
      << diagnostic;
}

} // namespace
