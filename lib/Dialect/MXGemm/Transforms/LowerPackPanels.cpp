//===- LowerPackPanels.cpp - mxgemm-lower-pack-panels: op -> kernel -------===//
//
// One wave per 2048-byte panel: the panel's destination is contiguous, so a
// wave's stores are one coalesced run, and each lane's two 16-byte sources
// are contiguous rows segments of W (WeightPanels.h). The addressing is the
// contract's formula spelled in index arithmetic.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/PackPanelsDescriptor.h"
#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Dialect/MXGemm/Transforms/DataKernel.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-lower-pack-panels"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMLOWERPACKPANELS
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// The descriptor's ABI: four wave64s per workgroup (one per SIMD), a panel
/// each.
using Descriptor = contract::PackPanelsDescriptor;
constexpr int64_t kPackWorkgroupSize = Descriptor::kWorkgroupSize;
constexpr int64_t kWaveSize =
    kPackWorkgroupSize / Descriptor::kPanelsPerWorkgroup;
/// Bytes per lane per half of its panel slot (one global_load_dwordx4).
constexpr int64_t kRunBytes = 16;

struct MXGemmLowerPackPanelsPass
    : public impl::MXGemmLowerPackPanelsBase<MXGemmLowerPackPanelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<PackPanelsOp> ops;
    getOperation().walk([&](PackPanelsOp op) { ops.push_back(op); });
    for (PackPanelsOp op : ops) {
      if (failed(lower(op)))
        return signalPassFailure();
      ++numKernels;
    }
  }

  LogicalResult lower(PackPanelsOp op) {
    func::FuncOp func = getDataKernelFunction(op, getOperation());
    if (!func)
      return failure();
    OpBuilder b(&getContext());
    Type i8 = b.getI8Type(), i32 = b.getI32Type();
    auto flat = MemRefType::get({kRuntimeSizedExtent}, i8);
    Location loc = op.getLoc();
    gpu::GPUFuncOp kernel = createDataKernel(
        b, loc, func, {flat, flat, i32, i32}, kPackWorkgroupSize);
    const int64_t nonK = op.getNonK(), kStep = contract::panelKStep(nonK);
    LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": kernel @" << func.getName()
                            << " (non_k " << nonK << ")\n");

    Block &body = kernel.getBody().front();
    b.setInsertionPointToStart(&body);
    Value w = body.getArgument(0), packed = body.getArgument(1);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto index = [&](Value v) -> Value {
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    };
    Value n = index(body.getArgument(2)), k = index(body.getArgument(3));
    Value stepsK = arith::DivUIOp::create(b, loc, k, cst(kStep));
    Value panels = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, n, cst(nonK)), stepsK);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value panel = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
                              cst(Descriptor::kPanelsPerWorkgroup)),
        arith::DivUIOp::create(b, loc, tid, cst(kWaveSize)));
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, panel, panels);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
    {
      // WeightPanels.h: row = nb nonK + l % nonK, column = ks kStep +
      // 16 (l / nonK) + (kStep / 2) h.
      Value lane = arith::RemUIOp::create(b, loc, tid, cst(kWaveSize));
      Value nb = arith::DivUIOp::create(b, loc, panel, stepsK);
      Value ks = arith::RemUIOp::create(b, loc, panel, stepsK);
      Value row = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, nb, cst(nonK)),
          arith::RemUIOp::create(b, loc, lane, cst(nonK)));
      Value col = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, ks, cst(kStep)),
          arith::MulIOp::create(b, loc,
                                arith::DivUIOp::create(b, loc, lane, cst(nonK)),
                                cst(kRunBytes)));
      Value src = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, k), col);
      auto run = VectorType::get({kRunBytes}, i8);
      Value lo = vector::LoadOp::create(b, loc, run, w, ValueRange{src});
      Value hi = vector::LoadOp::create(
          b, loc, run, w,
          ValueRange{arith::AddIOp::create(b, loc, src, cst(kStep / 2))});
      SmallVector<int64_t> both;
      for (int64_t i = 0; i < 2 * kRunBytes; ++i)
        both.push_back(i);
      Value bytes = vector::ShuffleOp::create(b, loc, lo, hi, both);
      Value dst = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, panel, cst(contract::kPanelBytes)),
          arith::MulIOp::create(b, loc, lane, cst(2 * kRunBytes)));
      vector::StoreOp::create(b, loc, bytes, packed, ValueRange{dst});
    }
    b.setInsertionPointAfter(guard);
    gpu::ReturnOp::create(b, loc);
    func.erase();
    return success();
  }
};

} // namespace
} // namespace mxgemm
