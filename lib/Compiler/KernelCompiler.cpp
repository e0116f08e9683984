//===- KernelCompiler.cpp - one problem in, one code object out -----------===//
//
// Every consumer (CLI, AOT build, C API, Python) goes through this file so a
// kernel compiled any way is the same kernel with the same descriptor. The
// problem is built with an OpBuilder, never as text: a kernel name or a
// config cannot inject IR.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/KernelCompiler.h"
#include "KernelSerialization.h"

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/Dialect/MXGemm/Transforms/KernelABI.h"
#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"
#include "mxgemm/Target/CodeObject.h"
#include "mxgemm/Target/Serialization.h"
#include "mxgemm/Target/TargetModel.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace mlir;
using namespace mxgemm;
namespace contract = ::mxgemm::contract;

StringRef mxgemm::getMXGemmVersion() { return MXGEMM_VERSION_STRING; }
StringRef mxgemm::getLLVMVersion() { return LLVM_VERSION_STRING; }

std::string mxgemm::getKernelName(const ProblemSpec &spec) {
  if (!spec.name.empty())
    return spec.name;
  auto extent = [](int64_t v) {
    return v == contract::kDynamicExtent ? std::string("dyn")
                                         : std::to_string(v);
  };
  return "mxgemm_n" + extent(spec.problem.n) + "_k" + extent(spec.problem.k);
}

/// A symbol the assembler and every tool take as one name.
static bool isIdentifier(StringRef name) {
  if (name.empty() || name.size() > 256 ||
      !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  });
}

contract::ErrorMessage mxgemm::validateProblemSpec(const ProblemSpec &spec,
                                                   StringRef chip) {
  if (!spec.name.empty() && !isIdentifier(spec.name))
    return "the kernel name must be an identifier ([A-Za-z_][A-Za-z0-9_$.]*, "
           "at most 256 characters), got '" +
           spec.name + "'";
  const ::mxgemm::target::TargetModel *target =
      ::mxgemm::target::findTargetModel(chip);
  if (!target)
    return "unsupported chip '" + chip.str() + "' (only gfx950 is supported)";
  if (auto error =
          contract::validateProblem(spec.problem, /*allowDynamic=*/true))
    return error;
  if (auto error = contract::verifyConfig(spec.config, *target))
    return error;
  return contract::verifyProblemConfig(spec.problem, spec.config);
}

OwningOpRef<ModuleOp> mxgemm::buildProblem(MLIRContext *ctx,
                                           const ProblemSpec &spec,
                                           StringRef chip) {
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-problem"));
  if (auto error = validateProblemSpec(spec, chip)) {
    emitError(loc) << *error;
    return {};
  }
  ctx->getOrLoadDialect<MXGemmDialect>();
  ctx->getOrLoadDialect<func::FuncDialect>();
  ctx->getOrLoadDialect<memref::MemRefDialect>();
  const contract::GemmProblem &p = spec.problem;
  Type scale = Float8E8M0FNUType::get(ctx);
  const int64_t dyn = ShapedType::kDynamic;
  // A generic kernel's run-time N or K is `?` in every type it shapes.
  const int64_t n = p.dynamicN() ? dyn : p.n, k = p.dynamicK() ? dyn : p.k;
  const int64_t kBlocks = p.dynamicK() ? dyn : p.scaleColumns();
  const int64_t wsRows = p.dynamicN() ? dyn : p.weightScaleRows();
  Type x = MemRefType::get({dyn, k}, getElementType(ctx, p.xType));
  Type xs = MemRefType::get({dyn, kBlocks}, scale);
  Type w = MemRefType::get({n, k}, getElementType(ctx, p.wType));
  Type ws = MemRefType::get({wsRows, kBlocks}, scale);
  Type y = MemRefType::get({dyn, n}, getElementType(ctx, p.outType));

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, getKernelName(spec),
                                   b.getFunctionType({x, xs, w, ws, y}, {}));
  if (!spec.configSource.empty())
    func->setAttr(kConfigSourceAttrName,
                  StringAttr::get(ctx, spec.configSource));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  ScaledMatmulOp::create(
      b, loc, body->getArgument(0), body->getArgument(1), body->getArgument(2),
      body->getArgument(3), body->getArgument(4),
      ConfigAttr::get(ctx, spec.config),
      WeightScaleGranularityAttr::get(ctx, fromContract(p.wScale)));
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return {};
  return module;
}

/// What the descriptor needs of the one problem of a module, taken before
/// the pipeline erases the problem op.
struct ProblemOfModule {
  std::string kernel;
  contract::GemmProblem problem;
  contract::KernelConfig config;
  std::string configSource;
};

static FailureOr<ProblemOfModule> findProblem(ModuleOp module) {
  SmallVector<ScaledMatmulOp> ops;
  module.walk([&](ScaledMatmulOp op) { ops.push_back(op); });
  if (ops.empty())
    return module.emitError("no mxgemm.scaled_matmul to compile");
  if (ops.size() != 1)
    return module.emitError("expected exactly one mxgemm.scaled_matmul, got ")
           << ops.size();
  ScaledMatmulOp op = ops.front();
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return op.emitOpError("must be inside a func.func");
  std::string source;
  if (auto attr = func->getAttrOfType<StringAttr>(kConfigSourceAttrName))
    source = attr.str();
  return ProblemOfModule{func.getName().str(), op.getProblem(),
                         op.getConfig().getKernelConfig(), std::move(source)};
}

static void fillResources(contract::KernelResources &r,
                          const ::mxgemm::target::KernelMetadata &k) {
  r.vgprCount = k.vgprCount;
  r.agprCount = k.agprCount;
  // The AGPRs live in the same allocation from accum_offset on, so the
  // registers a wave holds are accum_offset + agpr_count, not the sum of
  // the counts; the note does not say where they start.
  if (k.agprCount)
    r.accumOffset = k.accumOffset.value_or(0);
  r.sgprCount = k.sgprCount;
  r.vgprSpillCount = k.vgprSpillCount;
  r.sgprSpillCount = k.sgprSpillCount;
  r.ldsBytes = k.groupSegmentFixedSize;
  r.scratchBytes = k.privateSegmentFixedSize;
  r.kernargSegmentBytes = k.kernargSegmentSize;
  r.maxFlatWorkgroupSize = k.maxFlatWorkgroupSize;
  r.wavefrontSize = k.wavefrontSize;
}

FailureOr<CompileResult> mxgemm::compileProblem(ModuleOp module,
                                                const CompileOptions &options) {
  MLIRContext *ctx = module.getContext();
  const ::mxgemm::target::TargetModel *target =
      ::mxgemm::target::findTargetModel(options.chip);
  if (!target)
    return module.emitError("unsupported chip '")
           << options.chip << "' (only gfx950 is supported)";
  FailureOr<ProblemOfModule> problem = failure();
  if (options.stage != EmitStage::MLIR) {
    problem = findProblem(module);
    if (failed(problem))
      return failure();
  }
  PassManager pm(ctx);
  compiler::configureIRPrinting(pm, options);
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
  if (!kernels || !kernels.lookupSymbol(problem->kernel))
    return module.emitError("the pipeline produced no kernel named ")
           << problem->kernel;

  FailureOr<compiler::SerializedKernel> serialized =
      compiler::serializeKernelModule(module, kernels, problem->kernel,
                                      options);
  if (failed(serialized))
    return failure();
  if (options.stage != EmitStage::HSACO) {
    result.output = std::move(serialized->text);
    return result;
  }

  contract::KernelDescriptor &d = result.descriptor;
  d = contract::KernelDescriptor::describe(problem->kernel, problem->problem,
                                           problem->config, *target);
  d.configSource = problem->configSource;
  d.target = serialized->metadata.target;
  fillResources(d.resources, serialized->kernel);
  const std::string &hsaco = serialized->codeObject;
  d.codeObjectSha256 = contract::sha256Hex(hsaco.data(), hsaco.size());
  d.mxgemmVersion = getMXGemmVersion().str();
  d.llvmVersion = getLLVMVersion().str();
  result.output = std::move(serialized->codeObject);
  return result;
}
