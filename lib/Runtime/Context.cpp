//===- Context.cpp - contexts, handle tables and the last error -----------===//
//
// A context owns the lazily loaded HIP library, one module per embedded
// kernel and the kernels loaded into it. HIP and the embedded modules are
// set up exactly once, on the first call that needs the device; after that
// the context is immutable except for its list of loaded kernels.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "KernelLibrary.h"

#include "mxgemm/Target/TargetModel.h"

#include <cstdio>

using namespace mxgemm::runtime;

namespace mxgemm::runtime {

// Constant-initialised, never destroyed in a way that matters (trivial
// destructors): handles stay checkable during static destruction.
ContextTable gContexts;
LoadedKernelTable gLoadedKernels;

namespace {
thread_local char tlsLastError[kMessageBytes];
std::atomic<bool> warnedOnce{false};
} // namespace

MessageBuilder &MessageBuilder::operator<<(int64_t v) {
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

void setLastError(const char *message) {
  MessageBuilder(tlsLastError, sizeof(tlsLastError)) << message;
}

const char *lastError() { return tlsLastError; }

const char *describeBadContext(HandleState state) {
  switch (state) {
  case HandleState::Null:
    return "context is NULL";
  case HandleState::Removed:
    return "context was destroyed by mxgemm_context_destroy: its handle is "
           "no longer valid";
  case HandleState::Foreign:
  case HandleState::Live:
    break;
  }
  return "context is not a live handle made by mxgemm_context_create";
}

LoadedKernel *resolveLoadedKernel(const Context &ctx,
                                  mxgemm_loaded_kernel *handle, char *message,
                                  size_t messageSize) {
  HandleState state;
  LoadedKernel *k =
      gLoadedKernels.find(reinterpret_cast<uintptr_t>(handle), state);
  const char *why = nullptr;
  if (!k)
    why = state == HandleState::Null ? "kernel is NULL"
          : state == HandleState::Removed
              ? "kernel was unloaded (by mxgemm_kernel_unload or with its "
                "context): its handle is no longer valid"
              : "kernel is not a live handle made by mxgemm_kernel_load";
  else if (k->owner != &ctx)
    why = "kernel was loaded into another context";
  if (!why)
    return k;
  MessageBuilder(message, messageSize) << why;
  setLastError(why);
  return nullptr;
}

void Context::warn(const std::string &message) { warn(message, warnedOnce); }

void Context::warn(const std::string &message, std::atomic<bool> &once) {
  if (once.exchange(true))
    return;
  std::string text = "mxgemm: warning: " + message;
  if (options.log)
    options.log(options.log_user_data, text.c_str());
  else
    std::fprintf(stderr, "%s\n", text.c_str());
}

void Context::initialize() {
  const KernelLibrary &library = KernelLibrary::embedded();
  modules.reset(new EmbeddedModule[library.entries.size()]);
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
    EmbeddedModule &k = modules[i];
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
                    &k.function, k.module,
                    functionName(entry.descriptor.kernel).c_str())) !=
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

void Context::unloadAll() {
  std::vector<uintptr_t> handles;
  {
    std::lock_guard<std::mutex> lock(loadedMutex);
    handles.swap(loaded);
  }
  for (uintptr_t h : handles) {
    HandleState state;
    std::unique_ptr<LoadedKernel> k(gLoadedKernels.remove(h, state));
    if (k && k->module)
      hip.hipModuleUnload(k->module);
  }
  for (const std::unique_ptr<LibraryKernel> &k : libraryKernels)
    if (k->module)
      hip.hipModuleUnload(k->module);
  for (const std::unique_ptr<LibraryKernel> &k : jitKernels)
    if (k->module)
      hip.hipModuleUnload(k->module);
  for (const EmbeddedModule &m : quantizeModules)
    if (m.module)
      hip.hipModuleUnload(m.module);
  for (const EmbeddedModule &m : packModules)
    if (m.module)
      hip.hipModuleUnload(m.module);
  if (hipReady && modules)
    for (size_t i = 0; i < KernelLibrary::embedded().entries.size(); ++i)
      if (modules[i].module)
        hip.hipModuleUnload(modules[i].module);
}

} // namespace mxgemm::runtime
