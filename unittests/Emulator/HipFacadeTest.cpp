//===- HipFacadeTest.cpp - libmxgemm_hip_emu.so through dlopen ------------===//
//
// Uses the HIP facade exactly as the runtime shim does: dlopen the shared
// library, look the entry points up by name, and drive a kernel (assembled
// with a metadata note, so kernelParams are laid out from `.args`) through
// hipModuleLoadData / hipModuleGetFunction / hipModuleLaunchKernel. Also
// checks the device properties, the enum values against ROCm's header, and
// the error code of every bad-argument path.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/HipFacade.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <thread>

namespace {

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
    handle = dlopen(MXGEMM_HIP_EMU_LIB, RTLD_NOW | RTLD_LOCAL);
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

Hip &hip() {
  static Hip *h = [] {
    auto *x = new Hip;
    if (!x->load())
      ADD_FAILURE() << "cannot load " << MXGEMM_HIP_EMU_LIB << ": "
                    << dlerror();
    return x;
  }();
  return *h;
}

/// out[gid] = in[gid] + value, gid = workgroup * 64 + lane; `oob` stores one
/// dword past `out` (a checker finding).
const char *const AddKernels = R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl add
.p2align 8
.type add,@function
add:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s8, s[0:1], 0x10
  s_lshl_b32 s9, s2, 6
  v_add_u32 v1, s9, v0
  v_lshlrev_b32 v1, 2, v1
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_u32 v2, s8, v2
  global_store_dword v1, v2, s[6:7]
  s_endpgm

.globl oob
.p2align 8
.type oob,@function
oob:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32 v1, 256
  v_mov_b32 v2, 0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel add
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 24
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel oob
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: add
    .symbol: add.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: value, .offset: 16, .size: 4, .value_kind: by_value }
  - .name: oob
    .symbol: oob.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
)";

const std::vector<uint8_t> &addObject() {
  static std::vector<uint8_t> bytes = mxgemm::emu::test::assemble(AddKernels);
  return bytes;
}

TEST(HipFacade, EnumValuesMatchRocm) {
  // hip_runtime_api.h (ROCm 6.x).
  EXPECT_EQ(hipErrorInvalidValue, 1);
  EXPECT_EQ(hipErrorInvalidImage, 200);
  EXPECT_EQ(hipErrorNotFound, 500);
  EXPECT_EQ(hipErrorInvalidHandle, 400);
  EXPECT_EQ(hipErrorLaunchFailure, 719);
  EXPECT_EQ(hipErrorNotSupported, 801);
  EXPECT_EQ(hipDeviceAttributeComputeCapabilityMajor, 23);
  EXPECT_EQ(hipDeviceAttributeMaxThreadsPerBlock, 56);
  EXPECT_EQ(hipDeviceAttributeComputeCapabilityMinor, 61);
  EXPECT_EQ(hipDeviceAttributeMultiprocessorCount, 63);
  EXPECT_EQ(hipDeviceAttributeMaxSharedMemoryPerBlock, 74);
  EXPECT_EQ(hipDeviceAttributeWarpSize, 87);
}

TEST(HipFacade, DeviceQueries) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  EXPECT_EQ(h.hipInit(0), hipSuccess);
  int count = 0, dev = -1, v = 0;
  EXPECT_EQ(h.hipGetDeviceCount(&count), hipSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(h.hipSetDevice(0), hipSuccess);
  EXPECT_EQ(h.hipSetDevice(1), hipErrorInvalidDevice);
  EXPECT_EQ(h.hipGetLastError(), hipErrorInvalidDevice);
  EXPECT_EQ(h.hipGetLastError(), hipSuccess);
  EXPECT_EQ(h.hipGetDevice(&dev), hipSuccess);
  EXPECT_EQ(dev, 0);
  struct {
    hipDeviceAttribute_t attr;
    int value;
  } attrs[] = {{hipDeviceAttributeComputeCapabilityMajor, 9},
               {hipDeviceAttributeComputeCapabilityMinor, 5},
               {hipDeviceAttributeMultiprocessorCount, 256},
               {hipDeviceAttributeWarpSize, 64},
               {hipDeviceAttributeMaxThreadsPerBlock, 1024},
               {hipDeviceAttributeMaxSharedMemoryPerBlock, 163840}};
  for (auto &a : attrs) {
    EXPECT_EQ(h.hipDeviceGetAttribute(&v, a.attr, 0), hipSuccess);
    EXPECT_EQ(v, a.value) << a.attr;
  }
  EXPECT_EQ(h.hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(h.hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 3),
            hipErrorInvalidDevice);
  EXPECT_EQ(h.hipDeviceGetAttribute(&v, hipDeviceAttribute_t(4), 0),
            hipErrorInvalidValue);
  char name[64];
  EXPECT_EQ(h.hipDeviceGetName(name, sizeof(name), 0), hipSuccess);
  EXPECT_STREQ(name, "AMD Instinct MI355X (mxgemm emulator)");
  EXPECT_EQ(h.hipDeviceGetName(nullptr, 4, 0), hipErrorInvalidValue);
  alignas(8) unsigned char prop[mxgemmHipPropSize + 16];
  std::memset(prop, 0xcd, sizeof(prop));
  EXPECT_EQ(h.hipGetDevicePropertiesR0600(
                reinterpret_cast<hipDeviceProp_tR0600 *>(prop), 0),
            hipSuccess);
  EXPECT_STREQ(reinterpret_cast<char *>(prop + mxgemmHipPropGcnArchName),
               "gfx950:sramecc+:xnack-");
  int major, warp;
  std::memcpy(&major, prop + mxgemmHipPropMajor, 4);
  std::memcpy(&warp, prop + mxgemmHipPropWarpSize, 4);
  EXPECT_EQ(major, 9);
  EXPECT_EQ(warp, 64);
  EXPECT_EQ(prop[mxgemmHipPropSize], 0xcd) << "wrote past the struct";
  int ver = 0;
  EXPECT_EQ(h.hipDriverGetVersion(&ver), hipSuccess);
  EXPECT_GT(ver, 0);
  EXPECT_EQ(h.hipRuntimeGetVersion(nullptr), hipErrorInvalidValue);
  EXPECT_STREQ(h.hipGetErrorName(hipErrorInvalidImage), "hipErrorInvalidImage");
  EXPECT_STREQ(h.hipGetErrorString(hipSuccess), "no error");
  h.hipGetLastError();
}

TEST(HipFacade, MemoryAndErrors) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  void *d = nullptr;
  EXPECT_EQ(h.hipMalloc(nullptr, 16), hipErrorInvalidValue);
  EXPECT_EQ(h.hipPeekAtLastError(), hipErrorInvalidValue);
  EXPECT_EQ(h.hipGetLastError(), hipErrorInvalidValue);
  ASSERT_EQ(h.hipMalloc(&d, 256), hipSuccess);
  ASSERT_NE(d, nullptr);
  uint8_t in[256], out[256];
  for (int i = 0; i < 256; ++i)
    in[i] = uint8_t(i);
  EXPECT_EQ(h.hipMemcpy(d, in, 256, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(h.hipMemset(static_cast<uint8_t *>(d) + 8, 0x5a, 8), hipSuccess);
  EXPECT_EQ(h.hipMemcpy(out, d, 256, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(out[7], 7);
  EXPECT_EQ(out[8], 0x5a);
  EXPECT_EQ(out[16], 16);
  // Past the allocation, a host pointer as device pointer, a bad direction.
  EXPECT_EQ(h.hipMemcpy(out, d, 257, hipMemcpyDeviceToHost),
            hipErrorInvalidValue);
  EXPECT_EQ(h.hipMemcpy(out, in, 16, hipMemcpyDeviceToHost),
            hipErrorInvalidValue);
  EXPECT_EQ(h.hipMemcpy(out, in, 16, hipMemcpyKind(7)),
            hipErrorInvalidMemcpyDirection);
  EXPECT_EQ(h.hipMemcpy(nullptr, in, 16, hipMemcpyHostToDevice),
            hipErrorInvalidValue);
  EXPECT_EQ(h.hipMemset(in, 0, 4), hipErrorInvalidValue);
  hipStream_t s = nullptr;
  ASSERT_EQ(h.hipStreamCreate(&s), hipSuccess);
  EXPECT_EQ(h.hipMemcpyAsync(out, d, 4, hipMemcpyDeviceToHost, s), hipSuccess);
  EXPECT_EQ(h.hipMemsetAsync(d, 0, 4, s), hipSuccess);
  EXPECT_EQ(h.hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(h.hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(h.hipStreamDestroy(s), hipErrorInvalidHandle);
  EXPECT_EQ(h.hipStreamSynchronize(s), hipErrorInvalidHandle);
  EXPECT_EQ(h.hipFree(d), hipSuccess);
  EXPECT_EQ(h.hipFree(d), hipErrorInvalidValue);
  EXPECT_EQ(h.hipFree(nullptr), hipSuccess);
  h.hipGetLastError();
}

TEST(HipFacade, ModuleErrors) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  hipModule_t m = nullptr;
  hipFunction_t f = nullptr;
  EXPECT_EQ(h.hipModuleLoadData(nullptr, addObject().data()),
            hipErrorInvalidValue);
  EXPECT_EQ(h.hipModuleLoadData(&m, nullptr), hipErrorInvalidValue);
  const char junk[128] = "this is not an ELF file";
  EXPECT_EQ(h.hipModuleLoadData(&m, junk), hipErrorInvalidImage);
  // A valid ELF for another machine (byte 0x12 is e_machine).
  std::vector<uint8_t> foreign = addObject();
  ASSERT_FALSE(foreign.empty());
  foreign[0x12] = 62; // EM_X86_64
  EXPECT_EQ(h.hipModuleLoadData(&m, foreign.data()), hipErrorInvalidImage);
  ASSERT_EQ(h.hipModuleLoadData(&m, addObject().data()), hipSuccess);
  EXPECT_EQ(h.hipModuleGetFunction(&f, m, "nope"), hipErrorNotFound);
  EXPECT_EQ(h.hipModuleGetFunction(&f, nullptr, "add"), hipErrorInvalidHandle);
  EXPECT_EQ(h.hipModuleGetFunction(nullptr, m, "add"), hipErrorInvalidValue);
  ASSERT_EQ(h.hipModuleGetFunction(&f, m, "add"), hipSuccess);
  void *args[3] = {nullptr, nullptr, nullptr};
  EXPECT_EQ(
      h.hipModuleLaunchKernel(f, 0, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr),
      hipErrorInvalidConfiguration);
  EXPECT_EQ(h.hipModuleLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, nullptr, args,
                                    nullptr),
            hipErrorInvalidConfiguration);
  EXPECT_EQ(
      h.hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr),
      hipErrorInvalidValue); // null argument pointers
  EXPECT_EQ(h.hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 200000, nullptr, args,
                                    nullptr),
            hipErrorLaunchOutOfResources);
  EXPECT_EQ(h.hipModuleLaunchKernel(nullptr, 1, 1, 1, 64, 1, 1, 0, nullptr,
                                    args, nullptr),
            hipErrorInvalidHandle);
  EXPECT_EQ(h.hipModuleUnload(m), hipSuccess);
  EXPECT_EQ(h.hipModuleUnload(m), hipErrorInvalidHandle);
  // The function died with its module.
  EXPECT_EQ(
      h.hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr),
      hipErrorInvalidHandle);
  h.hipGetLastError();
}

TEST(HipFacade, LaunchesThroughKernelParamsAndExtra) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  hipModule_t m = nullptr;
  hipFunction_t f = nullptr;
  ASSERT_EQ(h.hipModuleLoadData(&m, addObject().data()), hipSuccess);
  ASSERT_EQ(h.hipModuleGetFunction(&f, m, "add"), hipSuccess);
  const unsigned n = 4 * 64;
  std::vector<int32_t> in(n), out(n, 0);
  for (unsigned i = 0; i < n; ++i)
    in[i] = int32_t(i * 3);
  void *dIn = nullptr, *dOut = nullptr;
  ASSERT_EQ(h.hipMalloc(&dIn, n * 4), hipSuccess);
  ASSERT_EQ(h.hipMalloc(&dOut, n * 4), hipSuccess);
  ASSERT_EQ(h.hipMemcpy(dIn, in.data(), n * 4, hipMemcpyHostToDevice),
            hipSuccess);
  int32_t value = 1000;
  void *params[] = {&dIn, &dOut, &value};
  hipStream_t s = nullptr;
  ASSERT_EQ(h.hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(
      h.hipModuleLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, s, params, nullptr),
      hipSuccess);
  EXPECT_EQ(h.hipStreamSynchronize(s), hipSuccess);
  ASSERT_EQ(h.hipMemcpy(out.data(), dOut, n * 4, hipMemcpyDeviceToHost),
            hipSuccess);
  for (unsigned i = 0; i < n; ++i)
    ASSERT_EQ(out[i], int32_t(i * 3 + 1000)) << i;

  // The same launch through a packed argument buffer.
  struct {
    void *in, *out;
    int32_t value, pad;
  } buffer = {dIn, dOut, -7, 0};
  size_t size = sizeof(buffer);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &buffer,
                   HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  ASSERT_EQ(
      h.hipModuleLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra),
      hipSuccess);
  EXPECT_EQ(h.hipDeviceSynchronize(), hipSuccess);
  ASSERT_EQ(h.hipMemcpy(out.data(), dOut, n * 4, hipMemcpyDeviceToHost),
            hipSuccess);
  for (unsigned i = 0; i < n; ++i)
    ASSERT_EQ(out[i], int32_t(i * 3 - 7)) << i;
  EXPECT_EQ(
      h.hipModuleLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, nullptr, params, extra),
      hipErrorInvalidValue);

  // MXGEMM_EMU_WORKGROUPS runs only the listed workgroups.
  ASSERT_EQ(h.hipMemset(dOut, 0, n * 4), hipSuccess);
  setenv("MXGEMM_EMU_WORKGROUPS", "2", 1);
  ASSERT_EQ(h.hipModuleLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, nullptr, params,
                                    nullptr),
            hipSuccess);
  unsetenv("MXGEMM_EMU_WORKGROUPS");
  ASSERT_EQ(h.hipMemcpy(out.data(), dOut, n * 4, hipMemcpyDeviceToHost),
            hipSuccess);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[128], 128 * 3 + 1000);
  EXPECT_EQ(out[192], 0);

  // A checker finding fails the launch.
  hipFunction_t bad = nullptr;
  ASSERT_EQ(h.hipModuleGetFunction(&bad, m, "oob"), hipSuccess);
  void *badParams[] = {&dOut};
  void *small = nullptr;
  ASSERT_EQ(h.hipMalloc(&small, 256), hipSuccess);
  badParams[0] = &small;
  EXPECT_EQ(h.hipModuleLaunchKernel(bad, 1, 1, 1, 64, 1, 1, 0, nullptr,
                                    badParams, nullptr),
            hipErrorLaunchFailure);
  EXPECT_EQ(h.hipGetLastError(), hipErrorLaunchFailure);

  // Concurrent callers are serialised, not corrupted.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i)
        EXPECT_EQ(h.hipModuleLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, nullptr,
                                          params, nullptr),
                  hipSuccess);
    });
  for (auto &t : threads)
    t.join();

  EXPECT_EQ(h.hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(h.hipFree(dIn), hipSuccess);
  EXPECT_EQ(h.hipFree(dOut), hipSuccess);
  EXPECT_EQ(h.hipFree(small), hipSuccess);
  EXPECT_EQ(h.hipModuleUnload(m), hipSuccess);
}

} // namespace
