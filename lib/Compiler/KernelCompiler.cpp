//===- KernelCompiler.cpp - one problem in, one code object out
//--------------===//
//
// Every consumer (CLI, AOT build, C API, Python) goes through this file so a
// kernel compiled any way is the same kernel with the same sidecar.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/KernelCompiler.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxgemm;

std::string mlir::mxgemm::getDefaultConfigText() {
  return "tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2, "
         "mfma = m32n32k64";
}

std::string mlir::mxgemm::buildProblemSource(const ProblemSpec &spec) {
  int64_t kb = spec.k / 32;
  int64_t wsRows = spec.wScale == "per_row" ? spec.n : (spec.n + 31) / 32;
  std::string config =
      spec.config.empty() ? getDefaultConfigText() : spec.config;
  return llvm::formatv(
      R"(func.func @{0}(%x: memref<?x{2}x{3}>, %xs: memref<?x{5}xf8E8M0FNU>,
    %w: memref<{1}x{2}x{4}>, %ws: memref<{6}x{5}xf8E8M0FNU>,
    %y: memref<?x{1}x{7}>) {{
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {{config = #mxgemm.config<{8}>, w_scale = #mxgemm.w_scale<{9}>}
      : memref<?x{2}x{3}>, memref<?x{5}xf8E8M0FNU>, memref<{1}x{2}x{4}>,
        memref<{6}x{5}xf8E8M0FNU> into memref<?x{1}x{7}>
  return
}
)",
      spec.name, spec.n, spec.k, spec.xFormat, spec.wFormat, kb, wsRows,
      spec.outType, config, spec.wScale);
}

OwningOpRef<ModuleOp> mlir::mxgemm::parseProblem(MLIRContext *ctx,
                                                 llvm::StringRef source) {
  return parseSourceString<ModuleOp>(source, ctx);
}

/// Sidecar description of one kernel of the lowered module (the function
/// is an llvm.func by now; mxgemm-tile's attributes survive the lowering).
static llvm::json::Object describeKernel(Operation *kernel) {
  auto config = kernel->getAttrOfType<ConfigAttr>(kConfigAttrName);
  auto problem = kernel->getAttrOfType<DictionaryAttr>(kProblemAttrName);
  llvm::json::Object problemJson;
  for (NamedAttribute attr : problem) {
    if (auto i = dyn_cast<IntegerAttr>(attr.getValue()))
      problemJson[attr.getName().str()] = i.getInt();
    else if (auto s = dyn_cast<StringAttr>(attr.getValue()))
      problemJson[attr.getName().str()] = s.str();
  }
  int64_t n = cast<IntegerAttr>(problem.get("n")).getInt();
  llvm::json::Array args;
  const char *names[] = {"X", "Xs", "W", "Ws", "Y"};
  for (int i = 0; i < 5; ++i)
    args.push_back(llvm::json::Object{{"name", names[i]},
                                      {"kind", "global_pointer"},
                                      {"offset", 8 * i},
                                      {"size", 8}});
  args.push_back(llvm::json::Object{
      {"name", "M"}, {"kind", "i32"}, {"offset", 40}, {"size", 4}});
  std::string configText;
  llvm::raw_string_ostream os(configText);
  os << Attribute(config);
  return llvm::json::Object{
      {"kernel", SymbolTable::getSymbolName(kernel).str()},
      {"problem", std::move(problemJson)},
      {"config", configText},
      {"arguments", std::move(args)},
      {"grid", llvm::json::Object{{"workgroup_size", config.getWorkgroupSize()},
                                  {"program_tile_m", config.getProgramTileM()},
                                  {"tile_n", config.getTileN()},
                                  {"num_tiles_n", n / config.getTileN()},
                                  {"grid_x",
                                   "ceil(M / program_tile_m) * num_tiles_n"}}},
      {"config_lds_bytes", config.getLdsBytes()}};
}

static void addResources(llvm::json::Object &sidecar,
                         const ::mxgemm::KernelResources &r,
                         const std::string &target) {
  sidecar["target"] = target;
  sidecar["lds_bytes"] = r.groupSegmentFixedSize;
  sidecar["resources"] =
      llvm::json::Object{{"vgpr_count", r.vgprCount},
                         {"agpr_count", r.agprCount},
                         {"sgpr_count", r.sgprCount},
                         {"vgpr_spill_count", r.vgprSpillCount},
                         {"sgpr_spill_count", r.sgprSpillCount},
                         {"scratch_bytes", r.privateSegmentFixedSize},
                         {"group_segment_bytes", r.groupSegmentFixedSize},
                         {"kernarg_segment_bytes", r.kernargSegmentSize},
                         {"max_flat_workgroup_size", r.maxFlatWorkgroupSize},
                         {"wavefront_size", r.wavefrontSize}};
}

FailureOr<CompileResult>
mlir::mxgemm::compileProblem(ModuleOp module, const CompileOptions &options) {
  MLIRContext *ctx = module.getContext();
  PassManager pm(ctx);
  if (options.printIRAfterAll) {
    ctx->disableMultithreading();
    pm.enableIRPrinting(
        /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
        /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  MXGemmToGFX950Options pipelineOptions;
  pipelineOptions.chip = options.chip;
  pipelineOptions.optLevel = options.optLevel;
  pipelineOptions.abi = std::to_string(options.codeObjectVersion);
  buildMXGemmToGFX950Pipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return failure();

  CompileResult result;
  llvm::raw_string_ostream os(result.output);
  if (options.stage == EmitStage::MLIR) {
    module.print(os);
    return result;
  }
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  if (!kernels)
    return module.emitError("no mxgemm.scaled_matmul to compile");
  SmallVector<Operation *> funcs;
  for (Operation &op : kernels.getBody()->getOperations())
    if (op.hasAttr(kConfigAttrName))
      funcs.push_back(&op);
  if (funcs.size() != 1)
    return module.emitError("expected exactly one kernel, got ")
           << funcs.size();
  llvm::json::Object sidecar = describeKernel(funcs.front());

  SerializeOptions serialize;
  serialize.chip = options.chip;
  serialize.optLevel = options.optLevel;
  serialize.codeObjectVersion = options.codeObjectVersion;
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateAndOptimize(kernels, llvmCtx, serialize);
  if (failed(llvmModule))
    return failure();
  if (options.stage == EmitStage::LLVM) {
    (*llvmModule)->print(os, nullptr);
    return result;
  }
  bool assembly = options.stage == EmitStage::ISA;
  auto code = emitMachineCode(**llvmModule, serialize, assembly);
  if (!code)
    return module.emitError(llvm::toString(code.takeError()));
  if (assembly) {
    result.output = std::move(*code);
    return result;
  }
  auto hsaco = linkCodeObject(*code);
  if (!hsaco)
    return module.emitError(llvm::toString(hsaco.takeError()));
  auto info = ::mxgemm::readCodeObjectInfo(*hsaco);
  if (!info)
    return module.emitError("cannot read back the code object metadata: ")
           << llvm::toString(info.takeError());
  std::string name = SymbolTable::getSymbolName(funcs.front()).str();
  auto it = llvm::find_if(info->kernels,
                          [&](const auto &k) { return k.name == name; });
  if (it == info->kernels.end())
    return module.emitError("code object has no metadata for kernel ") << name;
  addResources(sidecar, *it, info->target);
  result.output = std::move(*hsaco);
  result.sidecar = std::move(sidecar);
  return result;
}
