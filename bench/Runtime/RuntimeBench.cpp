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

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// W in the layout the key's kernel reads (the database decides; the
/// query's cost does not depend on it).
void useKernelsWeightLayout(mxgemm_context *ctx, mxgemm_problem &p) {
  mxgemm_plan plan;
  if (mxgemm_query(ctx, &p, &plan) == MXGEMM_STATUS_NOT_ELIGIBLE &&
      plan.reason == MXGEMM_REASON_PACKED_WEIGHTS)
    p.w_layout = plan.w_layout;
}

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

/// `expected` status and plan kind; generic kernels on or off (the
/// not-eligible decisions exist only with them off).
void runQuery(benchmark::State &state, int64_t m, int64_t n, int64_t k,
              mxgemm_status expected, mxgemm_plan_kind kind, int generic) {
  mxgemm_context *ctx = makeContext(0);
  mxgemm_context_set_generic(ctx, generic);
  mxgemm_problem p;
  mxgemm_problem_init(&p, m, n, k);
  mxgemm_plan plan;
  useKernelsWeightLayout(ctx, p);
  if (mxgemm_query(ctx, &p, &plan) != expected ||
      plan.kind != kind) { // warm-up
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
  runQuery(state, 16384, 16384, 1280, MXGEMM_STATUS_OK,
           MXGEMM_PLAN_KIND_EMBEDDED, 1);
}
/// A key without a tuned kernel (M = 1, N = 2048, K = 4096): the embedded
/// search misses, then the generic kernels are scanned for formats and M.
void BM_QueryGeneric(benchmark::State &state) {
  runQuery(state, 1, 2048, 4096, MXGEMM_STATUS_OK, MXGEMM_PLAN_KIND_GENERIC, 1);
}
void BM_QueryMOutOfRange(benchmark::State &state) {
  runQuery(state, 70000, 16384, 1280, MXGEMM_STATUS_NOT_ELIGIBLE,
           MXGEMM_PLAN_KIND_NONE, 0);
}
void BM_QueryNoKernel(benchmark::State &state) {
  runQuery(state, 16384, 4224, 1280, MXGEMM_STATUS_NOT_ELIGIBLE,
           MXGEMM_PLAN_KIND_NONE, 0);
}

/// A directory in the layout `mxgemm-tune --export` writes, holding the
/// embedded fused_qkv kernel (W row-major) with the M range 1..16384 (the
/// embedded entry has 8193..16384); "" on failure.
std::string writeLibrary() {
  namespace contract = mxgemm::contract;
  std::string dir = "/tmp/mxgemm-bench-library-" + std::to_string(::getpid());
  std::system(("rm -rf '" + dir + "'").c_str());
  if (::mkdir(dir.c_str(), 0755) != 0 || ::chmod(dir.c_str(), 0755) != 0)
    return "";
  for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
    mxgemm_kernel_info info;
    if (mxgemm_kernel_get(i, &info) != MXGEMM_STATUS_OK ||
        std::strcmp(info.entry, "fused_qkv") != 0)
      continue;
    const void *code;
    size_t bytes;
    mxgemm_kernel_code_object(i, &code, &bytes);
    std::string descriptor = mxgemm_kernel_descriptor(i);
    contract::KernelDescriptor d;
    if (contract::KernelDescriptor::parse(descriptor, d))
      return "";
    contract::TuningDatabase db;
    contract::TuningEntry e;
    e.name = "fused_qkv";
    e.arch = "gfx950";
    e.problem = d.problem;
    e.config = d.config;
    e.mMin = 1;
    e.mMax = 16384;
    db.entries.push_back(e);
    std::string manifest =
        R"({"format": "mxgemm-tune-export", "version": 1, "database": "db.json",
  "kernels": [{"name": "fused_qkv", "kernel": "mxgemm_fused_qkv",
  "code_object": "k.hsaco", "descriptor": "k.hsaco.json", "sha256": ")" +
        contract::sha256Hex(code, bytes) +
        R"(", "m_range": [1, 16384], "n": 1792, "k": 5120, "config": ")" +
        contract::formatConfigBody(d.config) + R"("}]})";
    auto put = [&](const char *name, const void *data, size_t size) {
      std::ofstream(dir + "/" + name, std::ios::binary)
          .write(static_cast<const char *>(data), std::streamsize(size));
      ::chmod((dir + "/" + name).c_str(), 0644);
    };
    std::string dbText = db.toJson("bench");
    put("k.hsaco", code, bytes);
    put("k.hsaco.json", descriptor.data(), descriptor.size());
    put("db.json", dbText.data(), dbText.size());
    put("manifest.json", manifest.data(), manifest.size());
    return dir;
  }
  return "";
}

/// mxgemm_query served by an entry of a loaded directory (M = 300, which
/// the loaded entry covers ahead of the embedded fused_qkv_m257_1024: the
/// loaded set is searched first).
void BM_QueryLoadedLibrary(benchmark::State &state) {
  mxgemm_context *ctx = makeContext(0);
  std::string dir = writeLibrary();
  if (dir.empty() ||
      mxgemm_context_load_library(ctx, dir.c_str()) != MXGEMM_STATUS_OK) {
    state.SkipWithError(dir.empty() ? "cannot write the library directory"
                                    : mxgemm_last_error());
    mxgemm_context_destroy(ctx);
    return;
  }
  std::system(("rm -rf '" + dir + "'").c_str()); // loaded: no longer read
  mxgemm_problem p;
  mxgemm_problem_init(&p, 300, 1792, 5120);
  mxgemm_plan plan;
  if (mxgemm_query(ctx, &p, &plan) != MXGEMM_STATUS_OK ||
      plan.kind != MXGEMM_PLAN_KIND_LIBRARY) {
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

/// mxgemm_query served by a JIT kernel already in the context (the first
/// query, outside the timed loop, compiled it or loaded it from a
/// throw-away cache directory).
void BM_QueryJitHit(benchmark::State &state) {
  std::string cache = "/tmp/mxgemm-bench-cache-" + std::to_string(::getpid());
  ::setenv("MXGEMM_CACHE_DIR", cache.c_str(), 1);
  mxgemm_context *ctx = makeContext(0);
  mxgemm_context_set_jit(ctx, 1);
  mxgemm_problem p;
  mxgemm_problem_init(&p, 1, 2048, 4096);
  useKernelsWeightLayout(ctx, p);
  mxgemm_plan plan;
  mxgemm_status first = mxgemm_query(ctx, &p, &plan);
  std::system(("rm -rf '" + cache + "'").c_str());
  if (first != MXGEMM_STATUS_OK || plan.kind != MXGEMM_PLAN_KIND_JIT) {
    state.SkipWithError(plan.message);
    mxgemm_context_destroy(ctx);
    return;
  }
  state.SetLabel(plan.note); // the compile time of the first query
  for (auto _ : state) {
    benchmark::DoNotOptimize(&p);
    mxgemm_status s = mxgemm_query(ctx, &p, &plan);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  mxgemm_context_destroy(ctx);
}

void BM_GemmDecisionDryRun(benchmark::State &state) {
  mxgemm_context *ctx = makeContext(1);
  mxgemm_problem p;
  mxgemm_problem_init(&p, 16384, 16384, 1280);
  useKernelsWeightLayout(ctx, p);
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
BENCHMARK(BM_QueryGeneric)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryMOutOfRange)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryNoKernel)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryLoadedLibrary)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryJitHit)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_GemmDecisionDryRun)->Repetitions(9)->ReportAggregatesOnly(true);
BENCHMARK(BM_QueryTuned)
    ->Threads(2)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

BENCHMARK_MAIN();
