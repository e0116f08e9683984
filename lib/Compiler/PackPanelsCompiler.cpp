//===- PackPanelsCompiler.cpp - mxgemm.pack_panels to a code object -------===//
//
// The packing kernel and its descriptor fields (PackPanelsDescriptor.h);
// the pipeline and the serialisation are the data-movement kernels'
// (DataKernelCompiler.h).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/PackPanelsCompiler.h"
#include "DataKernelCompiler.h"

#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mxgemm;

bool mxgemm::containsPackPanels(ModuleOp module) {
  bool found = false;
  module.walk([&](PackPanelsOp) { found = true; });
  return found;
}

FailureOr<std::string> mxgemm::compilePackPanels(ModuleOp module,
                                                 const CompileOptions &options,
                                                 std::string &descriptorJson) {
  SmallVector<PackPanelsOp> ops;
  module.walk([&](PackPanelsOp op) { ops.push_back(op); });
  if (ops.size() != 1)
    return module.emitError("expected exactly one mxgemm.pack_panels, got ")
           << ops.size();
  auto func = ops.front()->getParentOfType<func::FuncOp>();
  if (!func)
    return ops.front().emitOpError("must be inside a func.func");
  const std::string kernel = func.getName().str();
  const int64_t nonK = ops.front().getNonK();

  return compiler::compileDataKernel(
      module, options, kernel,
      llvm::json::Object{
          {"kind", "mxgemm-pack-panels"},
          {"version", 1},
          {"mfma", nonK == 32 ? "m32n32k64" : "m16n16k128"},
          {"non_k", nonK},
          {"k_step", contract::panelKStep(nonK)},
          {"arguments", llvm::json::Array{"w", "packed", "n", "k"}},
          {"workgroup_size", 256},
          {"panels_per_workgroup", 4}},
      descriptorJson);
}
