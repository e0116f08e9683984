//===- QuantizeCompiler.cpp - mxgemm.quantize to a code object
//-------------===//
//
// Same serialisation path as compileProblem (translateAndOptimize,
// emitMachineCode, linkCodeObject), so a quantize kernel and a GEMM kernel
// come from one compiler with one set of LLVM options.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/QuantizeCompiler.h"
#include "KernelSerialization.h"

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/QuantizePipeline.h"
#include "mxgemm/Target/CodeObject.h"
#include "mxgemm/Target/Serialization.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mxgemm;

std::string mxgemm::getQuantizeKernelName(const QuantizeSpec &spec) {
  if (!spec.name.empty())
    return spec.name;
  return "mxgemm_quantize_" + spec.inType + "_" + spec.format;
}

OwningOpRef<ModuleOp> mxgemm::buildQuantize(MLIRContext *ctx,
                                            const QuantizeSpec &spec) {
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-quantize"));
  Builder types(ctx);
  Type in = llvm::StringSwitch<Type>(spec.inType)
                .Case("bf16", types.getBF16Type())
                .Case("f16", types.getF16Type())
                .Case("f32", types.getF32Type())
                .Default(Type());
  Type code = llvm::StringSwitch<Type>(spec.format)
                  .Case("e4m3", Float8E4M3FNType::get(ctx))
                  .Case("e5m2", Float8E5M2Type::get(ctx))
                  .Default(Type());
  if (!in || !code) {
    emitError(loc) << "quantize takes bf16, f16 or f32 values to e4m3 or "
                      "e5m2, got "
                   << spec.inType << " to " << spec.format;
    return {};
  }
  ctx->getOrLoadDialect<MXGemmDialect>();
  ctx->getOrLoadDialect<func::FuncDialect>();
  const int64_t dyn = ShapedType::kDynamic;
  auto memref = [&](Type elem) { return MemRefType::get({dyn, dyn}, elem); };
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, getQuantizeKernelName(spec),
      b.getFunctionType(
          {memref(in), memref(code), memref(Float8E8M0FNUType::get(ctx))}, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  QuantizeOp::create(b, loc, body->getArgument(0), body->getArgument(1),
                     body->getArgument(2));
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return {};
  return module;
}

bool mxgemm::containsQuantize(ModuleOp module) {
  bool found = false;
  module.walk([&](QuantizeOp) { found = true; });
  return found;
}

static std::string typeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  return isa<Float8E4M3FNType>(t) ? "e4m3" : "e5m2";
}

FailureOr<std::string> mxgemm::compileQuantize(ModuleOp module,
                                               const CompileOptions &options,
                                               std::string &descriptorJson) {
  SmallVector<QuantizeOp> ops;
  module.walk([&](QuantizeOp op) { ops.push_back(op); });
  if (ops.size() != 1)
    return module.emitError("expected exactly one mxgemm.quantize, got ")
           << ops.size();
  auto func = ops.front()->getParentOfType<func::FuncOp>();
  if (!func)
    return ops.front().emitOpError("must be inside a func.func");
  const std::string kernel = func.getName().str();
  const std::string inType =
      typeName(ops.front().getInput().getType().getElementType());
  const std::string format =
      typeName(ops.front().getCodes().getType().getElementType());

  MLIRContext *ctx = module.getContext();
  PassManager pm(ctx);
  compiler::configureIRPrinting(pm, options);
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
  FailureOr<compiler::SerializedKernel> serialized =
      compiler::serializeKernelModule(module, kernels, kernel, options);
  if (failed(serialized))
    return failure();
  if (options.stage != EmitStage::HSACO)
    return std::move(serialized->text);
  const ::mxgemm::target::KernelMetadata *it = &serialized->kernel;
  const std::string &hsaco = serialized->codeObject;
  llvm::json::Object d{
      {"kind", "mxgemm-quantize"},
      {"version", 1},
      {"kernel", kernel},
      {"in_type", inType},
      {"format", format},
      {"scale_layout", "row_major"},
      {"arguments", llvm::json::Array{"input", "codes", "scales", "m", "k"}},
      {"workgroup_size", 256},
      {"blocks_per_workgroup", 256},
      {"target", serialized->metadata.target},
      {"resources",
       llvm::json::Object{{"vgpr_count", it->vgprCount},
                          {"sgpr_count", it->sgprCount},
                          {"vgpr_spill_count", it->vgprSpillCount},
                          {"scratch_bytes", it->privateSegmentFixedSize},
                          {"kernarg_segment_bytes", it->kernargSegmentSize}}},
      {"code_object_sha256", contract::sha256Hex(hsaco.data(), hsaco.size())},
      {"mxgemm_version", getMXGemmVersion()},
      {"llvm_version", getLLVMVersion()}};
  llvm::raw_string_ostream js(descriptorJson);
  js << llvm::formatv("{0:2}", llvm::json::Value(std::move(d))) << "\n";
  return std::move(serialized->codeObject);
}
