//===- RuntimeBench.cpp - cost of one dispatch decision -------------------===//
//
// ns per mxgemm_query and per mxgemm_gemm decision, after warm-up (HIP and
// the modules loaded on the first call, outside the timed loop). The gemm
// benchmark uses a dry-run context (mxgemm_context_options.dry_run): every
// argument check, eligibility rule, table lookup, grid computation and the
// kernel-argument packing run, and only hipModuleLaunchKernel is skipped,
// so the number is the shim's overhead excluding the launch itself. Runs on
// the emulator's HIP facade (MXGEMM_HIP_LIBRARY overrides its path); the
// benchmarks that need no device also run without it. Each benchmark is
// repeated and the median is the number to report.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

namespace {

mxgemm_context *makeContext(int dryRun) {
  const char *env = std::getenv("MXGEMM_HIP_LIBRARY");
  static std::string path = env && *env ? env : MXGEMM_HIP_FACADE_PATH;
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  o.hip_library = path.c_str();
  o.dry_run = dryRun;
  mxgemm_context *ctx = nullptr;
  mxgemm_context_create(&o, &ctx);
  return ctx;
}

void runQuery(benchmark::State &state, int64_t m, int64_t n, int64_t k,
              mxgemm_status expected) {
  mxgemm_context *ctx = makeContext(0);
  mxgemm_problem p;
  mxgemm_problem_init(&p, m, n, k);
  p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS; // the tuned kernels read packed W
  mxgemm_plan plan;
  if (mxgemm_query(ctx, &p, &plan) != expected) { // warm-up
    state.SkipWithError(plan.message);
    mxgemm_context_destroy(ctx);
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(&p);
    mxgemm_status s = mxgemm_query(ctx, &p, &plan);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  mxgemm_context_destroy(ctx);
}

void BM_QueryTuned(benchmark::State &state) {
  runQuery(state, 16384, 16384, 1280, MXGEMM_STATUS_OK);
}
void BM_QueryMOutOfRange(benchmark::State &state) {
  runQuery(state, 128, 16384, 1280, MXGEMM_STATUS_NOT_ELIGIBLE);
}
void BM_QueryNoKernel(benchmark::State &state) {
  runQuery(state, 16384, 4224, 1280, MXGEMM_STATUS_NOT_ELIGIBLE);
}

void BM_GemmDecisionDryRun(benchmark::State &state) {
  mxgemm_context *ctx = makeContext(1);
  mxgemm_problem p;
  mxgemm_problem_init(&p, 16384, 16384, 1280);
  p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS; // wq_b's kernel reads packed W
  // Plausible 16-byte aligned device addresses; never dereferenced.
  mxgemm_tensors t{reinterpret_cast<const void *>(0x10000),
                   reinterpret_cast<const void *>(0x20000),
                   reinterpret_cast<const void *>(0x30000),
                   reinterpret_cast<const void *>(0x40000),
                   reinterpret_cast<void *>(0x50000)};
  mxgemm_plan plan;
  if (mxgemm_gemm(ctx, &p, &t, nullptr, &plan) != MXGEMM_STATUS_OK) {
    state.SkipWithError(plan.message);
    mxgemm_context_destroy(ctx);
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(&t);
    mxgemm_status s = mxgemm_gemm(ctx, &p, &t, nullptr, nullptr);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  mxgemm_context_destroy(ctx);
}

} // namespace

BENCHMARK(BM_QueryTuned)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryMOutOfRange)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryNoKernel)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_GemmDecisionDryRun)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryTuned)
    ->Threads(2)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

BENCHMARK_MAIN();
