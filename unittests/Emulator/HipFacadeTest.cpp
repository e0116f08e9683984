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

#include "HipApi.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

using namespace mxgemm::emu::test;

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

//===----------------------------------------------------------------------===//
// Corrupted images
//===----------------------------------------------------------------------===//

/// hipModuleLoadData's status for `image`, unloading what loaded.
hipError_t loadStatus(const void *image) {
  Hip &h = hip();
  hipModule_t m = nullptr;
  hipError_t e = h.hipModuleLoadData(&m, image);
  if (e == hipSuccess) {
    EXPECT_EQ(h.hipModuleUnload(m), hipSuccess);
  }
  h.hipGetLastError();
  return e;
}

bool isLoadError(hipError_t e) {
  return e == hipErrorInvalidImage || e == hipErrorNoBinaryForGpu ||
         e == hipErrorNotSupported;
}

/// File offset and size of the note section (the only SHT_NOTE).
std::pair<size_t, size_t> noteSection(const std::vector<uint8_t> &bytes) {
  uint64_t shoff;
  uint16_t shnum;
  std::memcpy(&shoff, bytes.data() + 0x28, 8);
  std::memcpy(&shnum, bytes.data() + 0x3c, 2);
  for (unsigned i = 0; i < shnum; ++i) {
    const uint8_t *sh = bytes.data() + shoff + 64 * i;
    uint32_t type;
    uint64_t offset, size;
    std::memcpy(&type, sh + 4, 4);
    std::memcpy(&offset, sh + 0x18, 8);
    std::memcpy(&size, sh + 0x20, 8);
    if (type == 7 /*SHT_NOTE*/)
      return {offset, size};
  }
  ADD_FAILURE() << "no note section";
  return {0, 0};
}

// Regression: one flipped byte of the msgpack metadata note died in
// llvm_unreachable (SIGILL) inside hipModuleLoadData.
TEST(HipFacade, CorruptMetadataNotesAreInvalidImages) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  const std::vector<uint8_t> &good = addObject();
  ASSERT_FALSE(good.empty());
  auto [offset, size] = noteSection(good);
  ASSERT_GT(size, 100u);
  unsigned rejected = 0;
  for (size_t at = offset; at < offset + size; ++at)
    for (uint8_t mask : {0x01, 0xff}) {
      std::vector<uint8_t> bad = good;
      bad[at] ^= mask;
      hipError_t e = loadStatus(bad.data());
      EXPECT_TRUE(e == hipSuccess || isLoadError(e)) << e;
      rejected += e != hipSuccess;
    }
  EXPECT_GT(rejected, 0u);
}

// Regression: a corrupted e_shoff or e_shnum made hipModuleLoadData walk
// section headers outside the image (SIGSEGV). The image has no size, so
// its header's claims are the size: the test's buffer holds what the
// corrupted header claims (up to the facade's limit, zero-filled), which is
// all the facade may read, and a claim beyond the limit must be refused
// without reading it.
TEST(HipFacade, CorruptElfHeadersAreInvalidImages) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  const std::vector<uint8_t> &good = addObject();
  ASSERT_FALSE(good.empty());
  auto claimed = [](const std::vector<uint8_t> &image) -> uint64_t {
    uint64_t shoff;
    uint16_t shnum, shentsize;
    std::memcpy(&shoff, image.data() + 0x28, 8);
    std::memcpy(&shentsize, image.data() + 0x3a, 2);
    std::memcpy(&shnum, image.data() + 0x3c, 2);
    unsigned __int128 end = (unsigned __int128)shoff + shentsize * shnum;
    return end > mxgemmHipMaxImageBytes ? 0 : uint64_t(end);
  };
  for (size_t at = 0; at < 64; ++at)
    for (uint8_t mask : {0x01, 0x08, 0x80, 0xff}) {
      std::vector<uint8_t> bad = good;
      bad[at] ^= mask;
      bad.resize(std::max<uint64_t>(bad.size(), claimed(bad)), 0);
      hipError_t e = loadStatus(bad.data());
      EXPECT_TRUE(e == hipSuccess || isLoadError(e))
          << "byte " << at << " ^ " << int(mask) << ": " << e;
    }
  // The original crashes: e_shoff's top byte, e_shnum = 0xffff with the
  // table beyond the buffer... refused from the header alone.
  std::vector<uint8_t> bad = good;
  bad[0x2f] ^= 0x80; // e_shoff += 2^63
  EXPECT_EQ(loadStatus(bad.data()), hipErrorInvalidImage);
  bad = good;
  bad[0x2b] = 0x7f; // e_shoff about 2 GiB: over the limit
  EXPECT_EQ(loadStatus(bad.data()), hipErrorInvalidImage);
  bad = good;
  uint16_t entsize = 0x4000;
  std::memcpy(bad.data() + 0x3a, &entsize, 2);
  EXPECT_EQ(loadStatus(bad.data()), hipErrorInvalidImage);
  bad = good;
  bad[0x3c] = bad[0x3d] = 0xff; // e_shnum = 65535: reserved
  EXPECT_EQ(loadStatus(bad.data()), hipErrorInvalidImage);
}

//===----------------------------------------------------------------------===//
// Launch validation
//===----------------------------------------------------------------------===//

/// A module with `add`, `add256` and `oob`, and device buffers of n ints.
struct AddFixture {
  Hip &h = hip();
  hipModule_t m = nullptr;
  hipFunction_t add = nullptr, add256 = nullptr, oob = nullptr;
  static constexpr unsigned n = 1024;
  void *in = nullptr, *out = nullptr;
  AddFixture() {
    EXPECT_EQ(h.hipModuleLoadData(&m, addObject().data()), hipSuccess);
    EXPECT_EQ(h.hipModuleGetFunction(&add, m, "add"), hipSuccess);
    EXPECT_EQ(h.hipModuleGetFunction(&add256, m, "add256"), hipSuccess);
    EXPECT_EQ(h.hipModuleGetFunction(&oob, m, "oob"), hipSuccess);
    EXPECT_EQ(h.hipMalloc(&in, n * 4), hipSuccess);
    EXPECT_EQ(h.hipMalloc(&out, n * 4), hipSuccess);
    std::vector<int32_t> data(n);
    for (unsigned i = 0; i < n; ++i)
      data[i] = int32_t(i);
    EXPECT_EQ(h.hipMemcpy(in, data.data(), n * 4, hipMemcpyHostToDevice),
              hipSuccess);
    clearOut();
  }
  ~AddFixture() {
    h.hipFree(in);
    h.hipFree(out);
    h.hipModuleUnload(m);
    h.hipGetLastError();
  }
  void clearOut() { EXPECT_EQ(h.hipMemset(out, 0, n * 4), hipSuccess); }
  /// How many elements of `out` hold in + value.
  unsigned written(int32_t value) {
    std::vector<int32_t> data(n);
    EXPECT_EQ(h.hipMemcpy(data.data(), out, n * 4, hipMemcpyDeviceToHost),
              hipSuccess);
    unsigned count = 0;
    for (unsigned i = 0; i < n; ++i)
      count += data[i] == int32_t(i) + value;
    return count;
  }
  hipError_t launch(hipFunction_t f, unsigned grid, unsigned bx, unsigned by,
                    void *a, void *b, int32_t value) {
    void *params[] = {&a, &b, &value};
    return h.hipModuleLaunchKernel(f, grid, 1, 1, bx, by, 1, 0, nullptr, params,
                                   nullptr);
  }
};

// Regression: a 64- or 128-thread block for a kernel that needs 256 was
// accepted and left most of Y unwritten (512 and 1024 too).
TEST(HipFacade, BlockDimMustMatchTheKernel) {
  AddFixture f;
  ASSERT_TRUE(f.h.handle);
  for (unsigned block : {64u, 128u, 512u, 1024u}) {
    EXPECT_EQ(f.launch(f.add256, 4, block, 1, f.in, f.out, 5),
              hipErrorInvalidConfiguration)
        << block;
    EXPECT_EQ(f.h.hipGetLastError(), hipErrorInvalidConfiguration);
  }
  // The right count in the wrong shape.
  EXPECT_EQ(f.launch(f.add256, 4, 128, 2, f.in, f.out, 5),
            hipErrorInvalidConfiguration);
  EXPECT_EQ(f.written(5), 0u) << "a refused launch must not run";
  EXPECT_EQ(f.launch(f.add256, 4, 256, 1, f.in, f.out, 5), hipSuccess);
  EXPECT_EQ(f.written(5), f.n);
  // Without a required size, the metadata's .max_flat_workgroup_size (256)
  // still bounds the block, below the device's 1024.
  EXPECT_EQ(f.launch(f.add, 1, 512, 1, f.in, f.out, 5),
            hipErrorInvalidConfiguration);
  EXPECT_EQ(f.launch(f.add, 1, 1024, 1, f.in, f.out, 5),
            hipErrorInvalidConfiguration);
  EXPECT_EQ(f.launch(f.add, 1, 0, 1, f.in, f.out, 5),
            hipErrorInvalidConfiguration);
}

TEST(HipFacade, GridSizesAreChecked) {
  AddFixture f;
  ASSERT_TRUE(f.h.handle);
  void *params[] = {&f.out};
  // 2^24 workgroups of 256 work-items: 2^32 work-items in x, more than the
  // AQL packet's 32-bit grid size.
  EXPECT_EQ(f.h.hipModuleLaunchKernel(f.add256, 1u << 24, 1, 1, 256, 1, 1, 0,
                                      nullptr, params, nullptr),
            hipErrorInvalidConfiguration);
  // (2^32 - 1)^3 workgroups do not fit 64 bits.
  EXPECT_EQ(f.h.hipModuleLaunchKernel(f.oob, ~0u, ~0u, ~0u, 1, 1, 1, 0, nullptr,
                                      params, nullptr),
            hipErrorInvalidConfiguration);
  EXPECT_EQ(f.h.hipModuleLaunchKernel(f.oob, 1, 1, 1, 64, 1, 1, ~0u, nullptr,
                                      params, nullptr),
            hipErrorLaunchOutOfResources);
}

// Regression: a kernarg buffer larger than the kernel's segment was read
// past the segment's end and accepted.
TEST(HipFacade, KernargBufferMustFitTheSegment) {
  AddFixture f;
  ASSERT_TRUE(f.h.handle);
  struct {
    void *in, *out;
    int32_t value, pad;
    uint8_t extra[40];
  } buffer = {f.in, f.out, 9, 0, {}};
  auto launchWith = [&](size_t *size) {
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &buffer,
                     HIP_LAUNCH_PARAM_BUFFER_SIZE, size, HIP_LAUNCH_PARAM_END};
    return f.h.hipModuleLaunchKernel(f.add, 16, 1, 1, 64, 1, 1, 0, nullptr,
                                     nullptr, extra);
  };
  size_t size = 24; // .kernarg_segment_size
  EXPECT_EQ(launchWith(&size), hipSuccess);
  EXPECT_EQ(f.written(9), f.n);
  f.clearOut();
  for (size_t bad : {size_t(32), size_t(64), ~size_t(0)}) {
    size = bad;
    EXPECT_EQ(launchWith(&size), hipErrorInvalidValue) << bad;
  }
  size = 16; // stops inside `value`
  EXPECT_EQ(launchWith(&size), hipErrorInvalidValue);
  EXPECT_EQ(launchWith(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(f.written(9), 0u);
}

TEST(HipFacade, PointerArgumentsMustBeDeviceMemory) {
  AddFixture f;
  ASSERT_TRUE(f.h.handle);
  int32_t host[64] = {};
  void *freed = nullptr;
  ASSERT_EQ(f.h.hipMalloc(&freed, 256), hipSuccess);
  ASSERT_EQ(f.h.hipFree(freed), hipSuccess);
  void *pastEnd = static_cast<uint8_t *>(f.out) + f.n * 4;
  for (void *bad : {static_cast<void *>(host), freed, pastEnd,
                    reinterpret_cast<void *>(uintptr_t(0xdead0000))}) {
    EXPECT_EQ(f.launch(f.add, 1, 64, 1, f.in, bad, 1), hipErrorInvalidValue);
    EXPECT_EQ(f.launch(f.add, 1, 64, 1, bad, f.out, 1), hipErrorInvalidValue);
  }
  EXPECT_EQ(f.written(1), 0u);
  // A pointer into the middle of an allocation is a device pointer.
  void *middle = static_cast<uint8_t *>(f.out) + 512 * 4;
  void *inMiddle = static_cast<uint8_t *>(f.in) + 512 * 4;
  EXPECT_EQ(f.launch(f.add, 1, 64, 1, inMiddle, middle, 0), hipSuccess);
  // Null is "no buffer": legal to pass, and a use of it is a finding.
  EXPECT_EQ(f.launch(f.add, 1, 64, 1, nullptr, f.out, 1),
            hipErrorLaunchFailure);
}
