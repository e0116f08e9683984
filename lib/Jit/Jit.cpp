//===- Jit.cpp - libmxgemm_jit.so: the compiler behind the runtime --------===//
//
// The one entry point the runtime dlopens (include/mxgemm/Jit/mxgemm_jit.h):
// the auto config of a problem (contract::selectConfig on the compiler's
// embedded tuning database, as mxgemm-compile --config=auto) and its
// compile to a code object and kernel descriptor (compileProblem).
// Compiles are serialised in the process: in-process lld resets LLVM's
// command-line options. No exception or diagnostic leaves: failures are
// result.ok = 0 with the message.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Jit/mxgemm_jit.h"

#include "mxgemm/Compiler/ConfigChoice.h"
#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/Contract/ConfigSelection.h"
#include "mxgemm/InitAll.h"
#include "mxgemm/Support/Tool.h"
#include "mxgemm/Target/TargetModel.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

using namespace mxgemm;

namespace {

template <size_t N> void copyText(char (&out)[N], const std::string &text) {
  std::strncpy(out, text.c_str(), N - 1);
  out[N - 1] = '\0';
}

int failWith(mxgemm_jit_result *r, const std::string &message) {
  r->ok = 0;
  copyText(r->error, message);
  return 0;
}

std::mutex &compileMutex() {
  static std::mutex m;
  return m;
}

int run(const mxgemm_jit_request *q, mxgemm_jit_result *r) {
  if (q->struct_size != sizeof(mxgemm_jit_request) ||
      q->abi_version != MXGEMM_JIT_ABI_VERSION)
    return failWith(r, "libmxgemm_jit: request of another ABI version (" +
                           std::to_string(q->abi_version) + ", " +
                           std::to_string(q->struct_size) + " bytes)");
  if (!q->chip || std::string(q->chip) != target::kGFX950.chip)
    return failWith(r, "libmxgemm_jit: only gfx950 is supported");
  contract::GemmProblem p;
  p.n = q->n;
  p.k = q->k;
  p.xType = contract::ElementType(q->x_type);
  p.wType = contract::ElementType(q->w_type);
  p.wScale = contract::ScaleGranularity(q->w_scale);
  p.outType = contract::ElementType(q->out_type);
  if (contract::ErrorMessage e = contract::validateProblem(p))
    return failWith(r, "libmxgemm_jit: " + *e);
  if (q->m_hint < 1 || q->m_hint > contract::kMaxM)
    return failWith(r, "libmxgemm_jit: M hint out of range");
  contract::ErrorMessage dbError;
  const contract::TuningDatabase *db = getEmbeddedTuningDatabase(&dbError);
  if (!db)
    return failWith(r, "libmxgemm_jit: embedded tuning database: " +
                           dbError.value_or("?"));
  contract::ConfigChoice choice;
  if (contract::ErrorMessage e =
          contract::selectConfig(p, q->m_hint, db, target::kGFX950, choice))
    return failWith(r, "libmxgemm_jit: no config: " + *e);
  copyText(r->config, contract::formatConfigBody(choice.config));
  copyText(r->config_source, choice.sourceLabel());
  copyText(r->mxgemm_version,
           std::string(getVersion()) + " (git " + getGitCommit() + ")");
  copyText(r->llvm_version, getLLVMVersion().str());
  if (q->op == MXGEMM_JIT_OP_CONFIG) {
    r->ok = 1;
    return 1;
  }

  ProblemSpec spec;
  spec.name = q->kernel_name ? q->kernel_name : "";
  spec.problem = p;
  spec.config = choice.config;
  spec.configSource = choice.sourceLabel();
  if (contract::ErrorMessage e = validateProblemSpec(spec, q->chip))
    return failWith(r, "libmxgemm_jit: " + *e);
  std::lock_guard<std::mutex> lock(compileMutex());
  const auto start = std::chrono::steady_clock::now();
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = buildProblem(&ctx, spec, q->chip);
  if (!module)
    return failWith(r, "libmxgemm_jit: building the problem failed: " +
                           diagnostics);
  CompileOptions options;
  options.chip = q->chip;
  mlir::FailureOr<CompileResult> result = compileProblem(*module, options);
  if (mlir::failed(result))
    return failWith(r, "libmxgemm_jit: compile failed: " + diagnostics);
  std::string json = result->descriptor.toJson();
  r->code_object = std::malloc(result->output.size());
  r->descriptor_json = static_cast<char *>(std::malloc(json.size() + 1));
  if (!r->code_object || !r->descriptor_json) {
    std::free(r->code_object);
    std::free(r->descriptor_json);
    r->code_object = nullptr;
    r->descriptor_json = nullptr;
    return failWith(r, "libmxgemm_jit: out of memory");
  }
  std::memcpy(r->code_object, result->output.data(), result->output.size());
  r->code_object_bytes = result->output.size();
  std::memcpy(r->descriptor_json, json.c_str(), json.size() + 1);
  r->compile_ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  r->ok = 1;
  return 1;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
mxgemm_jit_v1(const mxgemm_jit_request *request, mxgemm_jit_result *result) {
  if (!request || !result || result->struct_size != sizeof(mxgemm_jit_result))
    return 0;
  if (request->op == MXGEMM_JIT_OP_RELEASE) {
    std::free(result->code_object);
    std::free(result->descriptor_json);
    result->code_object = nullptr;
    result->descriptor_json = nullptr;
    result->code_object_bytes = 0;
    return 1;
  }
  result->ok = 0;
  result->error[0] = '\0';
  result->code_object = nullptr;
  result->descriptor_json = nullptr;
  result->code_object_bytes = 0;
  try {
    return run(request, result);
  } catch (const std::exception &e) {
    return failWith(result,
                    std::string("libmxgemm_jit: internal: ") + e.what());
  } catch (...) {
    return failWith(result, "libmxgemm_jit: internal error");
  }
}
