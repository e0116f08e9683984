//===- DataKernelCompiler.cpp - data-movement kernels to code objects -----===//
//
// Same serialisation path as compileProblem (translateAndOptimize,
// emitMachineCode, linkCodeObject), so the quantize and packing kernels and
// the GEMM kernels come from one compiler with one set of LLVM options.
//
//===----------------------------------------------------------------------===//

#include "DataKernelCompiler.h"
#include "KernelSerialization.h"

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/QuantizePipeline.h"
#include "mxgemm/Target/CodeObject.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mxgemm;

FailureOr<std::string>
compiler::compileDataKernel(ModuleOp module, const CompileOptions &options,
                            StringRef kernel, llvm::json::Object fields,
                            std::string &descriptorJson) {
  PassManager pm(module.getContext());
  configureIRPrinting(pm, options);
  MXGemmToGFX950Options pipeline;
  pipeline.chip = options.chip;
  pipeline.optLevel = options.optLevel;
  pipeline.abi = std::to_string(options.codeObjectVersion);
  buildMXGemmQuantizeToGFX950Pipeline(pm, pipeline);
  if (failed(pm.run(module)))
    return failure();
  std::string output;
  llvm::raw_string_ostream os(output);
  if (options.stage == EmitStage::MLIR) {
    module.print(os);
    return output;
  }
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  if (!kernels)
    return module.emitError("the pipeline produced no kernel module");
  FailureOr<SerializedKernel> serialized =
      serializeKernelModule(module, kernels, kernel, options);
  if (failed(serialized))
    return failure();
  if (options.stage != EmitStage::HSACO)
    return std::move(serialized->text);
  const ::mxgemm::target::KernelMetadata &it = serialized->kernel;
  const std::string &hsaco = serialized->codeObject;
  fields["kernel"] = kernel.str();
  fields["target"] = serialized->metadata.target;
  fields["resources"] =
      llvm::json::Object{{"vgpr_count", it.vgprCount},
                         {"sgpr_count", it.sgprCount},
                         {"vgpr_spill_count", it.vgprSpillCount},
                         {"scratch_bytes", it.privateSegmentFixedSize},
                         {"kernarg_segment_bytes", it.kernargSegmentSize}};
  fields["code_object_sha256"] =
      contract::sha256Hex(hsaco.data(), hsaco.size());
  fields["mxgemm_version"] = getMXGemmVersion();
  fields["llvm_version"] = getLLVMVersion();
  llvm::raw_string_ostream js(descriptorJson);
  js << llvm::formatv("{0:2}", llvm::json::Value(std::move(fields))) << "\n";
  return std::move(serialized->codeObject);
}
