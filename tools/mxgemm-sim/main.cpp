//===- mxgemm-sim.cpp - predict a gfx950 code object's run time -----------===//
//
// Thin driver over the MXGemmSimulator library:
//   mxgemm-sim K.hsaco --m M [--sidecar K.hsaco.json] [--json] [--trace F]
//   mxgemm-sim K.hsaco --kernel NAME --grid X[,Y,Z] --block X[,Y,Z]
//       [--buf NAME=BYTES[:zero|iota|fill=V|rand=SEED]]...
//       [--arg buf:NAME[+OFF]|i32:V|i64:V]... [--lds BYTES] [--flops F]
// Options of the model: --full (time every round), --head N, --tail N,
// --xcd0-only, --exact-mfma, --clock GHZ, --set FIELD=VALUE (a TimingModel
// figure), --sensitivity (every ASSUMPTION at 0.5x and 1.5x).
// Without --sidecar, K.hsaco.json beside the code object is used when --m
// is given. Every figure printed is a prediction. Exit status: 0 done, 2
// usage, load or launch errors.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Simulator/GemmLaunch.h"
#include "mxgemm/Simulator/Simulator.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <random>

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

double parseDouble(StringRef s) {
  double v;
  if (s.getAsDouble(v))
    die("invalid number '" + s + "'");
  return v;
}

void parseDims(StringRef s, uint32_t out[3]) {
  SmallVector<StringRef, 3> parts;
  s.split(parts, ',');
  if (parts.size() > 3)
    die("too many dimensions in '" + s + "'");
  for (unsigned i = 0; i < 3; ++i)
    out[i] = i < parts.size() ? uint32_t(parseInt(parts[i])) : 1;
}

struct Buffer {
  uint64_t size = 0;
  std::string init;
  uint64_t address = 0;
};

} // namespace

int main(int argc, char **argv) {
  std::string path, sidecar, kernelName, traceFile;
  int64_t m = 0;
  bool json = false, haveGrid = false, printTable = false;
  sim::SimOptions options;
  sim::Launch raw;
  std::map<std::string, Buffer> bufs;
  std::vector<std::string> bufOrder, args;
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
                "--block X,Y,Z [--buf NAME=BYTES[:INIT]] "
                "[--arg buf:NAME[+OFF]|i32:V|i64:V] [--lds B] [--flops F]\n"
                "model: [--full] [--head N] [--tail N] [--xcd0-only] "
                "[--exact-mfma] [--clock GHZ] [--set FIELD=VALUE] "
                "[--sensitivity]\n"
                "       mxgemm-sim --print-timing-table [--set FIELD=VALUE]\n";
      return 0;
    }
    if (a == "--m")
      m = int64_t(parseInt(value()));
    else if (a == "--sidecar")
      sidecar = value().str();
    else if (a == "--json")
      json = true;
    else if (a == "--trace")
      options.traceFile = value().str();
    else if (a == "--kernel")
      kernelName = value().str();
    else if (a == "--grid") {
      parseDims(value(), raw.grid);
      haveGrid = true;
    } else if (a == "--block")
      parseDims(value(), raw.workgroup);
    else if (a == "--lds")
      raw.dynamicLdsBytes = uint32_t(parseInt(value()));
    else if (a == "--flops")
      raw.flops = parseDouble(value());
    else if (a == "--buf") {
      auto [name, rest] = value().split('=');
      auto [size, init] = rest.split(':');
      bufs[name.str()] = Buffer{parseInt(size), init.str()};
      bufOrder.push_back(name.str());
    } else if (a == "--arg")
      args.push_back(value().str());
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
  } else {
    if (!haveGrid)
      die("give --m with a sidecar, or --grid/--block/--arg");
    for (auto &name : bufOrder) {
      Buffer &b = bufs[name];
      b.address = memory.allocate(b.size);
      if (!b.address)
        die("cannot allocate buffer " + name);
      std::vector<uint8_t> data(b.size, 0);
      StringRef init = b.init;
      if (init == "iota") {
        for (uint64_t j = 0; j < b.size; ++j)
          data[j] = uint8_t(j);
      } else if (init.consume_front("fill=")) {
        uint32_t x = uint32_t(parseInt(init));
        for (uint64_t j = 0; j + 4 <= b.size; j += 4)
          std::memcpy(&data[j], &x, 4);
      } else if (init.consume_front("rand=")) {
        std::mt19937_64 rng(parseInt(init));
        for (auto &byte : data)
          byte = uint8_t(rng());
      } else if (!init.empty() && init != "zero") {
        die("unknown buffer initialiser '" + init + "'");
      }
      memory.copyToDevice(b.address, data.data(), data.size());
    }
    launch = raw;
    for (StringRef a : args) {
      auto [kind, v] = a.split(':');
      auto put = [&](const void *p, size_t n) {
        size_t off = (launch.kernargs.size() + n - 1) & ~(n - 1);
        launch.kernargs.resize(off + n);
        std::memcpy(launch.kernargs.data() + off, p, n);
      };
      if (kind == "buf") {
        auto [name, offset] = v.split('+');
        auto it = bufs.find(name.str());
        if (it == bufs.end())
          die("--arg names unknown buffer '" + name + "'");
        uint64_t addr =
            it->second.address + (offset.empty() ? 0 : parseInt(offset));
        put(&addr, 8);
      } else if (kind == "i32") {
        uint32_t x = uint32_t(parseInt(v));
        put(&x, 4);
      } else if (kind == "i64") {
        uint64_t x = parseInt(v);
        put(&x, 8);
      } else {
        die("unknown --arg kind '" + kind + "'");
      }
    }
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
  if (json)
    sim::printJson(outs(), *p);
  else
    sim::printReport(outs(), *p);
  return 0;
}
