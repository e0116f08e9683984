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

/// The facade's entry points, resolved with dlsym like a dlopen'ing client.
struct Hip {
  void *handle = nullptr;
#define HIP_FN(NAME) decltype(&::NAME) NAME = nullptr;
  HIP_FN(hipInit)
  HIP_FN(hipGetDeviceCount)
  HIP_FN(hipSetDevice)
  HIP_FN(hipGetDevice)
  HIP_FN(hipDeviceGetAttribute)
  HIP_FN(hipDeviceGetName)
  HIP_FN(hipGetDevicePropertiesR0600)
  HIP_FN(hipMalloc)
  HIP_FN(hipFree)
  HIP_FN(hipMemcpy)
  HIP_FN(hipMemcpyAsync)
  HIP_FN(hipMemset)
  HIP_FN(hipMemsetAsync)
  HIP_FN(hipModuleLoadData)
  HIP_FN(hipModuleUnload)
  HIP_FN(hipModuleGetFunction)
  HIP_FN(hipModuleLaunchKernel)
  HIP_FN(hipStreamCreate)
  HIP_FN(hipStreamSynchronize)
  HIP_FN(hipStreamDestroy)
  HIP_FN(hipDeviceSynchronize)
  HIP_FN(hipGetLastError)
  HIP_FN(hipPeekAtLastError)
  HIP_FN(hipGetErrorString)
  HIP_FN(hipGetErrorName)
  HIP_FN(hipDriverGetVersion)
  HIP_FN(hipRuntimeGetVersion)
#undef HIP_FN
  bool load() {
    handle = dlopen(libraryPath(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return false;
#define HIP_FN(NAME)                                                           \
  NAME = reinterpret_cast<decltype(NAME)>(dlsym(handle, #NAME));               \
  if (!NAME)                                                                   \
    return false;
    HIP_FN(hipInit)
    HIP_FN(hipGetDeviceCount)
    HIP_FN(hipSetDevice)
    HIP_FN(hipGetDevice)
    HIP_FN(hipDeviceGetAttribute)
    HIP_FN(hipDeviceGetName)
    HIP_FN(hipGetDevicePropertiesR0600)
    HIP_FN(hipMalloc)
    HIP_FN(hipFree)
    HIP_FN(hipMemcpy)
    HIP_FN(hipMemcpyAsync)
    HIP_FN(hipMemset)
    HIP_FN(hipMemsetAsync)
    HIP_FN(hipModuleLoadData)
    HIP_FN(hipModuleUnload)
    HIP_FN(hipModuleGetFunction)
    HIP_FN(hipModuleLaunchKernel)
    HIP_FN(hipStreamCreate)
    HIP_FN(hipStreamSynchronize)
    HIP_FN(hipStreamDestroy)
    HIP_FN(hipDeviceSynchronize)
    HIP_FN(hipGetLastError)
    HIP_FN(hipPeekAtLastError)
    HIP_FN(hipGetErrorString)
    HIP_FN(hipGetErrorName)
    HIP_FN(hipDriverGetVersion)
    HIP_FN(hipRuntimeGetVersion)
#undef HIP_FN
    return true;
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
