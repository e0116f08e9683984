//===- mxgemm-emu.cpp - run gfx950 code objects on the emulator -----------===//
//
// Thin driver over the MXGemmEmulator library. Three modes:
//   mxgemm-emu dump K.hsaco
//   mxgemm-emu run K.hsaco [--kernel NAME] [--grid X[,Y,Z]] [--block X[,Y,Z]]
//       [--buf NAME=BYTES[:INIT]]... [--arg buf:NAME|i32:V|i64:V]...
//       [--print NAME:u8|u16|u32|i32|f32|bf16[:COUNT]]... [--lds BYTES]
//       [--workgroups a,b,c] [--no-checks] [--stats]
//   mxgemm-emu [gemm] K.hsaco --sidecar K.json --m M [--seed S]
//       [--sample N | --workgroups a,b,c] [--stats] ...
// The GEMM mode runs the kernel as its kernel descriptor says on random MX
// data with a different scale per block and compares Y with the CPU
// reference bit for bit on every output the kernel wrote (Emulator/GemmRun.h).
// Exit status: 0 clean, 1 findings or mismatches, 2 usage or load errors.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Emulator/GemmRun.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <random>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::emu;
namespace contract = mxgemm::contract;

namespace {

[[noreturn]] void die(const Twine &msg) {
  errs() << "mxgemm-emu: error: " << msg << "\n";
  std::exit(2);
}

uint64_t parseInt(StringRef s) {
  uint64_t v;
  if (s.getAsInteger(0, v)) {
    int64_t sv;
    if (s.getAsInteger(0, sv))
      die("invalid integer '" + s + "'");
    return uint64_t(sv);
  }
  return v;
}

/// A count or size: an unsigned integer (decimal or 0x...) of at most
/// `max`. A sign, junk or a value out of range is a usage error, never a
/// wrapped or truncated value.
uint64_t parseUnsigned(StringRef s, uint64_t max, const Twine &what) {
  uint64_t v;
  if (s.trim().getAsInteger(0, v) || v > max)
    die("invalid " + what + " '" + s + "': expected an integer from 0 to " +
        Twine(max));
  return v;
}

/// A value of `bits` bits, signed or unsigned (-1 and 0xffffffff are the
/// same i32).
uint64_t parseValue(StringRef s, unsigned bits, const Twine &what) {
  uint64_t u;
  int64_t v;
  uint64_t umax = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
  int64_t smin = bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
  if (!s.trim().getAsInteger(0, u) && u <= umax)
    return u;
  if (!s.trim().getAsInteger(0, v) && v >= smin && v < 0)
    return uint64_t(v) & umax;
  die("invalid " + what + " '" + s + "': not a " + Twine(bits) +
      "-bit integer");
}

void parseDims(StringRef s, uint32_t out[3], StringRef option) {
  SmallVector<StringRef, 3> parts;
  s.split(parts, ',');
  if (parts.size() > 3)
    die("too many dimensions in '" + s + "'");
  for (unsigned i = 0; i < 3; ++i)
    out[i] = i < parts.size()
                 ? uint32_t(parseUnsigned(parts[i], UINT32_MAX, option))
                 : 1;
}

std::vector<uint64_t> parseList(StringRef s, StringRef option) {
  SmallVector<StringRef, 8> parts;
  s.split(parts, ',', -1, false);
  std::vector<uint64_t> out;
  for (StringRef p : parts)
    out.push_back(parseUnsigned(p, UINT64_MAX, option));
  return out;
}

struct Common {
  std::string path, kernel;
  LaunchConfig config;
  bool stats = false;
  std::string statsJson; // --stats-json FILE ("-" = stdout)
  bool haveGrid = false;
};

/// Options shared by run and gemm; true if consumed.
bool parseCommon(Common &c, int &i, int argc, char **argv) {
  StringRef a = argv[i];
  auto value = [&]() -> StringRef {
    if (i + 1 >= argc)
      die("missing value for " + a);
    return argv[++i];
  };
  if (a == "--kernel")
    c.kernel = value().str();
  else if (a == "--grid") {
    parseDims(value(), c.config.grid, a);
    c.haveGrid = true;
  } else if (a == "--block")
    parseDims(value(), c.config.workgroup, a);
  else if (a == "--workgroups")
    c.config.workgroupsToRun = parseList(value(), a);
  else if (a == "--no-checks")
    c.config.checks = false;
  else if (a == "--stats")
    c.stats = true;
  else if (a == "--stats-json")
    c.statsJson = value().str();
  else if (a == "--threads")
    c.config.threads = unsigned(parseUnsigned(value(), UINT32_MAX, a));
  else if (a == "--lds")
    c.config.dynamicLdsBytes = uint32_t(parseUnsigned(value(), UINT32_MAX, a));
  else if (a == "--quantum")
    c.config.quantum = unsigned(parseUnsigned(value(), UINT32_MAX, a));
  else
    return false;
  return true;
}

const KernelInfo &pickKernel(const CodeObject &co, const std::string &name) {
  if (!name.empty()) {
    if (const KernelInfo *k = co.findKernel(name))
      return *k;
    die("no kernel named '" + name + "' in the code object");
  }
  if (co.kernels().size() != 1)
    die("the code object has several kernels; choose one with --kernel");
  return co.kernels().front();
}

std::unique_ptr<CodeObject> loadOrDie(const std::string &path) {
  auto co = CodeObject::loadFile(path);
  if (!co)
    die(toString(co.takeError()));
  return std::move(*co);
}

/// Print findings and stats; returns the exit status contribution.
int report(const LaunchResult &r, const Common &c) {
  for (const Finding &f : r.findings)
    printFinding(errs(), f);
  if (r.totalFindings > r.findings.size())
    errs() << "note: " << (r.totalFindings - r.findings.size())
           << " more findings not shown\n";
  if (c.stats)
    r.stats.print(outs());
  if (!c.statsJson.empty()) {
    if (c.statsJson == "-") {
      r.stats.printJson(outs());
    } else {
      std::error_code ec;
      raw_fd_ostream os(c.statsJson, ec);
      if (ec)
        die("cannot write " + c.statsJson + ": " + ec.message());
      r.stats.printJson(os);
    }
  }
  return r.totalFindings ? 1 : 0;
}

int runMode(int argc, char **argv) {
  Common c;
  struct Buf {
    uint64_t size;
    std::string init;
    uint64_t address = 0;
  };
  std::map<std::string, Buf> bufs;
  std::vector<std::string> bufOrder, args, prints;
  for (int i = 2; i < argc; ++i) {
    StringRef a = argv[i];
    if (parseCommon(c, i, argc, argv))
      continue;
    if ((a == "--buf" || a == "--arg" || a == "--print") && i + 1 < argc) {
      StringRef v = argv[++i];
      if (a == "--buf") {
        auto [name, rest] = v.split('=');
        auto [size, init] = rest.split(':');
        if (name.empty() || bufs.count(name.str()))
          die("--buf needs a new buffer name: '" + v + "'");
        bufs[name.str()] =
            Buf{parseUnsigned(size, UINT64_MAX, "--buf size"), init.str()};
        bufOrder.push_back(name.str());
      } else if (a == "--arg") {
        args.push_back(v.str());
      } else {
        prints.push_back(v.str());
      }
    } else if (!a.starts_with("-") && c.path.empty()) {
      c.path = a.str();
    } else {
      die("unknown option '" + a + "'");
    }
  }
  if (c.path.empty())
    die("run: missing code object");
  auto co = loadOrDie(c.path);
  const KernelInfo &k = pickKernel(*co, c.kernel);
  DeviceMemory mem;
  for (auto &name : bufOrder) {
    Buf &b = bufs[name];
    // Zeroed device memory, initialised in place (no host copy of it).
    b.address = b.size ? mem.allocate(b.size) : 0;
    if (b.size && !b.address)
      die("cannot allocate " + Twine(b.size) + " bytes for buffer '" + name +
          "'");
    uint8_t *data = b.size ? mem.translate(b.address, b.size) : nullptr;
    StringRef init = b.init;
    if (init == "iota") {
      for (uint64_t j = 0; j < b.size; ++j)
        data[j] = uint8_t(j);
    } else if (init == "iota32") {
      for (uint64_t j = 0; j + 4 <= b.size; j += 4) {
        uint32_t x = uint32_t(j / 4);
        std::memcpy(&data[j], &x, 4);
      }
    } else if (init.consume_front("fill=")) {
      uint32_t x = uint32_t(parseValue(init, 32, "fill value"));
      for (uint64_t j = 0; j + 4 <= b.size; j += 4)
        std::memcpy(&data[j], &x, 4);
    } else if (init.consume_front("rand=")) {
      std::mt19937_64 rng(parseValue(init, 64, "seed"));
      for (uint64_t j = 0; j < b.size; ++j)
        data[j] = uint8_t(rng());
    } else if (!init.empty() && init != "zero") {
      die("unknown buffer initialiser '" + init + "'");
    }
  }
  for (StringRef a : args) {
    auto [kind, v] = a.split(':');
    auto put = [&](const void *p, size_t n) {
      size_t align = n;
      size_t off = (c.config.kernargs.size() + align - 1) & ~(align - 1);
      c.config.kernargs.resize(off + n);
      std::memcpy(c.config.kernargs.data() + off, p, n);
    };
    if (kind == "buf") {
      auto [name, offset] = v.split('+');
      auto it = bufs.find(name.str());
      if (it == bufs.end())
        die("--arg names unknown buffer '" + name + "'");
      uint64_t addr;
      if (__builtin_add_overflow(
              it->second.address,
              offset.empty() ? 0 : parseUnsigned(offset, UINT64_MAX, "offset"),
              &addr))
        die("--arg " + a + ": the address overflows");
      put(&addr, 8);
    } else if (kind == "i32") {
      uint32_t x = uint32_t(parseValue(v, 32, "--arg i32"));
      put(&x, 4);
    } else if (kind == "i64" || kind == "ptr") {
      uint64_t x = parseValue(v, 64, "--arg " + kind);
      put(&x, 8);
    } else {
      die("unknown --arg kind '" + kind + "'");
    }
  }
  auto result = launch(*co, k, c.config, mem);
  if (!result) {
    errs() << "mxgemm-emu: error: " << toString(result.takeError()) << "\n";
    return 2;
  }
  for (StringRef p : prints) {
    SmallVector<StringRef, 3> parts;
    p.split(parts, ':');
    auto it = bufs.find(parts[0].str());
    if (it == bufs.end())
      die("--print names unknown buffer '" + parts[0] + "'");
    StringRef type = parts.size() > 1 ? parts[1] : "u32";
    if (!is_contained({"u8", "u16", "u32", "i32", "f32", "bf16"}, type))
      die("--print: unknown type '" + type + "'");
    unsigned size = type == "u8"                        ? 1
                    : (type == "u16" || type == "bf16") ? 2
                                                        : 4;
    uint64_t count = parts.size() > 2
                         ? parseUnsigned(parts[2], UINT64_MAX, "--print count")
                         : it->second.size / size;
    count = std::min<uint64_t>(count, it->second.size / size);
    const uint8_t *data =
        it->second.size ? mem.translate(it->second.address, it->second.size)
                        : nullptr;
    outs() << parts[0] << ":";
    for (uint64_t j = 0; j < count; ++j) {
      uint32_t x = 0;
      std::memcpy(&x, &data[j * size], size);
      if (type == "f32")
        outs() << " " << format("%g", double(numerics::bf16ToFp32(0) + [&] {
                                  float f;
                                  std::memcpy(&f, &x, 4);
                                  return f;
                                }()));
      else if (type == "bf16")
        outs() << " "
               << format("%g", double(numerics::bf16ToFp32(uint16_t(x))));
      else if (type == "i32")
        outs() << " " << int32_t(x);
      else
        outs() << " " << x;
    }
    outs() << "\n";
  }
  return report(*result, c);
}

/// The kernel descriptor (`<kernel>.hsaco.json`) of a compiled kernel.
contract::KernelDescriptor readDescriptor(StringRef path) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    die("cannot read kernel descriptor '" + path + "'");
  contract::KernelDescriptor d;
  if (auto error =
          contract::KernelDescriptor::parse((*buf)->getBuffer().str(), d))
    die(path + ": " + *error);
  return d;
}

int gemmMode(int argc, char **argv, int first) {
  Common c;
  GemmRunOptions options;
  std::string descriptorPath;
  for (int i = first; i < argc; ++i) {
    StringRef a = argv[i];
    if (parseCommon(c, i, argc, argv))
      continue;
    auto value = [&]() -> StringRef {
      if (i + 1 >= argc)
        die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--m")
      options.m = int64_t(parseInt(value()));
    else if (a == "--seed")
      options.seed = parseInt(value());
    else if (a == "--sample")
      options.sample = parseInt(value());
    else if (a == "--sidecar")
      descriptorPath = value().str();
    else if (a == "--w-block32")
      options.dataWScale = numerics::ScaleGranularity::Block32x32;
    else if (a == "--w-per-row")
      options.dataWScale = numerics::ScaleGranularity::PerRow;
    else if (!a.starts_with("-") && c.path.empty())
      c.path = a.str();
    else
      die("unknown option '" + a + "'");
  }
  if (c.path.empty() || descriptorPath.empty() || options.m <= 0)
    die("gemm: need a code object, --sidecar K.json and --m M > 0");
  contract::KernelDescriptor d = readDescriptor(descriptorPath);
  auto co = loadOrDie(c.path);
  options.workgroups = c.config.workgroupsToRun;
  options.launch = c.config;
  auto run = runGemm(*co, d, options);
  if (!run) {
    errs() << "mxgemm-emu: error: " << toString(run.takeError()) << "\n";
    return 2;
  }
  if (run->packedWeights)
    outs() << "W packed in MFMA panels of " << d.mfma.nonK << " rows\n";
  for (const numerics::GemmMismatch &mm : run->check.first)
    errs() << "mismatch at Y[" << mm.row << "][" << mm.col << "]: got 0x"
           << utohexstr(mm.got) << ", expected 0x" << utohexstr(mm.expected)
           << "\n";
  int status = report(run->launch, c);
  const numerics::GemmCheckResult &check = run->check;
  outs() << "compared " << check.compared << " outputs, " << check.mismatches
         << " mismatches";
  if (check.unwritten)
    outs() << ", " << check.unwritten << " not written";
  outs() << "\n";
  if (run->sampled)
    outs() << "sampled " << run->launch.stats.workgroupsRun << " of "
           << run->gridSize << " workgroups, M edge "
           << (check.lastRowWritten ? "covered" : "NOT covered") << "\n";
  if (!run->sampled && check.unwritten) {
    errs() << "error: the full run left " << check.unwritten
           << " outputs unwritten\n";
    status = 1;
  }
  return check.mismatches ? 1 : status;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || StringRef(argv[1]) == "--help") {
    outs() << "usage: mxgemm-emu dump K.hsaco\n"
              "       mxgemm-emu run K.hsaco [--kernel N] [--grid X,Y,Z] "
              "[--block X,Y,Z] [--buf NAME=BYTES[:zero|iota|iota32|fill=V|"
              "rand=SEED]] [--arg buf:NAME[+OFF]|i32:V|i64:V] "
              "[--print NAME:u8|u16|u32|i32|f32|bf16[:COUNT]] [--lds BYTES] "
              "[--workgroups a,b] [--no-checks] [--stats] [--stats-json FILE]\n"
              "       mxgemm-emu [gemm] K.hsaco --sidecar K.json --m M "
              "[--seed S] [--sample N | --workgroups a,b,c] [--stats] "
              "[--stats-json FILE] [--w-per-row | --w-block32]\n";
    return argc < 2 ? 2 : 0;
  }
  StringRef mode = argv[1];
  if (mode == "dump") {
    if (argc != 3)
      die("dump: expected one code object");
    outs() << loadOrDie(argv[2])->dump();
    return 0;
  }
  if (mode == "run")
    return runMode(argc, argv);
  if (mode == "gemm")
    return gemmMode(argc, argv, 2);
  return gemmMode(argc, argv, 1);
}
