//===- RuntimeInternal.h - what the C API's source files share --*- C++ -*-===//
//
// The objects behind the C API's handles (a context, a kernel loaded with
// mxgemm_kernel_load), the process-wide tables that validate those handles
// (Handles.h), the per-thread last error, and the pieces of a decision that
// the embedded kernels (Runtime.cpp) and loaded kernels (LoadedKernels.cpp)
// both go through: argument rules, device rules, pointer rules, the grid,
// argument packing, the launch and the plan. The rules are those of
// docs/Design.md section 5, in the order docs/Runtime.md lists.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define MXGEMM_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include "Handles.h"
#include "HipLibrary.h"
#include "KernelLibrary.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mxgemm::runtime {

//===----------------------------------------------------------------------===//
// Messages without allocation
//===----------------------------------------------------------------------===//

/// Appends text and integers into a fixed buffer (truncating), so that the
/// not-eligible path can explain itself without snprintf or the heap. A
/// null buffer swallows everything.
class MessageBuilder {
public:
  MessageBuilder(char *buffer, size_t size) : buf(buffer), cap(size) {
    if (buf && cap)
      buf[0] = '\0';
    else
      buf = nullptr;
  }
  MessageBuilder &operator<<(const char *s) {
    if (!buf)
      return *this;
    while (*s && len + 1 < cap)
      buf[len++] = *s++;
    buf[len] = '\0';
    return *this;
  }
  MessageBuilder &operator<<(const std::string &s) {
    return *this << s.c_str();
  }
  MessageBuilder &operator<<(int64_t v);

private:
  char *buf;
  size_t cap;
  size_t len = 0;
};

/// Bytes of a message (plans, the last error).
constexpr size_t kMessageBytes = sizeof(mxgemm_plan::message);

/// Records `message` as this thread's last error (mxgemm_last_error).
void setLastError(const char *message);
/// This thread's last error.
const char *lastError();
inline void setLastError(const std::string &message) {
  setLastError(message.c_str());
}
/// setLastError(message), then returns `status`: `return fail(...)`.
inline mxgemm_status fail(mxgemm_status status, const char *message) {
  setLastError(message);
  return status;
}
inline mxgemm_status fail(mxgemm_status status, const std::string &message) {
  return fail(status, message.c_str());
}

/// Runs `body` with C++ exceptions turned into MXGEMM_STATUS_INTERNAL (the
/// message becomes the last error); no exception crosses the C boundary.
template <typename Body> mxgemm_status guarded(Body &&body) {
  try {
    return body();
  } catch (const std::exception &e) {
    return fail(MXGEMM_STATUS_INTERNAL, e.what());
  } catch (...) {
    return fail(MXGEMM_STATUS_INTERNAL, "unknown internal error");
  }
}

//===----------------------------------------------------------------------===//
// The objects behind the handles
//===----------------------------------------------------------------------===//

/// One embedded kernel's module in one context.
struct EmbeddedModule {
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
  std::string error; // why it could not be loaded ("" when loaded)
};

struct Context;

/// A kernel loaded with mxgemm_kernel_load: its descriptor, a copy of its
/// code object, and its module in the owning context. Immutable after the
/// load, until mxgemm_kernel_unload or the context's destroy.
struct LoadedKernel {
  Context *owner = nullptr;
  uintptr_t handle = 0;
  contract::KernelDescriptor descriptor;
  ArgumentPacking packing;
  /// The config as the body of #mxgemm.config<...> (plans show it).
  std::string configText;
  std::vector<unsigned char> codeObject;
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
};

/// One entry of a directory loaded by mxgemm_context_load_library: the
/// entry as the embedded ones are (entry.codeObject points into `code`) and
/// its module in the owning context. Immutable once published.
struct LibraryKernel {
  KernelEntry entry;
  std::vector<unsigned char> code;
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
  /// A JIT kernel: the power-of-two M bucket its config was chosen for.
  int64_t jitBucket = 0;
};

/// The loaded entries a context dispatches to, sorted by (key, M range) as
/// KernelLibrary::entries. A load publishes a new set; the old ones stay
/// alive with the context (a query may still be reading one).
struct LibrarySet {
  std::vector<const LibraryKernel *> kernels;
};

struct Context {
  mxgemm_context_options options{};
  std::string hipPath;
  uintptr_t handle = 0;
  // Test hooks (MXGEMM_RUNTIME_FAULT, read at context creation; see
  // docs/Runtime.md): provoke statuses a healthy setup cannot produce.
  bool injectInternal = false;     // "internal": every decision throws
  bool corruptCodeObjects = false; // "code_object": load a corrupted copy
  bool pretendGfx942 = false;      // "arch": read compute capability as 9.4
  bool missingFunction = false;    // "function": ask HIP for a wrong symbol

  /// The symbol hipModuleGetFunction is asked for (`kernel`, unless the
  /// "function" test hook asks for one that does not exist).
  std::string functionName(const std::string &kernel) const {
    return missingFunction ? kernel + ".missing" : kernel;
  }

  // Set up once by initialize(); read-only afterwards.
  std::once_flag initOnce;
  std::atomic<bool> initialized{false};
  HipLibrary hip;
  bool hipReady = false;    // library loaded, hipInit ok, a device exists
  bool archMatches = false; // compute capability 9.5 (gfx950)
  int device = 0, ccMajor = 0, ccMinor = 0;
  char deviceName[128] = {0};
  std::string hipError; // why HIP is unavailable
  std::unique_ptr<EmbeddedModule[]> modules;

  /// Handles of the kernels loaded into this context (unloaded with it).
  std::mutex loadedMutex;
  std::vector<uintptr_t> loaded;

  /// The directories loaded by mxgemm_context_load_library: the current
  /// set (null: none; read lock-free by every decision) and everything
  /// ever published, owned until the context is destroyed. Loads are
  /// serialised by libraryMutex.
  std::atomic<const LibrarySet *> librarySet{nullptr};
  std::mutex libraryMutex;
  std::vector<std::unique_ptr<LibrarySet>> librarySets;
  std::vector<std::unique_ptr<LibraryKernel>> libraryKernels;

  /// JIT (Jit.cpp): on from MXGEMM_JIT=1 or mxgemm_context_set_jit. The
  /// context's JIT kernels by (key, M bucket) in an open-addressing table
  /// read lock-free; inserts under jitMutex, at most half full.
  static constexpr size_t kJitSlots = 1024;
  std::atomic<bool> jitEnabled{false};
  /// The embedded generic kernels serve keys without another kernel (on
  /// by default; off with MXGEMM_GENERIC=0 or mxgemm_context_set_generic).
  std::atomic<bool> genericEnabled{true};
  std::atomic<const LibraryKernel *> jitTable[kJitSlots] = {};
  std::mutex jitMutex;
  std::vector<std::unique_ptr<LibraryKernel>> jitKernels;

  /// mxgemm_quantize (Quantize.cpp): the modules of the embedded quantize
  /// kernels, loaded on the first call.
  static constexpr size_t kQuantizeKernels = 18;
  std::once_flag quantizeOnce;
  EmbeddedModule quantizeModules[kQuantizeKernels];
  /// mxgemm_pack_weights (PackWeights.cpp): the modules of the embedded
  /// packing kernels (m32n32k64, m16n16k128), loaded on the first call.
  static constexpr size_t kPackKernels = 2;
  std::once_flag packOnce;
  EmbeddedModule packModules[kPackKernels];

  /// Prints `message` once per process (to options.log or stderr).
  void warn(const std::string &message);
  /// Prints `message` unless `once` is already set (then sets it).
  void warn(const std::string &message, std::atomic<bool> &once);
  /// Loads HIP and the embedded modules: once, on the first call that
  /// needs the device. Lock-free after that.
  void ensureInitialized() {
    if (!initialized.load(std::memory_order_acquire))
      std::call_once(initOnce, [this] {
        initialize();
        initialized.store(true, std::memory_order_release);
      });
  }
  /// Unloads the modules of the loaded and embedded kernels.
  void unloadAll();

private:
  void initialize();
};

/// The process-wide handle tables (Handles.h). Live contexts and loaded
/// kernels are bounded by these capacities.
using ContextTable = HandleTable<Context, 0xC7, 4096>;
using LoadedKernelTable = HandleTable<LoadedKernel, 0x4B, 65536>;
extern ContextTable gContexts;
extern LoadedKernelTable gLoadedKernels;

/// Why a context handle names no live context ("context is NULL", ...).
const char *describeBadContext(HandleState state);

/// The context of `handle`, or null with the reason as the last error and
/// in `message` (may be null). Lock-free.
inline Context *resolveContext(mxgemm_context *handle, char *message,
                               size_t messageSize) {
  HandleState state;
  Context *ctx = gContexts.find(reinterpret_cast<uintptr_t>(handle), state);
  if (ctx)
    return ctx;
  const char *why = describeBadContext(state);
  MessageBuilder(message, messageSize) << why;
  setLastError(why);
  return nullptr;
}
inline Context *resolveContext(mxgemm_context *handle) {
  return resolveContext(handle, nullptr, 0);
}

/// The loaded kernel of `handle` in `ctx`, or null with the reason as the
/// last error and in `message`.
LoadedKernel *resolveLoadedKernel(const Context &ctx,
                                  mxgemm_loaded_kernel *handle, char *message,
                                  size_t messageSize);

//===----------------------------------------------------------------------===//
// Pieces of a decision
//===----------------------------------------------------------------------===//

/// What one launch needs and what a plan shows.
struct KernelLaunch {
  const contract::KernelDescriptor *descriptor = nullptr;
  const ArgumentPacking *packing = nullptr;
  hipFunction_t function = nullptr;
  const char *entry = "", *kernel = "", *config = "", *note = "";
  int64_t mMin = 0, mMax = 0;
  /// Workgroups: x the tiles, y the split-K segments (1 without; a tail
  /// split's grids are 1-D, its x the whole tiles then the tail's segments).
  uint32_t gridX = 0, gridY = 1;
  /// Split-K: segments per split tile, the tail split's tail tiles, and the
  /// second launch's x workgroups (y as the first's; 0: no second launch).
  uint32_t kSplits = 1, tailTiles = 0, reductionGridX = 0;
  /// Tile columns of the call (a generic kernel's depend on its N).
  uint32_t numTilesN = 0;
  mxgemm_plan_kind kind = MXGEMM_PLAN_KIND_NONE;
  /// The W layout of the kernel, known (and reported) even when the
  /// problem is not eligible because it passes the other layout.
  mxgemm_weight_layout wLayout = MXGEMM_WEIGHTS_ROW_MAJOR;
  /// The scale layouts of the kernel, likewise.
  mxgemm_scale_layout xScaleLayout = MXGEMM_SCALES_ROW_MAJOR,
                      wScaleLayout = MXGEMM_SCALES_ROW_MAJOR;
};

/// The decision for one call: one launch (the base), or with a row split
/// (contract::RowSplit) the base on rows [0, firstRows) and `tail` on the
/// rest. The plan shows the base; mxgemm_query_row_split both.
struct Decision : KernelLaunch {
  int64_t firstRows = 0; // 0: one launch
  KernelLaunch tail;
};

/// Whether `layout` is a value of mxgemm_scale_layout.
bool validScaleLayout(int layout);

/// The rule every kind of kernel shares: the problem passes its scales in
/// the layouts kernel `k` reads. Records the kernel's layouts in `d` (plans
/// show them also when the rule fails); false with the reason in `msg`.
bool scaleLayoutsMatch(const mxgemm_problem &p,
                       const contract::KernelDescriptor &k, KernelLaunch &d,
                       MessageBuilder &msg);

/// The operands whose leading dimension is not their row length.
struct StridedOperands {
  /// The first of W and its scales (no kernel takes them strided), and
  /// the first of X, its scales and Y (a kernel with row strides takes
  /// them); null when contiguous.
  const char *weights = nullptr, *activations = nullptr;
  /// Some leading dimension of X, its scales or Y is above 2^31 - 1: no
  /// i32 row-stride argument holds it.
  bool beyondI32 = false;
};

/// Rule 1: the problem (and, when `tensors` is not null, the five device
/// pointers) are well formed; every leading dimension is 0 or at least
/// its row length; every size fits. Fills `strided`.
mxgemm_status checkArguments(const mxgemm_problem *p,
                             const mxgemm_tensors *tensors, MessageBuilder &msg,
                             StridedOperands &strided);
/// The operand a kernel packed as `packing` cannot take strided (null if
/// it takes the call's operands), for the NOT_CONTIGUOUS message.
const char *operandNotTaken(const StridedOperands &strided,
                            const ArgumentPacking &packing);
/// The device rules: HIP usable and the device a gfx950.
mxgemm_status checkDevice(Context &ctx, mxgemm_reason &reason,
                          MessageBuilder &msg);
/// Rule 12: the five pointers are 16-byte aligned.
mxgemm_status checkAlignment(const mxgemm_tensors &t, mxgemm_reason &reason,
                             MessageBuilder &msg);
/// The grid of `d.descriptor` for M rows (and, for a generic kernel, N
/// columns) into d.gridX, d.gridY, d.numTilesN and the split-K fields.
mxgemm_status computeGrid(Decision &d, int64_t m, int64_t n,
                          MessageBuilder &msg);
/// Packs the arguments (d.packing) and launches (unless the context is a
/// dry run) on `stream`.
mxgemm_status launch(Context &ctx, const KernelLaunch &d,
                     const mxgemm_problem &p, const mxgemm_tensors &t,
                     void *stream, MessageBuilder &msg);
/// The launches of a decision: one, or the two of a row split (the tail's
/// X, scales and Y offset by d.firstRows rows), in stream order.
mxgemm_status launchAll(Context &ctx, const Decision &d,
                        const mxgemm_problem &p, const mxgemm_tensors &t,
                        void *stream, MessageBuilder &msg);
/// The operands of `t` from row `row` of X, its scales and Y on
/// (contiguous; `row` < p.m).
mxgemm_tensors tensorsFromRow(const mxgemm_tensors &t, const mxgemm_problem &p,
                              int64_t row);
/// Fills every field of `plan` but the message.
void fillPlan(mxgemm_plan *plan, mxgemm_status status, mxgemm_reason reason,
              const KernelLaunch &d);
/// The body of every query: `decide(d, reason, msg)` picks the kernel into
/// `d` and `plan` (outcome and message); a failure's message becomes the
/// last error.
template <typename Decide>
mxgemm_status decideIntoPlan(mxgemm_plan &plan, Decision &d, Decide &&decide) {
  mxgemm_reason reason;
  MessageBuilder msg(plan.message, sizeof(plan.message));
  mxgemm_status s = decide(d, reason, msg);
  fillPlan(&plan, s, reason, d);
  if (s != MXGEMM_STATUS_OK)
    setLastError(plan.message);
  return s;
}
/// The same, for a caller that does not need the decision afterwards.
template <typename Decide>
mxgemm_status decideIntoPlan(mxgemm_plan &plan, Decide &&decide) {
  Decision d;
  return decideIntoPlan(plan, d, std::forward<Decide>(decide));
}

/// The body of every deciding-and-launching entry point: `decide(d, reason,
/// msg)` picks the kernel, then the launch; the plan (when given) gets the
/// outcome and the message, the last error the message of a failure.
/// Without a plan the message is built on the stack, so the last error
/// changes only if the call fails. `problem` and `tensors` are dereferenced
/// only after `decide` succeeded (it checks them).
template <typename Decide>
mxgemm_status decideAndLaunch(Context &ctx, const mxgemm_problem *problem,
                              const mxgemm_tensors *tensors, void *stream,
                              mxgemm_plan *plan, Decide &&decide) {
  return guarded([&] {
    Decision d;
    mxgemm_reason reason;
    char local[kMessageBytes];
    char *message = plan ? plan->message : local;
    MessageBuilder msg(message, kMessageBytes);
    mxgemm_status s = decide(d, reason, msg);
    if (s == MXGEMM_STATUS_OK)
      s = launchAll(ctx, d, *problem, *tensors, stream, msg);
    if (plan)
      fillPlan(plan, s, reason, d);
    if (s != MXGEMM_STATUS_OK)
      setLastError(message);
    return s;
  });
}

/// The power-of-two M bucket a JIT kernel is chosen for.
int64_t jitBucket(int64_t m);
/// The context's JIT kernel of (key, bucket), or null. Lock-free.
const LibraryKernel *findJitKernel(const Context &ctx, DispatchKey key,
                                   int64_t bucket);
/// The context's JIT kernel for `p` (key `key`): found, or loaded from the
/// cache, or compiled; null with the reason in `error` (warned once).
const LibraryKernel *obtainJitKernel(Context &ctx, const mxgemm_problem &p,
                                     DispatchKey key, std::string &error);

/// "n=.. k=.. x=.. w=.. w_scale=.. out=..": a key in logs and warnings.
std::string problemKeyText(const mxgemm_problem &p);
/// Appends `line` to the file `path` in one write (O_APPEND keeps lines
/// whole across processes); failures are ignored: the log is advisory.
void appendLogLine(const char *path, const std::string &line);

/// A failed HIP call as HIP_ERROR with its message as the last error.
mxgemm_status hipCall(Context &ctx, const char *what, hipError_t error);

/// mxgemm_pack_weights' packing step (PackWeights.cpp), after the kernel
/// (hence the MFMA shape) is chosen and sizes and alignment are checked:
/// the device tensor W [n, k] (row-major) into `packed` (`bytes` = n * k)
/// in MFMA panels of `nonK` rows (contract::canPackWeightPanels holds).
/// - W and `packed` disjoint: the embedded packing kernel of the shape,
///   launched on `stream` (asynchronous, ordered after W's producers);
/// - overlapping (in place): through host memory, after synchronizing
///   `stream` (a kernel cannot permute in place without a temporary);
/// - a packing kernel that cannot be loaded: nothing written, HIP_ERROR in
///   strict mode, else NOT_ELIGIBLE (as a GEMM kernel's module).
mxgemm_status packWeightPanels(Context &ctx, const void *w, void *packed,
                               int64_t n, int64_t k, int64_t nonK, size_t bytes,
                               void *stream);

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_RUNTIMEINTERNAL_H
