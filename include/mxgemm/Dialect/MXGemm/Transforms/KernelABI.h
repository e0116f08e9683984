//===- KernelABI.h - the mxgemm kernel ABI in IR terms ----------*- C++ -*-===//
//
// docs/Design.md section 4 as IR: the kernel argument types (from the
// contract's argument list, Contract/KernelABI.h) and the attributes the
// kernel carries, shared by mxgemm-tile and the compiler that describes a
// kernel (the kernel descriptor).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_KERNELABI_H
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_KERNELABI_H

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

namespace mxgemm {

/// Symbol of the gpu.module that holds every generated kernel.
constexpr llvm::StringLiteral kKernelModuleName = "mxgemm_kernels";
/// Kernel attribute holding the #mxgemm.config it was built from.
constexpr llvm::StringLiteral kConfigAttrName = "mxgemm.config";
/// Kernel attribute describing the problem (N, K, formats, granularity).
constexpr llvm::StringLiteral kProblemAttrName = "mxgemm.problem";
/// Marks the scf.for of a persistent kernel that walks its tiles (id, id +
/// grid, ...); mxgemm-pipeline runs the LDS ring across its iterations.
constexpr llvm::StringLiteral kTileWalkAttrName = "mxgemm.tile_walk";

/// True if `op` (possibly null) is a persistent kernel's tile walk.
inline bool isTileWalk(Operation *op) {
  return op && op->hasAttr(kTileWalkAttrName);
}

/// Where a K offset `k0` used in K loop `loop` starts: null for the loop's
/// induction variable, the origin for `origin + iv` (a split-K segment's
/// K tiles: the add in the loop's body, the origin loop-invariant),
/// failure for anything else.
inline FailureOr<Value> kOriginIn(scf::ForOp loop, Value k0) {
  if (k0 == loop.getInductionVar())
    return Value();
  auto add = k0.getDefiningOp<arith::AddIOp>();
  if (!add || add->getBlock() != loop.getBody() ||
      add.getRhs() != loop.getInductionVar() ||
      !loop.isDefinedOutsideOfLoop(add.getLhs()))
    return failure();
  return add.getLhs();
}
/// Marks a K loop that mxgemm-prefetch-registers pipelined and unrolled:
/// its body is copies of (next tiles' loads, this tile's MFMAs), which
/// mxgemm-schedule-mfma keeps in that order copy by copy.
constexpr llvm::StringLiteral kPrefetchedLoopAttrName = "mxgemm.prefetched";

/// Extent of the flat memrefs whose size depends on the runtime M. The
/// bare-pointer convention needs static shapes; nothing reads this bound
/// (bounds come from M), it only has to exceed any real tensor.
constexpr int64_t kRuntimeSizedExtent = int64_t(1) << 40;

struct KernelSignature {
  /// One type per contract argument: flat bare-pointer memrefs for the
  /// global pointers, i32 for M.
  SmallVector<Type, 6> argTypes;
  /// {n, k, x_format, w_format, w_scale, out_type} in the contract's
  /// spelling, so that a reader of the IR sees the descriptor's names.
  DictionaryAttr problem;
};

/// True if a kernel of `config` (null: none) has its K loops pipelined by
/// mxgemm-prefetch-registers (contract::KernelConfig::prefetchesRegisters).
inline bool prefetchesRegisters(ConfigAttr config) {
  return config && config.getKernelConfig().prefetchesRegisters();
}

/// The kernel signature of one problem.
KernelSignature getKernelSignature(MLIRContext *ctx, ScaledMatmulOp op);

} // namespace mxgemm

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_KERNELABI_H
