//===- DataKernel.h - the shell of a data-movement kernel -------*- C++ -*-===//
//
// What the lowerings of the one-op data-movement functions (mxgemm.quantize,
// mxgemm.pack_panels) share: the function must hold only the op, and it
// becomes a gpu.func kernel of the same name with a fixed 1-D workgroup in
// gpu.module @mxgemm_kernels. The body is the lowering's own.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_DATAKERNEL_H
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_DATAKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mxgemm {

/// The module's gpu.module @mxgemm_kernels, created (and the module marked a
/// GPU container module) if it does not exist yet.
mlir::gpu::GPUModuleOp lookupOrCreateKernelModule(mlir::ModuleOp module);

/// The func.func directly in `module` that holds `op` and nothing else but
/// its return (the kernel's specification); null after a diagnostic on the
/// offending op otherwise.
mlir::func::FuncOp getDataKernelFunction(mlir::Operation *op,
                                         mlir::ModuleOp module);

/// A gpu.func kernel named like `func` with `argTypes` at the end of the
/// module's kernel module, for 1-D workgroups of exactly `workgroupSize`
/// work-items (known_block_size and rocdl.flat_work_group_size).
mlir::gpu::GPUFuncOp createDataKernel(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::func::FuncOp func,
                                      mlir::TypeRange argTypes,
                                      int64_t workgroupSize);

} // namespace mxgemm

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_DATAKERNEL_H
