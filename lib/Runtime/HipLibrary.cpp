//===- HipLibrary.cpp - dlopen and symbol resolution of HIP -----*- C++ -*-===//
//
// Opens the HIP library by name (RTLD_NOW | RTLD_LOCAL, so that a partial
// HIP is rejected at load time instead of at the first launch) and resolves
// the entry points of HipLibrary. The handle is never closed: HIP runtimes
// keep process-wide state and do not support being unloaded.
//
//===----------------------------------------------------------------------===//

#include "HipLibrary.h"

#include <dlfcn.h>

namespace mxgemm::runtime {

template <typename Fn>
static bool resolve(void *handle, const char *name, Fn &fn,
                    std::string &error) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!fn)
    error = std::string("missing symbol ") + name;
  return fn != nullptr;
}

bool HipLibrary::load(const char *path, std::string &error) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    error = std::string("dlopen(\"") + path +
            "\") failed: " + (why ? why : "unknown error");
    return false;
  }
  bool ok = resolve(h, "hipInit", hipInit, error) &&
            resolve(h, "hipGetDeviceCount", hipGetDeviceCount, error) &&
            resolve(h, "hipGetDevice", hipGetDevice, error) &&
            resolve(h, "hipDeviceGetAttribute", hipDeviceGetAttribute, error) &&
            resolve(h, "hipDeviceGetName", hipDeviceGetName, error) &&
            resolve(h, "hipMalloc", hipMalloc, error) &&
            resolve(h, "hipFree", hipFree, error) &&
            resolve(h, "hipMemcpy", hipMemcpy, error) &&
            resolve(h, "hipMemset", hipMemset, error) &&
            resolve(h, "hipModuleLoadData", hipModuleLoadData, error) &&
            resolve(h, "hipModuleGetFunction", hipModuleGetFunction, error) &&
            resolve(h, "hipModuleUnload", hipModuleUnload, error) &&
            resolve(h, "hipModuleLaunchKernel", hipModuleLaunchKernel, error) &&
            resolve(h, "hipStreamSynchronize", hipStreamSynchronize, error) &&
            resolve(h, "hipDeviceSynchronize", hipDeviceSynchronize, error) &&
            resolve(h, "hipGetErrorString", hipGetErrorString, error);
  if (ok) {
    // Optional: only split-K kernels need them.
    hipMallocAsync =
        reinterpret_cast<decltype(hipMallocAsync)>(dlsym(h, "hipMallocAsync"));
    hipFreeAsync =
        reinterpret_cast<decltype(hipFreeAsync)>(dlsym(h, "hipFreeAsync"));
    if (!hipMallocAsync || !hipFreeAsync)
      hipMallocAsync = nullptr, hipFreeAsync = nullptr;
  }
  if (!ok) {
    error = std::string(path) + ": " + error;
    dlclose(h);
    *this = HipLibrary();
    return false;
  }
  handle = h;
  return true;
}

std::string HipLibrary::describe(hipError_t error) const {
  const char *text = hipGetErrorString ? hipGetErrorString(error) : nullptr;
  return std::string(text ? text : "HIP error") + " (" + std::to_string(error) +
         ")";
}

} // namespace mxgemm::runtime
