//===- mxgemm-sim.cpp - predict a gfx950 code object's run time -----------===//
//
// Thin driver over the MXGemmSimulator library:
//   mxgemm-sim K.hsaco --m M [--sidecar K.hsaco.json] [--json] [--trace F]
//   mxgemm-sim K.hsaco --kernel NAME --grid X[,Y,Z] --block X[,Y,Z]
//       [--buf
//       NAME=BYTES[:zero|iota|iota32|fill=V|rand=SEED|randn-bf16=SEED|randn-f16=SEED|randn-f32=SEED]]...
//       [--arg buf:NAME[+OFF]|i32:V|i64:V|ptr:V]... [--lds BYTES] [--flops F]
// (the launch description of `mxgemm-emu run`, parsed by emu::LaunchSpec)
// Options of the model: --full (time every round), --head N, --tail N,
// --xcd0-only, --exact-mfma, --clock GHZ, --set FIELD=VALUE (a TimingModel
// figure), --sensitivity (every ASSUMPTION at 0.5x and 1.5x).
// Without --sidecar, K.hsaco.json beside the code object is used when --m
// is given. Every figure printed is a prediction. Exit status: 0 done, 2
// usage, load or launch errors.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Emulator/LaunchSpec.h"
#include "mxgemm/Simulator/GemmLaunch.h"
#include "mxgemm/Simulator/Simulator.h"
#include "mxgemm/Support/Tool.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>

using namespace llvm;
using namespace mxgemm;

namespace {

[[noreturn]] void die(const Twine &msg) {
  errs() << "mxgemm-sim: error: " << msg << "\n";
  std::exit(2);
}

uint64_t parseInt(StringRef s) {
  uint64_t v;
  if (s.getAsInteger(0, v))
    die("invalid integer '" + s + "'");
  return v;
}

template <typename T> T orDie(Expected<T> v) {
  if (!v)
    die(toString(v.takeError()));
  return std::move(*v);
}

void orDie(Error e) {
  if (e)
    die(toString(std::move(e)));
}

double parseDouble(StringRef s) {
  double v;
  if (s.getAsDouble(v))
    die("invalid number '" + s + "'");
  return v;
}

} // namespace

int main(int argc, char **argv) {
  std::string path, sidecar, kernelName, traceFile;
  int64_t m = 0;
  bool json = false, haveGrid = false, printTable = false;
  sim::SimOptions options;
  sim::Launch raw;
  emu::LaunchSpec spec;
  std::vector<std::pair<std::string, double>> sets;
  for (int i = 1; i < argc; ++i) {
    StringRef a = argv[i];
    auto value = [&]() -> StringRef {
      if (i + 1 >= argc)
        die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      outs() << "usage: mxgemm-sim K.hsaco --m M [--sidecar K.hsaco.json] "
                "[--json] [--trace FILE]\n"
                "       mxgemm-sim K.hsaco --kernel NAME --grid X,Y,Z "
                "--block X,Y,Z [--buf NAME=BYTES[:zero|iota|iota32|fill=V|"
                "randn-bf16|randn-f16|randn-f32=SEED|"
                "rand=SEED]] [--arg buf:NAME[+OFF]|i32:V|i64:V|ptr:V] "
                "[--lds B] [--flops F]\n"
                "model: [--full] [--head N] [--tail N] [--xcd0-only] "
                "[--exact-mfma] [--clock GHZ] [--set FIELD=VALUE] "
                "[--sensitivity]\n"
                "       mxgemm-sim --print-timing-table [--set FIELD=VALUE]\n";
      return 0;
    }
    if (a == "--version") {
      outs() << getVersionLine() << "\nLLVM " << LLVM_VERSION_STRING << "\n";
      return 0;
    }
    if (a == "--m")
      m = int64_t(orDie(emu::parseUnsignedValue(value(), INT32_MAX, "--m")));
    else if (a == "--sidecar")
      sidecar = value().str();
    else if (a == "--json")
      json = true;
    else if (a == "--trace")
      options.traceFile = value().str();
    else if (a == "--kernel")
      kernelName = value().str();
    else if (a == "--grid") {
      orDie(emu::parseDims(value(), raw.grid, "--grid"));
      haveGrid = true;
    } else if (a == "--block")
      orDie(emu::parseDims(value(), raw.workgroup, "--block"));
    else if (a == "--lds")
      raw.dynamicLdsBytes = uint32_t(
          orDie(emu::parseUnsignedValue(value(), UINT32_MAX, "--lds")));
    else if (a == "--flops")
      raw.flops = parseDouble(value());
    else if (a == "--buf")
      orDie(spec.addBuffer(value()));
    else if (a == "--arg")
      orDie(spec.addArgument(value()));
    else if (a == "--full")
      options.fullRounds = true;
    else if (a == "--head")
      options.headRounds = unsigned(parseInt(value()));
    else if (a == "--tail")
      options.tailRounds = unsigned(parseInt(value()));
    else if (a == "--xcd0-only")
      options.traceAllXcds = false;
    else if (a == "--exact-mfma")
      options.exactMfma = true;
    else if (a == "--clock")
      options.onlyClockHz = parseDouble(value()) * 1e9;
    else if (a == "--set") {
      auto [name, v] = value().split('=');
      sets.push_back({name.str(), parseDouble(v)});
    } else if (a == "--sensitivity")
      options.sensitivity = true;
    else if (a == "--print-timing-table")
      printTable = true;
    else if (!a.starts_with("-") && path.empty())
      path = a.str();
    else
      die("unknown option '" + a + "'");
  }
  target::TargetModel target = target::kGFX950;
  for (auto &[name, v] : sets) {
    bool found = false;
    for (const sim::TimingField &f : sim::timingFields())
      if (name == f.name) {
        f.set(target.timing, v);
        found = true;
      }
    if (!found)
      die("--set: no timing figure named '" + name + "'");
  }
  if (printTable) {
    sim::printTimingTable(outs(), target);
    return 0;
  }
  if (path.empty())
    die("missing code object (see --help)");
  auto co = emu::CodeObject::loadFile(path);
  if (!co)
    die(toString(co.takeError()));

  emu::DeviceMemory memory;
  sim::Launch launch;
  std::optional<contract::KernelDescriptor> gemm;
  if (m > 0) {
    if (sidecar.empty() && sys::fs::exists(path + ".json"))
      sidecar = path + ".json";
    if (sidecar.empty())
      die("--m needs a sidecar (--sidecar K.hsaco.json)");
    auto desc = sim::readGemmSidecar(sidecar);
    if (!desc)
      die(toString(desc.takeError()));
    if (kernelName.empty())
      kernelName = desc->kernel;
    auto l = sim::prepareGemmLaunch(*desc, m, memory);
    if (!l)
      die(toString(l.takeError()));
    launch = std::move(*l);
    gemm = std::move(*desc);
  } else {
    if (!haveGrid)
      die("give --m with a sidecar, or --grid/--block/--arg");
    // The buffers and arguments exactly as `mxgemm-emu run` lays them out.
    emu::LaunchConfig config;
    orDie(spec.prepare(memory, config));
    launch = raw;
    launch.kernargs = std::move(config.kernargs);
  }
  const emu::KernelInfo *kernel = nullptr;
  if (!kernelName.empty()) {
    kernel = (*co)->findKernel(kernelName);
    if (!kernel)
      die("no kernel named '" + kernelName + "' in the code object");
  } else if ((*co)->kernels().size() == 1) {
    kernel = &(*co)->kernels().front();
  } else {
    die("the code object has several kernels; choose one with --kernel");
  }

  auto p = sim::simulate(**co, *kernel, launch, memory, target, options);
  if (!p)
    die(toString(p.takeError()));
  // A split-K kernel's second launch adds the partials: simulated on its
  // own and reported with the sum, which is the kernel's time.
  std::optional<sim::Prediction> reduction;
  if (gemm) {
    auto second =
        sim::simulateSplitKReduction(**co, *kernel, *gemm, m, target, options);
    if (!second)
      die(toString(second.takeError()));
    reduction = std::move(*second);
  }
  // A GEMM's prediction comes with its problem's bounds at the same clocks
  // (sim::GemmBounds): the roofline sides and the latency floor.
  auto boundsAt = [&](double clockHz) -> std::optional<sim::GemmBounds> {
    if (!gemm || clockHz <= 0)
      return std::nullopt;
    return orDie(sim::gemmBounds(gemm->problem, m, target, clockHz));
  };
  std::optional<sim::GemmBounds> sustainedBounds =
      boundsAt(p->sustained.clockHz);
  std::optional<sim::GemmBounds> peakBounds = boundsAt(p->peak.clockHz);
  std::vector<std::pair<std::string, double>> boundFields;
  auto addBounds = [&](const std::optional<sim::GemmBounds> &b,
                       StringRef suffix) {
    if (!b)
      return;
    boundFields.push_back(
        {("memory_bound_us" + suffix).str(), b->memorySeconds * 1e6});
    boundFields.push_back(
        {("compute_bound_us" + suffix).str(), b->computeSeconds * 1e6});
    boundFields.push_back(
        {("latency_floor_us" + suffix).str(), b->latencyFloorSeconds * 1e6});
  };
  addBounds(sustainedBounds, "");
  addBounds(peakBounds, "_peak_clock");
  if (json && !reduction)
    sim::printJson(outs(), *p, boundFields);
  else if (!json)
    sim::printReport(outs(), *p);
  if (reduction) {
    const sim::Prediction &r = *reduction;
    const double phase0Seconds = p->sustained.seconds;
    sim::Prediction both = *p;
    sim::appendLaunch(both, r);
    if (json) {
      // One object: both launches' time and rates, with phase 0's time and
      // the reduction's own object beside them.
      std::string first, second;
      raw_string_ostream fs(first), ss(second);
      sim::printJson(fs, both, boundFields);
      sim::printJson(ss, r);
      Expected<json::Value> a = json::parse(first), b = json::parse(second);
      if (!a || !b || !a->getAsObject() || !b->getAsObject())
        die("internal error: the simulator's JSON does not parse");
      json::Object &o = *a->getAsObject();
      o["time_us_phase0"] = phase0Seconds * 1e6;
      o["split_k_reduction"] = std::move(*b);
      outs() << formatv("{0:2}", json::Value(std::move(o))) << "\n";
    } else {
      outs() << "split-K reduction launch (phase 1):\n";
      sim::printReport(outs(), r);
      outs() << formatv("  both launches    {0:f2} us, {1:f1} TFLOP/s, MFMA "
                        "utilisation {2:f3} (sustained clock)\n",
                        both.sustained.seconds * 1e6, both.sustained.tflops,
                        both.sustained.mfmaUtilisation);
    }
  }
  if (!json && sustainedBounds)
    outs() << formatv("  bounds           memory {0:f2} us, compute {1:f2} us, "
                      "latency floor {2:f2} us (sustained clock; no kernel "
                      "of this problem beats the floor in this model)\n",
                      sustainedBounds->memorySeconds * 1e6,
                      sustainedBounds->computeSeconds * 1e6,
                      sustainedBounds->latencyFloorSeconds * 1e6);
  return 0;
}
