//===- HipLibrary.h - the HIP C API, loaded with dlopen ---------*- C++ -*-===//
//
// The runtime never links libamdhip64 (docs/Design.md section 5): it resolves
// the few HIP entry points it needs from a library opened at first use, so that
// libmxgemm_runtime.so builds and loads without ROCm and the same binary runs
// on an MI355X or on the emulator's HIP facade. The types and constants below
// are the ABI of hip_runtime_api.h (ROCm 6.x) for exactly those entry points.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_HIPLIBRARY_H
#define MXGEMM_LIB_RUNTIME_HIPLIBRARY_H

#include <cstddef>
#include <string>

namespace mxgemm::runtime {

using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;
using hipDevice_t = int;
constexpr hipError_t hipSuccess = 0;

// hipDeviceAttribute_t values (hip_runtime_api.h, ROCm 6).
constexpr int hipDeviceAttributeComputeCapabilityMajor = 23;
constexpr int hipDeviceAttributeComputeCapabilityMinor = 61;

// hipMemcpyKind.
constexpr int hipMemcpyHostToDevice = 1;
constexpr int hipMemcpyDeviceToHost = 2;

// hipModuleLaunchKernel `extra` markers (packed kernel-argument buffer).
inline void *const hipLaunchParamBufferPointer = reinterpret_cast<void *>(1);
inline void *const hipLaunchParamBufferSize = reinterpret_cast<void *>(2);
inline void *const hipLaunchParamEnd = reinterpret_cast<void *>(3);

/// The resolved entry points. Immutable after a successful load().
struct HipLibrary {
  void *handle = nullptr;
  hipError_t (*hipInit)(unsigned) = nullptr;
  hipError_t (*hipGetDeviceCount)(int *) = nullptr;
  hipError_t (*hipGetDevice)(int *) = nullptr;
  hipError_t (*hipDeviceGetAttribute)(int *, int, int) = nullptr;
  hipError_t (*hipDeviceGetName)(char *, int, hipDevice_t) = nullptr;
  hipError_t (*hipMalloc)(void **, size_t) = nullptr;
  hipError_t (*hipFree)(void *) = nullptr;
  hipError_t (*hipMemcpy)(void *, const void *, size_t, int) = nullptr;
  hipError_t (*hipMemset)(void *, int, size_t) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **,
                                      void **) = nullptr;
  hipError_t (*hipStreamSynchronize)(hipStream_t) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  const char *(*hipGetErrorString)(hipError_t) = nullptr;
  /// Stream-ordered allocation (HIP 5.2+), for split-K workspaces; null
  /// when the library lacks them (split-K kernels are then not eligible).
  hipError_t (*hipMallocAsync)(void **, size_t, hipStream_t) = nullptr;
  hipError_t (*hipFreeAsync)(void *, hipStream_t) = nullptr;

  /// dlopens `path` and resolves every entry point; on failure returns false
  /// with the reason in `error` (and leaves nothing open).
  bool load(const char *path, std::string &error);

  /// "hipErrorX (code)" text for a failed call.
  std::string describe(hipError_t error) const;
};

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_HIPLIBRARY_H
