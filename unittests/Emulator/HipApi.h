//===- HipApi.h - the HIP facade as a dlopen'ing client sees it -*- C++ -*-===//
//
// The facade's entry points resolved with dlopen/dlsym, as the runtime shim
// does. Shared by the facade's API test and its multithreaded stress test.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_UNITTESTS_EMULATOR_HIPAPI_H
#define MXGEMM_UNITTESTS_EMULATOR_HIPAPI_H

#include "TestUtil.h"
#include "mxgemm/Emulator/HipFacade.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace mxgemm::emu::test {

/// The facade under test: $MXGEMM_HIP_LIBRARY (another build of it), else
/// the one built with these tests.
inline const char *libraryPath() {
  const char *env = std::getenv("MXGEMM_HIP_LIBRARY");
  return env && *env ? env : MXGEMM_HIP_EMU_LIB;
}

#define MXGEMM_HIP_FUNCTIONS(X)                                                \
  X(hipInit)                                                                   \
  X(hipGetDeviceCount)                                                         \
  X(hipSetDevice)                                                              \
  X(hipGetDevice)                                                              \
  X(hipDeviceGetAttribute)                                                     \
  X(hipDeviceGetName)                                                          \
  X(hipGetDevicePropertiesR0600)                                               \
  X(hipMalloc)                                                                 \
  X(hipFree)                                                                   \
  X(hipMemcpy)                                                                 \
  X(hipMemcpyAsync)                                                            \
  X(hipMemset)                                                                 \
  X(hipMemsetAsync)                                                            \
  X(hipModuleLoadData)                                                         \
  X(hipModuleUnload)                                                           \
  X(hipModuleGetFunction)                                                      \
  X(hipModuleLaunchKernel)                                                     \
  X(hipStreamCreate)                                                           \
  X(hipStreamSynchronize)                                                      \
  X(hipStreamDestroy)                                                          \
  X(hipDeviceSynchronize)                                                      \
  X(hipGetLastError)                                                           \
  X(hipPeekAtLastError)                                                        \
  X(hipGetErrorString)                                                         \
  X(hipGetErrorName)                                                           \
  X(hipDriverGetVersion)                                                       \
  X(hipRuntimeGetVersion)

/// The facade's entry points, resolved with dlsym like a dlopen'ing client.
struct Hip {
  void *handle = nullptr;
#define MXGEMM_DECLARE(NAME) decltype(&::NAME) NAME = nullptr;
  MXGEMM_HIP_FUNCTIONS(MXGEMM_DECLARE)
#undef MXGEMM_DECLARE
  bool load() {
    handle = dlopen(libraryPath(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return false;
    bool all = true;
#define MXGEMM_RESOLVE(NAME)                                                   \
  NAME = reinterpret_cast<decltype(NAME)>(dlsym(handle, #NAME));               \
  all = all && NAME;
    MXGEMM_HIP_FUNCTIONS(MXGEMM_RESOLVE)
#undef MXGEMM_RESOLVE
    return all;
  }
};

inline Hip &hip() {
  static Hip *h = [] {
    auto *x = new Hip;
    if (!x->load())
      ADD_FAILURE() << "cannot load " << libraryPath() << ": " << dlerror();
    return x;
  }();
  return *h;
}

} // namespace mxgemm::emu::test

#endif // MXGEMM_UNITTESTS_EMULATOR_HIPAPI_H
