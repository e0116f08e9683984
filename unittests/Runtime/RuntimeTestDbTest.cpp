//===- RuntimeTestDbTest.cpp - both W layouts through one shim ------------===//
//
// The runtime built from unittests/Runtime/test-db.json: one kernel that
// reads row-major W and one that reads MFMA panels. Covers what the
// production database cannot, having no panel kernel: packing for a panel
// kernel (sizes, PACKED_WEIGHTS for row-major W, the packed launch) and
// for a row-major one (NOT_SUPPORTED), panels given to a row-major kernel,
// both kernels bit-exact on the emulator's HIP facade with every workgroup
// run, many threads sharing a context across both layouts; and a row
// split (rows_base hands its tail rows to rows_tail). LoadedKernelTest,
// LoadedLibraryTest and PackWeightsTest use the `panels` kernel too.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"
#include "TestDb.h"

#include <memory>
#include <thread>
#include <tuple>

namespace {

using namespace mxgemm::testing;

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

TEST(RuntimeTestDb, PackedWeightsMatchReference) {
  REQUIRE_FACADE();
  Context c;
  // Row-major W for the panel kernel: not eligible, with the layout to pass.
  Problem prob(257, kPanelsN, kPanelsK, 11);
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_query(c.ctx, &prob.p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_PACKED_WEIGHTS);
  EXPECT_NE(std::strstr(plan.message, "mxgemm_pack_weights"), nullptr)
      << plan.message;
  EXPECT_EQ(plan.w_layout, MXGEMM_WEIGHTS_MFMA_PANELS); // what it wants
  mxgemm_problem packed = prob.p;
  packed.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  ASSERT_EQ(mxgemm_query(c.ctx, &packed, &plan), MXGEMM_STATUS_OK)
      << plan.message;
  EXPECT_EQ(plan.w_layout, MXGEMM_WEIGHTS_MFMA_PANELS);
  // M = 257: every workgroup, the last tile row a 1-row edge (runAndCheck
  // packs W).
  ASSERT_EQ(plan.grid_x, 3u * 2u);
  runAndCheck(c.ctx, prob, {0, 1, 2, 3, 4, 5});
}

TEST(RuntimeTestDb, PackingAPanelKernelSizesW) {
  REQUIRE_FACADE();
  Context c;
  // Above the key's M range (1..4096): nothing to pack for.
  mxgemm_problem p;
  size_t bytes = 123;
  mxgemm_problem_init(&p, kTestDbMaxM + 1, kPanelsN, kPanelsK);
  EXPECT_EQ(mxgemm_pack_weights(c.ctx, &p, nullptr, nullptr, &bytes, nullptr),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(bytes, 123u);
  // Size query, then misaligned buffers are refused before any copy.
  mxgemm_problem_init(&p, 300, kPanelsN, kPanelsK);
  ASSERT_EQ(mxgemm_pack_weights(c.ctx, &p, nullptr, nullptr, &bytes, nullptr),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  EXPECT_EQ(bytes, size_t(512) * 256);
  DeviceBuffer buf(c.ctx, 64);
  char *base = static_cast<char *>(buf.ptr);
  EXPECT_EQ(mxgemm_pack_weights(c.ctx, &p, base + 8, base, &bytes, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
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

TEST(RuntimeTestDb, ManyThreadsShareOneContext) {
  REQUIRE_FACADE();
  Context c;
  Context dry(0, 1); // dry-run: every check and argument packing, no launch;
                     // first used concurrently in the threads below
  constexpr int kThreads = 8;
  constexpr int64_t kM = 300;
  // The panel key: each launching thread has its own Y. Its kernel reads W
  // packed in MFMA panels, packed once up front.
  Problem prob(kM, kPanelsN, kPanelsK, 11);
  prob.p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  DeviceBuffer x(c.ctx, prob.x.data), xs(c.ctx, prob.x.scales),
      rowMajorW(c.ctx, prob.w.data), w(c.ctx, prob.w.data.size()),
      ws(c.ctx, prob.w.scales);
  size_t packedBytes = w.bytes;
  ASSERT_EQ(mxgemm_pack_weights(c.ctx, &prob.p, rowMajorW.ptr, w.ptr,
                                &packedBytes, nullptr),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  const size_t yBytes = size_t(kM * kPanelsN * 2);
  std::vector<std::unique_ptr<DeviceBuffer>> ys;
  for (int t = 0; t < 4; ++t) {
    ys.push_back(std::make_unique<DeviceBuffer>(c.ctx, yBytes));
    ASSERT_EQ(mxgemm_device_memset(c.ctx, ys[t]->ptr, 0xff, yBytes),
              MXGEMM_STATUS_OK);
  }
  ::setenv("MXGEMM_EMU_WORKGROUPS", "0", 1);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      mxgemm_plan plan;
      for (int i = 0; i < 3000; ++i) {
        // Odd i: the panel key (packed W), even i: the row-major key; M on
        // both sides of their last M (4096).
        const bool panels = i % 2;
        const int64_t m = 3000 + (i * 37 + t) % 2000;
        mxgemm_problem p;
        mxgemm_problem_init(&p, m, panels ? kPanelsN : kRowMajorN,
                            panels ? kPanelsK : kRowMajorK);
        if (panels)
          p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
        // Above 4096 the row-major key is served by a generic kernel; the
        // panel key has none (generic kernels read row-major W).
        mxgemm_status want = m <= kTestDbMaxM || !panels
                                 ? MXGEMM_STATUS_OK
                                 : MXGEMM_STATUS_NOT_ELIGIBLE;
        failures[t] += mxgemm_query(c.ctx, &p, &plan) != want;
        if (i % 4 == 1) { // the panel key
          mxgemm_tensors tens{x.ptr, xs.ptr, w.ptr, ws.ptr, ys[0]->ptr};
          failures[t] +=
              mxgemm_gemm(dry.ctx, &p, &tens, nullptr, &plan) != want;
        }
      }
      if (t < 4) {
        mxgemm_tensors tens{x.ptr, xs.ptr, w.ptr, ws.ptr, ys[t]->ptr};
        failures[t] += mxgemm_gemm(c.ctx, &prob.p, &tens, nullptr, nullptr) !=
                       MXGEMM_STATUS_OK;
      }
    });
  for (auto &th : threads)
    th.join();
  ASSERT_EQ(mxgemm_synchronize(c.ctx, nullptr), MXGEMM_STATUS_OK);
  ::unsetenv("MXGEMM_EMU_WORKGROUPS");
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  // Every launching thread computed workgroup 0's tile identically and
  // wrote nothing else.
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_query(c.ctx, &prob.p, &plan), MXGEMM_STATUS_OK);
  int64_t row, col;
  ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, &row, &col), MXGEMM_STATUS_OK);
  std::vector<uint16_t> want(size_t(kM * kPanelsN), 0xffff);
  nx::ReferenceOptions ro;
  ro.kStep = int(plan.k_step);
  nx::referenceGemmTiles(
      prob.operands(),
      {{row, row + plan.program_tile_m, col, col + int64_t(plan.tile_n)}},
      nx::OutputType::BF16, want.data(), ro);
  for (int t = 0; t < 4; ++t) {
    std::vector<uint16_t> got(want.size());
    ASSERT_EQ(mxgemm_copy_to_host(c.ctx, got.data(), ys[t]->ptr, yBytes),
              MXGEMM_STATUS_OK);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      bad += got[i] != want[i];
    EXPECT_EQ(bad, 0u) << "thread " << t;
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
