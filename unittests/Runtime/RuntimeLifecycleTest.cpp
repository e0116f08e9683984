//===- RuntimeLifecycleTest.cpp - handles, the last error, checked math ---===//
//
// The lifecycle rule of mxgemm_runtime.h: a destroyed context (or a value
// that never was one) is refused with a message by every function, a second
// destroy included, without reading freed memory (the tests would crash or
// trip the sanitizers otherwise). Every failing call sets mxgemm_last_error,
// including mxgemm_gemm without a plan; a successful call leaves it alone.
// Caller-built plans and problems past the i32 M are refused with a reason,
// never wrapped or divided by zero. No HIP is loaded.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Runtime/mxgemm_runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char *kMissingHip = "/nonexistent/libamdhip64.so";

mxgemm_context *create() {
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  o.hip_library = kMissingHip;
  o.log = [](void *, const char *) {};
  mxgemm_context *ctx = nullptr;
  EXPECT_EQ(mxgemm_context_create(&o, &ctx), MXGEMM_STATUS_OK);
  return ctx;
}

mxgemm_problem tunedProblem(int64_t m = 16384) {
  mxgemm_problem p;
  mxgemm_problem_init(&p, m, 16384, 1280);
  return p;
}

/// Makes the last error a known text, so that a test sees whether the next
/// call replaced it.
void resetLastError() {
  ASSERT_EQ(mxgemm_kernel_get(size_t(-1), nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  ASSERT_STREQ(mxgemm_last_error(),
               "kernel index out of range or info is NULL");
}

bool contains(const char *text, const char *part) {
  return std::strstr(text, part) != nullptr;
}

/// Every function that takes a context, called on `ctx`, must answer
/// INVALID_ARGUMENT with `expected` in its message.
void expectEveryCallRefuses(mxgemm_context *ctx, const char *expected) {
  mxgemm_problem p = tunedProblem();
  mxgemm_plan plan;
  alignas(16) static char buf[64];
  mxgemm_tensors t{buf, buf, buf, buf, buf};
  void *ptr = nullptr;
  size_t bytes = 0;
  char name[32];
  int major, minor;
  mxgemm_loaded_kernel *kernel = nullptr;
  const std::vector<std::pair<const char *, std::function<mxgemm_status()>>>
      calls = {
          {"query", [&] { return mxgemm_query(ctx, &p, &plan); }},
          {"gemm", [&] { return mxgemm_gemm(ctx, &p, &t, nullptr, nullptr); }},
          {"gemm+plan",
           [&] { return mxgemm_gemm(ctx, &p, &t, nullptr, &plan); }},
          {"pack",
           [&] {
             return mxgemm_pack_weights(ctx, &p, nullptr, nullptr, &bytes,
                                        nullptr);
           }},
          {"alloc", [&] { return mxgemm_device_alloc(ctx, 16, &ptr); }},
          {"free", [&] { return mxgemm_device_free(ctx, buf); }},
          {"free NULL", [&] { return mxgemm_device_free(ctx, nullptr); }},
          {"to device",
           [&] { return mxgemm_copy_to_device(ctx, buf, buf, 16); }},
          {"to host", [&] { return mxgemm_copy_to_host(ctx, buf, buf, 16); }},
          {"memset", [&] { return mxgemm_device_memset(ctx, buf, 0, 16); }},
          {"synchronize", [&] { return mxgemm_synchronize(ctx, nullptr); }},
          {"device info",
           [&] {
             return mxgemm_device_info(ctx, name, sizeof(name), &major, &minor);
           }},
          {"kernel load",
           [&] { return mxgemm_kernel_load(ctx, buf, 64, "{}", &kernel); }},
          {"kernel query",
           [&] { return mxgemm_kernel_query(ctx, kernel, &p, &plan); }},
          {"kernel launch",
           [&] {
             return mxgemm_kernel_launch(ctx, kernel, &p, &t, nullptr, &plan);
           }},
          {"kernel unload", [&] { return mxgemm_kernel_unload(ctx, kernel); }},
      };
  for (const auto &[what, call] : calls) {
    resetLastError();
    EXPECT_EQ(call(), MXGEMM_STATUS_INVALID_ARGUMENT) << what;
    EXPECT_TRUE(contains(mxgemm_last_error(), expected))
        << what << ": " << mxgemm_last_error();
  }
  // The plan of a refused query says it too.
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(plan.status, MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, expected)) << plan.message;
  EXPECT_STREQ(plan.kernel, "");
}

TEST(RuntimeLifecycle, UseAfterDestroyIsRefused) {
  mxgemm_context *ctx = create();
  mxgemm_plan plan;
  mxgemm_problem p = tunedProblem(100000);
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  ASSERT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
  expectEveryCallRefuses(ctx, "context was destroyed");
}

TEST(RuntimeLifecycle, DoubleDestroyIsRefused) {
  mxgemm_context *ctx = create();
  ASSERT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
  resetLastError();
  EXPECT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "context was destroyed"))
      << mxgemm_last_error();
  // NULL stays a no-op.
  EXPECT_EQ(mxgemm_context_destroy(nullptr), MXGEMM_STATUS_OK);
}

TEST(RuntimeLifecycle, HandlesThatNeverWereAreRefused) {
  // A made-up value, the address of some memory, and NULL.
  int local = 0;
  expectEveryCallRefuses(reinterpret_cast<mxgemm_context *>(uintptr_t(0x1234)),
                         "not a live handle made by mxgemm_context_create");
  expectEveryCallRefuses(reinterpret_cast<mxgemm_context *>(&local),
                         "not a live handle made by mxgemm_context_create");
  expectEveryCallRefuses(nullptr, "context is NULL");
  resetLastError();
  EXPECT_EQ(mxgemm_context_destroy(
                reinterpret_cast<mxgemm_context *>(uintptr_t(0x1234))),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "not a live handle"));
}

TEST(RuntimeLifecycle, AReusedSlotDoesNotReviveAnOldHandle) {
  // The slot of a destroyed context is reused with a new generation: the
  // old handle stays dead while the new one works.
  std::vector<mxgemm_context *> old;
  for (int i = 0; i < 4; ++i)
    old.push_back(create());
  for (mxgemm_context *c : old)
    ASSERT_EQ(mxgemm_context_destroy(c), MXGEMM_STATUS_OK);
  std::vector<mxgemm_context *> fresh;
  for (int i = 0; i < 4; ++i)
    fresh.push_back(create());
  mxgemm_problem p = tunedProblem(100000);
  mxgemm_plan plan;
  for (mxgemm_context *c : old) {
    for (mxgemm_context *f : fresh)
      ASSERT_NE(c, f);
    EXPECT_EQ(mxgemm_query(c, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(plan.message, "destroyed")) << plan.message;
  }
  for (mxgemm_context *f : fresh) {
    EXPECT_EQ(mxgemm_query(f, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
    EXPECT_EQ(mxgemm_context_destroy(f), MXGEMM_STATUS_OK);
  }
}

TEST(RuntimeLifecycle, ConcurrentDestroysOfOneContextSucceedOnce) {
  for (int round = 0; round < 20; ++round) {
    mxgemm_context *ctx = create();
    std::atomic<int> ok{0}, refused{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        mxgemm_status s = mxgemm_context_destroy(ctx);
        (s == MXGEMM_STATUS_OK ? ok : refused)++;
      });
    for (std::thread &t : threads)
      t.join();
    EXPECT_EQ(ok.load(), 1);
    EXPECT_EQ(refused.load(), 3);
  }
}

TEST(RuntimeLifecycle, TooManyContextsIsAMessage) {
  std::vector<mxgemm_context *> live;
  mxgemm_status s = MXGEMM_STATUS_OK;
  while (live.size() < 5000) {
    mxgemm_context *ctx = nullptr;
    s = mxgemm_context_create(nullptr, &ctx);
    if (s != MXGEMM_STATUS_OK)
      break;
    live.push_back(ctx);
  }
  EXPECT_EQ(s, MXGEMM_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(live.size(), 4096u);
  EXPECT_TRUE(contains(mxgemm_last_error(), "too many live contexts (4096)"))
      << mxgemm_last_error();
  for (mxgemm_context *c : live)
    EXPECT_EQ(mxgemm_context_destroy(c), MXGEMM_STATUS_OK);
  mxgemm_context *ctx = nullptr;
  EXPECT_EQ(mxgemm_context_create(nullptr, &ctx), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
}

TEST(RuntimeLifecycle, GemmWithoutAPlanSetsTheLastError) {
  mxgemm_context *ctx = create();
  // M above the tuned range is NOT_ELIGIBLE with generic kernels off.
  ASSERT_EQ(mxgemm_context_set_generic(ctx, 0), MXGEMM_STATUS_OK);
  alignas(16) static char buf[64];
  mxgemm_tensors t{buf, buf, buf, buf, buf};
  // NOT_ELIGIBLE: the reason is only in the last error.
  mxgemm_problem p = tunedProblem(100000);
  resetLastError();
  EXPECT_EQ(mxgemm_gemm(ctx, &p, &t, nullptr, nullptr),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_TRUE(contains(mxgemm_last_error(),
                       "M = 100000 is outside the tuned M range 1..65536"))
      << mxgemm_last_error();
  // INVALID_ARGUMENT.
  resetLastError();
  p.k = 0;
  EXPECT_EQ(mxgemm_gemm(ctx, &p, &t, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "K = 0")) << mxgemm_last_error();
  // NULL tensors, NULL problem.
  resetLastError();
  EXPECT_EQ(mxgemm_gemm(ctx, &p, nullptr, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "tensors is NULL");
  resetLastError();
  EXPECT_EQ(mxgemm_gemm(ctx, nullptr, &t, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "problem is NULL");
  // HIP missing (the shape rules pass): NOT_ELIGIBLE with the reason.
  resetLastError();
  p = tunedProblem();
  EXPECT_EQ(mxgemm_gemm(ctx, &p, &t, nullptr, nullptr),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_TRUE(contains(mxgemm_last_error(), "HIP unavailable"))
      << mxgemm_last_error();
  EXPECT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
}

TEST(RuntimeLifecycle, EveryFailingCallSetsTheLastError) {
  mxgemm_context *ctx = create();
  // Unknown N and M above the range are NOT_ELIGIBLE with generic kernels
  // off.
  ASSERT_EQ(mxgemm_context_set_generic(ctx, 0), MXGEMM_STATUS_OK);
  mxgemm_problem p = tunedProblem();
  mxgemm_plan plan, okPlan{};
  size_t bytes;
  void *ptr;
  const void *code;
  int64_t row, col;
  struct Case {
    const char *what;
    std::function<mxgemm_status()> call;
    mxgemm_status status;
    const char *message;
  };
  const std::vector<Case> cases = {
      {"create(NULL out)",
       [&] { return mxgemm_context_create(nullptr, nullptr); },
       MXGEMM_STATUS_INVALID_ARGUMENT, "context output pointer is NULL"},
      {"query(NULL plan)", [&] { return mxgemm_query(ctx, &p, nullptr); },
       MXGEMM_STATUS_INVALID_ARGUMENT, "plan is NULL"},
      {"query not eligible",
       [&] {
         mxgemm_problem q = p;
         q.n = 4224;
         return mxgemm_query(ctx, &q, &plan);
       },
       MXGEMM_STATUS_NOT_ELIGIBLE, "no tuned kernel for (gfx950, N = 4224"},
      {"pack(NULL bytes)",
       [&] {
         return mxgemm_pack_weights(ctx, &p, nullptr, nullptr, nullptr,
                                    nullptr);
       },
       MXGEMM_STATUS_INVALID_ARGUMENT, "packed_bytes must be non-NULL"},
      {"pack not eligible",
       [&] {
         mxgemm_problem q = p;
         q.m = 100000;
         return mxgemm_pack_weights(ctx, &q, nullptr, nullptr, &bytes, nullptr);
       },
       MXGEMM_STATUS_NOT_ELIGIBLE, "M = 100000 is outside"},
      {"kernel_get",
       [&] { return mxgemm_kernel_get(mxgemm_kernel_count(), nullptr); },
       MXGEMM_STATUS_INVALID_ARGUMENT, "kernel index out of range"},
      {"kernel_code_object",
       [&] {
         return mxgemm_kernel_code_object(mxgemm_kernel_count(), &code, &bytes);
       },
       MXGEMM_STATUS_INVALID_ARGUMENT, "kernel index out of range"},
      {"plan_workgroup_tile(not OK)",
       [&] {
         okPlan.status = MXGEMM_STATUS_NOT_ELIGIBLE;
         return mxgemm_plan_workgroup_tile(&okPlan, 0, &row, &col);
       },
       MXGEMM_STATUS_INVALID_ARGUMENT, "status is not MXGEMM_STATUS_OK"},
      {"device_alloc(0)", [&] { return mxgemm_device_alloc(ctx, 0, &ptr); },
       MXGEMM_STATUS_INVALID_ARGUMENT, "bytes is 0"},
      {"device_alloc(no HIP)",
       [&] { return mxgemm_device_alloc(ctx, 16, &ptr); },
       MXGEMM_STATUS_HIP_ERROR, "HIP unavailable"},
      {"device_free(no HIP)", [&] { return mxgemm_device_free(ctx, &bytes); },
       MXGEMM_STATUS_HIP_ERROR, "HIP unavailable"},
      {"copy_to_host(NULL)",
       [&] { return mxgemm_copy_to_host(ctx, nullptr, &bytes, 8); },
       MXGEMM_STATUS_INVALID_ARGUMENT, "dst or src is NULL"},
      {"memset(NULL)", [&] { return mxgemm_device_memset(ctx, nullptr, 0, 8); },
       MXGEMM_STATUS_INVALID_ARGUMENT, "ptr is NULL"},
      {"synchronize(no HIP)", [&] { return mxgemm_synchronize(ctx, nullptr); },
       MXGEMM_STATUS_HIP_ERROR, "HIP unavailable"},
      {"device_info(no HIP)",
       [&] { return mxgemm_device_info(ctx, nullptr, 0, nullptr, nullptr); },
       MXGEMM_STATUS_HIP_ERROR, "HIP unavailable"},
  };
  for (const Case &c : cases) {
    resetLastError();
    EXPECT_EQ(c.call(), c.status) << c.what;
    EXPECT_TRUE(contains(mxgemm_last_error(), c.message))
        << c.what << ": " << mxgemm_last_error();
  }
  // mxgemm_kernel_descriptor has no status: NULL and the last error.
  resetLastError();
  EXPECT_EQ(mxgemm_kernel_descriptor(mxgemm_kernel_count()), nullptr);
  EXPECT_STREQ(mxgemm_last_error(), "kernel index out of range");
  // A successful call leaves the last error as it was.
  resetLastError();
  mxgemm_kernel_info info;
  EXPECT_EQ(mxgemm_kernel_get(0, &info), MXGEMM_STATUS_OK);
  mxgemm_problem q = p;
  q.m = 100000;
  EXPECT_EQ(mxgemm_query(ctx, &q, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_TRUE(contains(mxgemm_last_error(), "M = 100000"))
      << mxgemm_last_error();
  EXPECT_EQ(mxgemm_kernel_get(0, &info), MXGEMM_STATUS_OK);
  EXPECT_TRUE(contains(mxgemm_last_error(), "M = 100000"))
      << mxgemm_last_error();
  EXPECT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
}

TEST(RuntimeLifecycle, MBeyondTheI32ArgumentIsNeverWrapped) {
  mxgemm_context *ctx = create();
  mxgemm_plan plan;
  // 2^31: a valid problem no kernel takes.
  mxgemm_problem p = tunedProblem(int64_t(1) << 31);
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_M_OUT_OF_RANGE);
  EXPECT_TRUE(contains(plan.message, "M = 2147483648 is outside"));
  EXPECT_TRUE(contains(plan.message, "no kernel takes M above 2147483647"))
      << plan.message;
  EXPECT_EQ(plan.grid_x, 0u);
  // 2^63 as a C caller (or ctypes) would pass it: INT64_MIN.
  p.m = INT64_MIN;
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, "(M = -9223372036854775808"))
      << plan.message;
  // The largest int64: its operand sizes overflow.
  p.m = INT64_MAX;
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, "size of X")) << plan.message;
  // K and N at the int64 limit: no overflow on the way to the message.
  p = tunedProblem();
  p.k = INT64_MAX;
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, "overflows")) << plan.message;
  p = tunedProblem();
  p.n = INT64_MAX;
  p.m = 1;
  EXPECT_EQ(mxgemm_query(ctx, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, "overflows")) << plan.message;
  EXPECT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
}

/// A plan as a binding could build it by hand (wq_b's grid at M = 8193).
mxgemm_plan handPlan() {
  mxgemm_plan plan{};
  plan.status = MXGEMM_STATUS_OK;
  plan.program_tile_m = 128;
  plan.tile_n = 256;
  plan.num_tiles_n = 64;
  plan.group_m = 8;
  plan.group_n = 4;
  plan.xcd_remap = 1;
  plan.grid_x = 65 * 64;
  return plan;
}

TEST(RuntimeLifecycle, CallerBuiltPlansAreChecked) {
  int64_t row = -1, col = -1;
  mxgemm_plan plan = handPlan();
  ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, plan.grid_x - 1, &row, &col),
            MXGEMM_STATUS_OK);
  EXPECT_GE(row, 0);
  // group_m = group_n = 0 used to divide by zero (SIGFPE).
  plan.group_m = plan.group_n = 0;
  resetLastError();
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(
      contains(mxgemm_last_error(), "plan: group_m must be in 1..65536"))
      << mxgemm_last_error();
  // grid_x < num_tiles_n: not a whole tile row (used to divide by zero).
  plan = handPlan();
  plan.grid_x = 3;
  resetLastError();
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(),
                       "grid_x (3) is not a positive multiple of num_tiles_n "
                       "(64)"))
      << mxgemm_last_error();
  // num_tiles_n = 0 and tile sizes of 0.
  plan = handPlan();
  plan.num_tiles_n = 0;
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "num_tiles_n must be in 1.."));
  plan = handPlan();
  plan.program_tile_m = 0;
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "program_tile_m and tile_n"));
  // More tile rows than any i32 M has.
  plan = handPlan();
  plan.program_tile_m = 4096;
  plan.num_tiles_n = 1;
  plan.grid_x = UINT32_MAX;
  resetLastError();
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "more than a kernel's i32 M"))
      << mxgemm_last_error();
  // The largest grid an i32 M has: its last workgroup (row-major order) is
  // the last tile row.
  plan.grid_x = (INT32_MAX + 4095u) / 4096u;
  plan.group_m = 1;
  plan.group_n = 0;
  plan.xcd_remap = 0;
  ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, plan.grid_x - 1, &row, &col),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  EXPECT_EQ(row, int64_t(plan.grid_x - 1) * 4096);
  // A workgroup past the grid.
  plan = handPlan();
  resetLastError();
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, plan.grid_x, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "is outside the plan's grid"))
      << mxgemm_last_error();
  // NULL outputs.
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 0, nullptr, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "must be non-NULL"));
}

// A tail split's plan: 256 whole tiles (W), 24 tail tiles (R) in two
// segments at W + j and W + j + R, reduced by workgroups j and j + R of the
// second launch.
mxgemm_plan tailSplitPlan() {
  mxgemm_plan plan{};
  plan.status = MXGEMM_STATUS_OK;
  plan.program_tile_m = 64;
  plan.tile_n = 128;
  plan.num_tiles_n = 4;
  plan.group_m = 1;
  plan.grid_x = 256 + 24 * 2;
  plan.grid_y = 1;
  plan.k_splits = 2;
  plan.tail_tiles = 24;
  plan.reduction_grid_x = 48;
  return plan;
}

// A tail split's plan (k_splits > 1 on a 1-D grid): grid_x is whole rounds
// of 256 tiles, then k_splits workgroups per tail tile; tail workgroup
// W + u runs tail tile W + u mod tail_tiles. 64x128 tiles, 4 tile columns,
// row-major order: 280 tiles for M = 4480, 256 whole and 24 in two segments.
TEST(RuntimeLifecycle, TailSplitPlansMapSegmentsToTheirTiles) {
  mxgemm_plan plan = tailSplitPlan();
  struct {
    uint32_t workgroup;
    int64_t row, col;
  } cases[] = {{0, 0, 0},          {255, 63 * 64, 3 * 128},
               {256, 64 * 64, 0},  {279, 69 * 64, 3 * 128},
               {280, 64 * 64, 0},  {303, 69 * 64, 3 * 128},
               {281, 64 * 64, 128}};
  for (const auto &c : cases) {
    int64_t row = -1, col = -1;
    ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, c.workgroup, &row, &col),
              MXGEMM_STATUS_OK)
        << c.workgroup << ": " << mxgemm_last_error();
    EXPECT_EQ(row, c.row) << c.workgroup;
    EXPECT_EQ(col, c.col) << c.workgroup;
  }
  int64_t row, col;
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, 304, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  // Whole tiles that are not whole rounds, more tail tiles than a round,
  // more split workgroups than the grid: refused, never divided by.
  for (auto edit : {+[](mxgemm_plan &p) { p.grid_x += 1; },
                    +[](mxgemm_plan &p) { p.tail_tiles = 300; },
                    +[](mxgemm_plan &p) { p.tail_tiles = 4000000000u; }}) {
    mxgemm_plan bad = plan;
    edit(bad);
    resetLastError();
    EXPECT_EQ(mxgemm_plan_workgroup_tile(&bad, 0, &row, &col),
              MXGEMM_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(mxgemm_last_error(), "whole rounds of 256"))
        << mxgemm_last_error();
  }
  // The second launch has a workgroup per tail tile and segment.
  mxgemm_plan reductions = plan;
  reductions.reduction_grid_x = 24;
  resetLastError();
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&reductions, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "is not tail_tiles x k_splits"))
      << mxgemm_last_error();
  // Without tail tiles the grid is the whole tiles alone.
  plan.grid_x = 256;
  plan.tail_tiles = 0;
  plan.reduction_grid_x = 0;
  ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, 255, &row, &col),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(row, 63 * 64);
}

std::vector<uint64_t> closure(std::vector<const mxgemm_plan *> plans,
                              std::vector<uint64_t> ids) {
  size_t count = 0;
  EXPECT_EQ(mxgemm_plan_workgroup_closure(plans.data(), plans.size(),
                                          ids.data(), ids.size(), nullptr, 0,
                                          &count),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  std::vector<uint64_t> out(count);
  EXPECT_EQ(mxgemm_plan_workgroup_closure(plans.data(), plans.size(),
                                          ids.data(), ids.size(), out.data(),
                                          out.size(), &count),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  return out;
}

// Each expected set is worked out by hand from the launch layout above.
TEST(RuntimeLifecycle, WorkgroupClosureCompletesTheTilesOfEveryLaunch) {
  const mxgemm_plan tail = tailSplitPlan();
  using Ids = std::vector<uint64_t>;
  // A whole tile below the reduction grid: workgroup 0 also reduces tail
  // tile 0 in the second launch, so tail tile 0's segments (256, 280) and
  // its other reduction (24, itself whole tile 24 in the first) join.
  EXPECT_EQ(closure({&tail}, {0}), (Ids{0, 24, 256, 280}));
  // A tail segment: tail tile (300 - 256) mod 24 = 20.
  EXPECT_EQ(closure({&tail}, {300}), (Ids{20, 44, 276, 300}));
  // A whole tile past the reduction grid runs alone.
  EXPECT_EQ(closure({&tail}, {100}), (Ids{100}));
  // A row split whose second kernel splits K over grid y (8 x 2, flat ids
  // x + 8 y): id 3 is tile 3 of both kernels; the second kernel's segment
  // 11 of tile 3 is also whole tile 11 of the first and reduces its tail
  // tile 11.
  mxgemm_plan split = tail;
  split.grid_x = 8;
  split.grid_y = 2;
  split.tail_tiles = 0;
  split.reduction_grid_x = 8;
  EXPECT_EQ(closure({&tail, &split}, {3}),
            (Ids{3, 11, 27, 35, 259, 267, 283, 291}));

  // Refusals: an id in no launch, a short buffer (count still written), no
  // or three plans, a plan that describes no grid.
  auto refused = [](const mxgemm_plan &plan, uint64_t workgroup,
                    const char *message) {
    const mxgemm_plan *plans[] = {&plan};
    uint64_t listed[4];
    size_t listedCount = 0;
    resetLastError();
    EXPECT_EQ(mxgemm_plan_workgroup_closure(plans, 1, &workgroup, 1, listed, 4,
                                            &listedCount),
              MXGEMM_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(mxgemm_last_error(), message)) << mxgemm_last_error();
  };
  refused(tail, 304, "is in no launch");
  const mxgemm_plan *one[] = {&tail};
  uint64_t id = 0, out[4];
  size_t count = 0;
  EXPECT_EQ(mxgemm_plan_workgroup_closure(one, 1, &id, 1, out, 3, &count),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(count, 4u);
  EXPECT_TRUE(contains(mxgemm_last_error(), "capacity (3)"))
      << mxgemm_last_error();
  mxgemm_plan bad = tail;
  bad.group_m = 0;
  refused(bad, 0, "plans[0]: ");
  // Each refusal of the arguments says what is wrong.
  const mxgemm_plan *three[] = {&tail, &tail, &tail};
  const mxgemm_plan *none[] = {nullptr};
  struct {
    const mxgemm_plan *const *plans;
    size_t numPlans;
    const uint64_t *ids;
    size_t numIds;
    uint64_t *listed;
    const char *message;
  } refusals[] = {{one, 0, &id, 1, out, "must be 1, or 2 for a row split"},
                  {three, 3, &id, 1, out, "must be 1, or 2 for a row split"},
                  {one, 1, &id, 0, out, "num_ids is 0"},
                  {one, 1, nullptr, 1, out, "must be non-NULL"},
                  {none, 1, &id, 1, out, "plans[0] is NULL"},
                  {one, 1, &id, 1, nullptr, "must be non-NULL"}};
  for (const auto &r : refusals) {
    resetLastError();
    EXPECT_EQ(mxgemm_plan_workgroup_closure(r.plans, r.numPlans, r.ids,
                                            r.numIds, r.listed, 4, &count),
              MXGEMM_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(mxgemm_last_error(), r.message))
        << mxgemm_last_error();
  }
  // A grid y that is not the K segments, or more segments than a kernel
  // has, would list up to 2^32 workgroups per tile: refused.
  for (auto edit : {+[](mxgemm_plan &p) { p.grid_y = 4000000000u; },
                    +[](mxgemm_plan &p) { p.grid_y = 3; },
                    +[](mxgemm_plan &p) { p.k_splits = p.grid_y = 65; }}) {
    mxgemm_plan wide = split;
    edit(wide);
    refused(wide, 0, "do not describe a grid");
  }
}

} // namespace
