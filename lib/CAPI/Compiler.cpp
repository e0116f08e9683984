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

#include "mxgemm/Compiler/ConfigChoice.h"
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

/// The config `c` asks for (mx::chooseConfig), after the problem's own
/// checks; the first problem is reported through `error`, a config body's
/// through the attribute parser of `ctx`.
static FailureOr<std::pair<contract::GemmProblem, contract::ConfigChoice>>
chooseFor(MLIRContext *ctx, const MxgemmProblemSpec &c,
          const MxgemmConfigOptions *options,
          llvm::function_ref<void(const llvm::Twine &)> error) {
  auto x = contract::parseElementType(orDefault(c.xFormat, "e4m3"));
  auto w = contract::parseElementType(orDefault(c.wFormat, "e4m3"));
  auto s = contract::parseScaleGranularity(orDefault(c.wScale, "block32x32"));
  auto o = contract::parseElementType(orDefault(c.outType, "bf16"));
  if (!x || !w || !s || !o) {
    error("xFormat and wFormat must be e4m3 or e5m2, wScale block32x32 or "
          "per_row, outType bf16 or f32");
    return failure();
  }
  contract::GemmProblem problem{c.n, c.k, *x, *w, *s, *o};
  if (auto e = contract::validateProblem(problem)) {
    error(*e);
    return failure();
  }
  MxgemmConfigOptions defaults;
  mxgemmConfigOptionsInit(&defaults);
  const MxgemmConfigOptions &opts = options ? *options : defaults;
  mx::ConfigRequest request;
  request.text = orDefault(c.config, mx::kConfigAuto);
  request.mHint = opts.mHint;
  if (opts.mHint < 0 || opts.mHint > contract::kMaxM) {
    error("mHint must be in 0.." + llvm::Twine(contract::kMaxM) +
          " (0: none), got " + llvm::Twine(opts.mHint));
    return failure();
  }
  contract::TuningDatabase database;
  if (opts.tuningDatabase.length) {
    if (auto e =
            mx::readTuningDatabase(unwrap(opts.tuningDatabase), database)) {
      error(*e);
      return failure();
    }
    request.database = &database;
  }
  auto choice = mx::chooseConfig(ctx, problem, "gfx950", request, error);
  if (failed(choice))
    return failure();
  return std::make_pair(problem, *choice);
}

/// The C spec in C++ terms, validated once (mx::validateProblemSpec).
static FailureOr<mx::ProblemSpec>
toProblemSpec(MLIRContext *ctx, const MxgemmProblemSpec &c,
              const MxgemmConfigOptions *options,
              llvm::function_ref<void(const llvm::Twine &)> error) {
  auto chosen = chooseFor(ctx, c, options, error);
  if (failed(chosen))
    return failure();
  mx::ProblemSpec spec;
  spec.name = orDefault(c.name, "");
  spec.problem = chosen->first;
  spec.config = chosen->second.config;
  spec.configSource = chosen->second.sourceLabel();
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

int mxgemmCompilerGetAPIVersion(void) { return MXGEMM_C_COMPILER_API_VERSION; }

void mxgemmConfigOptionsInit(MxgemmConfigOptions *options) {
  *options = MxgemmConfigOptions{};
  options->tuningDatabase = MlirStringRef{nullptr, 0};
}

MlirLogicalResult mxgemmProblemChooseConfig(MlirContext context,
                                            const MxgemmProblemSpec *spec,
                                            const MxgemmConfigOptions *options,
                                            MlirStringCallback callback,
                                            void *userData) {
  MLIRContext *ctx = unwrap(context);
  appendMXGemmRegistry(ctx);
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-problem"));
  if (!spec) {
    emitError(loc, "null MxgemmProblemSpec");
    return mlirLogicalResultFailure();
  }
  auto chosen = chooseFor(ctx, *spec, options, [&](const llvm::Twine &message) {
    emitError(loc, message);
  });
  if (failed(chosen))
    return mlirLogicalResultFailure();
  const contract::ConfigChoice &choice = chosen->second;
  // The texts are printable ASCII (names, numbers, keywords), for which
  // write_escaped's escapes (\" and \\) are JSON's.
  auto quoted = [](llvm::StringRef text) {
    std::string out;
    llvm::raw_string_ostream q(out);
    q << '"';
    q.write_escaped(text);
    q << '"';
    return out;
  };
  std::string json =
      "{\"config\": " + quoted(contract::formatConfigBody(choice.config)) +
      ", \"config_source\": " + quoted(choice.sourceLabel()) +
      ", \"reason\": " + quoted(choice.reason) + "}";
  callback(wrap(llvm::StringRef(json)), userData);
  return mlirLogicalResultSuccess();
}

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
  auto cpp = toProblemSpec(&ctx, *spec, nullptr, [](const llvm::Twine &) {});
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

MlirModule mxgemmProblemBuildWithOptions(MlirContext context,
                                         const MxgemmProblemSpec *spec,
                                         const MxgemmConfigOptions *options) {
  MLIRContext *ctx = unwrap(context);
  appendMXGemmRegistry(ctx);
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-problem"));
  if (!spec) {
    emitError(loc, "null MxgemmProblemSpec");
    return MlirModule{nullptr};
  }
  auto cpp =
      toProblemSpec(ctx, *spec, options, [&](const llvm::Twine &message) {
        emitError(loc, message);
      });
  if (failed(cpp))
    return MlirModule{nullptr};
  return wrap(mx::buildProblem(ctx, *cpp).release());
}

MlirModule mxgemmProblemBuild(MlirContext context,
                              const MxgemmProblemSpec *spec) {
  return mxgemmProblemBuildWithOptions(context, spec, nullptr);
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
