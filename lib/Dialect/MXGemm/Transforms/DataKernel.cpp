//===- DataKernel.cpp - the shell of a data-movement kernel ---------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/DataKernel.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

gpu::GPUModuleOp mxgemm::lookupOrCreateKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
}

func::FuncOp mxgemm::getDataKernelFunction(Operation *op, ModuleOp module) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func->getParentOp() != module) {
    op->emitOpError("must be inside a top-level func.func");
    return {};
  }
  for (Operation &other : func.getBody().front())
    if (&other != op && !isa<func::ReturnOp>(other)) {
      other.emitOpError("cannot be compiled into an mxgemm kernel: the "
                        "function must contain only one ")
          << op->getName().getStringRef();
      return {};
    }
  return func;
}

gpu::GPUFuncOp mxgemm::createDataKernel(OpBuilder &b, Location loc,
                                        func::FuncOp func, TypeRange argTypes,
                                        int64_t workgroupSize) {
  gpu::GPUModuleOp kernels =
      lookupOrCreateKernelModule(func->getParentOfType<ModuleOp>());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(kernels.getBody());
  auto kernel = gpu::GPUFuncOp::create(b, loc, func.getName(),
                                       b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(workgroupSize), 1, 1}));
  kernel->setAttr(
      "rocdl.flat_work_group_size",
      b.getStringAttr(Twine(workgroupSize) + "," + Twine(workgroupSize)));
  return kernel;
}
