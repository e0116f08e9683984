//===- Runtime.cpp - the mxgemm C API: dispatch, eligibility, launch ------===//
//
// Implements mxgemm_runtime.h for the embedded kernels and the helpers. The
// decision path (argument checks, the eligibility rules of docs/Design.md
// section 5, a binary search of the embedded KernelLibrary and the launch
// geometry) only reads constant data and writes into caller-provided
// structs: after a context's first use it neither allocates nor locks, so
// any number of threads can share one context. Handles are checked against
// the process-wide tables of Handles.h; exceptions never cross the C
// boundary (they become MXGEMM_STATUS_INTERNAL). Kernels loaded at run time
// are in LoadedKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Contract/TileGrouping.h"
#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"
#include "mxgemm/Target/TargetModel.h"

#include "KernelLibrary.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace mxgemm::runtime;
namespace contract = ::mxgemm::contract;

namespace {

const char *dtypeName(mxgemm_dtype t) {
  switch (t) {
  case MXGEMM_DTYPE_E4M3:
    return "e4m3";
  case MXGEMM_DTYPE_E5M2:
    return "e5m2";
  case MXGEMM_DTYPE_BF16:
    return "bf16";
  case MXGEMM_DTYPE_F16:
    return "f16";
  case MXGEMM_DTYPE_F32:
    return "f32";
  }
  return "?";
}

const char *scaleName(mxgemm_scale_granularity s) {
  return s == MXGEMM_SCALE_PER_ROW ? "per_row" : "block32x32";
}

bool isFP8(mxgemm_dtype t) {
  return t == MXGEMM_DTYPE_E4M3 || t == MXGEMM_DTYPE_E5M2;
}

/// Appends the key a generic kernel served to $MXGEMM_LOG_UNTUNED, once
/// per (key, generic kernel) per process, as the JIT does for its keys.
/// Without the variable this is one test of a pointer read once.
void logGenericServed(Context &, const mxgemm_problem &p,
                      const KernelEntry &generic) {
  static const char *const path = std::getenv("MXGEMM_LOG_UNTUNED");
  if (!path || !*path)
    return;
  static std::mutex mutex;
  static std::set<std::tuple<DispatchKey, const KernelEntry *>> logged;
  const DispatchKey key =
      makeDispatchKey(p.n, p.k, p.x_type, p.w_type, p.w_scale, p.out_type);
  std::lock_guard<std::mutex> lock(mutex);
  if (!logged.insert({key, &generic}).second)
    return;
  appendLogLine(path, "gfx950 " + problemKeyText(p) +
                          " m_range=" + std::to_string(generic.tuning.mMin) +
                          ".." + std::to_string(generic.tuning.mMax) +
                          " kernel=" + generic.tuning.name +
                          " served-by-generic\n");
}

/// The embedded generic kernel for `p` (its formats, output type and M;
/// row-major W, N and K within the contract's limits), or null.
const KernelEntry *findGenericKernel(const Context &ctx,
                                     const KernelLibrary &lib,
                                     const mxgemm_problem &p) {
  if (!ctx.genericEnabled.load(std::memory_order_relaxed) ||
      p.w_layout != MXGEMM_WEIGHTS_ROW_MAJOR ||
      p.n > contract::kMaxProblemExtent || p.k > contract::kMaxProblemExtent)
    return nullptr;
  for (size_t i = lib.tunedCount; i < lib.entries.size(); ++i) {
    const KernelEntry &e = lib.entries[i];
    const contract::GemmProblem &g = e.tuning.problem;
    if (int(g.xType) == int(p.x_type) && int(g.wType) == int(p.w_type) &&
        int(g.wScale) == int(p.w_scale) && int(g.outType) == int(p.out_type) &&
        p.m >= e.tuning.mMin && p.m <= e.tuning.mMax)
      return &e;
  }
  return nullptr;
}

void decideRowSplit(Context &ctx, const mxgemm_problem &p,
                    const mxgemm_tensors *tensors,
                    const contract::RowSplit &rule, Decision &d,
                    MessageBuilder &msg);

/// The argument checks and eligibility rules of docs/Design.md section 5
/// for the embedded kernels, in a fixed order (documented in
/// docs/Runtime.md). `tensors` is null for a query. Writes the reason
/// message into `msg`.
mxgemm_status decide(Context &ctx, const mxgemm_problem *p,
                     const mxgemm_tensors *tensors, Decision &d,
                     mxgemm_reason &reason, MessageBuilder &msg,
                     bool rowSplitTail = false) {
  reason = MXGEMM_REASON_NONE;
  if (ctx.injectInternal)
    throw std::logic_error("injected internal error (MXGEMM_RUNTIME_FAULT)");
  StridedOperands strided;
  if (mxgemm_status s = checkArguments(p, tensors, msg, strided))
    return s;

  // Eligibility: shape-level rules first (no HIP needed).
  if (p->out_type != MXGEMM_DTYPE_BF16) {
    reason = MXGEMM_REASON_OUTPUT_TYPE;
    msg << "output type is " << dtypeName(p->out_type)
        << "; the tuned path writes BF16 only";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (!isFP8(p->x_type) || !isFP8(p->w_type)) {
    reason = MXGEMM_REASON_NOT_PREQUANTIZED;
    msg << "X is " << dtypeName(p->x_type) << " and W is "
        << dtypeName(p->w_type)
        << "; the tuned path needs pre-quantized FP8 (e4m3/e5m2) operands "
           "with E8M0 scales";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (p->k % 32 != 0) {
    reason = MXGEMM_REASON_K_NOT_MULTIPLE_OF_32;
    msg << "K = " << p->k << " is not a multiple of 32 (one E8M0 scale per "
        << "32 K elements)";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (strided.weights) {
    reason = MXGEMM_REASON_NOT_CONTIGUOUS;
    msg << strided.weights
        << " is not contiguous (leading dimension != row length); the "
           "kernels take W and its scales row-major contiguous";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  const KernelLibrary &embedded = KernelLibrary::embedded();
  // Views of X, its scales or Y: only the generic kernels take row strides
  // (tuned, loaded and JIT kernels stay contiguous-only), so a generic
  // kernel serves them even for a key with a tuned kernel.
  const bool views = strided.activations != nullptr;
  if (views && (strided.beyondI32 || !findGenericKernel(ctx, embedded, *p))) {
    reason = MXGEMM_REASON_NOT_CONTIGUOUS;
    msg << strided.activations
        << " is not contiguous (leading dimension != row length); only the "
           "generic kernels take views of X, its scales and Y, ";
    if (strided.beyondI32)
      msg << "with leading dimensions up to 2^31 - 1 (an i32 argument)";
    else if (!ctx.genericEnabled.load(std::memory_order_relaxed))
      msg << "and they are off";
    else
      msg << "and none has these formats, M and W layout";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  // The entries of the key: the loaded ones if the context has the key
  // (they replace the embedded ones), else the embedded ones.
  const std::vector<KernelEntry> &entries = embedded.entries;
  const KernelEntry *begin = entries.data(), *end = begin + embedded.tunedCount;
  const KernelEntry *first = end;
  const LibrarySet *library = ctx.librarySet.load(std::memory_order_acquire);
  const LibraryKernel *const *loadedFirst = nullptr, *const *loadedEnd =
                                                         nullptr;
  if (!views && p->n <= contract::kMaxProblemExtent &&
      p->k <= contract::kMaxProblemExtent) {
    DispatchKey key = makeDispatchKey(p->n, p->k, p->x_type, p->w_type,
                                      p->w_scale, p->out_type);
    if (library) {
      loadedFirst =
          std::lower_bound(library->kernels.data(),
                           library->kernels.data() + library->kernels.size(),
                           key, [](const LibraryKernel *e, DispatchKey k) {
                             return e->entry.key < k;
                           });
      loadedEnd = loadedFirst;
      while (loadedEnd != library->kernels.data() + library->kernels.size() &&
             (*loadedEnd)->entry.key == key)
        ++loadedEnd;
    }
    if (loadedFirst == loadedEnd) {
      first = std::lower_bound(
          begin, end, key,
          [](const KernelEntry &e, DispatchKey k) { return e.key < k; });
      if (first != end && first->key != key)
        first = end;
    }
  }
  const bool fromLibrary = loadedFirst != loadedEnd;
  size_t count = fromLibrary ? size_t(loadedEnd - loadedFirst) : 0;
  if (!fromLibrary)
    for (const KernelEntry *e = first; e != end && e->key == first->key; ++e)
      ++count;
  auto entryAt = [&](size_t i) -> const KernelEntry & {
    return fromLibrary ? loadedFirst[i]->entry : first[i];
  };
  // The range's row-major base comes first (contract::dispatchOrderLess);
  // a scale-layout variant of the range replaces it when it reads the
  // caller's scale layouts.
  size_t index = count;
  for (size_t i = 0; i < count; ++i) {
    const KernelEntry &e = entryAt(i);
    if (p->m < e.tuning.mMin || p->m > e.tuning.mMax)
      continue;
    if (index == count)
      index = i;
    if (int(e.descriptor.xScaleLayout) == int(p->x_scale_layout) &&
        int(e.descriptor.wScaleLayout) == int(p->w_scale_layout)) {
      index = i;
      break;
    }
  }
  // No kernel for (key, M): JIT, if on, serves it (or says why not).
  const LibraryKernel *jit = nullptr;
  if (index == count && !views && !rowSplitTail && p->m <= contract::kMaxM &&
      p->n <= contract::kMaxProblemExtent &&
      p->k <= contract::kMaxProblemExtent &&
      ctx.jitEnabled.load(std::memory_order_relaxed)) {
    if (mxgemm_status s = checkDevice(ctx, reason, msg))
      return s;
    const DispatchKey key = makeDispatchKey(p->n, p->k, p->x_type, p->w_type,
                                            p->w_scale, p->out_type);
    jit = findJitKernel(ctx, key, jitBucket(p->m));
    std::string error;
    if (!jit && !(jit = obtainJitKernel(ctx, *p, key, error)) &&
        !findGenericKernel(ctx, embedded, *p)) {
      reason = MXGEMM_REASON_JIT_FAILED;
      msg << "no tuned kernel, and JIT failed: " << error.c_str();
      return MXGEMM_STATUS_NOT_ELIGIBLE;
    }
  }
  // Still no kernel: an embedded generic kernel of the formats and M
  // serves any N and K (JIT failures land here too, warned by the JIT).
  const KernelEntry *generic = nullptr;
  if (index == count && !jit && !rowSplitTail &&
      (generic = findGenericKernel(ctx, embedded, *p)))
    logGenericServed(ctx, *p, *generic);
  if (count == 0 && !jit && !generic) {
    reason = MXGEMM_REASON_NO_TUNED_KERNEL;
    msg << "no tuned kernel for (gfx950, N = " << p->n << ", K = " << p->k
        << ", x " << dtypeName(p->x_type) << ", w " << dtypeName(p->w_type)
        << ", w_scale " << scaleName(p->w_scale) << ", out "
        << dtypeName(p->out_type) << ")";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (index == count && !jit && !generic) {
    reason = MXGEMM_REASON_M_OUT_OF_RANGE;
    msg << "M = " << p->m << " is outside the tuned M range";
    // Entries of a key are sorted by mMin; adjacent ranges (one per M
    // bucket) read as one.
    const char *separator = " ";
    // (A scale-layout variant repeats its base's range.)
    for (size_t i = 0; i < count;) {
      size_t last = i;
      while (last + 1 < count &&
             (entryAt(last + 1).tuning.mMin == entryAt(last).tuning.mMax + 1 ||
              entryAt(last + 1).tuning.mMin == entryAt(last).tuning.mMin))
        ++last;
      msg << separator << entryAt(i).tuning.mMin << ".."
          << entryAt(last).tuning.mMax;
      separator = ", ";
      i = last + 1;
    }
    msg << " of (N = " << p->n << ", K = " << p->k << ")";
    if (fromLibrary)
      msg << " (loaded library)";
    if (p->m > contract::kMaxM)
      msg << "; no kernel takes M above " << contract::kMaxM
          << " (M is an i32 kernel argument)";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  const KernelEntry *entry = jit       ? &jit->entry
                             : generic ? generic
                                       : &entryAt(index);
  d.wLayout = entry->wLayout();
  const bool packedWeights = d.wLayout == MXGEMM_WEIGHTS_MFMA_PANELS;
  if (packedWeights != (p->w_layout == MXGEMM_WEIGHTS_MFMA_PANELS)) {
    // Same key, same layout for every M range (the tuning tool checks it),
    // so a caller that packed once never lands here by changing M.
    reason = MXGEMM_REASON_PACKED_WEIGHTS;
    if (packedWeights)
      msg << "kernel '" << entry->descriptor.kernel
          << "' reads W packed in MFMA panels: pack W once with "
             "mxgemm_pack_weights and set w_layout = "
             "MXGEMM_WEIGHTS_MFMA_PANELS";
    else
      msg << "W is packed in MFMA panels, but kernel '"
          << entry->descriptor.kernel << "' reads row-major W";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (!scaleLayoutsMatch(*p, entry->descriptor, d, msg)) {
    reason = MXGEMM_REASON_SCALE_LAYOUT;
    // The range's other kernels: the layouts that would be served.
    for (size_t i = index; !jit && !generic && i < count; ++i) {
      const KernelEntry &e = entryAt(i);
      if (&e != entry && e.tuning.mMin == entry->tuning.mMin &&
          e.tuning.mMax == entry->tuning.mMax)
        msg << "; kernel '" << e.descriptor.kernel
            << "' of the same M range reads X scales "
            << contract::scaleLayoutName(e.descriptor.xScaleLayout).data()
            << " and W scales "
            << contract::scaleLayoutName(e.descriptor.wScaleLayout).data();
    }
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }

  // Device rules: load HIP and the modules once. A loaded entry's module
  // was loaded with it.
  if (mxgemm_status s = checkDevice(ctx, reason, msg))
    return s;
  hipFunction_t function = nullptr;
  if (jit) {
    function = jit->function;
    d.kind = MXGEMM_PLAN_KIND_JIT;
  } else if (fromLibrary && !generic) {
    function = loadedFirst[index]->function;
    d.kind = MXGEMM_PLAN_KIND_LIBRARY;
  } else {
    const EmbeddedModule &module = ctx.modules[entry - begin];
    if (!module.function) {
      reason = MXGEMM_REASON_CODE_OBJECT_LOAD;
      msg << "code object of entry '" << entry->tuning.name
          << "' could not be loaded: " << module.error;
      return ctx.options.strict ? MXGEMM_STATUS_HIP_ERROR
                                : MXGEMM_STATUS_NOT_ELIGIBLE;
    }
    function = module.function;
    d.kind = generic ? MXGEMM_PLAN_KIND_GENERIC : MXGEMM_PLAN_KIND_EMBEDDED;
  }
  if (tensors)
    if (mxgemm_status s = checkAlignment(*tensors, reason, msg))
      return s;
  d.descriptor = &entry->descriptor;
  if (mxgemm_status s = computeGrid(d, p->m, p->n, msg)) {
    d.descriptor = nullptr;
    return s;
  }
  d.function = function;
  d.packing = &entry->packing;
  d.entry = entry->tuning.name.c_str();
  d.kernel = entry->descriptor.kernel.c_str();
  d.config = entry->configText.c_str();
  d.note = entry->tuning.note.c_str();
  d.mMin = entry->tuning.mMin;
  d.mMax = entry->tuning.mMax;
  // A row split's tail is served by a tuned entry only (no JIT compile,
  // no generic kernel) and is not split again.
  if (!rowSplitTail && !jit && !generic)
    decideRowSplit(ctx, *p, tensors, entry->tuning.rowSplit, d, msg);
  return MXGEMM_STATUS_OK;
}

/// A tuned entry with a row split (contract::RowSplit) whose rule takes
/// this M: the tail's rows go to the key's entry for them, decided by the
/// same rules (pointers offset), and the base's grid shrinks to its rows.
/// When no kernel takes the tail, the call stays one launch.
void decideRowSplit(Context &ctx, const mxgemm_problem &p,
                    const mxgemm_tensors *tensors,
                    const contract::RowSplit &rule, Decision &d,
                    MessageBuilder &msg) {
  const contract::TileGrid &grid = d.descriptor->grid;
  const int64_t firstRows =
      rule.firstRows(p.m, grid.programTileM, int64_t(d.numTilesN));
  // The tail's scales would start inside an MFMA-native row group's
  // chunks; such calls stay one launch.
  if (!firstRows || p.x_scale_layout != MXGEMM_SCALES_ROW_MAJOR)
    return;
  mxgemm_problem rest = p;
  rest.m = p.m - firstRows;
  mxgemm_tensors tail;
  if (tensors)
    tail = tensorsFromRow(*tensors, p, firstRows);
  Decision rows;
  mxgemm_reason ignored;
  char scratch[kMessageBytes];
  MessageBuilder tailMsg(scratch, sizeof(scratch));
  if (decide(ctx, &rest, tensors ? &tail : nullptr, rows, ignored, tailMsg,
             /*rowSplitTail=*/true) != MXGEMM_STATUS_OK ||
      computeGrid(d, firstRows, p.n, tailMsg) != MXGEMM_STATUS_OK)
    return;
  d.firstRows = firstRows;
  d.tail = rows;
  msg << "row split: rows 0.." << (firstRows - 1) << " by '" << d.entry << "' ("
      << int64_t(d.gridX) << " workgroups), rows " << firstRows << ".."
      << (p.m - 1) << " by '" << rows.entry << "' ("
      << int64_t(rows.gridX) * int64_t(rows.gridY) << " workgroups)";
}

/// For the memory helpers: a live context whose HIP is usable (any device).
mxgemm_status requireHip(mxgemm_context *handle, Context *&ctx) {
  ctx = resolveContext(handle);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  ctx->ensureInitialized();
  if (!ctx->hipReady)
    return fail(MXGEMM_STATUS_HIP_ERROR, "HIP unavailable: " + ctx->hipError);
  return MXGEMM_STATUS_OK;
}

/// One HIP call made on behalf of the caller: the context is checked and
/// HIP loaded first (its absence is reported as such), the error is mapped
/// to a status, and no exception escapes.
template <typename Call>
mxgemm_status callHip(mxgemm_context *handle, const char *what, Call call) {
  return guarded([&] {
    Context *ctx;
    if (mxgemm_status s = requireHip(handle, ctx))
      return s;
    return hipCall(*ctx, what, call(*ctx));
  });
}

/// The plan of a call refused before any rule ran (a bad handle, a NULL
/// argument): INVALID_ARGUMENT with `message`.
void refusePlan(mxgemm_plan *plan, const char *message) {
  if (!plan)
    return;
  fillPlan(plan, MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
           Decision());
  MessageBuilder(plan->message, sizeof(plan->message)) << message;
}

} // namespace

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {

#define MXGEMM_STRINGIFY(x) #x
#define MXGEMM_VERSION_TEXT(a, b, c)                                           \
  MXGEMM_STRINGIFY(a) "." MXGEMM_STRINGIFY(b) "." MXGEMM_STRINGIFY(c)
const char *mxgemm_version(void) {
  return MXGEMM_VERSION_TEXT(MXGEMM_VERSION_MAJOR, MXGEMM_VERSION_MINOR,
                             MXGEMM_VERSION_PATCH);
}

const char *mxgemm_status_string(mxgemm_status status) {
  switch (status) {
  case MXGEMM_STATUS_OK:
    return "MXGEMM_STATUS_OK";
  case MXGEMM_STATUS_NOT_ELIGIBLE:
    return "MXGEMM_STATUS_NOT_ELIGIBLE";
  case MXGEMM_STATUS_INVALID_ARGUMENT:
    return "MXGEMM_STATUS_INVALID_ARGUMENT";
  case MXGEMM_STATUS_HIP_ERROR:
    return "MXGEMM_STATUS_HIP_ERROR";
  case MXGEMM_STATUS_NOT_SUPPORTED:
    return "MXGEMM_STATUS_NOT_SUPPORTED";
  case MXGEMM_STATUS_INTERNAL:
    return "MXGEMM_STATUS_INTERNAL";
  }
  return "MXGEMM_STATUS_UNKNOWN";
}

const char *mxgemm_plan_kind_string(mxgemm_plan_kind kind) {
  switch (kind) {
  case MXGEMM_PLAN_KIND_NONE:
    return "MXGEMM_PLAN_KIND_NONE";
  case MXGEMM_PLAN_KIND_EMBEDDED:
    return "MXGEMM_PLAN_KIND_EMBEDDED";
  case MXGEMM_PLAN_KIND_LIBRARY:
    return "MXGEMM_PLAN_KIND_LIBRARY";
  case MXGEMM_PLAN_KIND_LOADED_KERNEL:
    return "MXGEMM_PLAN_KIND_LOADED_KERNEL";
  case MXGEMM_PLAN_KIND_JIT:
    return "MXGEMM_PLAN_KIND_JIT";
  case MXGEMM_PLAN_KIND_GENERIC:
    return "MXGEMM_PLAN_KIND_GENERIC";
  }
  return "MXGEMM_PLAN_KIND_UNKNOWN";
}

const char *mxgemm_reason_string(mxgemm_reason reason) {
  switch (reason) {
  case MXGEMM_REASON_NONE:
    return "MXGEMM_REASON_NONE";
  case MXGEMM_REASON_HIP_UNAVAILABLE:
    return "MXGEMM_REASON_HIP_UNAVAILABLE";
  case MXGEMM_REASON_ARCH_MISMATCH:
    return "MXGEMM_REASON_ARCH_MISMATCH";
  case MXGEMM_REASON_OUTPUT_TYPE:
    return "MXGEMM_REASON_OUTPUT_TYPE";
  case MXGEMM_REASON_NOT_PREQUANTIZED:
    return "MXGEMM_REASON_NOT_PREQUANTIZED";
  case MXGEMM_REASON_K_NOT_MULTIPLE_OF_32:
    return "MXGEMM_REASON_K_NOT_MULTIPLE_OF_32";
  case MXGEMM_REASON_NOT_CONTIGUOUS:
    return "MXGEMM_REASON_NOT_CONTIGUOUS";
  case MXGEMM_REASON_NO_TUNED_KERNEL:
    return "MXGEMM_REASON_NO_TUNED_KERNEL";
  case MXGEMM_REASON_M_OUT_OF_RANGE:
    return "MXGEMM_REASON_M_OUT_OF_RANGE";
  case MXGEMM_REASON_CODE_OBJECT_LOAD:
    return "MXGEMM_REASON_CODE_OBJECT_LOAD";
  case MXGEMM_REASON_MISALIGNED:
    return "MXGEMM_REASON_MISALIGNED";
  case MXGEMM_REASON_PACKED_WEIGHTS:
    return "MXGEMM_REASON_PACKED_WEIGHTS";
  case MXGEMM_REASON_SCALE_LAYOUT:
    return "MXGEMM_REASON_SCALE_LAYOUT";
  case MXGEMM_REASON_JIT_FAILED:
    return "MXGEMM_REASON_JIT_FAILED";
  }
  return "MXGEMM_REASON_UNKNOWN";
}

const char *mxgemm_last_error(void) { return lastError(); }

void mxgemm_context_options_init(mxgemm_context_options *options) {
  if (options)
    std::memset(options, 0, sizeof(*options));
}

void mxgemm_problem_init(mxgemm_problem *problem, int64_t m, int64_t n,
                         int64_t k) {
  if (!problem)
    return;
  std::memset(problem, 0, sizeof(*problem));
  problem->m = m;
  problem->n = n;
  problem->k = k;
  problem->x_type = MXGEMM_DTYPE_E4M3;
  problem->w_type = MXGEMM_DTYPE_E4M3;
  problem->w_scale = MXGEMM_SCALE_BLOCK32X32;
  problem->out_type = MXGEMM_DTYPE_BF16;
}

mxgemm_status mxgemm_context_create(const mxgemm_context_options *options,
                                    mxgemm_context **context) {
  if (!context)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "context output pointer is NULL");
  *context = nullptr;
  return guarded([&] {
    auto ctx = std::make_unique<Context>();
    if (options)
      ctx->options = *options;
    const char *env = std::getenv("MXGEMM_HIP_LIBRARY");
    ctx->hipPath = ctx->options.hip_library ? ctx->options.hip_library
                   : (env && *env)          ? env
                                            : "libamdhip64.so";
    ctx->options.hip_library = nullptr; // the string may not outlive us
    const char *fault = std::getenv("MXGEMM_RUNTIME_FAULT");
    std::string faultName = fault ? fault : "";
    ctx->injectInternal = faultName == "internal";
    ctx->corruptCodeObjects = faultName == "code_object";
    ctx->pretendGfx942 = faultName == "arch";
    ctx->missingFunction = faultName == "function";
    // Generic kernels are on unless the environment says MXGEMM_GENERIC=0:
    // every MXFP8 GEMM with K % 32 == 0 gets a kernel without a compiler.
    const char *generic = std::getenv("MXGEMM_GENERIC");
    ctx->genericEnabled = !(generic && std::string(generic) == "0");
    const char *jit = std::getenv("MXGEMM_JIT");
    ctx->jitEnabled = jit && std::string(jit) == "1";
    ctx->handle = gContexts.insert(ctx.get());
    if (!ctx->handle)
      return fail(MXGEMM_STATUS_NOT_SUPPORTED,
                  "too many live contexts (" +
                      std::to_string(ContextTable::capacity()) +
                      "): destroy one first");
    *context = reinterpret_cast<mxgemm_context *>(ctx.release()->handle);
    return MXGEMM_STATUS_OK;
  });
}

mxgemm_status mxgemm_context_destroy(mxgemm_context *context) {
  if (!context)
    return MXGEMM_STATUS_OK;
  return guarded([&] {
    HandleState state;
    std::unique_ptr<Context> ctx(
        gContexts.remove(reinterpret_cast<uintptr_t>(context), state));
    if (!ctx)
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT, describeBadContext(state));
    ctx->unloadAll();
    return MXGEMM_STATUS_OK;
  });
}

mxgemm_status mxgemm_query(mxgemm_context *context,
                           const mxgemm_problem *problem, mxgemm_plan *plan) {
  if (!plan)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "plan is NULL");
  Context *ctx = resolveContext(context);
  if (!ctx) {
    refusePlan(plan, lastError());
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return guarded([&] {
    return decideIntoPlan(
        *plan, [&](Decision &d, mxgemm_reason &reason, MessageBuilder &msg) {
          return decide(*ctx, problem, nullptr, d, reason, msg);
        });
  });
}

mxgemm_status mxgemm_query_row_split(mxgemm_context *context,
                                     const mxgemm_problem *problem,
                                     mxgemm_plan *plan, int64_t *first_rows,
                                     mxgemm_plan *tail) {
  if (!plan || !first_rows || !tail)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "plan, first_rows and tail must be non-NULL");
  *first_rows = 0;
  fillPlan(tail, MXGEMM_STATUS_NOT_ELIGIBLE, MXGEMM_REASON_NONE,
           KernelLaunch());
  MessageBuilder(tail->message, sizeof(tail->message)) << "one launch";
  Context *ctx = resolveContext(context);
  if (!ctx) {
    refusePlan(plan, lastError());
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return guarded([&] {
    Decision d;
    mxgemm_status s = decideIntoPlan(
        *plan, d,
        [&](Decision &out, mxgemm_reason &reason, MessageBuilder &msg) {
          return decide(*ctx, problem, nullptr, out, reason, msg);
        });
    if (s == MXGEMM_STATUS_OK && d.firstRows) {
      *first_rows = d.firstRows;
      fillPlan(tail, MXGEMM_STATUS_OK, MXGEMM_REASON_NONE, d.tail);
      MessageBuilder(tail->message, sizeof(tail->message))
          << "rows " << d.firstRows << ".." << (problem->m - 1)
          << " of the call (row 0 of this plan is row " << d.firstRows << ")";
    }
    return s;
  });
}

mxgemm_status mxgemm_gemm(mxgemm_context *context,
                          const mxgemm_problem *problem,
                          const mxgemm_tensors *tensors, void *stream,
                          mxgemm_plan *plan) {
  Context *ctx = resolveContext(context);
  if (!ctx || !tensors) {
    if (ctx)
      setLastError("tensors is NULL");
    refusePlan(plan, lastError());
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return decideAndLaunch(
      *ctx, problem, tensors, stream, plan,
      [&](Decision &d, mxgemm_reason &reason, MessageBuilder &msg) {
        return decide(*ctx, problem, tensors, d, reason, msg);
      });
}

mxgemm_status mxgemm_pack_weights(mxgemm_context *context,
                                  const mxgemm_problem *problem, const void *w,
                                  void *packed, size_t *packed_bytes,
                                  void *stream) {
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  if (!problem || !packed_bytes || (packed && !w))
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "problem and packed_bytes must be non-NULL, and W too when "
                "packing");
  return guarded([&] {
    // The kernel is the one mxgemm_gemm picks for the packed problem.
    mxgemm_problem asPacked = *problem;
    asPacked.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
    asPacked.ld_w = 0;
    Decision d;
    mxgemm_reason reason;
    char message[kMessageBytes];
    MessageBuilder msg(message, sizeof(message));
    mxgemm_status s = decide(*ctx, &asPacked, nullptr, d, reason, msg);
    if (s == MXGEMM_STATUS_NOT_ELIGIBLE &&
        reason == MXGEMM_REASON_PACKED_WEIGHTS)
      return fail(MXGEMM_STATUS_NOT_SUPPORTED,
                  std::string(message) +
                      "; nothing to pack, pass W row-major to mxgemm_gemm");
    if (s != MXGEMM_STATUS_OK)
      return fail(s, message);
    const int64_t n = problem->n, k = problem->k;
    const int64_t nonK = d.descriptor->mfma.nonK;
    if (!contract::canPackWeightPanels(n, k, nonK))
      return fail(MXGEMM_STATUS_INTERNAL,
                  "internal: the kernel's W cannot be cut into MFMA panels");
    // N and K are at most 2^24 (the key matched an entry); checked anyway.
    size_t bytes;
    if (__builtin_mul_overflow(size_t(n), size_t(k), &bytes))
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "N x K bytes of W overflow size_t");
    *packed_bytes = bytes;
    if (!packed)
      return MXGEMM_STATUS_OK;
    if (reinterpret_cast<uintptr_t>(w) % 16 ||
        reinterpret_cast<uintptr_t>(packed) % 16)
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "W and the packed buffer must be 16-byte aligned");
    return packWeightPanels(*ctx, w, packed, n, k, nonK, bytes, stream);
  });
}

mxgemm_status mxgemm_context_set_generic(mxgemm_context *context, int enable) {
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  ctx->genericEnabled.store(enable != 0, std::memory_order_relaxed);
  return MXGEMM_STATUS_OK;
}

size_t mxgemm_kernel_count(void) {
  return KernelLibrary::embedded().entries.size();
}

mxgemm_status mxgemm_kernel_get(size_t index, mxgemm_kernel_info *info) {
  const std::vector<KernelEntry> &entries = KernelLibrary::embedded().entries;
  if (index >= entries.size() || !info)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "kernel index out of range or info is NULL");
  const KernelEntry &e = entries[index];
  const contract::KernelDescriptor &d = e.descriptor;
  info->entry = e.tuning.name.c_str();
  info->kernel = d.kernel.c_str();
  info->arch = e.tuning.arch.c_str();
  info->config = e.configText.c_str();
  info->note = e.tuning.note.c_str();
  // A generic kernel's run-time extents read as 0 ("any").
  info->n = d.problem.dynamicN() ? 0 : d.problem.n;
  info->k = d.problem.dynamicK() ? 0 : d.problem.k;
  info->m_min = e.tuning.mMin;
  info->m_max = e.tuning.mMax;
  info->x_type = mxgemm_dtype(d.problem.xType);
  info->w_type = mxgemm_dtype(d.problem.wType);
  info->w_scale = mxgemm_scale_granularity(d.problem.wScale);
  info->out_type = mxgemm_dtype(d.problem.outType);
  info->code_object_bytes = e.codeObjectSize;
  info->workgroup_size = uint32_t(d.workgroupSize);
  info->vgpr_count = uint32_t(d.resources.vgprCount);
  info->agpr_count = uint32_t(d.resources.agprCount);
  info->sgpr_count = uint32_t(d.resources.sgprCount);
  info->w_layout = e.wLayout();
  info->x_scale_layout = mxgemm_scale_layout(d.xScaleLayout);
  info->w_scale_layout = mxgemm_scale_layout(d.wScaleLayout);
  return MXGEMM_STATUS_OK;
}

mxgemm_status mxgemm_kernel_code_object(size_t index, const void **data,
                                        size_t *bytes) {
  const std::vector<KernelEntry> &entries = KernelLibrary::embedded().entries;
  if (index >= entries.size() || !data || !bytes)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "kernel index out of range or NULL output");
  *data = entries[index].codeObject;
  *bytes = entries[index].codeObjectSize;
  return MXGEMM_STATUS_OK;
}

const char *mxgemm_kernel_descriptor(size_t index) {
  const std::vector<KernelEntry> &entries = KernelLibrary::embedded().entries;
  if (index >= entries.size()) {
    setLastError("kernel index out of range");
    return nullptr;
  }
  return entries[index].descriptorJson.c_str();
}

namespace {

/// The tile grid and launches a caller's plan describes, every field checked
/// (mxgemm_plan_workgroup_tile and mxgemm_plan_workgroup_closure).
struct PlanGrid {
  contract::TileGrid grid;
  int64_t rows = 0;       // rows the grid covers, clipped to a kernel's M
  uint64_t flatIds = 0;   // workgroups of the first launch (grid_x x grid_y)
  uint64_t wholeIds = 0;  // a tail split's whole tiles, else grid_x
  uint64_t tailTiles = 0; // a tail split's split tiles, else 0
};

std::optional<std::string> checkPlanGrid(const mxgemm_plan &plan,
                                         PlanGrid &out) {
  if (plan.status != MXGEMM_STATUS_OK)
    return std::string("its status is not MXGEMM_STATUS_OK (it describes no "
                       "launch)");
  // A split-K grid has a y workgroup per K segment, others one (0 in a
  // zero-initialised plan counts as 1).
  const uint32_t splits = std::max<uint32_t>(plan.k_splits, 1);
  if (splits > contract::kMaxKSplits ||
      (plan.grid_y > 1 && plan.grid_y != splits))
    return "k_splits (" + std::to_string(plan.k_splits) + ") and grid_y (" +
           std::to_string(plan.grid_y) +
           ") do not describe a grid: k_splits is at most " +
           std::to_string(contract::kMaxKSplits) + " and grid_y 1 or k_splits";
  // The same mapping the compiler emits (Contract/TileGrouping.h).
  contract::TileGrid &grid = out.grid;
  grid.programTileM = plan.program_tile_m;
  grid.tileN = plan.tile_n;
  grid.numTilesN = plan.num_tiles_n;
  grid.groupM = plan.group_m;
  grid.groupN = plan.group_n;
  grid.xcdRemap = plan.xcd_remap != 0;
  grid.numXcds = ::mxgemm::target::kGFX950.numXcds;
  // A tail split (k_splits > 1 on a 1-D grid): grid_x is the whole tiles,
  // then k_splits workgroups per tail tile, the whole tiles a multiple of
  // the round (the target's CUs) and fewer tail tiles than a round; the
  // second launch has a workgroup per tail tile and segment.
  if (plan.k_splits > 1 && plan.grid_y == 1) {
    grid.kSplits = plan.k_splits;
    grid.tailSplit = true;
    grid.roundWorkgroups = ::mxgemm::target::kGFX950.numCus;
  }
  if (auto error = grid.validate())
    return error;
  int64_t tiles = plan.grid_x;
  out.wholeIds = plan.grid_x;
  if (grid.tailSplit) {
    const int64_t split = int64_t(plan.tail_tiles) * plan.k_splits;
    if (split > int64_t(plan.grid_x) ||
        (plan.grid_x - split) % grid.roundWorkgroups != 0 ||
        plan.tail_tiles >= uint64_t(grid.roundWorkgroups))
      return "grid_x (" + std::to_string(plan.grid_x) +
             ") is not whole rounds of " +
             std::to_string(grid.roundWorkgroups) +
             " workgroups plus k_splits (" + std::to_string(plan.k_splits) +
             ") per tail tile (tail_tiles = " +
             std::to_string(plan.tail_tiles) + ")";
    if (plan.reduction_grid_x != uint64_t(split))
      return "reduction_grid_x (" + std::to_string(plan.reduction_grid_x) +
             ") is not tail_tiles x k_splits (" + std::to_string(split) + ")";
    tiles = plan.grid_x - split + plan.tail_tiles;
    out.wholeIds = uint64_t(plan.grid_x - split);
    out.tailTiles = plan.tail_tiles;
  }
  // Any M in the last tile row gives the same mapping as the plan's M.
  if (tiles == 0 || tiles % plan.num_tiles_n != 0)
    return "grid_x (" + std::to_string(plan.grid_x) + ") " +
           (grid.tailSplit
                ? "describes " + std::to_string(tiles) + " tiles, not"
                : "is not") +
           " a positive multiple of num_tiles_n (" +
           std::to_string(plan.num_tiles_n) + ")";
  // validate() bounds program_tile_m by 4096 (at most 2^44 rows); checked
  // anyway, as every size computed from a caller's plan.
  int64_t rows;
  if (__builtin_mul_overflow(int64_t(tiles / plan.num_tiles_n),
                             int64_t(plan.program_tile_m), &rows) ||
      rows > contract::kMaxM + int64_t(plan.program_tile_m) - 1)
    return "grid_x describes " + std::to_string(rows) +
           " rows, more than a kernel's i32 M (" +
           std::to_string(contract::kMaxM) + ") needs";
  out.rows = std::min<int64_t>(rows, contract::kMaxM);
  // grid_x and grid_y are 32-bit: the product fits 64 bits.
  out.flatIds = uint64_t(plan.grid_x) * std::max<uint32_t>(plan.grid_y, 1);
  return std::nullopt;
}

} // namespace

mxgemm_status mxgemm_plan_workgroup_tile(const mxgemm_plan *plan,
                                         uint32_t workgroup, int64_t *row,
                                         int64_t *col) {
  if (!plan || !row || !col)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "plan, row and col must be non-NULL");
  PlanGrid pg;
  if (auto error = checkPlanGrid(*plan, pg))
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "plan: " + *error);
  auto origin = pg.grid.tileOrigin(workgroup, pg.rows);
  if (!origin)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "workgroup " + std::to_string(workgroup) +
                    " is outside the plan's grid (grid_x = " +
                    std::to_string(plan->grid_x) + ")");
  *row = origin->first;
  *col = origin->second;
  return MXGEMM_STATUS_OK;
}

mxgemm_status mxgemm_plan_workgroup_closure(const mxgemm_plan *const *plans,
                                            size_t num_plans,
                                            const uint64_t *ids, size_t num_ids,
                                            uint64_t *out, size_t capacity,
                                            size_t *count) {
  if (!plans || !ids || !count || (capacity && !out))
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "plans, ids and count must be non-NULL, and out when "
                "capacity > 0");
  if (num_plans == 0 || num_plans > 2)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "num_plans (" + std::to_string(num_plans) +
                    ") must be 1, or 2 for a row split");
  if (num_ids == 0)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "num_ids is 0");
  std::vector<std::pair<const mxgemm_plan *, PlanGrid>> launches;
  for (size_t i = 0; i < num_plans; ++i) {
    if (!plans[i])
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "plans[" + std::to_string(i) + "] is NULL");
    PlanGrid pg;
    if (auto error = checkPlanGrid(*plans[i], pg))
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "plans[" + std::to_string(i) + "]: " + *error);
    launches.emplace_back(plans[i], pg);
  }
  // Every id a workgroup of some launch: a plan's first grid (x + y grid_x)
  // or its second launch (a split-K reduction).
  auto inSomeLaunch = [&](uint64_t id) {
    for (auto &[plan, pg] : launches)
      if (id < pg.flatIds || id < plan->reduction_grid_x)
        return true;
    return false;
  };
  std::set<uint64_t> listed;
  std::vector<uint64_t> pending;
  auto list = [&](uint64_t id) {
    if (listed.insert(id).second)
      pending.push_back(id);
  };
  for (size_t i = 0; i < num_ids; ++i) {
    if (!inSomeLaunch(ids[i]))
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "workgroup " + std::to_string(ids[i]) +
                      " is in no launch of the plans");
    list(ids[i]);
  }
  // An id runs in every launch whose grid holds it (the emulator's
  // MXGEMM_EMU_WORKGROUPS); each tile it computes there needs all its
  // workgroups: every K segment (grid y; the reduction has the same grid),
  // and for a tail split's tail tile j its segments W + j + s R in the first
  // launch and its reductions j + s R in the second (W whole tiles, R tail
  // tiles, s < k_splits; docs/Design.md "Tail split").
  while (!pending.empty()) {
    const uint64_t id = pending.back();
    pending.pop_back();
    for (auto &[plan, pg] : launches) {
      const uint64_t gx = plan->grid_x, splits = plan->k_splits;
      auto listTailTile = [&](uint64_t j) {
        for (uint64_t s = 0; s < splits; ++s) {
          list(pg.wholeIds + j + s * pg.tailTiles);
          list(j + s * pg.tailTiles);
        }
      };
      if (id < pg.flatIds) {
        const uint64_t x = id % gx;
        if (pg.grid.tailSplit && x >= pg.wholeIds)
          listTailTile((x - pg.wholeIds) % pg.tailTiles);
        else
          for (uint64_t y = 0; y < pg.flatIds / gx; ++y)
            list(x + y * gx);
      }
      if (pg.grid.tailSplit && id < plan->reduction_grid_x)
        listTailTile(id % pg.tailTiles);
    }
  }
  *count = listed.size();
  if (!out && capacity == 0)
    return MXGEMM_STATUS_OK;
  if (capacity < listed.size())
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "capacity (" + std::to_string(capacity) +
                    ") is less than the " + std::to_string(listed.size()) +
                    " workgroups");
  std::copy(listed.begin(), listed.end(), out);
  return MXGEMM_STATUS_OK;
}

mxgemm_status mxgemm_device_alloc(mxgemm_context *context, size_t bytes,
                                  void **ptr) {
  if (!ptr || bytes == 0)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "ptr is NULL or bytes is 0");
  *ptr = nullptr;
  return callHip(context, "hipMalloc",
                 [&](Context &ctx) { return ctx.hip.hipMalloc(ptr, bytes); });
}

mxgemm_status mxgemm_device_free(mxgemm_context *context, void *ptr) {
  if (!ptr)
    return resolveContext(context) ? MXGEMM_STATUS_OK
                                   : MXGEMM_STATUS_INVALID_ARGUMENT;
  return callHip(context, "hipFree",
                 [&](Context &ctx) { return ctx.hip.hipFree(ptr); });
}

mxgemm_status mxgemm_copy_to_device(mxgemm_context *context, void *dst,
                                    const void *src, size_t bytes) {
  if (!dst || !src)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "dst or src is NULL");
  return callHip(context, "hipMemcpy(HostToDevice)", [&](Context &ctx) {
    return ctx.hip.hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice);
  });
}

mxgemm_status mxgemm_copy_to_host(mxgemm_context *context, void *dst,
                                  const void *src, size_t bytes) {
  if (!dst || !src)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "dst or src is NULL");
  return callHip(context, "hipMemcpy(DeviceToHost)", [&](Context &ctx) {
    return ctx.hip.hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost);
  });
}

mxgemm_status mxgemm_device_memset(mxgemm_context *context, void *ptr,
                                   int value, size_t bytes) {
  if (!ptr)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "ptr is NULL");
  return callHip(context, "hipMemset", [&](Context &ctx) {
    return ctx.hip.hipMemset(ptr, value, bytes);
  });
}

mxgemm_status mxgemm_synchronize(mxgemm_context *context, void *stream) {
  return callHip(context, "hipStreamSynchronize", [&](Context &ctx) {
    return ctx.hip.hipStreamSynchronize(stream);
  });
}

mxgemm_status mxgemm_device_info(mxgemm_context *context, char *name,
                                 size_t name_bytes, int *cc_major,
                                 int *cc_minor) {
  return guarded([&] {
    Context *ctx;
    if (mxgemm_status s = requireHip(context, ctx))
      return s;
    if (name && name_bytes)
      MessageBuilder(name, name_bytes) << ctx->deviceName;
    if (cc_major)
      *cc_major = ctx->ccMajor;
    if (cc_minor)
      *cc_minor = ctx->ccMinor;
    return MXGEMM_STATUS_OK;
  });
}

} // extern "C"
