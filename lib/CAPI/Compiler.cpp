//===- Compiler.cpp - C API of the mxgemm kernel compiler -----------------===//
//
// A thin C layer over mxgemm/Compiler/KernelCompiler.h: the spec is checked
// and turned into the same source mxgemm-compile builds, and every failure
// is a diagnostic on the caller's context plus a null return, so that an
// embedding compiler never sees an abort or a message on stderr it did not
// ask for.
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
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>

using namespace mlir;
namespace mx = mlir::mxgemm;

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

static std::optional<std::string> fp8TypeName(llvm::StringRef s) {
  if (s == "e4m3" || s == "f8E4M3FN")
    return std::string("f8E4M3FN");
  if (s == "e5m2" || s == "f8E5M2")
    return std::string("f8E5M2");
  return std::nullopt;
}

/// Checks the fields a verifier cannot see (they shape the source text),
/// reporting the first bad one through `error`.
static FailureOr<mx::ProblemSpec>
toProblemSpec(const MxgemmProblemSpec &c,
              llvm::function_ref<void(const llvm::Twine &)> error) {
  mx::ProblemSpec spec;
  if (c.n <= 0 || c.k <= 0) {
    error("N and K must be positive, got N = " + llvm::Twine(c.n) +
          ", K = " + llvm::Twine(c.k));
    return failure();
  }
  if (c.k % 32 != 0) {
    error("K must be a multiple of 32 (one E8M0 scale per 32 elements), got " +
          llvm::Twine(c.k));
    return failure();
  }
  spec.n = c.n;
  spec.k = c.k;
  spec.name = orDefault(c.name, "mxgemm_n" + std::to_string(c.n) + "_k" +
                                    std::to_string(c.k));
  auto x = fp8TypeName(orDefault(c.xFormat, "f8E4M3FN"));
  auto w = fp8TypeName(orDefault(c.wFormat, "f8E4M3FN"));
  if (!x || !w) {
    error("xFormat and wFormat must be f8E4M3FN (e4m3) or f8E5M2 (e5m2)");
    return failure();
  }
  spec.xFormat = *x;
  spec.wFormat = *w;
  spec.wScale = orDefault(c.wScale, "block32x32");
  if (spec.wScale != "block32x32" && spec.wScale != "per_row") {
    error("wScale must be block32x32 or per_row, got '" + spec.wScale + "'");
    return failure();
  }
  spec.outType = orDefault(c.outType, "bf16");
  if (spec.outType != "bf16" && spec.outType != "f32") {
    error("outType must be bf16 or f32, got '" + spec.outType + "'");
    return failure();
  }
  spec.config = orDefault(c.config, "");
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
  auto cpp = toProblemSpec(*spec, [](const llvm::Twine &) {});
  if (failed(cpp))
    return mlirLogicalResultFailure();
  std::string source = mx::buildProblemSource(*cpp);
  callback(wrap(llvm::StringRef(source)), userData);
  return mlirLogicalResultSuccess();
}

MlirModule mxgemmProblemParse(MlirContext context, MlirStringRef source) {
  MLIRContext *ctx = unwrap(context);
  appendMXGemmRegistry(ctx);
  OwningOpRef<ModuleOp> module = mx::parseProblem(ctx, unwrap(source));
  return wrap(module.release());
}

MlirModule mxgemmProblemBuild(MlirContext context,
                              const MxgemmProblemSpec *spec) {
  MLIRContext *ctx = unwrap(context);
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-problem"));
  if (!spec) {
    emitError(loc, "null MxgemmProblemSpec");
    return MlirModule{nullptr};
  }
  auto cpp = toProblemSpec(
      *spec, [&](const llvm::Twine &message) { emitError(loc, message); });
  if (failed(cpp))
    return MlirModule{nullptr};
  std::string source = mx::buildProblemSource(*cpp);
  return mxgemmProblemParse(context, wrap(llvm::StringRef(source)));
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
    storage->metadataJSON =
        llvm::formatv("{0:2}", llvm::json::Value(std::move(result->sidecar)));
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
