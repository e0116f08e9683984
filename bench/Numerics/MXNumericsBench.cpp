//===- MXNumericsBench.cpp - throughput of the exact MX step --------------===//
//
// Measures multiply-accumulates per second of mxStepAccumulate (one output
// element per call, as the emulator's per-element path does) and of
// mxMfmaTile (a whole 32x32x64 or 16x16x128 MFMA), for the project goal of
// >= 1e9 MACs/s per core. Data is random with a different scale per block,
// so the numbers include the realistic mix of fast and wide-path sums.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/MXNumerics.h"
#include "mxgemm/Numerics/Quantize.h"

#include "benchmark/benchmark.h"

#include <vector>

using namespace mxgemm::numerics;

namespace {

constexpr int kVariants = 64; // Distinct operand sets, cycled through.

void BM_StepAccumulate(benchmark::State &state) {
  auto fa = FP8Format(state.range(0)), fb = FP8Format(state.range(1));
  const int nb = int(state.range(2)), k = 32 * nb;
  std::mt19937_64 rng(1);
  std::vector<uint8_t> a(kVariants * k), b(kVariants * k), sa(kVariants * nb),
      sb(kVariants * nb);
  fillRandomFP8(rng, fa, a.data(), a.size());
  fillRandomFP8(rng, fb, b.data(), b.size());
  fillRandomScales(rng, sa.data(), sa.size());
  fillRandomScales(rng, sb.data(), sb.size());
  float acc = 0;
  int v = 0;
  for (auto _ : state) {
    acc = mxStepAccumulate(acc, &a[v * k], fa, &b[v * k], fb, &sa[v * nb],
                           &sb[v * nb], nb);
    v = (v + 1) % kVariants;
    benchmark::DoNotOptimize(acc);
  }
  state.counters["MACs/s"] = benchmark::Counter(double(state.iterations()) * k,
                                                benchmark::Counter::kIsRate);
}

void BM_MfmaTile(benchmark::State &state) {
  auto fa = FP8Format(state.range(0)), fb = FP8Format(state.range(1));
  const int nonK = int(state.range(2)), nb = nonK == 32 ? 2 : 4, k = 32 * nb;
  std::mt19937_64 rng(2);
  std::vector<uint8_t> a(nonK * k), b(nonK * k), sa(nonK * nb), sb(nonK * nb);
  fillRandomFP8(rng, fa, a.data(), a.size());
  fillRandomFP8(rng, fb, b.data(), b.size());
  fillRandomScales(rng, sa.data(), sa.size());
  fillRandomScales(rng, sb.data(), sb.size());
  std::vector<float> acc(nonK * nonK, 0.0f);
  for (auto _ : state) {
    mxMfmaTile(acc.data(), nonK, nonK, nonK, a.data(), k, fa, b.data(), k, fb,
               sa.data(), nb, sb.data(), nb, nb);
    benchmark::DoNotOptimize(acc.data());
  }
  state.counters["MACs/s"] =
      benchmark::Counter(double(state.iterations()) * nonK * nonK * k,
                         benchmark::Counter::kIsRate);
}

} // namespace

// Args: formatA, formatB (0 = E4M3, 1 = E5M2), numBlocks.
BENCHMARK(BM_StepAccumulate)
    ->ArgNames({"fa", "fb", "blocks"})
    ->Args({0, 0, 2})
    ->Args({0, 0, 4})
    ->Args({1, 1, 2})
    ->Args({1, 1, 4})
    ->Args({0, 1, 4});
// Args: formatA, formatB, non-K size (32 = 32x32x64, 16 = 16x16x128).
BENCHMARK(BM_MfmaTile)
    ->ArgNames({"fa", "fb", "nonK"})
    ->Args({0, 0, 32})
    ->Args({0, 0, 16})
    ->Args({1, 1, 32})
    ->Args({1, 1, 16});

BENCHMARK_MAIN();
