//===- MXGemmToAMDGPU.cpp - convert-mxgemm-to-amdgpu ----------------------===//
//
// The pass that takes the mxgemm dialect out of a kernel: the patterns of
// this directory under a target where every mxgemm op is illegal, so that
// an op no pattern lowers (a pass missing or misordered before this one) is
// an error rather than IR left behind for the ROCDL conversion to trip on.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mxgemm/Conversion/Passes.h"

#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "convert-mxgemm-to-amdgpu"

namespace mxgemm {
#define GEN_PASS_DEF_CONVERTMXGEMMTOAMDGPU
#include "mxgemm/Conversion/Passes.h.inc"

void populateMXGemmToAMDGPUConversionPatterns(RewritePatternSet &patterns,
                                              MXGemmToAMDGPUCounts *counts) {
  populateWaveMmaToMfmaPatterns(patterns, counts);
  populateCopiesToAMDGPUPatterns(patterns, counts);
  populateStoresToAMDGPUPatterns(patterns, counts);
  populateSyncToAMDGPUPatterns(patterns, counts);
}

void configureMXGemmToAMDGPUConversionLegality(ConversionTarget &target) {
  target.addIllegalDialect<MXGemmDialect>();
}

namespace {

/// The pass that lowers `op` out of the IR, for mxgemm ops the patterns
/// here do not handle; empty if no pass does.
StringRef loweringPassOf(Operation *op) {
  if (isa<ScaledMatmulOp>(op))
    return "mxgemm-tile";
  if (isa<ProgramTileOp>(op))
    return "mxgemm-group-tiles";
  return "";
}

bool isLoweredHere(Operation *op) {
  return isa<WaveMmaOp, LoadWaveScalesOp, StoreTileOp, CopyToLdsOp,
             WaitCopiesOp, RingBarrierOp>(op);
}

struct ConvertMXGemmToAMDGPUPass
    : public impl::ConvertMXGemmToAMDGPUBase<ConvertMXGemmToAMDGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(checkInput()))
      return signalPassFailure();

    ConversionTarget target(getContext());
    configureMXGemmToAMDGPUConversionLegality(target);
    // Everything else is left exactly as it is: no folding of other ops
    // either, since op order is part of the kernels' byte identity.
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    MXGemmToAMDGPUCounts counts;
    RewritePatternSet patterns(&getContext());
    populateMXGemmToAMDGPUConversionPatterns(patterns, &counts);
    ConversionConfig config;
    config.allowPatternRollback = allowPatternRollback;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns), config)))
      return signalPassFailure();

    numMfmas += counts.mfmas;
    numHoistedMmas += counts.hoistedMmas;
    numDsReads += counts.dsReads;
    numGlobalLoads += counts.globalLoads;
    numScalarLoads += counts.scalarLoads;
    numLdsCopies += counts.ldsCopies;
    numLdsCopyInstructions += counts.ldsCopyInstructions;
    numWaits += counts.waits;
    numBarriers += counts.barriers;
    numStores += counts.stores;
    LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << counts.mfmas << " MFMAs ("
                            << counts.hoistedMmas
                            << " MMAs with hoisted loads), " << counts.ldsCopies
                            << " LDS copies, " << counts.stores << " stores\n");
  }

  /// Rejects, with a message naming the missing pass, what no pattern can
  /// lower correctly; the conversion target would reject it too, but only
  /// as "failed to legalize".
  LogicalResult checkInput() {
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      if (!isa_and_nonnull<MXGemmDialect>(op->getDialect()))
        return;
      if (auto mma = dyn_cast<WaveMmaOp>(op);
          mma && readsPackedWeightsRowMajor(mma)) {
        // The kernel ABI promises packed W; only stage-copies makes the MMA
        // read it that way, so lowering without it would misread W.
        mma.emitOpError("kernel takes W packed in MFMA panels (stage_w = "
                        "packed_registers) but this op reads row-major W; "
                        "run mxgemm-stage-copies first");
        ok = false;
      } else if (!isLoweredHere(op)) {
        InFlightDiagnostic diag = op->emitOpError(
            "is not lowered by convert-mxgemm-to-amdgpu, which leaves no "
            "mxgemm op behind");
        if (StringRef pass = loweringPassOf(op); !pass.empty())
          diag << "; run " << pass << " first";
        ok = false;
      }
    });
    return success(ok);
  }
};

} // namespace
} // namespace mxgemm
