//===- KernelSerialization.cpp - a lowered kernel module to its output --===//

#include "KernelSerialization.h"

#include "mxgemm/Target/Serialization.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace mlir;
using namespace mxgemm;

void compiler::configureIRPrinting(PassManager &pm,
                                   const CompileOptions &options) {
  if (!options.printIRAfterAll)
    return;
  pm.getContext()->disableMultithreading();
  pm.enableIRPrinting(
      /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
      /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
      /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
}

FailureOr<compiler::SerializedKernel>
compiler::serializeKernelModule(ModuleOp module, gpu::GPUModuleOp kernels,
                                StringRef kernel,
                                const CompileOptions &options) {
  SerializedKernel out;
  SerializeOptions serialize;
  serialize.chip = options.chip;
  serialize.optLevel = options.optLevel;
  serialize.codeObjectVersion = options.codeObjectVersion;
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateAndOptimize(kernels, llvmCtx, serialize);
  if (failed(llvmModule))
    return failure();
  if (options.stage == EmitStage::LLVM) {
    llvm::raw_string_ostream os(out.text);
    (*llvmModule)->print(os, nullptr);
    return out;
  }
  bool assembly = options.stage == EmitStage::ISA;
  auto code = emitMachineCode(**llvmModule, serialize, assembly);
  if (!code)
    return module.emitError(llvm::toString(code.takeError()));
  if (assembly) {
    out.text = std::move(*code);
    return out;
  }
  auto hsaco = linkCodeObject(*code);
  if (!hsaco)
    return module.emitError(llvm::toString(hsaco.takeError()));
  auto info = ::mxgemm::target::readCodeObjectMetadata(*hsaco);
  if (!info)
    return module.emitError("cannot read back the code object metadata: ")
           << llvm::toString(info.takeError());
  auto it = llvm::find_if(info->kernels,
                          [&](const auto &k) { return k.name == kernel; });
  if (it == info->kernels.end())
    return module.emitError("code object has no metadata for kernel ")
           << kernel;
  out.kernel = *it;
  out.metadata = std::move(*info);
  out.codeObject = std::move(*hsaco);
  return out;
}
