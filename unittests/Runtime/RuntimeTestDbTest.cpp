//===- RuntimeTestDbTest.cpp - both W layouts through one shim ------------===//
//
// The runtime built from unittests/Runtime/test-db.json: one kernel that
// reads row-major W and one that reads MFMA panels. Covers what the real
// database (packed kernels only) cannot: packing for a row-major kernel
// (NOT_SUPPORTED), panels given to a row-major kernel, and both kernels
// bit-exact on the emulator's HIP facade with every workgroup run; and a
// row split (rows_base hands its tail rows to rows_tail).
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"

#include <tuple>

namespace {

using namespace mxgemm::testing;

constexpr int64_t kRowMajorN = 256, kRowMajorK = 512;
constexpr int64_t kPanelsN = 512, kPanelsK = 256;

TEST(RuntimeTestDb, PackingARowMajorKernelIsNotSupported) {
  REQUIRE_FACADE();
  Context c;
  mxgemm_problem p;
  mxgemm_problem_init(&p, 100, kRowMajorN, kRowMajorK);
  size_t bytes = 123;
  EXPECT_EQ(mxgemm_pack_weights(c.ctx, &p, nullptr, nullptr, &bytes, nullptr),
            MXGEMM_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(bytes, 123u) << "nothing to size when nothing is packed";
  EXPECT_NE(std::strstr(mxgemm_last_error(), "reads row-major W"), nullptr)
      << mxgemm_last_error();
}

TEST(RuntimeTestDb, PanelsForARowMajorKernelAreNotEligible) {
  REQUIRE_FACADE();
  Context c;
  mxgemm_problem p;
  mxgemm_problem_init(&p, 100, kRowMajorN, kRowMajorK);
  p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  mxgemm_plan plan;
  EXPECT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_PACKED_WEIGHTS);
  EXPECT_EQ(plan.w_layout, MXGEMM_WEIGHTS_ROW_MAJOR) << "what it reads";
  EXPECT_NE(std::strstr(plan.message, "reads row-major W"), nullptr)
      << plan.message;
}

TEST(RuntimeTestDb, BothLayoutsMatchTheReference) {
  REQUIRE_FACADE();
  Context c;
  for (auto [n, k] :
       {std::pair{kRowMajorN, kRowMajorK}, std::pair{kPanelsN, kPanelsK}}) {
    SCOPED_TRACE(::testing::Message() << "N = " << n << ", K = " << k);
    // M = 200: one full and one partial tile row; every workgroup runs.
    Problem prob(200, n, k, 5);
    // The plan for W in the layout the kernel reads (runAndCheck packs).
    mxgemm_plan plan;
    mxgemm_query(c.ctx, &prob.p, &plan);
    mxgemm_problem asRead = prob.p;
    asRead.w_layout = plan.w_layout;
    mxgemm_query(c.ctx, &asRead, &plan);
    ASSERT_GT(plan.grid_x, 0u) << plan.message;
    std::vector<uint32_t> all;
    for (uint32_t wg = 0; wg < plan.grid_x; ++wg)
      all.push_back(wg);
    runAndCheck(c.ctx, prob, all);
  }
}

constexpr int64_t kSplitN = 256, kSplitK = 256;

TEST(RuntimeTestDb, ARowSplitNamesBothLaunches) {
  REQUIRE_FACADE();
  Context c;
  mxgemm_problem p;
  mxgemm_plan plan, tail;
  int64_t firstRows = -1;
  // M = 300: 3 tile rows x 2 columns = 6 workgroups on rounds of 4; the
  // first 256 rows fill one round, 44 rows <= max_tail_rows remain.
  mxgemm_problem_init(&p, 300, kSplitN, kSplitK);
  ASSERT_EQ(mxgemm_query_row_split(c.ctx, &p, &plan, &firstRows, &tail),
            MXGEMM_STATUS_OK)
      << plan.message;
  EXPECT_EQ(firstRows, 256);
  EXPECT_STREQ(plan.entry, "rows_base");
  EXPECT_EQ(plan.grid_x, 4u) << "the first launch covers 256 rows only";
  EXPECT_STREQ(tail.entry, "rows_tail");
  EXPECT_EQ(tail.status, MXGEMM_STATUS_OK);
  EXPECT_EQ(tail.grid_x, 3u * 4u) << "44 rows in 16-row tiles, 4 columns";
  EXPECT_NE(std::strstr(plan.message, "rows 256..299 by 'rows_tail'"), nullptr)
      << plan.message;
  mxgemm_plan single;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &single), MXGEMM_STATUS_OK);
  EXPECT_STREQ(single.message, plan.message) << "mxgemm_query's plan";
  EXPECT_EQ(single.grid_x, plan.grid_x);
  // M = 200: 4 workgroups, one round; M = 400: a 144-row tail is too long.
  for (int64_t m : {200, 400}) {
    SCOPED_TRACE(::testing::Message() << "M = " << m);
    mxgemm_problem_init(&p, m, kSplitN, kSplitK);
    ASSERT_EQ(mxgemm_query_row_split(c.ctx, &p, &plan, &firstRows, &tail),
              MXGEMM_STATUS_OK);
    EXPECT_EQ(firstRows, 0);
    EXPECT_EQ(tail.kind, MXGEMM_PLAN_KIND_NONE);
    EXPECT_STREQ(tail.message, "one launch");
    EXPECT_EQ(plan.grid_x, uint32_t((m + 127) / 128 * 2));
  }
  EXPECT_EQ(mxgemm_query_row_split(c.ctx, &p, &plan, nullptr, &tail),
            MXGEMM_STATUS_INVALID_ARGUMENT);
}

TEST(RuntimeTestDb, ARowSplitMatchesTheReferenceOfEachPart) {
  REQUIRE_FACADE();
  Context c;
  // Every workgroup of both launches runs (no MXGEMM_EMU_WORKGROUPS).
  Problem prob(300, kSplitN, kSplitK, 9);
  mxgemm_plan plan, tail;
  int64_t firstRows = 0;
  ASSERT_EQ(mxgemm_query_row_split(c.ctx, &prob.p, &plan, &firstRows, &tail),
            MXGEMM_STATUS_OK);
  ASSERT_EQ(firstRows, 256);
  ASSERT_NE(plan.k_step, tail.k_step) << "the parts must differ to be told";
  DeviceBuffer x(c.ctx, prob.x.data), xs(c.ctx, prob.x.scales),
      w(c.ctx, prob.w.data), ws(c.ctx, prob.w.scales);
  const size_t yBytes = size_t(prob.p.m * prob.p.n * 2);
  DeviceBuffer y(c.ctx, yBytes);
  ASSERT_EQ(mxgemm_device_memset(c.ctx, y.ptr, 0xff, yBytes), MXGEMM_STATUS_OK);
  mxgemm_tensors t{x.ptr, xs.ptr, w.ptr, ws.ptr, y.ptr};
  ASSERT_EQ(mxgemm_gemm(c.ctx, &prob.p, &t, nullptr, &plan), MXGEMM_STATUS_OK)
      << plan.message;
  ASSERT_EQ(mxgemm_synchronize(c.ctx, nullptr), MXGEMM_STATUS_OK);
  std::vector<uint16_t> got(size_t(prob.p.m * prob.p.n)),
      want(got.size(), 0xffff);
  ASSERT_EQ(mxgemm_copy_to_host(c.ctx, got.data(), y.ptr, yBytes),
            MXGEMM_STATUS_OK);
  // Each part against the reference with its kernel's K step.
  for (auto [begin, end, kStep] :
       {std::tuple{int64_t(0), firstRows, plan.k_step},
        std::tuple{firstRows, prob.p.m, tail.k_step}}) {
    nx::ReferenceOptions ro;
    ro.kStep = int(kStep);
    nx::referenceGemmTiles(prob.operands(), {{begin, end, 0, kSplitN}},
                           nx::OutputType::BF16, want.data(), ro);
  }
  size_t mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && mismatches++ < 5)
      ADD_FAILURE() << "Y[" << i / kSplitN << "][" << i % kSplitN << "] = 0x"
                    << std::hex << got[i] << ", want 0x" << want[i];
  EXPECT_EQ(mismatches, 0u);
}

} // namespace
