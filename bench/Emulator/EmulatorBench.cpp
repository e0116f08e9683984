//===- EmulatorBench.cpp - emulator throughput on compiled kernels --------===//
//
// Runs mxgemm-compile kernels (N = 256, K = 1280 - the K of the wq_b family -
// M = 256: four 128x128 workgroups, 84M MACs per launch) on the emulator and
// reports MFMA multiply-accumulates per second, on one thread and on all
// cores, with the checkers on and off. Prints numbers; asserts nothing.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Numerics/Quantize.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>

using namespace mxgemm;

namespace {

struct CompiledGemm {
  std::unique_ptr<emu::CodeObject> object;
  const emu::KernelInfo *kernel = nullptr;
  emu::DeviceMemory memory;
  emu::LaunchConfig config;
  std::string error;
};

/// Loads `bench_<shape>.hsaco` and its sidecar and prepares an M x 256 x 1280
/// problem with random MX data (a different scale per block).
CompiledGemm &setup(const std::string &shape) {
  static std::map<std::string, std::unique_ptr<CompiledGemm>> cache;
  auto &slot = cache[shape];
  if (slot)
    return *slot;
  slot = std::make_unique<CompiledGemm>();
  CompiledGemm &g = *slot;
  std::string path =
      std::string(MXGEMM_BENCH_KERNEL_DIR) + "/bench_" + shape + ".hsaco";
  auto object = emu::CodeObject::loadFile(path);
  if (!object) {
    g.error = llvm::toString(object.takeError());
    return g;
  }
  g.object = std::move(*object);
  g.kernel = &g.object->kernels().front();
  auto text = llvm::MemoryBuffer::getFile(path + ".json");
  auto json = text ? llvm::json::parse((*text)->getBuffer())
                   : llvm::Expected<llvm::json::Value>(llvm::createStringError(
                         llvm::inconvertibleErrorCode(), "no sidecar"));
  if (!json) {
    g.error = llvm::toString(json.takeError());
    return g;
  }
  const llvm::json::Object *grid = json->getAsObject()->getObject("grid");
  int64_t tileM = *grid->getInteger("program_tile_m");
  int64_t tilesN = *grid->getInteger("num_tiles_n");
  const int64_t m = 256, n = 256, k = 1280;
  auto x = numerics::randomMXMatrix(1, m, k, numerics::FP8Format::E4M3);
  auto w = numerics::randomMXMatrix(2, n, k, numerics::FP8Format::E4M3,
                                    numerics::ScaleGranularity::Block32x32);
  uint64_t args[5] = {
      g.memory.allocate(x.data.size()), g.memory.allocate(x.scales.size()),
      g.memory.allocate(w.data.size()), g.memory.allocate(w.scales.size()),
      g.memory.allocate(size_t(m) * n * 2)};
  g.memory.copyToDevice(args[0], x.data.data(), x.data.size());
  g.memory.copyToDevice(args[1], x.scales.data(), x.scales.size());
  g.memory.copyToDevice(args[2], w.data.data(), w.data.size());
  g.memory.copyToDevice(args[3], w.scales.data(), w.scales.size());
  g.config.kernargs.resize(44);
  std::memcpy(g.config.kernargs.data(), args, sizeof(args));
  uint32_t m32 = uint32_t(m);
  std::memcpy(g.config.kernargs.data() + 40, &m32, 4);
  g.config.grid[0] = uint32_t(((m + tileM - 1) / tileM) * tilesN);
  g.config.workgroup[0] = uint32_t(*grid->getInteger("workgroup_size"));
  return g;
}

void runGemm(benchmark::State &state, const std::string &shape) {
  CompiledGemm &g = setup(shape);
  if (!g.error.empty()) {
    state.SkipWithError(g.error.c_str());
    return;
  }
  emu::LaunchConfig config = g.config;
  config.threads = unsigned(state.range(0));
  config.checks = state.range(1) != 0;
  uint64_t macs = 0;
  for (auto _ : state) {
    auto r = emu::launch(*g.object, *g.kernel, config, g.memory);
    if (!r) {
      state.SkipWithError(llvm::toString(r.takeError()).c_str());
      return;
    }
    macs += r->stats.mfmaMacs;
  }
  state.counters["MACs/s"] =
      benchmark::Counter(double(macs), benchmark::Counter::kIsRate);
}

void BM_CompiledGemm32x32x64(benchmark::State &state) {
  runGemm(state, "m32n32k64");
}
void BM_CompiledGemm16x16x128(benchmark::State &state) {
  runGemm(state, "m16n16k128");
}

// Args: {threads (0 = all cores), checks on}.
BENCHMARK(BM_CompiledGemm32x32x64)
    ->ArgNames({"threads", "checks"})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({0, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CompiledGemm16x16x128)
    ->ArgNames({"threads", "checks"})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({0, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
