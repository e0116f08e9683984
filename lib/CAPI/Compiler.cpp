//===- Compiler.cpp - C API of the mxgemm kernel compiler -----------------===//
//
// A thin C layer over mxgemm/Compiler/KernelCompiler.h: the spec is checked
// by the same validation mxgemm-compile uses and built with an OpBuilder,
// and every failure is a diagnostic on the caller's context plus a null
// return, so that an embedding compiler never sees an abort or a message on
// stderr it did not ask for.
//
//===----------------------------------------------------------------------===//

#include "mxgemm-c/Compiler.h"

#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"

#include <optional>
#include <string>

using namespace mlir;
namespace mx = mxgemm;
namespace contract = ::mxgemm::contract;

namespace {
/// What an MxgemmCompileResult points to.
struct CompileResultStorage {
  std::string output;
  std::string metadataJSON;
};
} // namespace

static CompileResultStorage *unwrap(MxgemmCompileResult result) {
  return static_cast<CompileResultStorage *>(result.ptr);
}

/// The spec fields are C strings of the caller; empty means default.
static std::string orDefault(MlirStringRef s, llvm::StringRef fallback) {
  return s.length ? unwrap(s).str() : fallback.str();
}

/// The C spec in C++ terms, validated once (mx::validateProblemSpec); the
/// first problem is reported through `error`. The config text goes through
/// the attribute parser of `ctx` (which reports its own diagnostics).
static FailureOr<mx::ProblemSpec>
toProblemSpec(MLIRContext *ctx, const MxgemmProblemSpec &c,
              llvm::function_ref<void(const llvm::Twine &)> error) {
  mx::ProblemSpec spec;
  spec.name = orDefault(c.name, "");
  auto x = contract::parseElementType(orDefault(c.xFormat, "e4m3"));
  auto w = contract::parseElementType(orDefault(c.wFormat, "e4m3"));
  auto s = contract::parseScaleGranularity(orDefault(c.wScale, "block32x32"));
  auto o = contract::parseElementType(orDefault(c.outType, "bf16"));
  if (!x || !w || !s || !o) {
    error("xFormat and wFormat must be e4m3 or e5m2, wScale block32x32 or "
          "per_row, outType bf16 or f32");
    return failure();
  }
  spec.problem = {c.n, c.k, *x, *w, *s, *o};
  if (c.config.length) {
    auto config = mx::parseConfigBody(ctx, unwrap(c.config));
    if (failed(config))
      return failure();
    spec.config = *config;
  }
  if (auto e = mx::validateProblemSpec(spec, "gfx950")) {
    error(*e);
    return failure();
  }
  return spec;
}

/// A context of the caller may have registered only what it uses itself;
/// the problem and the pipeline need the whole mxgemm registry.
static void appendMXGemmRegistry(MLIRContext *ctx) {
  DialectRegistry registry;
  ::mxgemm::registerAllDialects(registry);
  ctx->appendDialectRegistry(registry);
}

//===----------------------------------------------------------------------===//
// Problems
//===----------------------------------------------------------------------===//

void mxgemmProblemSpecInit(MxgemmProblemSpec *spec, int64_t n, int64_t k) {
  *spec = MxgemmProblemSpec{};
  spec->n = n;
  spec->k = k;
}

MlirLogicalResult mxgemmProblemPrintSource(const MxgemmProblemSpec *spec,
                                           MlirStringCallback callback,
                                           void *userData) {
  if (!spec)
    return mlirLogicalResultFailure();
  // A private context: printing must not leave diagnostics or dialects
  // behind in the caller's.
  DialectRegistry registry;
  ::mxgemm::registerAllDialects(registry);
  MLIRContext ctx(registry);
  ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });
  auto cpp = toProblemSpec(&ctx, *spec, [](const llvm::Twine &) {});
  if (failed(cpp))
    return mlirLogicalResultFailure();
  OwningOpRef<ModuleOp> module = mx::buildProblem(&ctx, *cpp);
  if (!module)
    return mlirLogicalResultFailure();
  std::string source;
  llvm::raw_string_ostream os(source);
  module->print(os);
  callback(wrap(llvm::StringRef(source)), userData);
  return mlirLogicalResultSuccess();
}

MlirModule mxgemmProblemParse(MlirContext context, MlirStringRef source) {
  MLIRContext *ctx = unwrap(context);
  appendMXGemmRegistry(ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), ctx);
  return wrap(module.release());
}

MlirModule mxgemmProblemBuild(MlirContext context,
                              const MxgemmProblemSpec *spec) {
  MLIRContext *ctx = unwrap(context);
  appendMXGemmRegistry(ctx);
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-problem"));
  if (!spec) {
    emitError(loc, "null MxgemmProblemSpec");
    return MlirModule{nullptr};
  }
  auto cpp = toProblemSpec(
      ctx, *spec, [&](const llvm::Twine &message) { emitError(loc, message); });
  if (failed(cpp))
    return MlirModule{nullptr};
  return wrap(mx::buildProblem(ctx, *cpp).release());
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

void mxgemmCompileOptionsInit(MxgemmCompileOptions *options) {
  mx::CompileOptions defaults;
  options->chip = MlirStringRef{nullptr, 0};
  options->optLevel = defaults.optLevel;
  options->codeObjectVersion = defaults.codeObjectVersion;
  options->stage = MXGEMM_EMIT_HSACO;
}

MxgemmCompileResult mxgemmCompile(MlirModule module,
                                  const MxgemmCompileOptions *options) {
  if (mlirModuleIsNull(module))
    return MxgemmCompileResult{nullptr};
  ModuleOp op = unwrap(module);
  MxgemmCompileOptions c;
  mxgemmCompileOptionsInit(&c);
  if (options)
    c = *options;

  mx::CompileOptions cpp;
  cpp.chip = orDefault(c.chip, cpp.chip);
  cpp.optLevel = c.optLevel;
  cpp.codeObjectVersion = c.codeObjectVersion;
  if (c.optLevel > 3) {
    op.emitError("optLevel must be 0-3, got ") << c.optLevel;
    return MxgemmCompileResult{nullptr};
  }
  switch (c.stage) {
  case MXGEMM_EMIT_MLIR:
    cpp.stage = mx::EmitStage::MLIR;
    break;
  case MXGEMM_EMIT_LLVM:
    cpp.stage = mx::EmitStage::LLVM;
    break;
  case MXGEMM_EMIT_ISA:
    cpp.stage = mx::EmitStage::ISA;
    break;
  case MXGEMM_EMIT_HSACO:
    cpp.stage = mx::EmitStage::HSACO;
    break;
  default:
    op.emitError("unknown MxgemmEmitStage ") << static_cast<int>(c.stage);
    return MxgemmCompileResult{nullptr};
  }

  appendMXGemmRegistry(op.getContext());
  FailureOr<mx::CompileResult> result = mx::compileProblem(op, cpp);
  if (failed(result))
    return MxgemmCompileResult{nullptr};
  auto *storage = new CompileResultStorage;
  storage->output = std::move(result->output);
  if (cpp.stage == mx::EmitStage::HSACO)
    storage->metadataJSON = result->descriptor.toJson();
  return MxgemmCompileResult{storage};
}

void mxgemmCompileResultGetCodeObject(MxgemmCompileResult result,
                                      const void **data, size_t *size) {
  CompileResultStorage *storage = unwrap(result);
  *data = storage ? storage->output.data() : nullptr;
  *size = storage ? storage->output.size() : 0;
}

MlirStringRef mxgemmCompileResultGetMetadataJSON(MxgemmCompileResult result) {
  CompileResultStorage *storage = unwrap(result);
  if (!storage)
    return MlirStringRef{"", 0};
  return wrap(llvm::StringRef(storage->metadataJSON));
}

void mxgemmCompileResultDestroy(MxgemmCompileResult result) {
  delete unwrap(result);
}
