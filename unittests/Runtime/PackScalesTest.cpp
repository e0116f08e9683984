//===- PackScalesTest.cpp - scale layouts at the runtime's C API ----------===//
//
// mxgemm_scale_bytes and mxgemm_pack_scales (the MFMA-native layouts of
// contract/ScaleLayout.h, made on the emulator's HIP facade), and the
// problem's scale-layout rules: a bad value or a leading dimension with a
// native layout is an invalid argument, a layout other than the kernel's
// is NOT_ELIGIBLE (SCALE_LAYOUT) and the plan names the kernel's. Kernels
// that read native layouts run bit-exact through the runtime in
// test/Runtime/mxgemm-run-kernel.test.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"

#include "mxgemm/Contract/ScaleLayout.h"

#include <random>

using namespace mxgemm;
using namespace mxgemm::testing;

namespace {

TEST(ScaleLayouts, BytesByLayout) {
  // 33 rows of K = 1024 (32 blocks). Row-major: 33 x 32. 16x16x128 (R = 16,
  // 16 blocks per 256-byte chunk): 3 row groups x 2 chunks. 32x32x64 (R =
  // 32, 8 blocks per chunk): 2 row groups x 4 chunks.
  size_t bytes = 0;
  ASSERT_EQ(mxgemm_scale_bytes(MXGEMM_SCALES_ROW_MAJOR, 33, 1024, &bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(bytes, 1056u);
  ASSERT_EQ(mxgemm_scale_bytes(MXGEMM_SCALES_MFMA_16X16X128, 33, 1024, &bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(bytes, 1536u);
  ASSERT_EQ(mxgemm_scale_bytes(MXGEMM_SCALES_MFMA_32X32X64, 33, 1024, &bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(bytes, 2048u);
  // K = 96 (3 blocks): one partial chunk per row group.
  ASSERT_EQ(mxgemm_scale_bytes(MXGEMM_SCALES_MFMA_32X32X64, 1, 96, &bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(bytes, 256u);
}

TEST(ScaleLayouts, BadSizesAreInvalid) {
  size_t bytes = 7;
  const struct {
    int layout;
    int64_t rows, k;
    const char *why;
  } bad[] = {{3, 16, 128, "unknown scale layout value 3"},
             {-1, 16, 128, "unknown scale layout value -1"},
             {1, 0, 128, "rows and K must be positive"},
             {1, 16, 48, "K a multiple of 32"},
             {1, 16, -32, "rows and K must be positive"},
             {2, INT64_MAX, 1LL << 40, "overflows"}};
  for (const auto &b : bad) {
    EXPECT_EQ(
        mxgemm_scale_bytes(mxgemm_scale_layout(b.layout), b.rows, b.k, &bytes),
        MXGEMM_STATUS_INVALID_ARGUMENT)
        << b.why;
    EXPECT_NE(std::string(mxgemm_last_error()).find(b.why), std::string::npos)
        << mxgemm_last_error();
    EXPECT_EQ(bytes, 7u);
  }
  EXPECT_EQ(mxgemm_scale_bytes(MXGEMM_SCALES_ROW_MAJOR, 1, 32, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
}

std::vector<uint8_t> randomScales(size_t n) {
  std::mt19937_64 rng(42);
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = uint8_t(100 + rng() % 50); // never 127, the padding
  return v;
}

TEST(ScaleLayouts, PackOnTheDevice) {
  REQUIRE_FACADE();
  Context c;
  const int64_t rows = 33, k = 1024, blocks = k / 32;
  const std::vector<uint8_t> rowMajor = randomScales(size_t(rows * blocks));
  DeviceBuffer src(c.ctx, rowMajor);
  for (auto layout :
       {MXGEMM_SCALES_MFMA_16X16X128, MXGEMM_SCALES_MFMA_32X32X64}) {
    size_t bytes = 0;
    ASSERT_EQ(mxgemm_scale_bytes(layout, rows, k, &bytes), MXGEMM_STATUS_OK);
    DeviceBuffer dst(c.ctx, bytes);
    ASSERT_EQ(mxgemm_device_memset(c.ctx, dst.ptr, 0xaa, bytes),
              MXGEMM_STATUS_OK);
    ASSERT_EQ(
        mxgemm_pack_scales(c.ctx, layout, src.ptr, rows, k, dst.ptr, nullptr),
        MXGEMM_STATUS_OK)
        << mxgemm_last_error();
    std::vector<uint8_t> got(bytes), want(bytes);
    ASSERT_EQ(mxgemm_copy_to_host(c.ctx, got.data(), dst.ptr, bytes),
              MXGEMM_STATUS_OK);
    ASSERT_TRUE(contract::preshuffleScales(contract::ScaleLayout(layout),
                                           rowMajor.data(), rows, blocks,
                                           blocks, want.data(), want.size()));
    EXPECT_EQ(got, want);
    // Worked by hand from the layout's definition: row 17, block 5 of the
    // 16x16x128 layout is row group 1 (of 2 chunks), chunk 0, lane (5 % 4)
    // * 16 + 1, byte 5 / 4: 2 * 256 + 17 * 4 + 1.
    if (layout == MXGEMM_SCALES_MFMA_16X16X128) {
      EXPECT_EQ(got[581], rowMajor[17 * blocks + 5]);
      // Rows 33..47 pad the third row group with 1.0 (127).
      EXPECT_EQ(got[2 * 2 * 256 + (0 * 16 + 15) * 4], 127);
    }
  }
  // In place, into a buffer large enough for the packed layout.
  size_t bytes = 0;
  ASSERT_EQ(mxgemm_scale_bytes(MXGEMM_SCALES_MFMA_32X32X64, rows, k, &bytes),
            MXGEMM_STATUS_OK);
  DeviceBuffer both(c.ctx, bytes);
  ASSERT_EQ(
      mxgemm_copy_to_device(c.ctx, both.ptr, rowMajor.data(), rowMajor.size()),
      MXGEMM_STATUS_OK);
  ASSERT_EQ(mxgemm_pack_scales(c.ctx, MXGEMM_SCALES_MFMA_32X32X64, both.ptr,
                               rows, k, both.ptr, nullptr),
            MXGEMM_STATUS_OK);
  std::vector<uint8_t> got(bytes), want(bytes);
  ASSERT_EQ(mxgemm_copy_to_host(c.ctx, got.data(), both.ptr, bytes),
            MXGEMM_STATUS_OK);
  ASSERT_TRUE(contract::preshuffleScales(contract::ScaleLayout::Mfma32x32x64,
                                         rowMajor.data(), rows, blocks, blocks,
                                         want.data(), want.size()));
  EXPECT_EQ(got, want);
}

TEST(ScaleLayouts, BadPackWritesNothing) {
  REQUIRE_FACADE();
  Context c;
  DeviceBuffer src(c.ctx, randomScales(64 * 4)), dst(c.ctx, 4096);
  ASSERT_EQ(mxgemm_device_memset(c.ctx, dst.ptr, 0xaa, 4096), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_pack_scales(c.ctx, mxgemm_scale_layout(9), src.ptr, 64, 128,
                               dst.ptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_pack_scales(c.ctx, MXGEMM_SCALES_MFMA_16X16X128, src.ptr, 64,
                               100, dst.ptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_pack_scales(c.ctx, MXGEMM_SCALES_MFMA_16X16X128, nullptr, 64,
                               128, dst.ptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_pack_scales(c.ctx, MXGEMM_SCALES_MFMA_16X16X128, src.ptr, 64,
                               128, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_pack_scales(nullptr, MXGEMM_SCALES_MFMA_16X16X128, src.ptr,
                               64, 128, dst.ptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  std::vector<uint8_t> got(4096);
  ASSERT_EQ(mxgemm_copy_to_host(c.ctx, got.data(), dst.ptr, got.size()),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(got, std::vector<uint8_t>(4096, 0xaa));
}

/// A problem of the first embedded tuned entry at its smallest M.
mxgemm_problem tunedProblem() {
  mxgemm_problem p;
  mxgemm_problem_init(&p, 1, 1, 1);
  for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
    mxgemm_kernel_info info;
    EXPECT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
    if (info.n == 0)
      continue;
    mxgemm_problem_init(&p, info.m_min, info.n, info.k);
    p.w_layout = info.w_layout;
    p.w_scale = info.w_scale;
    break;
  }
  return p;
}

TEST(ScaleLayouts, ProblemRules) {
  REQUIRE_FACADE();
  Context c;
  const mxgemm_problem tuned = tunedProblem();
  ASSERT_GT(tuned.n, 1);
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_query(c.ctx, &tuned, &plan), MXGEMM_STATUS_OK)
      << plan.message;
  EXPECT_EQ(plan.x_scale_layout, MXGEMM_SCALES_ROW_MAJOR);
  EXPECT_EQ(plan.w_scale_layout, MXGEMM_SCALES_ROW_MAJOR);

  // The embedded kernels read row-major scales: native ones are not
  // eligible, and the plan says which layout the kernel reads.
  for (bool weights : {false, true}) {
    mxgemm_problem p = tuned;
    (weights ? p.w_scale_layout : p.x_scale_layout) =
        MXGEMM_SCALES_MFMA_16X16X128;
    ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
    EXPECT_EQ(plan.reason, MXGEMM_REASON_SCALE_LAYOUT);
    EXPECT_EQ(plan.x_scale_layout, MXGEMM_SCALES_ROW_MAJOR);
    EXPECT_EQ(plan.w_scale_layout, MXGEMM_SCALES_ROW_MAJOR);
    EXPECT_NE(std::string(plan.message)
                  .find(std::string("the problem's ") + (weights ? "w" : "x") +
                        "_scale_layout is mfma_16x16x128, but kernel"),
              std::string::npos)
        << plan.message;
    EXPECT_STREQ(mxgemm_reason_string(plan.reason),
                 "MXGEMM_REASON_SCALE_LAYOUT");
  }
  // So is a key only a generic kernel serves.
  mxgemm_problem generic;
  mxgemm_problem_init(&generic, 7, 96, 64);
  generic.x_scale_layout = MXGEMM_SCALES_MFMA_32X32X64;
  ASSERT_EQ(mxgemm_query(c.ctx, &generic, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_SCALE_LAYOUT) << plan.message;

  // Bad values and a leading dimension with a native layout.
  mxgemm_problem bad = tuned;
  bad.w_scale_layout = mxgemm_scale_layout(5);
  EXPECT_EQ(mxgemm_query(c.ctx, &bad, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(plan.message).find("unknown scale layout value"),
            std::string::npos)
      << plan.message;
  bad = tuned;
  bad.x_scale_layout = MXGEMM_SCALES_MFMA_16X16X128;
  bad.ld_xs = bad.k / 32;
  EXPECT_EQ(mxgemm_query(c.ctx, &bad, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(plan.message)
                .find("Xs in an MFMA-native layout has no leading dimension"),
            std::string::npos)
      << plan.message;
}

TEST(ScaleLayouts, EmbeddedKernelsReadRowMajorScalesButOneVariant) {
  // wo_b_native_xs and engram_native_xs (docs/Tuning.md, "Scale-layout
  // variants") are the embedded kernels with MFMA-native (X) scales.
  for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
    mxgemm_kernel_info info;
    ASSERT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
    const bool variant = std::string(info.entry) == "wo_b_native_xs" ||
                         std::string(info.entry) == "engram_native_xs";
    EXPECT_EQ(info.x_scale_layout,
              variant ? MXGEMM_SCALES_MFMA_32X32X64 : MXGEMM_SCALES_ROW_MAJOR)
        << info.entry;
    EXPECT_EQ(info.w_scale_layout, MXGEMM_SCALES_ROW_MAJOR) << info.entry;
  }
}

TEST(ScaleLayouts, AbiLayouts) {
  // 0.3 (LP64); the SONAME says major.minor.
  static_assert(sizeof(mxgemm_problem) == 96);
  static_assert(offsetof(mxgemm_problem, x_scale_layout) == 84);
  static_assert(sizeof(mxgemm_plan) == 464);
  static_assert(offsetof(mxgemm_plan, x_scale_layout) == 104);
  static_assert(offsetof(mxgemm_plan, k_splits) == 128);
  EXPECT_STREQ(mxgemm_version(), "0.3.1");
}

} // namespace
