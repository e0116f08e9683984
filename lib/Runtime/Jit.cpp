//===- Jit.cpp - kernels compiled at run time for keys without one --------===//
//
// With JIT on (MXGEMM_JIT=1 or mxgemm_context_set_jit), a problem that has
// no tuned or loaded kernel gets one compiled by libmxgemm_jit.so (dlopened
// here, only then: the runtime links no LLVM) with the compiler's auto
// config for M rounded up to a power of two. Per (key, M bucket), once per
// process however many threads ask (a per-key lock; compiles serialised by
// a process-wide one, since in-process lld resets LLVM's options): first
// the on-disk cache (KernelCache), else a compile stored into it. Each
// context then checks the kernel as mxgemm_context_load_library does and
// loads its module; later calls find it with a lock-free probe of the
// context's table. The calling thread waits for the compile.
//
// The cache key holds the config, which only the JIT library can choose,
// and loading that library (it links LLVM and MLIR) takes most of a cache
// hit's time. So the runtime also stores an alias keyed by what decides
// the choice (its own version, commit and build LLVM version, the chip,
// the problem and the M bucket) and tries it first: a later process of the
// same build loads the kernel without the compiler. Not with
// $MXGEMM_JIT_LIBRARY, which may be another build's compiler.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "mxgemm/Contract/CodeObjectCheck.h"
#include "mxgemm/Contract/Formats.h"
#include "mxgemm/Jit/mxgemm_jit.h"
#include "mxgemm/Runtime/KernelCache.h"
#include "mxgemm/Support/Tool.h"
#include "mxgemm/Target/TargetModel.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <unistd.h>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

/// What the process compiled or found in the cache for one (key, bucket).
struct Artefact {
  std::mutex mutex; // held while it is produced: one compile per key
  bool done = false;
  std::string error;      // why there is no kernel ("" when there is)
  std::string cacheKey;   // KernelCacheKey::hash (also the entry name)
  std::string configText; // the config the JIT chose
  std::string note;       // for plans: compiled, or from the cache
  CachedKernel kernel;
};

/// The process-wide JIT state: the library, the cache, the artefacts.
struct JitState {
  std::mutex mutex; // guards everything below but the artefacts' contents
  bool libraryTried = false;
  mxgemm_jit_entry_fn entry = nullptr;
  std::string libraryError;
  bool cacheTried = false;
  KernelCache cache;
  std::string cacheError;
  std::map<std::pair<DispatchKey, int64_t>, std::unique_ptr<Artefact>>
      artefacts;
  std::mutex compileMutex; // one compile at a time in the process
  std::mutex logMutex;
};

JitState &state() {
  static JitState *s = new JitState; // never destroyed: threads may use it
  return *s;
}

std::atomic<bool> warnedJit{false}, warnedCache{false};

/// The JIT library: $MXGEMM_JIT_LIBRARY, else libmxgemm_jit.so beside this
/// library, else the loader's search path.
mxgemm_jit_entry_fn loadLibrary(JitState &s, std::string &error) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.libraryTried) {
    s.libraryTried = true;
    std::string path;
    if (const char *env = std::getenv("MXGEMM_JIT_LIBRARY"); env && *env)
      path = env;
    else {
      Dl_info info;
      if (dladdr(reinterpret_cast<void *>(&mxgemm_version), &info) &&
          info.dli_fname) {
        std::string self = info.dli_fname;
        size_t slash = self.rfind('/');
        if (slash != std::string::npos)
          path = self.substr(0, slash + 1) + "libmxgemm_jit.so";
      }
      if (path.empty() || ::access(path.c_str(), R_OK) != 0)
        path = "libmxgemm_jit.so";
    }
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = ::dlerror();
      s.libraryError =
          "cannot load the JIT library " + path + ": " + (why ? why : "?");
    } else if (!(s.entry = reinterpret_cast<mxgemm_jit_entry_fn>(
                     ::dlsym(handle, MXGEMM_JIT_ENTRY)))) {
      s.libraryError = path + " has no " MXGEMM_JIT_ENTRY;
    }
  }
  error = s.libraryError;
  return s.entry;
}

/// The cache, opened once per process (nullptr: none, with one warning).
KernelCache *openCache(Context &ctx, JitState &s) {
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.cacheTried) {
    s.cacheTried = true;
    s.cacheError = s.cache.open(KernelCache::defaultDirectory(),
                                KernelCache::defaultMaxBytes());
  }
  if (!s.cacheError.empty()) {
    ctx.warn("kernel cache disabled (" + s.cacheError +
                 "); JIT kernels are compiled in every process",
             warnedCache);
    return nullptr;
  }
  return &s.cache;
}

/// Appends the key to $MXGEMM_LOG_UNTUNED (once per key and bucket per
/// process: the artefact is made once).
void logUntuned(JitState &s, const mxgemm_problem &p, int64_t bucket,
                const Artefact &a) {
  const char *path = std::getenv("MXGEMM_LOG_UNTUNED");
  if (!path || !*path)
    return;
  std::string line = "gfx950 " + problemKeyText(p) +
                     " m_bucket=" + std::to_string(bucket) + " config=\"" +
                     a.configText + "\" " +
                     (a.error.empty() ? "served" : "failed") + "\n";
  std::lock_guard<std::mutex> lock(s.logMutex);
  appendLogLine(path, line);
}

/// The alias key of the kernel this build's JIT library chooses for `p`
/// in `bucket`, or "" when another library may choose
/// ($MXGEMM_JIT_LIBRARY).
std::string autoConfigAlias(const mxgemm_problem &p, int64_t bucket) {
  if (const char *env = std::getenv("MXGEMM_JIT_LIBRARY"); env && *env)
    return "";
  return KernelCacheKey{
      getVersionLine(), getBuildLLVMVersion(), "gfx950",
      problemKeyText(p) + " m_bucket=" + std::to_string(bucket), "auto"}
      .hash();
}

/// The artefact from the cache through `alias`, without the JIT library.
bool produceFromAlias(Context &ctx, JitState &s, const std::string &alias,
                      Artefact &a) {
  KernelCache *cache = alias.empty() ? nullptr : openCache(ctx, s);
  std::string target, note;
  if (!cache || !cache->lookupAlias(alias, a.kernel, target, note))
    return false;
  // The config is the descriptor's; loadInto checks the rest.
  contract::KernelDescriptor d;
  if (contract::KernelDescriptor::parse(a.kernel.descriptor, d))
    return false;
  a.configText = contract::formatConfigBody(d.config);
  a.cacheKey = target;
  a.note = "JIT kernel from the cache, without the compiler (" +
           cache->directory() + ")";
  return true;
}

/// Produces the artefact (called once, with its mutex held).
void produce(Context &ctx, JitState &s, const mxgemm_problem &p, int64_t bucket,
             Artefact &a) {
  const std::string alias = autoConfigAlias(p, bucket);
  if (produceFromAlias(ctx, s, alias, a))
    return;
  std::string error;
  mxgemm_jit_entry_fn entry = loadLibrary(s, error);
  if (!entry) {
    a.error = error;
    return;
  }
  mxgemm_jit_request q{};
  q.struct_size = sizeof(q);
  q.abi_version = MXGEMM_JIT_ABI_VERSION;
  q.op = MXGEMM_JIT_OP_CONFIG;
  q.chip = "gfx950";
  q.n = p.n;
  q.k = p.k;
  q.m_hint = bucket;
  q.x_type = p.x_type;
  q.w_type = p.w_type;
  q.w_scale = p.w_scale;
  q.out_type = p.out_type;
  auto r = std::make_unique<mxgemm_jit_result>();
  std::memset(r.get(), 0, sizeof(*r));
  r->struct_size = sizeof(*r);
  if (!entry(&q, r.get()) || !r->ok) {
    a.error = r->error[0] ? r->error : "the JIT library refused the request";
    return;
  }
  a.configText = r->config;
  KernelCacheKey key{r->mxgemm_version, r->llvm_version, "gfx950",
                     problemKeyText(p), a.configText};
  a.cacheKey = key.hash();
  KernelCache *cache = openCache(ctx, s);
  // After either way of getting the kernel, the alias for the next process
  // (a failed store only costs that process the library load).
  auto storeAlias = [&] {
    if (cache && !alias.empty())
      cache->storeAlias(alias, a.cacheKey);
  };
  std::string note;
  if (cache && cache->lookup(a.cacheKey, a.kernel, note)) {
    a.note = "JIT kernel from the cache (" + cache->directory() + ")";
    storeAlias();
    return;
  }
  // A bad entry was deleted by lookup: compiled again below.
  std::string kernelName = "mxgemm_jit_" + a.cacheKey.substr(0, 16);
  q.op = MXGEMM_JIT_OP_COMPILE;
  q.kernel_name = kernelName.c_str();
  {
    std::lock_guard<std::mutex> lock(s.compileMutex);
    if (!entry(&q, r.get()) || !r->ok) {
      a.error = r->error[0] ? r->error : "the JIT compile failed";
      return;
    }
  }
  const auto *bytes = static_cast<const unsigned char *>(r->code_object);
  a.kernel.codeObject.assign(bytes, bytes + r->code_object_bytes);
  a.kernel.descriptor = r->descriptor_json;
  const double ms = r->compile_ms;
  q.op = MXGEMM_JIT_OP_RELEASE;
  entry(&q, r.get());
  if (std::string(r->config) != a.configText) {
    a.error = "the JIT compiled another config than it chose";
    return;
  }
  char compiled[64];
  std::snprintf(compiled, sizeof(compiled), "JIT kernel compiled in %.0f ms",
                ms);
  a.note = compiled;
  if (cache) {
    if (std::string e = cache->store(a.cacheKey, a.kernel); !e.empty())
      ctx.warn("cannot store a JIT kernel in the kernel cache (" + e + ")",
               warnedCache);
    else
      storeAlias();
  }
}

/// The checks of mxgemm_context_load_library on a JIT kernel, then its
/// module in `ctx`. Returns "" or why not.
std::string loadInto(Context &ctx, const mxgemm_problem &p, DispatchKey key,
                     int64_t bucket, const Artefact &a,
                     std::unique_ptr<LibraryKernel> &out) {
  auto k = std::make_unique<LibraryKernel>();
  k->code = a.kernel.codeObject;
  KernelEntry &e = k->entry;
  e.descriptorJson = a.kernel.descriptor;
  if (contract::ErrorMessage err =
          contract::KernelDescriptor::parse(e.descriptorJson, e.descriptor))
    return "JIT kernel descriptor: " + *err;
  const contract::KernelDescriptor &d = e.descriptor;
  contract::GemmProblem want;
  want.n = p.n;
  want.k = p.k;
  want.xType = contract::ElementType(p.x_type);
  want.wType = contract::ElementType(p.w_type);
  want.wScale = contract::ScaleGranularity(p.w_scale);
  want.outType = contract::ElementType(p.out_type);
  if (d.chip != target::kGFX950.chip || d.problem != want ||
      contract::formatConfigBody(d.config) != a.configText)
    return "the JIT kernel's descriptor does not describe the problem and "
           "config it was built for";
  if (contract::ErrorMessage err =
          contract::checkCodeObjectAgainst(d, k->code.data(), k->code.size()))
    return "JIT code object: " + *err;
  if (contract::ErrorMessage err = ArgumentPacking::build(d, e.packing))
    return "JIT kernel: " + *err;
  e.key = key;
  e.configText = a.configText;
  e.tuning.name = a.cacheKey;
  e.tuning.arch = "gfx950";
  e.tuning.problem = want;
  e.tuning.config = d.config;
  e.tuning.mMin = 1;
  e.tuning.mMax = contract::kMaxM;
  e.tuning.note = a.note;
  e.codeObject = k->code.data();
  e.codeObjectSize = k->code.size();
  k->jitBucket = bucket;
  const HipLibrary &hip = ctx.hip;
  hipError_t err = hip.hipModuleLoadData(&k->module, k->code.data());
  if (err != hipSuccess)
    return "hipModuleLoadData(" + d.kernel + "): " + hip.describe(err);
  err = hip.hipModuleGetFunction(&k->function, k->module,
                                 ctx.functionName(d.kernel).c_str());
  if (err != hipSuccess) {
    hip.hipModuleUnload(k->module);
    return "hipModuleGetFunction(" + d.kernel + "): " + hip.describe(err);
  }
  out = std::move(k);
  return "";
}

size_t slotOf(DispatchKey key, int64_t bucket) {
  uint64_t h = (key ^ (uint64_t(bucket) * 0x9E3779B97F4A7C15ull)) *
               0xBF58476D1CE4E5B9ull;
  return size_t(h >> 40) & (Context::kJitSlots - 1);
}

} // namespace

std::string mxgemm::runtime::problemKeyText(const mxgemm_problem &p) {
  auto type = [](int t) {
    return std::string(contract::elementTypeName(contract::ElementType(t)));
  };
  return "n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
         " x=" + type(p.x_type) + " w=" + type(p.w_type) + " w_scale=" +
         std::string(contract::scaleGranularityName(
             contract::ScaleGranularity(p.w_scale))) +
         " out=" + type(p.out_type);
}

void mxgemm::runtime::appendLogLine(const char *path, const std::string &line) {
  int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  // One write of one line: O_APPEND keeps lines whole across processes.
  ssize_t n = ::write(fd, line.data(), line.size());
  (void)n;
  ::close(fd);
}

int64_t runtime::jitBucket(int64_t m) {
  int64_t b = 1;
  while (b < m && b < (int64_t(1) << 30))
    b *= 2;
  return b < m ? contract::kMaxM : b;
}

const LibraryKernel *runtime::findJitKernel(const Context &ctx, DispatchKey key,
                                            int64_t bucket) {
  for (size_t i = 0, s = slotOf(key, bucket); i < Context::kJitSlots;
       ++i, s = (s + 1) & (Context::kJitSlots - 1)) {
    const LibraryKernel *k = ctx.jitTable[s].load(std::memory_order_acquire);
    if (!k)
      return nullptr;
    if (k->entry.key == key && k->jitBucket == bucket)
      return k;
  }
  return nullptr;
}

const LibraryKernel *runtime::obtainJitKernel(Context &ctx,
                                              const mxgemm_problem &p,
                                              DispatchKey key,
                                              std::string &error) {
  const int64_t bucket = jitBucket(p.m);
  if (const LibraryKernel *k = findJitKernel(ctx, key, bucket))
    return k;
  JitState &s = state();
  Artefact *a;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    std::unique_ptr<Artefact> &slot = s.artefacts[{key, bucket}];
    if (!slot)
      slot = std::make_unique<Artefact>();
    a = slot.get();
  }
  {
    // One producer per key; other keys' threads go on.
    std::lock_guard<std::mutex> lock(a->mutex);
    if (!a->done) {
      produce(ctx, s, p, bucket, *a);
      a->done = true;
      logUntuned(s, p, bucket, *a);
    }
  }
  if (!a->error.empty()) {
    error = a->error;
    ctx.warn("JIT failed for " + problemKeyText(p) + " (" + error +
                 "); such problems stay NOT_ELIGIBLE",
             warnedJit);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(ctx.jitMutex);
  if (const LibraryKernel *k = findJitKernel(ctx, key, bucket))
    return k; // another thread of this context loaded it meanwhile
  if (ctx.jitKernels.size() >= Context::kJitSlots / 2) {
    error = "too many JIT kernels in this context (" +
            std::to_string(Context::kJitSlots / 2) + ")";
    return nullptr;
  }
  std::unique_ptr<LibraryKernel> k;
  if (std::string e = loadInto(ctx, p, key, bucket, *a, k); !e.empty()) {
    error = e;
    ctx.warn("JIT kernel refused (" + e + ")", warnedJit);
    return nullptr;
  }
  size_t slot = slotOf(key, bucket);
  while (ctx.jitTable[slot].load(std::memory_order_relaxed))
    slot = (slot + 1) & (Context::kJitSlots - 1);
  ctx.jitKernels.reserve(ctx.jitKernels.size() + 1);
  const LibraryKernel *result = k.get();
  ctx.jitKernels.push_back(std::move(k));
  ctx.jitTable[slot].store(result, std::memory_order_release);
  return result;
}

extern "C" mxgemm_status mxgemm_context_set_jit(mxgemm_context *context,
                                                int enable) {
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  ctx->jitEnabled.store(enable != 0, std::memory_order_relaxed);
  return MXGEMM_STATUS_OK;
}
