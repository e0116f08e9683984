//===- RuntimeFacadeTest.cpp - the shim on the emulator's HIP facade ------===//
//
// Runs libmxgemm_runtime.so unchanged on libmxgemm_hip_emu.so (the emulator
// behind the real HIP C API): plans for every tuned family, launches whose
// sampled workgroups (MXGEMM_EMU_WORKGROUPS) are compared bit for bit with
// the CPU reference, the pointer and code-object rules, and keys with
// nothing to pack. Skipped when the facade is not built. What needs a
// kernel that reads MFMA panels (packing, many threads launching one) is
// in RuntimeTestDbTest.cpp: the production database has no panel kernel.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace mxgemm::testing;

TEST(RuntimeFacade, PlansForEveryFamily) {
  REQUIRE_FACADE();
  Context c;
  for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
    mxgemm_kernel_info info;
    ASSERT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
    if (info.n == 0) // a generic kernel: GenericServesOffTableKeys
      continue;
    // Each entry at both ends of its M range (one entry per M bucket).
    for (int64_t m : {info.m_min, info.m_max}) {
      mxgemm_problem p;
      mxgemm_problem_init(&p, m, info.n, info.k);
      p.w_layout = info.w_layout;
      // Scales as the entry reads them: a scale-layout variant serves its
      // range to those, its row-major base to everyone else.
      p.x_scale_layout = info.x_scale_layout;
      p.w_scale_layout = info.w_scale_layout;
      mxgemm_plan plan, tail;
      int64_t firstRows = -1;
      ASSERT_EQ(mxgemm_query_row_split(c.ctx, &p, &plan, &firstRows, &tail),
                MXGEMM_STATUS_OK)
          << info.entry << " M=" << m << ": " << plan.message;
      EXPECT_EQ(plan.reason, MXGEMM_REASON_NONE);
      EXPECT_STREQ(plan.entry, info.entry);
      EXPECT_STREQ(plan.kernel, info.kernel);
      // docs/Design.md section 4: 1-D grid of ceil(M / program tile) x N
      // tiles, over the first launch's rows when the entry splits rows
      // (then the tail's plan covers the rest with its own tiles).
      // A tail split (docs/Runtime.md, "Split-K kernels") adds k_splits - 1
      // workgroups per tile of its last, partly filled round of 256.
      const int64_t rows = firstRows ? firstRows : m;
      EXPECT_EQ(plan.block_y, 1u);
      EXPECT_EQ(plan.block_x % 64, 0u);
      const int64_t tiles = (rows + plan.program_tile_m - 1) /
                            plan.program_tile_m * (info.n / plan.tile_n);
      if (std::strstr(info.config, "tail_split = true")) {
        EXPECT_EQ(plan.grid_y, 1u);
        EXPECT_EQ(plan.tail_tiles, uint32_t(tiles % 256));
        EXPECT_EQ(plan.reduction_grid_x, plan.tail_tiles * plan.k_splits);
        EXPECT_EQ(plan.grid_x, uint32_t(tiles + int64_t(plan.tail_tiles) *
                                                    (plan.k_splits - 1)));
      } else {
        EXPECT_EQ(plan.k_splits, plan.grid_y);
        EXPECT_EQ(plan.reduction_grid_x, plan.k_splits > 1 ? plan.grid_x : 0);
        EXPECT_EQ(plan.grid_x, uint32_t(tiles));
      }
      if (firstRows) {
        EXPECT_GT(firstRows, 0);
        EXPECT_LT(firstRows, m);
        EXPECT_EQ(firstRows % plan.program_tile_m, 0);
        EXPECT_EQ(tail.status, MXGEMM_STATUS_OK);
        EXPECT_LE(tail.m_min, m - firstRows);
        EXPECT_GE(tail.m_max, m - firstRows);
        EXPECT_EQ(uint64_t(tail.grid_x),
                  uint64_t((m - firstRows + tail.program_tile_m - 1) /
                           tail.program_tile_m * tail.num_tiles_n));
      } else {
        EXPECT_EQ(tail.kind, MXGEMM_PLAN_KIND_NONE);
      }
      EXPECT_EQ(plan.num_tiles_n, uint32_t(info.n / plan.tile_n));
      EXPECT_EQ(plan.k_step,
                std::strstr(info.config, "m16n16k128") ? 128u : 64u);
      EXPECT_EQ(plan.w_layout, info.w_layout);
    }
  }
  char name[64];
  int major = 0, minor = 0;
  ASSERT_EQ(mxgemm_device_info(c.ctx, name, sizeof(name), &major, &minor),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(major, 9);
  EXPECT_EQ(minor, 5);
}

// A key without a tuned kernel: served by default by the generic kernel of
// its M range, with ceil(N / tile_n) tile columns from the call's N;
// NOT_ELIGIBLE with generic kernels off; packed W and E5M2 X still have
// no kernel.
TEST(RuntimeFacade, GenericServesOffTableKeys) {
  REQUIRE_FACADE();
  Context c;
  mxgemm_problem p;
  mxgemm_problem_init(&p, 40, 1000, 992);
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_context_set_generic(c.ctx, 0), MXGEMM_STATUS_OK);
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_NO_TUNED_KERNEL);
  ASSERT_EQ(mxgemm_context_set_generic(c.ctx, 1), MXGEMM_STATUS_OK);
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_OK) << plan.message;
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_GENERIC);
  EXPECT_STREQ(plan.entry, "generic_e4m3_e4m3_block32x32_m17_64");
  EXPECT_EQ(plan.m_min, 17);
  EXPECT_EQ(plan.m_max, 64);
  EXPECT_EQ(plan.tile_n, 64u);
  EXPECT_EQ(plan.num_tiles_n, 16u); // ceil(1000 / 64)
  EXPECT_EQ(plan.grid_x, 16u);
  p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_NO_TUNED_KERNEL);
  p.w_layout = MXGEMM_WEIGHTS_ROW_MAJOR;
  p.x_type = MXGEMM_DTYPE_E5M2;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_NO_TUNED_KERNEL);
}
/// Launches `prob` with X, its scales and Y as views (rows ldX, ldXs and
/// ldY apart; the gaps of X and its scales hold NaN bytes, those of Y a
/// sentinel) and only `workgroups` executed: those tiles must be bit-exact
/// against the reference on the contiguous operands, every other element
/// and every gap byte of Y untouched.
void runViews(mxgemm_context *ctx, const Problem &prob, int64_t ldX,
              int64_t ldXs, int64_t ldY, const std::vector<uint32_t> &wgs,
              mxgemm_plan &plan) {
  const int64_t m = prob.p.m, n = prob.p.n, k = prob.p.k;
  std::vector<uint8_t> xh(size_t(m * ldX), 0x7f), xsh(size_t(m * ldXs), 0xff);
  for (int64_t r = 0; r < m; ++r) {
    std::memcpy(&xh[size_t(r * ldX)], &prob.x.data[size_t(r * k)], size_t(k));
    std::memcpy(&xsh[size_t(r * ldXs)], &prob.x.scales[size_t(r * k / 32)],
                size_t(k / 32));
  }
  DeviceBuffer x(ctx, xh), xs(ctx, xsh), w(ctx, prob.w.data),
      ws(ctx, prob.w.scales);
  const size_t yBytes = size_t(m * ldY * 2);
  DeviceBuffer y(ctx, yBytes);
  ASSERT_EQ(mxgemm_device_memset(ctx, y.ptr, 0xff, yBytes), MXGEMM_STATUS_OK);
  mxgemm_problem p = prob.p;
  p.ld_x = ldX, p.ld_xs = ldXs, p.ld_y = ldY;
  mxgemm_tensors t{x.ptr, xs.ptr, w.ptr, ws.ptr, y.ptr};
  std::string list;
  for (uint32_t wg : wgs)
    list += (list.empty() ? "" : ",") + std::to_string(wg);
  ::setenv("MXGEMM_EMU_WORKGROUPS", list.c_str(), 1);
  ASSERT_EQ(mxgemm_gemm(ctx, &p, &t, nullptr, &plan), MXGEMM_STATUS_OK)
      << plan.message;
  ASSERT_EQ(mxgemm_synchronize(ctx, nullptr), MXGEMM_STATUS_OK);
  ::unsetenv("MXGEMM_EMU_WORKGROUPS");
  std::vector<uint16_t> got(size_t(m * ldY));
  ASSERT_EQ(mxgemm_copy_to_host(ctx, got.data(), y.ptr, yBytes),
            MXGEMM_STATUS_OK);
  std::vector<nx::OutputRegion> tiles;
  for (uint32_t wg : wgs) {
    int64_t row, col;
    ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, wg, &row, &col),
              MXGEMM_STATUS_OK);
    tiles.push_back({row, std::min<int64_t>(row + plan.program_tile_m, m), col,
                     std::min<int64_t>(col + plan.tile_n, n)});
  }
  std::vector<uint16_t> want(size_t(m * n), 0xffff);
  nx::ReferenceOptions ro;
  ro.kStep = int(plan.k_step);
  nx::referenceGemmTiles(prob.operands(), tiles, nx::OutputType::BF16,
                         want.data(), ro);
  size_t mismatches = 0, computed = 0, gapWrites = 0;
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const uint16_t g = got[size_t(r * ldY + c)], e = want[size_t(r * n + c)];
      computed += e != 0xffff;
      if (g != e && mismatches++ < 5)
        ADD_FAILURE() << "Y[" << r << "][" << c << "] = 0x" << std::hex << g
                      << ", want 0x" << e;
    }
    for (int64_t c = n; c < ldY; ++c)
      gapWrites += got[size_t(r * ldY + c)] != 0xffff;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(gapWrites, 0u) << "elements written between rows of Y";
  EXPECT_GT(computed, 0u);
}

// Views of X, its scales and Y (vLLM-style callers pass slices): a generic
// kernel serves them, with the leading dimensions as its row strides, even
// for a key with a tuned kernel (which stays contiguous-only); strided W
// and views with generic kernels off are NOT_CONTIGUOUS.
TEST(RuntimeFacade, GenericKernelTakesViewsOfXAndY) {
  REQUIRE_FACADE();
  Context c;
  mxgemm_plan plan;
  // An off-table key: odd N, K with a tail; every workgroup.
  Problem odd(37, 99, 320, 5);
  runViews(c.ctx, odd, 320 + 64, 10 + 3, 99 + 8, {0, 1}, plan);
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_GENERIC);
  EXPECT_STREQ(plan.entry, "generic_e4m3_e4m3_block32x32_m17_64");
  EXPECT_EQ(plan.grid_x, 2u);

  // shared_down (N = 5120, K = 1152) has a tuned kernel for M = 7; with
  // views the generic one serves (the first, a middle and the last tile).
  Problem tuned(7, 5120, 1152, 9);
  ASSERT_EQ(mxgemm_query(c.ctx, &tuned.p, &plan), MXGEMM_STATUS_OK);
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_EMBEDDED);
  runViews(c.ctx, tuned, 1152 + 32, 36 + 1, 5120 + 8, {0, 40, 79}, plan);
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_GENERIC);
  EXPECT_STREQ(plan.entry, "generic_e4m3_e4m3_block32x32_m1_16");

  // Only Y a view: still the generic kernel.
  mxgemm_problem p = tuned.p;
  p.ld_y = 5121;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_OK) << plan.message;
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_GENERIC);
  // Strided W or W scales: no kernel takes them.
  p = tuned.p;
  p.ld_w = 1152 + 32;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_NOT_CONTIGUOUS);
  EXPECT_NE(std::strstr(plan.message, "W is not contiguous"), nullptr)
      << plan.message;
  p = tuned.p;
  p.ld_ws = 40;
  p.ld_x = 2048;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_NE(std::strstr(plan.message, "Ws is not contiguous"), nullptr)
      << plan.message;
  // A leading dimension no i32 argument holds.
  p = tuned.p;
  p.ld_x = int64_t(1) << 31;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_NOT_CONTIGUOUS);
  EXPECT_NE(std::strstr(plan.message, "up to 2^31 - 1"), nullptr)
      << plan.message;
  // Smaller than the row: a bad argument.
  p = tuned.p;
  p.ld_y = 5119;
  EXPECT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  // Generic kernels off: views are not eligible, with the reason.
  ASSERT_EQ(mxgemm_context_set_generic(c.ctx, 0), MXGEMM_STATUS_OK);
  p = tuned.p;
  p.ld_xs = 37;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_NOT_CONTIGUOUS);
  EXPECT_NE(std::strstr(plan.message, "Xs is not contiguous"), nullptr);
  EXPECT_NE(std::strstr(plan.message, "they are off"), nullptr) << plan.message;
}

TEST(RuntimeFacade, GemmMatchesReferenceOnSampledWorkgroups) {
  REQUIRE_FACADE();
  Context c;
  // index_query (N = 4096, K = 1280): its 256x256 ping-pong kernel reads W
  // row-major; M = 10241 leaves a tail of 2049 rows after two rounds, longer
  // than its row split takes, so one launch of 41 x 16 workgroups. The
  // first, an interior one and the last (a 1-row edge tile).
  Problem prob(10241, 4096, 1280, 7);
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_query(c.ctx, &prob.p, &plan), MXGEMM_STATUS_OK)
      << plan.message;
  ASSERT_EQ(plan.w_layout, MXGEMM_WEIGHTS_ROW_MAJOR);
  ASSERT_EQ(plan.grid_x, 41u * 16u);
  runAndCheck(c.ctx, prob, {0, 33, plan.grid_x - 1});
}

TEST(RuntimeFacade, MisalignedPointersAreNotEligible) {
  REQUIRE_FACADE();
  Context c;
  mxgemm_problem p;
  mxgemm_problem_init(&p, 8193, 4096, 1280);
  DeviceBuffer buf(c.ctx, 4096);
  char *base = static_cast<char *>(buf.ptr);
  mxgemm_tensors t{base, base, base, base + 8, base};
  mxgemm_plan plan;
  EXPECT_EQ(mxgemm_gemm(c.ctx, &p, &t, nullptr, &plan),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_MISALIGNED);
  EXPECT_NE(std::strstr(plan.message, "Ws is not 16-byte aligned"), nullptr)
      << plan.message;
}

// A kernel that reads panels: RuntimeTestDb.PackingAPanelKernelSizesW.
TEST(RuntimeFacade, PackingFollowsTheKernel) {
  REQUIRE_FACADE();
  Context c;
  // No kernel for this M: nothing to pack for.
  mxgemm_problem p;
  size_t bytes = 123;
  mxgemm_problem_init(&p, 100000, 16384, 1280);
  EXPECT_EQ(mxgemm_pack_weights(c.ctx, &p, nullptr, nullptr, &bytes, nullptr),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  // wq_b's kernel reads W row-major (tuning/gfx950.json): nothing to pack.
  mxgemm_problem_init(&p, 16384, 16384, 1280);
  EXPECT_EQ(mxgemm_pack_weights(c.ctx, &p, nullptr, nullptr, &bytes, nullptr),
            MXGEMM_STATUS_NOT_SUPPORTED)
      << mxgemm_last_error();
  EXPECT_EQ(bytes, 123u) << "nothing to size when nothing is packed";
}

TEST(RuntimeFacade, CodeObjectLoadFailure) {
  REQUIRE_FACADE();
  // Test hook: hand HIP a corrupted copy of every code object.
  ::setenv("MXGEMM_RUNTIME_FAULT", "code_object", 1);
  Context lenient, strict(/*strict=*/1);
  ::unsetenv("MXGEMM_RUNTIME_FAULT");
  mxgemm_problem p;
  mxgemm_problem_init(&p, 8193, 4096, 1280);
  mxgemm_plan plan;
  EXPECT_EQ(mxgemm_query(lenient.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_CODE_OBJECT_LOAD);
  EXPECT_NE(std::strstr(plan.message, "hipModuleLoadData(index_query)"),
            nullptr)
      << plan.message;
  EXPECT_EQ(mxgemm_query(strict.ctx, &p, &plan), MXGEMM_STATUS_HIP_ERROR);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_CODE_OBJECT_LOAD);
}

TEST(RuntimeFacade, WrongArchIsNotEligible) {
  REQUIRE_FACADE();
  // Test hook: read the compute capability as 9.4 (gfx942).
  ::setenv("MXGEMM_RUNTIME_FAULT", "arch", 1);
  Context c(/*strict=*/1);
  ::unsetenv("MXGEMM_RUNTIME_FAULT");
  mxgemm_problem p;
  mxgemm_problem_init(&p, 8193, 4096, 1280);
  mxgemm_plan plan;
  EXPECT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_ARCH_MISMATCH);
  EXPECT_NE(std::strstr(plan.message, "9.4"), nullptr) << plan.message;
}

} // namespace
