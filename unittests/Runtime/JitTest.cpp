//===- JitTest.cpp - kernels compiled at run time -------------------------===//
//
// JIT on the emulator's HIP facade: four threads asking for the same
// untuned key at once get one kernel (one log line: one compile), a second
// context reuses the process's kernel, a GEMM through it is bit-exact, and
// a query with JIT off stays NOT_ELIGIBLE. test/Runtime/jit.test covers
// the cache across processes and the failure path.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"

#include <fstream>
#include <thread>

namespace {

using namespace mxgemm::testing;

TEST(Jit, OneKernelPerKeyHoweverManyThreadsAsk) {
  REQUIRE_FACADE();
  std::string dir =
      ::testing::TempDir() + "mxgemm-jit-" + std::to_string(::getpid());
  std::system(("rm -rf '" + dir + "'").c_str());
  ::setenv("MXGEMM_CACHE_DIR", (dir + "/cache").c_str(), 1);
  ::setenv("MXGEMM_LOG_UNTUNED", (dir + ".log").c_str(), 1);
  std::remove((dir + ".log").c_str());

  Context c;
  mxgemm_problem p;
  mxgemm_problem_init(&p, 5, 512, 512);
  mxgemm_plan off;
  // Generic kernels off: no kernel without JIT (and the log below holds
  // the JIT's line only).
  ASSERT_EQ(mxgemm_context_set_generic(c.ctx, 0), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_query(c.ctx, &p, &off), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(off.reason, MXGEMM_REASON_NO_TUNED_KERNEL);
  ASSERT_EQ(mxgemm_context_set_jit(c.ctx, 1), MXGEMM_STATUS_OK);

  mxgemm_plan plans[4];
  std::vector<std::thread> threads;
  for (mxgemm_plan &plan : plans)
    threads.emplace_back([&] { mxgemm_query(c.ctx, &p, &plan); });
  for (std::thread &t : threads)
    t.join();
  // The auto config may read W in MFMA panels: the first answer is then
  // PACKED_WEIGHTS, with the layout to pass.
  for (const mxgemm_plan &plan : plans) {
    ASSERT_TRUE(plan.status == MXGEMM_STATUS_OK ||
                plan.reason == MXGEMM_REASON_PACKED_WEIGHTS)
        << plan.message;
    EXPECT_EQ(plan.w_layout, plans[0].w_layout);
  }
  p.w_layout = plans[0].w_layout;
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_OK) << plan.message;
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_JIT);
  EXPECT_EQ(plan.m_max, 2147483647);
  EXPECT_EQ(std::string(plan.note).find("JIT kernel compiled in"), 0u)
      << plan.note;
  // Another context of the process: the same kernel, not compiled again.
  Context other;
  ASSERT_EQ(mxgemm_context_set_jit(other.ctx, 1), MXGEMM_STATUS_OK);
  mxgemm_plan again;
  ASSERT_EQ(mxgemm_query(other.ctx, &p, &again), MXGEMM_STATUS_OK)
      << again.message;
  EXPECT_STREQ(again.entry, plan.entry);

  std::ifstream log(dir + ".log");
  std::string line;
  int lines = 0;
  while (std::getline(log, line)) {
    ++lines;
    EXPECT_NE(line.find("n=512 k=512"), std::string::npos) << line;
  }
  EXPECT_EQ(lines, 1);

  // The kernel computes the right thing (all workgroups of M = 5).
  Problem prob(5, 512, 512, 3);
  runAndCheck(c.ctx, prob, {0, plan.grid_x - 1});

  ::unsetenv("MXGEMM_CACHE_DIR");
  ::unsetenv("MXGEMM_LOG_UNTUNED");
  std::system(("rm -rf '" + dir + "' '" + dir + ".log'").c_str());
}

} // namespace
