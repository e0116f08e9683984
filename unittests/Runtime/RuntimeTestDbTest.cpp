//===- RuntimeTestDbTest.cpp - both W layouts through one shim ------------===//
//
// The runtime built from unittests/Runtime/test-db.json: one kernel that
// reads row-major W and one that reads MFMA panels. Covers what the real
// database (packed kernels only) cannot: packing for a row-major kernel
// (NOT_SUPPORTED), panels given to a row-major kernel, and both kernels
// bit-exact on the emulator's HIP facade with every workgroup run.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"

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

} // namespace
