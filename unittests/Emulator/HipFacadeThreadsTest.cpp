//===- HipFacadeThreadsTest.cpp - the HIP facade under many threads -------===//
//
// The runtime promises that any number of threads may share a context, so
// every facade call must be safe while any others run. One thread looping
// hipMalloc/hipFree while two others copied 4 KB buffers used to crash in
// most runs: the allocation map was rebalanced under hipMalloc's lock while
// hipMemcpy walked it under the facade's. These tests run allocation, free,
// copies, memsets, launches, module and stream calls from many threads at
// once, directly on the facade and through the runtime's C API, and check
// every byte that comes back. The same binary is the ThreadSanitizer run
// (scripts/sanitize.sh tsan, docs/Emulator.md).
//
//===----------------------------------------------------------------------===//

#include "HipApi.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <dlfcn.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using namespace mxgemm::emu::test;

namespace {

/// Iteration counts: enough to overlap every pair of calls many times in a
/// normal build, small enough for ThreadSanitizer's slowdown.
constexpr unsigned kCopyRounds = 5000;
constexpr unsigned kLaunchRounds = 12;
/// Allocations the allocating thread keeps alive.
constexpr unsigned kWindow = 64;

std::vector<uint8_t> pattern(size_t bytes, unsigned seed) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i)
    data[i] = uint8_t(seed * 131 + i * 7);
  return data;
}

// The reported crash, on the facade itself.
TEST(HipFacadeThreads, AllocFreeWhileCopying) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  std::atomic<bool> done{false};
  std::atomic<unsigned> allocations{0};
  // A window of live allocations keeps the allocation map deep, so that
  // inserts and erases rebalance it while the copiers look pointers up.
  std::thread allocator([&] {
    std::vector<void *> live(kWindow, nullptr);
    for (unsigned i = 0; !done; ++i) {
      void *&slot = live[i % kWindow];
      ASSERT_EQ(h.hipFree(slot), hipSuccess);
      ASSERT_EQ(h.hipMalloc(&slot, 256 + (i % 7) * 4096), hipSuccess);
      ++allocations;
    }
    for (void *p : live)
      EXPECT_EQ(h.hipFree(p), hipSuccess);
  });
  std::vector<std::thread> copiers;
  for (unsigned t = 0; t < 2; ++t)
    copiers.emplace_back([&, t] {
      const size_t bytes = 4096;
      void *d = nullptr;
      ASSERT_EQ(h.hipMalloc(&d, bytes), hipSuccess);
      std::vector<uint8_t> back(bytes);
      for (unsigned round = 0; round < kCopyRounds; ++round) {
        std::vector<uint8_t> data = pattern(bytes, t * 100000 + round);
        ASSERT_EQ(h.hipMemcpy(d, data.data(), bytes, hipMemcpyHostToDevice),
                  hipSuccess);
        ASSERT_EQ(h.hipMemcpy(back.data(), d, bytes, hipMemcpyDeviceToHost),
                  hipSuccess);
        ASSERT_EQ(back, data) << "thread " << t << " round " << round;
        ASSERT_EQ(h.hipMemset(d, 0xab, bytes), hipSuccess);
        ASSERT_EQ(h.hipMemcpy(back.data(), d, bytes, hipMemcpyDefault),
                  hipSuccess);
        ASSERT_EQ(back, std::vector<uint8_t>(bytes, 0xab));
      }
      EXPECT_EQ(h.hipFree(d), hipSuccess);
    });
  for (std::thread &c : copiers)
    c.join();
  done = true;
  allocator.join();
  EXPECT_GT(allocations.load(), 0u);
}

// Every kind of call at once: launches with both argument paths, copies,
// memsets on streams, allocation and free, module load/unload, streams.
TEST(HipFacadeThreads, EverythingAtOnce) {
  Hip &h = hip();
  ASSERT_TRUE(h.handle);
  const std::vector<uint8_t> &object = addObject();
  ASSERT_FALSE(object.empty());
  hipModule_t shared = nullptr;
  hipFunction_t add = nullptr;
  ASSERT_EQ(h.hipModuleLoadData(&shared, object.data()), hipSuccess);
  ASSERT_EQ(h.hipModuleGetFunction(&add, shared, "add"), hipSuccess);

  std::atomic<bool> done{false};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < 4; ++t)
    workers.emplace_back([&, t] {
      const unsigned n = 4 * 64;
      hipStream_t stream = nullptr;
      ASSERT_EQ(h.hipStreamCreate(&stream), hipSuccess);
      for (unsigned round = 0; round < kLaunchRounds; ++round) {
        void *in = nullptr, *out = nullptr;
        ASSERT_EQ(h.hipMalloc(&in, n * 4), hipSuccess);
        ASSERT_EQ(h.hipMalloc(&out, n * 4), hipSuccess);
        std::vector<int32_t> data(n), back(n);
        for (unsigned i = 0; i < n; ++i)
          data[i] = int32_t(t * 1000000 + round * 1000 + i);
        ASSERT_EQ(h.hipMemcpyAsync(in, data.data(), n * 4,
                                   hipMemcpyHostToDevice, stream),
                  hipSuccess);
        ASSERT_EQ(h.hipMemsetAsync(out, 0, n * 4, stream), hipSuccess);
        int32_t value = int32_t(round + 1);
        if (round % 2) {
          void *params[] = {&in, &out, &value};
          ASSERT_EQ(h.hipModuleLaunchKernel(add, 4, 1, 1, 64, 1, 1, 0, stream,
                                            params, nullptr),
                    hipSuccess);
        } else {
          struct {
            void *in, *out;
            int32_t value, pad;
          } args = {in, out, value, 0};
          size_t size = sizeof(args);
          void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args,
                           HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                           HIP_LAUNCH_PARAM_END};
          ASSERT_EQ(h.hipModuleLaunchKernel(add, 4, 1, 1, 64, 1, 1, 0, stream,
                                            nullptr, extra),
                    hipSuccess);
        }
        ASSERT_EQ(h.hipStreamSynchronize(stream), hipSuccess);
        ASSERT_EQ(h.hipMemcpy(back.data(), out, n * 4, hipMemcpyDeviceToHost),
                  hipSuccess);
        for (unsigned i = 0; i < n; ++i)
          ASSERT_EQ(back[i], data[i] + value) << "thread " << t << " " << i;
        ASSERT_EQ(h.hipFree(in), hipSuccess);
        ASSERT_EQ(h.hipFree(out), hipSuccess);
      }
      EXPECT_EQ(h.hipStreamDestroy(stream), hipSuccess);
    });
  // Handles come and go while the workers launch.
  std::thread churn([&] {
    while (!done) {
      hipModule_t m = nullptr;
      hipFunction_t f = nullptr;
      ASSERT_EQ(h.hipModuleLoadData(&m, object.data()), hipSuccess);
      ASSERT_EQ(h.hipModuleGetFunction(&f, m, "oob"), hipSuccess);
      hipStream_t s = nullptr;
      ASSERT_EQ(h.hipStreamCreate(&s), hipSuccess);
      int cus = 0;
      EXPECT_EQ(h.hipDeviceGetAttribute(
                    &cus, hipDeviceAttributeMultiprocessorCount, 0),
                hipSuccess);
      EXPECT_EQ(h.hipStreamDestroy(s), hipSuccess);
      EXPECT_EQ(h.hipModuleUnload(m), hipSuccess);
      // Errors are per thread: the workers' last error stays theirs.
      EXPECT_EQ(h.hipModuleUnload(m), hipErrorInvalidHandle);
      EXPECT_EQ(h.hipGetLastError(), hipErrorInvalidHandle);
    }
  });
  for (std::thread &w : workers)
    w.join();
  done = true;
  churn.join();
  EXPECT_EQ(h.hipGetLastError(), hipSuccess);
  EXPECT_EQ(h.hipModuleUnload(shared), hipSuccess);
}

/// The runtime's C API, dlopened like the facade: $MXGEMM_RUNTIME_LIBRARY,
/// else the one built with the tests. The ThreadSanitizer run instruments
/// the facade and the emulator and takes the runtime from the normal build
/// (it embeds kernels compiled by mxgemm-compile, which a sanitizer build
/// directory would otherwise have to build too).
struct Runtime {
  void *handle = nullptr;
#define RT_FN(NAME) decltype(&::NAME) NAME = nullptr;
  RT_FN(mxgemm_context_options_init)
  RT_FN(mxgemm_context_create)
  RT_FN(mxgemm_context_destroy)
  RT_FN(mxgemm_last_error)
  RT_FN(mxgemm_device_alloc)
  RT_FN(mxgemm_device_free)
  RT_FN(mxgemm_copy_to_device)
  RT_FN(mxgemm_copy_to_host)
  RT_FN(mxgemm_device_memset)
#undef RT_FN
  bool load() {
    const char *env = std::getenv("MXGEMM_RUNTIME_LIBRARY");
    handle =
        dlopen(env && *env ? env : MXGEMM_RUNTIME_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return false;
#define RT_FN(NAME)                                                            \
  NAME = reinterpret_cast<decltype(NAME)>(dlsym(handle, #NAME));               \
  if (!NAME)                                                                   \
    return false;
    RT_FN(mxgemm_context_options_init)
    RT_FN(mxgemm_context_create)
    RT_FN(mxgemm_context_destroy)
    RT_FN(mxgemm_last_error)
    RT_FN(mxgemm_device_alloc)
    RT_FN(mxgemm_device_free)
    RT_FN(mxgemm_copy_to_device)
    RT_FN(mxgemm_copy_to_host)
    RT_FN(mxgemm_device_memset)
#undef RT_FN
    return true;
  }
};

// The reported crash as the runtime's users meet it: one context, one
// thread allocating and freeing, two copying 4 KB buffers and setting them.
TEST(HipFacadeThreads, RuntimeContextSharedByThreads) {
  Runtime rt;
  ASSERT_TRUE(rt.load()) << dlerror();
  auto mxgemm_last_error = rt.mxgemm_last_error;
  auto mxgemm_device_alloc = rt.mxgemm_device_alloc;
  auto mxgemm_device_free = rt.mxgemm_device_free;
  auto mxgemm_copy_to_device = rt.mxgemm_copy_to_device;
  auto mxgemm_copy_to_host = rt.mxgemm_copy_to_host;
  auto mxgemm_device_memset = rt.mxgemm_device_memset;
  mxgemm_context_options options;
  rt.mxgemm_context_options_init(&options);
  options.hip_library = libraryPath();
  mxgemm_context *ctx = nullptr;
  ASSERT_EQ(rt.mxgemm_context_create(&options, &ctx), MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  std::atomic<bool> done{false};
  std::atomic<unsigned> allocations{0};
  std::thread allocator([&] {
    std::vector<void *> live(kWindow, nullptr);
    for (unsigned i = 0; !done; ++i) {
      void *&slot = live[i % kWindow];
      ASSERT_EQ(mxgemm_device_free(ctx, slot), MXGEMM_STATUS_OK);
      ASSERT_EQ(mxgemm_device_alloc(ctx, 4096 + (i % 5) * 256, &slot),
                MXGEMM_STATUS_OK)
          << mxgemm_last_error();
      ++allocations;
    }
    for (void *p : live)
      EXPECT_EQ(mxgemm_device_free(ctx, p), MXGEMM_STATUS_OK);
  });
  std::vector<std::thread> copiers;
  for (unsigned t = 0; t < 2; ++t)
    copiers.emplace_back([&, t] {
      const size_t bytes = 4096;
      void *d = nullptr;
      ASSERT_EQ(mxgemm_device_alloc(ctx, bytes, &d), MXGEMM_STATUS_OK);
      std::vector<uint8_t> back(bytes);
      for (unsigned round = 0; round < kCopyRounds; ++round) {
        std::vector<uint8_t> data = pattern(bytes, t * 7777 + round);
        ASSERT_EQ(mxgemm_copy_to_device(ctx, d, data.data(), bytes),
                  MXGEMM_STATUS_OK);
        ASSERT_EQ(mxgemm_copy_to_host(ctx, back.data(), d, bytes),
                  MXGEMM_STATUS_OK);
        ASSERT_EQ(back, data) << "thread " << t << " round " << round;
        ASSERT_EQ(mxgemm_device_memset(ctx, d, 0x5c, bytes), MXGEMM_STATUS_OK);
        ASSERT_EQ(mxgemm_copy_to_host(ctx, back.data(), d, bytes),
                  MXGEMM_STATUS_OK);
        ASSERT_EQ(back, std::vector<uint8_t>(bytes, 0x5c));
      }
      EXPECT_EQ(mxgemm_device_free(ctx, d), MXGEMM_STATUS_OK);
    });
  for (std::thread &c : copiers)
    c.join();
  done = true;
  allocator.join();
  EXPECT_GT(allocations.load(), 0u);
  EXPECT_EQ(rt.mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
}

} // namespace
