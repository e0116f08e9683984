//===- FacadeTestUtil.h - runtime tests on the emulator's HIP facade ------===//
//
// Shared by the runtime tests that run libmxgemm_runtime.so (or a library
// built from a test tuning database) on libmxgemm_hip_emu.so: a context on
// the facade, device buffers, random MX operands, and a launch checked bit
// for bit against the CPU reference on the workgroups that ran.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_UNITTESTS_RUNTIME_FACADETESTUTIL_H
#define MXGEMM_UNITTESTS_RUNTIME_FACADETESTUTIL_H

#include "mxgemm/Numerics/Quantize.h"
#include "mxgemm/Numerics/Reference.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace mxgemm::testing {

namespace nx = mxgemm::numerics;

inline std::string facadePath() {
  const char *env = std::getenv("MXGEMM_HIP_LIBRARY");
  return env && *env ? env : MXGEMM_HIP_FACADE_PATH;
}

#define REQUIRE_FACADE()                                                       \
  do {                                                                         \
    if (::access(facadePath().c_str(), R_OK) != 0)                             \
      GTEST_SKIP() << "HIP facade not built: " << facadePath();                \
  } while (0)

struct Context {
  mxgemm_context *ctx = nullptr;
  explicit Context(int strict = 0, int dryRun = 0) {
    mxgemm_context_options o;
    mxgemm_context_options_init(&o);
    std::string path = facadePath();
    o.hip_library = path.c_str();
    o.strict = strict;
    o.dry_run = dryRun;
    EXPECT_EQ(mxgemm_context_create(&o, &ctx), MXGEMM_STATUS_OK);
  }
  ~Context() { mxgemm_context_destroy(ctx); }
};

struct DeviceBuffer {
  mxgemm_context *ctx;
  void *ptr = nullptr;
  size_t bytes;
  DeviceBuffer(mxgemm_context *c, size_t n) : ctx(c), bytes(n) {
    EXPECT_EQ(mxgemm_device_alloc(ctx, bytes, &ptr), MXGEMM_STATUS_OK)
        << mxgemm_last_error();
  }
  DeviceBuffer(mxgemm_context *c, const std::vector<uint8_t> &host)
      : DeviceBuffer(c, host.size()) {
    EXPECT_EQ(mxgemm_copy_to_device(ctx, ptr, host.data(), bytes),
              MXGEMM_STATUS_OK);
  }
  ~DeviceBuffer() { mxgemm_device_free(ctx, ptr); }
};

/// Random operands of one problem on the device, and the means to check a
/// launch against the reference.
struct Problem {
  mxgemm_problem p;
  nx::MXMatrix x, w;
  Problem(int64_t m, int64_t n, int64_t k, uint64_t seed) {
    mxgemm_problem_init(&p, m, n, k);
    x = nx::randomMXMatrix(seed, m, k, nx::FP8Format::E4M3);
    w = nx::randomMXMatrix(seed + 1, n, k, nx::FP8Format::E4M3,
                           nx::ScaleGranularity::Block32x32);
  }
  nx::MXGemmOperands operands() const {
    nx::MXGemmOperands o;
    o.m = p.m, o.n = p.n, o.k = p.k;
    o.x = x.data.data(), o.xScales = x.scales.data();
    o.w = w.data.data(), o.wScales = w.scales.data();
    o.wScaleGranularity = nx::ScaleGranularity::Block32x32;
    return o;
  }
};

/// Launches `prob` with only `workgroups` executed and checks Y: those tiles
/// bit-exact against the reference, every other element untouched. A kernel
/// that reads MFMA panels gets W packed once by mxgemm_pack_weights (into a
/// separate buffer; the row-major W must stay as it was).
inline void runAndCheck(mxgemm_context *ctx, const Problem &prob,
                        const std::vector<uint32_t> &workgroups) {
  std::string list;
  for (uint32_t wg : workgroups)
    list += (list.empty() ? "" : ",") + std::to_string(wg);
  ::setenv("MXGEMM_EMU_WORKGROUPS", list.c_str(), 1);
  mxgemm_problem p = prob.p; // w_layout may change below
  DeviceBuffer x(ctx, prob.x.data), xs(ctx, prob.x.scales), w(ctx, prob.w.data),
      ws(ctx, prob.w.scales);
  size_t yBytes = size_t(p.m * p.n * 2);
  DeviceBuffer y(ctx, yBytes);
  ASSERT_EQ(mxgemm_device_memset(ctx, y.ptr, 0xff, yBytes), MXGEMM_STATUS_OK);
  mxgemm_tensors t{x.ptr, xs.ptr, w.ptr, ws.ptr, y.ptr};
  mxgemm_plan plan;
  mxgemm_status s = mxgemm_query(ctx, &p, &plan);
  ASSERT_TRUE(s == MXGEMM_STATUS_OK ||
              plan.reason == MXGEMM_REASON_PACKED_WEIGHTS)
      << plan.message;
  std::unique_ptr<DeviceBuffer> packed;
  if (plan.w_layout == MXGEMM_WEIGHTS_MFMA_PANELS) {
    size_t bytes = 0;
    ASSERT_EQ(mxgemm_pack_weights(ctx, &p, nullptr, nullptr, &bytes, nullptr),
              MXGEMM_STATUS_OK)
        << mxgemm_last_error();
    ASSERT_EQ(bytes, prob.w.data.size());
    packed = std::make_unique<DeviceBuffer>(ctx, bytes);
    ASSERT_EQ(mxgemm_pack_weights(ctx, &p, w.ptr, packed->ptr, &bytes, nullptr),
              MXGEMM_STATUS_OK)
        << mxgemm_last_error();
    std::vector<uint8_t> rowMajor(bytes);
    ASSERT_EQ(mxgemm_copy_to_host(ctx, rowMajor.data(), w.ptr, bytes),
              MXGEMM_STATUS_OK);
    EXPECT_EQ(rowMajor, prob.w.data) << "packing changed the row-major W";
    p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
    t.w = packed->ptr;
  }
  ASSERT_EQ(mxgemm_gemm(ctx, &p, &t, nullptr, &plan), MXGEMM_STATUS_OK)
      << plan.message;
  ASSERT_EQ(mxgemm_synchronize(ctx, nullptr), MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  ::unsetenv("MXGEMM_EMU_WORKGROUPS");
  std::vector<uint16_t> got(size_t(p.m * p.n)), want(got.size(), 0xffff);
  ASSERT_EQ(mxgemm_copy_to_host(ctx, got.data(), y.ptr, yBytes),
            MXGEMM_STATUS_OK);
  std::vector<nx::OutputRegion> tiles;
  for (uint32_t wg : workgroups) {
    int64_t row, col;
    ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, wg, &row, &col),
              MXGEMM_STATUS_OK);
    tiles.push_back({row, std::min<int64_t>(row + plan.program_tile_m, p.m),
                     col, col + plan.tile_n});
  }
  nx::ReferenceOptions ro;
  ro.kStep = int(plan.k_step);
  nx::referenceGemmTiles(prob.operands(), tiles, nx::OutputType::BF16,
                         want.data(), ro);
  size_t mismatches = 0, computed = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    computed += want[i] != 0xffff;
    if (got[i] != want[i] && mismatches++ < 5)
      ADD_FAILURE() << "Y[" << i / p.n << "][" << i % p.n << "] = 0x"
                    << std::hex << got[i] << ", want 0x" << want[i];
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(computed, 0u);
}

} // namespace mxgemm::testing

#endif // MXGEMM_UNITTESTS_RUNTIME_FACADETESTUTIL_H
