//===- Runtime.cpp - the mxgemm C API: dispatch, eligibility, launch ------===//
//
// Implements mxgemm_runtime.h. A context owns the lazily loaded HIP library
// and one module per embedded kernel; both are set up exactly once under
// std::call_once, after which the context is immutable. The decision path
// (argument checks, the eligibility rules of DESIGN.md section 5, a binary
// search of the generated KernelTable and the launch geometry) only reads
// constant data and writes into caller-provided structs: it neither
// allocates nor locks, so any number of threads can share one context.
// Exceptions never cross the C boundary (they become MXGEMM_STATUS_INTERNAL).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"
#include "mxgemm/Target/TargetModel.h"

#include "HipLibrary.h"
#include "KernelLibrary.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace mxgemm::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Messages without allocation
//===----------------------------------------------------------------------===//

/// Appends text and integers into a fixed buffer (truncating), so that the
/// not-eligible path can explain itself without snprintf or the heap.
class MessageBuilder {
public:
  MessageBuilder(char *buffer, size_t size) : buf(buffer), cap(size) {
    if (buf && cap)
      buf[0] = '\0';
  }
  MessageBuilder &operator<<(const char *s) {
    if (!buf)
      return *this;
    while (*s && len + 1 < cap)
      buf[len++] = *s++;
    buf[len] = '\0';
    return *this;
  }
  MessageBuilder &operator<<(int64_t v) {
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
    do {
      digits[n++] = char('0' + u % 10);
      u /= 10;
    } while (u);
    if (v < 0)
      digits[n++] = '-';
    char out[24];
    for (int i = 0; i < n; ++i)
      out[i] = digits[n - 1 - i];
    out[n] = '\0';
    return *this << static_cast<const char *>(out);
  }

private:
  char *buf;
  size_t cap;
  size_t len = 0;
};

thread_local char tlsLastError[sizeof(mxgemm_plan::message)];

void setLastError(const char *message) {
  MessageBuilder(tlsLastError, sizeof(tlsLastError)) << message;
}

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

//===----------------------------------------------------------------------===//
// Once-per-process warning
//===----------------------------------------------------------------------===//

std::atomic<bool> warnedOnce{false};

} // namespace

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

struct LoadedKernel {
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
  std::string error; // why it could not be loaded ("" when loaded)
};

struct mxgemm_context {
  mxgemm_context_options options{};
  std::string hipPath;
  // Test hooks (MXGEMM_RUNTIME_FAULT, read at context creation; see
  // docs/Runtime.md): provoke statuses a healthy setup cannot produce.
  bool injectInternal = false;     // "internal": every decision throws
  bool corruptCodeObjects = false; // "code_object": load a corrupted copy
  bool pretendGfx942 = false;      // "arch": read compute capability as 9.4

  // Set up once by initialize(); read-only afterwards.
  std::once_flag initOnce;
  HipLibrary hip;
  bool hipReady = false;    // library loaded, hipInit ok, a device exists
  bool archMatches = false; // compute capability 9.5 (gfx950)
  int device = 0, ccMajor = 0, ccMinor = 0;
  char deviceName[128] = {0};
  std::string hipError; // why HIP is unavailable
  std::unique_ptr<LoadedKernel[]> kernels;

  void warn(const std::string &message) {
    if (warnedOnce.exchange(true))
      return;
    std::string text = "mxgemm: warning: " + message;
    if (options.log)
      options.log(options.log_user_data, text.c_str());
    else
      std::fprintf(stderr, "%s\n", text.c_str());
  }

  void initialize();
  void ensureInitialized() {
    std::call_once(initOnce, [this] { initialize(); });
  }
};

void mxgemm_context::initialize() {
  const KernelLibrary &library = KernelLibrary::embedded();
  kernels.reset(new LoadedKernel[library.entries.size()]);
  if (!library.error.empty())
    warn("the embedded kernel library is unusable (" + library.error +
         "); every GEMM is NOT_ELIGIBLE");
  if (!hip.load(hipPath.c_str(), hipError)) {
    warn("HIP is not available (" + hipError +
         "); every GEMM is NOT_ELIGIBLE and runs on the caller's path");
    return;
  }
  hipError_t e = hip.hipInit(0);
  int count = 0;
  if (e == hipSuccess)
    e = hip.hipGetDeviceCount(&count);
  if (e != hipSuccess || count == 0) {
    hipError = e != hipSuccess ? "hipInit/hipGetDeviceCount: " + hip.describe(e)
                               : std::string("no HIP device");
    warn("HIP has no usable device (" + hipError +
         "); every GEMM is NOT_ELIGIBLE");
    return;
  }
  if ((e = hip.hipGetDevice(&device)) != hipSuccess ||
      (e = hip.hipDeviceGetAttribute(&ccMajor,
                                     hipDeviceAttributeComputeCapabilityMajor,
                                     device)) != hipSuccess ||
      (e = hip.hipDeviceGetAttribute(&ccMinor,
                                     hipDeviceAttributeComputeCapabilityMinor,
                                     device)) != hipSuccess) {
    hipError = "querying the device: " + hip.describe(e);
    warn("HIP device query failed (" + hipError + ")");
    return;
  }
  if (hip.hipDeviceGetName(deviceName, sizeof(deviceName) - 1, device) !=
      hipSuccess)
    std::strcpy(deviceName, "?");
  if (pretendGfx942)
    ccMinor = 4;
  hipReady = true;
  // gfx950 reports compute capability 9.5 (gfx942: 9.4, gfx90a: 9.0).
  archMatches = ccMajor == ::mxgemm::target::kGFX950.computeCapabilityMajor &&
                ccMinor == ::mxgemm::target::kGFX950.computeCapabilityMinor;
  if (!archMatches)
    return;
  int failures = 0;
  std::string firstFailure;
  for (size_t i = 0; i < library.entries.size(); ++i) {
    const KernelEntry &entry = library.entries[i];
    LoadedKernel &k = kernels[i];
    std::string corrupted;
    const void *image = entry.codeObject;
    if (corruptCodeObjects) {
      corrupted.assign(reinterpret_cast<const char *>(entry.codeObject), 64);
      corrupted[1] = 'X'; // not an ELF any more
      image = corrupted.data();
    }
    if ((e = hip.hipModuleLoadData(&k.module, image)) != hipSuccess) {
      k.error =
          "hipModuleLoadData(" + entry.tuning.name + "): " + hip.describe(e);
      k.module = nullptr;
    } else if ((e = hip.hipModuleGetFunction(
                    &k.function, k.module, entry.descriptor.kernel.c_str())) !=
               hipSuccess) {
      k.error = "hipModuleGetFunction(" + entry.descriptor.kernel +
                "): " + hip.describe(e);
      k.function = nullptr;
    }
    if (!k.error.empty() && failures++ == 0)
      firstFailure = k.error;
  }
  if (failures)
    warn(std::to_string(failures) + " of " +
         std::to_string(library.entries.size()) +
         " embedded code objects could not be loaded (" + firstFailure +
         "); those problems are NOT_ELIGIBLE");
}

//===----------------------------------------------------------------------===//
// The decision
//===----------------------------------------------------------------------===//

namespace {

struct Decision {
  const KernelEntry *entry = nullptr;
  const LoadedKernel *kernel = nullptr;
  uint32_t gridX = 0;
  // The W layout of the matching entry, known (and reported) even when
  // the problem is not eligible because it passes the other layout.
  mxgemm_weight_layout wLayout = MXGEMM_WEIGHTS_ROW_MAJOR;
};

bool isFP8(mxgemm_dtype t) {
  return t == MXGEMM_DTYPE_E4M3 || t == MXGEMM_DTYPE_E5M2;
}

int64_t elementBytes(mxgemm_dtype t) {
  switch (t) {
  case MXGEMM_DTYPE_E4M3:
  case MXGEMM_DTYPE_E5M2:
    return 1;
  case MXGEMM_DTYPE_BF16:
  case MXGEMM_DTYPE_F16:
    return 2;
  case MXGEMM_DTYPE_F32:
    return 4;
  }
  return 0;
}

bool validDtype(int t) {
  return t >= MXGEMM_DTYPE_E4M3 && t <= MXGEMM_DTYPE_F32;
}

/// rows x ld elements of `bytes` each must fit comfortably in int64/size_t.
bool sizeFits(int64_t rows, int64_t ld, int64_t bytes) {
  int64_t elems, total;
  return !__builtin_mul_overflow(rows, ld, &elems) &&
         !__builtin_mul_overflow(elems, bytes, &total) &&
         uint64_t(total) <= uint64_t(SIZE_MAX / 2);
}

/// The argument checks and eligibility rules of DESIGN.md section 5, in a
/// fixed order (documented in docs/Runtime.md). `tensors` is null for a
/// query. Writes the reason message into `message` (may be null).
mxgemm_status decide(mxgemm_context *ctx, const mxgemm_problem *p,
                     const mxgemm_tensors *tensors, Decision &d,
                     mxgemm_reason &reason, char *message, size_t messageSize) {
  MessageBuilder msg(message, messageSize);
  reason = MXGEMM_REASON_NONE;
  if (ctx->injectInternal)
    throw std::logic_error("injected internal error (MXGEMM_RUNTIME_FAULT)");
  if (!p) {
    msg << "problem is NULL";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (p->m <= 0 || p->n <= 0 || p->k <= 0) {
    msg << "M, N and K must be positive (M = " << p->m << ", N = " << p->n
        << ", K = " << p->k << ")";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!validDtype(p->x_type) || !validDtype(p->w_type) ||
      !validDtype(p->out_type) ||
      (p->w_scale != MXGEMM_SCALE_BLOCK32X32 &&
       p->w_scale != MXGEMM_SCALE_PER_ROW)) {
    msg << "unknown element type or weight-scale granularity value";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const bool panels = p->w_layout == MXGEMM_WEIGHTS_MFMA_PANELS;
  if (!panels && p->w_layout != MXGEMM_WEIGHTS_ROW_MAJOR) {
    msg << "unknown weight layout value " << int64_t(p->w_layout);
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (panels && p->ld_w != 0 && p->ld_w != p->k) {
    msg << "W packed in MFMA panels has no leading dimension: ld_w must be "
           "0 or K, got "
        << p->ld_w;
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const int64_t kBlocks = (p->k + 31) / 32;
  const int64_t wsRows =
      p->w_scale == MXGEMM_SCALE_PER_ROW ? p->n : (p->n + 31) / 32;
  struct Operand {
    const char *name;
    int64_t rows, rowLength, ld, bytes;
  } operands[] = {
      {"X", p->m, p->k, p->ld_x, elementBytes(p->x_type)},
      {"Xs", p->m, kBlocks, p->ld_xs, 1},
      {"W", p->n, p->k, p->ld_w, elementBytes(p->w_type)},
      {"Ws", wsRows, kBlocks, p->ld_ws, 1},
      {"Y", p->m, p->n, p->ld_y, elementBytes(p->out_type)},
  };
  bool contiguous = true;
  const char *stridedOperand = "";
  for (const Operand &o : operands) {
    int64_t ld = o.ld ? o.ld : o.rowLength;
    if (ld < o.rowLength) {
      msg << "leading dimension of " << o.name << " (" << o.ld
          << ") is smaller than its row length (" << o.rowLength << ")";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    if (!sizeFits(o.rows, ld, o.bytes)) {
      msg << "size of " << o.name << " (" << o.rows << " x " << ld
          << " elements) overflows";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    if (ld != o.rowLength && contiguous) {
      contiguous = false;
      stridedOperand = o.name;
    }
  }
  if (tensors) {
    if (!tensors->x || !tensors->xs || !tensors->w || !tensors->ws ||
        !tensors->y) {
      msg << "a tensor pointer (X, Xs, W, Ws or Y) is NULL";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
  }

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
  if (!contiguous) {
    reason = MXGEMM_REASON_NOT_CONTIGUOUS;
    msg << stridedOperand
        << " is not contiguous (leading dimension != row length); the "
           "kernels take row-major contiguous operands";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  const std::vector<KernelEntry> &entries = KernelLibrary::embedded().entries;
  const KernelEntry *begin = entries.data(), *end = begin + entries.size();
  const KernelEntry *first = end;
  if (p->n <= ::mxgemm::contract::kMaxProblemExtent &&
      p->k <= ::mxgemm::contract::kMaxProblemExtent) {
    DispatchKey key = makeDispatchKey(p->n, p->k, p->x_type, p->w_type,
                                      p->w_scale, p->out_type);
    first = std::lower_bound(
        begin, end, key,
        [](const KernelEntry &e, DispatchKey k) { return e.key < k; });
    if (first != end && first->key != key)
      first = end;
  }
  if (first == end) {
    reason = MXGEMM_REASON_NO_TUNED_KERNEL;
    msg << "no tuned kernel for (gfx950, N = " << p->n << ", K = " << p->k
        << ", x " << dtypeName(p->x_type) << ", w " << dtypeName(p->w_type)
        << ", w_scale " << scaleName(p->w_scale) << ", out "
        << dtypeName(p->out_type) << ")";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  const KernelEntry *entry = nullptr;
  for (const KernelEntry *e = first; e != end && e->key == first->key; ++e)
    if (p->m >= e->tuning.mMin && p->m <= e->tuning.mMax) {
      entry = e;
      break;
    }
  if (!entry) {
    reason = MXGEMM_REASON_M_OUT_OF_RANGE;
    msg << "M = " << p->m << " is outside the tuned M range";
    for (const KernelEntry *e = first; e != end && e->key == first->key; ++e)
      msg << (e == first ? " " : ", ") << e->tuning.mMin << ".."
          << e->tuning.mMax;
    msg << " of (N = " << p->n << ", K = " << p->k << ")";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  d.wLayout = entry->wLayout();
  const bool packedWeights = d.wLayout == MXGEMM_WEIGHTS_MFMA_PANELS;
  if (packedWeights != panels) {
    // Same key, same layout for every M range (the tuning tool checks it),
    // so a caller that packed once never lands here by changing M.
    reason = MXGEMM_REASON_PACKED_WEIGHTS;
    if (packedWeights)
      msg << "kernel '" << entry->descriptor.kernel.c_str()
          << "' reads W packed in MFMA panels: pack W once with "
             "mxgemm_pack_weights and set w_layout = "
             "MXGEMM_WEIGHTS_MFMA_PANELS";
    else
      msg << "W is packed in MFMA panels, but kernel '"
          << entry->descriptor.kernel.c_str() << "' reads row-major W";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }

  // Device rules: load HIP and the modules once.
  ctx->ensureInitialized();
  const bool strict = ctx->options.strict != 0;
  if (!ctx->hipReady) {
    reason = MXGEMM_REASON_HIP_UNAVAILABLE;
    msg << "HIP unavailable: " << ctx->hipError.c_str();
    return strict ? MXGEMM_STATUS_HIP_ERROR : MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (!ctx->archMatches) {
    reason = MXGEMM_REASON_ARCH_MISMATCH;
    msg << "device '" << ctx->deviceName << "' has compute capability "
        << int64_t(ctx->ccMajor) << "." << int64_t(ctx->ccMinor)
        << "; the kernels are for gfx950 (9.5)";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  const LoadedKernel &kernel = ctx->kernels[entry - begin];
  if (!kernel.function) {
    reason = MXGEMM_REASON_CODE_OBJECT_LOAD;
    msg << "code object of entry '" << entry->tuning.name.c_str()
        << "' could not be loaded: " << kernel.error.c_str();
    return strict ? MXGEMM_STATUS_HIP_ERROR : MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (tensors) {
    const struct {
      const char *name;
      const void *ptr;
    } ptrs[] = {{"X", tensors->x},
                {"Xs", tensors->xs},
                {"W", tensors->w},
                {"Ws", tensors->ws},
                {"Y", tensors->y}};
    for (const auto &q : ptrs)
      if (reinterpret_cast<uintptr_t>(q.ptr) % 16 != 0) {
        reason = MXGEMM_REASON_MISALIGNED;
        msg << q.name << " is not 16-byte aligned";
        return MXGEMM_STATUS_NOT_ELIGIBLE;
      }
  }
  std::optional<int64_t> grid = entry->descriptor.grid.numWorkgroups(p->m);
  if (!grid) {
    msg << "M = " << p->m << " needs more workgroups than a HIP grid holds";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  d.entry = entry;
  d.kernel = &kernel;
  d.gridX = uint32_t(*grid);
  return MXGEMM_STATUS_OK;
}

/// Kernarg bytes the launch path packs without allocating.
constexpr size_t kMaxKernargBytes = 256;

/// The kernel arguments at the descriptor's offsets; false if they do not
/// fit `args` (a descriptor this runtime cannot serve).
bool packArguments(const ::mxgemm::contract::KernelDescriptor &d,
                   const mxgemm_problem &p, const mxgemm_tensors &t,
                   unsigned char *args, size_t &bytes) {
  namespace contract = ::mxgemm::contract;
  bytes = size_t(d.resources.kernargSegmentBytes);
  if (bytes > kMaxKernargBytes)
    return false;
  for (const contract::KernelArgument &a : d.arguments) {
    if (a.offset + a.size > bytes)
      return false;
    uint64_t value = 0;
    if (a.name == contract::kArgX)
      value = reinterpret_cast<uintptr_t>(t.x);
    else if (a.name == contract::kArgXScales)
      value = reinterpret_cast<uintptr_t>(t.xs);
    else if (a.name == contract::kArgW)
      value = reinterpret_cast<uintptr_t>(t.w);
    else if (a.name == contract::kArgWScales)
      value = reinterpret_cast<uintptr_t>(t.ws);
    else if (a.name == contract::kArgY)
      value = reinterpret_cast<uintptr_t>(t.y);
    else if (a.name == contract::kArgM)
      value = uint64_t(p.m);
    else
      return false;
    std::memcpy(args + a.offset, &value, a.size); // little-endian
  }
  return true;
}

void fillPlan(mxgemm_plan *plan, mxgemm_status status, mxgemm_reason reason,
              const Decision &d) {
  plan->status = status;
  plan->reason = reason;
  const KernelEntry *e = d.entry;
  const ::mxgemm::contract::KernelDescriptor *k = e ? &e->descriptor : nullptr;
  plan->entry = e ? e->tuning.name.c_str() : "";
  plan->kernel = k ? k->kernel.c_str() : "";
  plan->config = e ? e->configText.c_str() : "";
  plan->note = e ? e->tuning.note.c_str() : "";
  plan->grid_x = d.gridX;
  plan->grid_y = plan->grid_z = 1;
  plan->block_x = k ? uint32_t(k->workgroupSize) : 0;
  plan->block_y = plan->block_z = 1;
  plan->lds_bytes = 0;
  plan->program_tile_m = k ? uint32_t(k->grid.programTileM) : 0;
  plan->tile_n = k ? uint32_t(k->grid.tileN) : 0;
  plan->num_tiles_n = k ? uint32_t(k->grid.numTilesN) : 0;
  plan->k_step = k ? uint32_t(k->mfma.kStep) : 0;
  plan->group_m = k ? uint32_t(k->grid.groupM) : 0;
  plan->group_n = k ? uint32_t(k->grid.groupN) : 0;
  plan->xcd_remap = k ? uint32_t(k->grid.xcdRemap) : 0;
  plan->w_layout = d.wLayout;
  plan->m_min = e ? e->tuning.mMin : 0;
  plan->m_max = e ? e->tuning.mMax : 0;
}

/// Runs `body` with C++ exceptions turned into MXGEMM_STATUS_INTERNAL.
template <typename Body> mxgemm_status guarded(Body &&body) {
  try {
    return body();
  } catch (const std::exception &e) {
    setLastError(e.what());
  } catch (...) {
    setLastError("unknown internal error");
  }
  return MXGEMM_STATUS_INTERNAL;
}

mxgemm_status hipCall(mxgemm_context *ctx, const char *what, hipError_t error) {
  if (error == hipSuccess)
    return MXGEMM_STATUS_OK;
  setLastError((std::string(what) + ": " + ctx->hip.describe(error)).c_str());
  return MXGEMM_STATUS_HIP_ERROR;
}

/// For the memory helpers: HIP must be usable (any device).
mxgemm_status requireHip(mxgemm_context *ctx) {
  if (!ctx) {
    setLastError("context is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  ctx->ensureInitialized();
  if (!ctx->hipReady) {
    setLastError(("HIP unavailable: " + ctx->hipError).c_str());
    return MXGEMM_STATUS_HIP_ERROR;
  }
  return MXGEMM_STATUS_OK;
}

} // namespace

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

/// One HIP call made on behalf of the caller: HIP is loaded first (its
/// absence is reported as such), the error is mapped to a status, and no
/// exception escapes.
template <typename Call>
static mxgemm_status callHip(mxgemm_context *context, const char *what,
                             Call call) {
  return guarded([&] {
    mxgemm_status s = requireHip(context);
    return s ? s : hipCall(context, what, call());
  });
}

extern "C" {

const char *mxgemm_version(void) { return "0.1.0"; }

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
  }
  return "MXGEMM_REASON_UNKNOWN";
}

const char *mxgemm_last_error(void) { return tlsLastError; }

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
  if (!context) {
    setLastError("context output pointer is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  *context = nullptr;
  return guarded([&] {
    auto ctx = std::make_unique<mxgemm_context>();
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
    *context = ctx.release();
    return MXGEMM_STATUS_OK;
  });
}

mxgemm_status mxgemm_context_destroy(mxgemm_context *context) {
  if (!context)
    return MXGEMM_STATUS_OK;
  return guarded([&] {
    if (context->hipReady && context->kernels)
      for (size_t i = 0; i < KernelLibrary::embedded().entries.size(); ++i)
        if (context->kernels[i].module)
          context->hip.hipModuleUnload(context->kernels[i].module);
    delete context;
    return MXGEMM_STATUS_OK;
  });
}

mxgemm_status mxgemm_query(mxgemm_context *context,
                           const mxgemm_problem *problem, mxgemm_plan *plan) {
  if (!context || !plan) {
    if (plan) {
      plan->status = MXGEMM_STATUS_INVALID_ARGUMENT;
      plan->reason = MXGEMM_REASON_NONE;
      MessageBuilder(plan->message, sizeof(plan->message)) << "context is NULL";
    }
    setLastError(!context ? "context is NULL" : "plan is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return guarded([&] {
    Decision d;
    mxgemm_reason reason;
    mxgemm_status s = decide(context, problem, nullptr, d, reason,
                             plan->message, sizeof(plan->message));
    fillPlan(plan, s, reason, d);
    if (s != MXGEMM_STATUS_OK && s != MXGEMM_STATUS_NOT_ELIGIBLE)
      setLastError(plan->message);
    return s;
  });
}

mxgemm_status mxgemm_gemm(mxgemm_context *context,
                          const mxgemm_problem *problem,
                          const mxgemm_tensors *tensors, void *stream,
                          mxgemm_plan *plan) {
  if (!context || !tensors) {
    setLastError(!context ? "context is NULL" : "tensors is NULL");
    if (plan) {
      Decision none;
      fillPlan(plan, MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE, none);
      MessageBuilder(plan->message, sizeof(plan->message))
          << mxgemm_last_error();
    }
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return guarded([&] {
    Decision d;
    mxgemm_reason reason;
    char *message = plan ? plan->message : nullptr;
    mxgemm_status s = decide(context, problem, tensors, d, reason, message,
                             plan ? sizeof(plan->message) : 0);
    if (s == MXGEMM_STATUS_OK) {
      // The kernel ABI (docs/Design.md section 4), at the offsets the
      // kernel descriptor gives.
      alignas(16) unsigned char args[kMaxKernargBytes] = {};
      size_t argBytes = 0;
      if (!packArguments(d.entry->descriptor, *problem, *tensors, args,
                         argBytes))
        throw std::logic_error("kernel arguments do not fit the ABI buffer");
      void *extra[] = {hipLaunchParamBufferPointer, args,
                       hipLaunchParamBufferSize, &argBytes, hipLaunchParamEnd};
      if (!context->options.dry_run) {
        // The kernels' LDS is static (the code object's group segment);
        // passing it again as dynamic shared memory would double it.
        hipError_t e = context->hip.hipModuleLaunchKernel(
            d.kernel->function, d.gridX, 1, 1,
            uint32_t(d.entry->descriptor.workgroupSize), 1, 1,
            /*sharedMemBytes=*/0, stream, nullptr, extra);
        if (e != hipSuccess) {
          s = hipCall(context, "hipModuleLaunchKernel", e);
          if (plan)
            MessageBuilder(plan->message, sizeof(plan->message))
                << mxgemm_last_error();
        }
      }
    }
    if (plan)
      fillPlan(plan, s, reason, d);
    if (s == MXGEMM_STATUS_INVALID_ARGUMENT && plan)
      setLastError(plan->message);
    return s;
  });
}

mxgemm_status mxgemm_pack_weights(mxgemm_context *context,
                                  const mxgemm_problem *problem, const void *w,
                                  void *packed, size_t *packed_bytes,
                                  void *stream) {
  if (!context || !problem || !packed_bytes || (packed && !w)) {
    setLastError("context, problem and packed_bytes must be non-NULL, and W "
                 "too when packing");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return guarded([&] {
    // The kernel is the one mxgemm_gemm picks for the packed problem.
    mxgemm_problem asPacked = *problem;
    asPacked.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
    asPacked.ld_w = 0;
    Decision d;
    mxgemm_reason reason;
    mxgemm_plan plan;
    mxgemm_status s = decide(context, &asPacked, nullptr, d, reason,
                             plan.message, sizeof(plan.message));
    if (s == MXGEMM_STATUS_NOT_ELIGIBLE &&
        reason == MXGEMM_REASON_PACKED_WEIGHTS) {
      setLastError((std::string(plan.message) +
                    "; nothing to pack, pass W row-major to mxgemm_gemm")
                       .c_str());
      return MXGEMM_STATUS_NOT_SUPPORTED;
    }
    if (s != MXGEMM_STATUS_OK) {
      setLastError(plan.message);
      return s;
    }
    const int64_t n = problem->n, k = problem->k;
    const int64_t nonK = d.entry->descriptor.mfma.nonK;
    if (!::mxgemm::contract::canPackWeightPanels(n, k, nonK)) {
      setLastError("internal: the kernel's W cannot be cut into MFMA panels");
      return MXGEMM_STATUS_INTERNAL;
    }
    const size_t bytes = size_t(n) * size_t(k);
    *packed_bytes = bytes;
    if (!packed)
      return MXGEMM_STATUS_OK;
    if (reinterpret_cast<uintptr_t>(w) % 16 ||
        reinterpret_cast<uintptr_t>(packed) % 16) {
      setLastError("W and the packed buffer must be 16-byte aligned");
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    // Once per weight tensor: through host memory, after W's producers.
    const HipLibrary &hip = context->hip;
    if (mxgemm_status e = hipCall(context, "hipStreamSynchronize",
                                  hip.hipStreamSynchronize(stream)))
      return e;
    std::vector<uint8_t> rowMajor(bytes), panels(bytes);
    if (mxgemm_status e = hipCall(
            context, "hipMemcpy(DeviceToHost)",
            hip.hipMemcpy(rowMajor.data(), w, bytes, hipMemcpyDeviceToHost)))
      return e;
    ::mxgemm::contract::packWeightPanels(rowMajor.data(), panels.data(), n, k,
                                         nonK);
    return hipCall(
        context, "hipMemcpy(HostToDevice)",
        hip.hipMemcpy(packed, panels.data(), bytes, hipMemcpyHostToDevice));
  });
}

size_t mxgemm_kernel_count(void) {
  return KernelLibrary::embedded().entries.size();
}

mxgemm_status mxgemm_kernel_get(size_t index, mxgemm_kernel_info *info) {
  const std::vector<KernelEntry> &entries = KernelLibrary::embedded().entries;
  if (index >= entries.size() || !info) {
    setLastError("kernel index out of range or info is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const KernelEntry &e = entries[index];
  const ::mxgemm::contract::KernelDescriptor &d = e.descriptor;
  info->entry = e.tuning.name.c_str();
  info->kernel = d.kernel.c_str();
  info->arch = e.tuning.arch.c_str();
  info->config = e.configText.c_str();
  info->note = e.tuning.note.c_str();
  info->n = d.problem.n;
  info->k = d.problem.k;
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
  return MXGEMM_STATUS_OK;
}

mxgemm_status mxgemm_kernel_code_object(size_t index, const void **data,
                                        size_t *bytes) {
  const std::vector<KernelEntry> &entries = KernelLibrary::embedded().entries;
  if (index >= entries.size() || !data || !bytes) {
    setLastError("kernel index out of range or NULL output");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
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

mxgemm_status mxgemm_plan_workgroup_tile(const mxgemm_plan *plan,
                                         uint32_t workgroup, int64_t *row,
                                         int64_t *col) {
  if (!plan || !row || !col || plan->status != MXGEMM_STATUS_OK) {
    setLastError("plan, row and col must be non-NULL and the plan OK");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  // The same mapping the compiler emits (Contract/TileGrouping.h), with
  // every field of the caller's plan checked first.
  ::mxgemm::contract::TileGrid grid;
  grid.programTileM = plan->program_tile_m;
  grid.tileN = plan->tile_n;
  grid.numTilesN = plan->num_tiles_n;
  grid.groupM = plan->group_m;
  grid.groupN = plan->group_n;
  grid.xcdRemap = plan->xcd_remap != 0;
  grid.numXcds = ::mxgemm::target::kGFX950.numXcds;
  if (auto error = grid.validate()) {
    setLastError(("plan: " + *error).c_str());
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  // Any M in the last tile row gives the same mapping as the plan's M.
  if (plan->grid_x == 0 || plan->grid_x % plan->num_tiles_n != 0) {
    setLastError("plan: grid_x is not a whole number of tile rows");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const int64_t rows =
      int64_t(plan->grid_x / plan->num_tiles_n) * plan->program_tile_m;
  auto origin = grid.tileOrigin(workgroup, rows);
  if (!origin) {
    setLastError("workgroup is outside the plan's grid");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  *row = origin->first;
  *col = origin->second;
  return MXGEMM_STATUS_OK;
}

mxgemm_status mxgemm_device_alloc(mxgemm_context *context, size_t bytes,
                                  void **ptr) {
  if (!ptr || bytes == 0) {
    setLastError("ptr is NULL or bytes is 0");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  *ptr = nullptr;
  return callHip(context, "hipMalloc",
                 [&] { return context->hip.hipMalloc(ptr, bytes); });
}

mxgemm_status mxgemm_device_free(mxgemm_context *context, void *ptr) {
  if (!ptr)
    return context ? MXGEMM_STATUS_OK : MXGEMM_STATUS_INVALID_ARGUMENT;
  return callHip(context, "hipFree", [&] { return context->hip.hipFree(ptr); });
}

mxgemm_status mxgemm_copy_to_device(mxgemm_context *context, void *dst,
                                    const void *src, size_t bytes) {
  if (!dst || !src) {
    setLastError("dst or src is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return callHip(context, "hipMemcpy(HostToDevice)", [&] {
    return context->hip.hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice);
  });
}

mxgemm_status mxgemm_copy_to_host(mxgemm_context *context, void *dst,
                                  const void *src, size_t bytes) {
  if (!dst || !src) {
    setLastError("dst or src is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return callHip(context, "hipMemcpy(DeviceToHost)", [&] {
    return context->hip.hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost);
  });
}

mxgemm_status mxgemm_device_memset(mxgemm_context *context, void *ptr,
                                   int value, size_t bytes) {
  if (!ptr) {
    setLastError("ptr is NULL");
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return callHip(context, "hipMemset",
                 [&] { return context->hip.hipMemset(ptr, value, bytes); });
}

mxgemm_status mxgemm_synchronize(mxgemm_context *context, void *stream) {
  return callHip(context, "hipStreamSynchronize",
                 [&] { return context->hip.hipStreamSynchronize(stream); });
}

mxgemm_status mxgemm_device_info(mxgemm_context *context, char *name,
                                 size_t name_bytes, int *cc_major,
                                 int *cc_minor) {
  return guarded([&] {
    mxgemm_status s = requireHip(context);
    if (s)
      return s;
    if (name && name_bytes)
      MessageBuilder(name, name_bytes) << context->deviceName;
    if (cc_major)
      *cc_major = context->ccMajor;
    if (cc_minor)
      *cc_minor = context->ccMinor;
    return MXGEMM_STATUS_OK;
  });
}

} // extern "C"
