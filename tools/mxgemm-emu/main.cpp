//===- mxgemm-emu.cpp - run gfx950 code objects on the emulator -----------===//
//
// Thin driver over the MXGemmEmulator library. Three modes:
//   mxgemm-emu dump K.hsaco
//   mxgemm-emu run K.hsaco [--kernel NAME] [--grid X[,Y,Z]] [--block X[,Y,Z]]
//       [--buf NAME=BYTES[:INIT]]... [--arg buf:NAME|i32:V|i64:V]...
//       [--print NAME:u8|u16|u32|i32|f32|bf16[:COUNT]]... [--lds BYTES]
//       [--workgroups a,b,c] [--no-checks] [--stats]
//   mxgemm-emu [gemm] K.hsaco --m M [--n N --k K] [--sidecar K.json]
//       [--seed S] [--sample N | --workgroups a,b,c] [--stats] ...
// The GEMM mode generates random MX data with a different scale per block,
// runs the kernel with the DESIGN.md section 4 ABI and compares Y with the
// CPU reference bit for bit on every output the kernel wrote.
// Exit status: 0 clean, 1 findings or mismatches, 2 usage or load errors.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Numerics/Quantize.h"
#include "mxgemm/Numerics/Reference.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "mxgemm/Support/TileGrouping.h"
#include "mxgemm/Support/WeightPanels.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <random>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::emu;

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

void parseDims(StringRef s, uint32_t out[3]) {
  SmallVector<StringRef, 3> parts;
  s.split(parts, ',');
  if (parts.size() > 3)
    die("too many dimensions in '" + s + "'");
  for (unsigned i = 0; i < 3; ++i)
    out[i] = i < parts.size() ? uint32_t(parseInt(parts[i])) : 1;
}

std::vector<uint64_t> parseList(StringRef s) {
  SmallVector<StringRef, 8> parts;
  s.split(parts, ',', -1, false);
  std::vector<uint64_t> out;
  for (StringRef p : parts)
    out.push_back(parseInt(p));
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
    parseDims(value(), c.config.grid);
    c.haveGrid = true;
  } else if (a == "--block")
    parseDims(value(), c.config.workgroup);
  else if (a == "--workgroups")
    c.config.workgroupsToRun = parseList(value());
  else if (a == "--no-checks")
    c.config.checks = false;
  else if (a == "--stats")
    c.stats = true;
  else if (a == "--stats-json")
    c.statsJson = value().str();
  else if (a == "--threads")
    c.config.threads = unsigned(parseInt(value()));
  else if (a == "--lds")
    c.config.dynamicLdsBytes = uint32_t(parseInt(value()));
  else if (a == "--quantum")
    c.config.quantum = unsigned(parseInt(value()));
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
        bufs[name.str()] = Buf{parseInt(size), init.str()};
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
    b.address = mem.allocate(b.size);
    std::vector<uint8_t> data(b.size, 0);
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
    mem.copyToDevice(b.address, data.data(), data.size());
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
      uint64_t addr =
          it->second.address + (offset.empty() ? 0 : parseInt(offset));
      put(&addr, 8);
    } else if (kind == "i32") {
      uint32_t x = uint32_t(parseInt(v));
      put(&x, 4);
    } else if (kind == "i64" || kind == "ptr") {
      uint64_t x = parseInt(v);
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
    unsigned size = type == "u8"                        ? 1
                    : (type == "u16" || type == "bf16") ? 2
                                                        : 4;
    uint64_t count =
        parts.size() > 2 ? parseInt(parts[2]) : it->second.size / size;
    std::vector<uint8_t> data(it->second.size);
    mem.copyFromDevice(data.data(), it->second.address, data.size());
    outs() << parts[0] << ":";
    for (uint64_t j = 0; j < count && (j + 1) * size <= data.size(); ++j) {
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

/// What the compiler's JSON sidecar (`<kernel>.hsaco.json`) says about a
/// kernel. Schema: `kernel`, `config` (the #mxgemm.config text),
/// `problem {n, k, x_format, w_format, w_scale, out_type}`, `arguments [{name,
/// kind, offset, size}]`, `grid {workgroup_size, program_tile_m, tile_n,
/// num_tiles_n, grid_x}`, `lds_bytes`, `resources`.
struct Sidecar {
  std::string kernel, config;
  int64_t n = 0, k = 0;
  numerics::FP8Format xf = numerics::FP8Format::E4M3,
                      wf = numerics::FP8Format::E4M3;
  numerics::ScaleGranularity wg = numerics::ScaleGranularity::Block32x32;
  bool f32Out = false;
  int64_t workgroupSize = 0, programTileM = 0, tileN = 0, numTilesN = 0;
  /// Argument name -> (offset, size).
  std::map<std::string, std::pair<uint32_t, uint32_t>> args;
  /// Fields of the config text (`group_m = 4` -> {"group_m", "4"}).
  std::map<std::string, std::string> configFields;
};

Sidecar readSidecar(StringRef path) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    die("cannot read sidecar '" + path + "'");
  auto j = json::parse((*buf)->getBuffer());
  if (!j)
    die("sidecar '" + path + "': " + toString(j.takeError()));
  const json::Object *root = j->getAsObject();
  if (!root)
    die("sidecar '" + path + "': not a JSON object");
  Sidecar sc;
  auto need = [&](const json::Object *o, StringRef obj,
                  StringRef key) -> const json::Value & {
    const json::Value *v = o ? o->get(key) : nullptr;
    if (!v)
      die("sidecar '" + path + "': missing " + obj + key);
    return *v;
  };
  auto integer = [&](const json::Object *o, StringRef obj, StringRef key) {
    auto x = need(o, obj, key).getAsInteger();
    if (!x)
      die("sidecar '" + path + "': " + obj + key + " is not an integer");
    return *x;
  };
  auto string = [&](const json::Object *o, StringRef obj, StringRef key) {
    auto x = need(o, obj, key).getAsString();
    if (!x)
      die("sidecar '" + path + "': " + obj + key + " is not a string");
    return x->str();
  };
  sc.kernel = string(root, "", "kernel");
  if (root->get("config"))
    sc.config = string(root, "", "config");
  const json::Object *problem = root->getObject("problem");
  sc.n = integer(problem, "problem.", "n");
  sc.k = integer(problem, "problem.", "k");
  auto format = [&](StringRef key) {
    std::string f = string(problem, "problem.", key);
    if (f == "f8E4M3FN" || f == "e4m3")
      return numerics::FP8Format::E4M3;
    if (f == "f8E5M2" || f == "e5m2")
      return numerics::FP8Format::E5M2;
    die("sidecar '" + path + "': unknown problem." + key + " '" + f + "'");
  };
  sc.xf = format("x_format");
  sc.wf = format("w_format");
  std::string ws = string(problem, "problem.", "w_scale");
  if (ws == "block32x32")
    sc.wg = numerics::ScaleGranularity::Block32x32;
  else if (ws == "per_row")
    sc.wg = numerics::ScaleGranularity::PerRow;
  else
    die("sidecar '" + path + "': unknown problem.w_scale '" + ws + "'");
  std::string out = string(problem, "problem.", "out_type");
  if (out != "bf16" && out != "f32")
    die("sidecar '" + path + "': unknown problem.out_type '" + out + "'");
  sc.f32Out = out == "f32";
  const json::Object *grid = root->getObject("grid");
  sc.workgroupSize = integer(grid, "grid.", "workgroup_size");
  sc.programTileM = integer(grid, "grid.", "program_tile_m");
  sc.tileN = integer(grid, "grid.", "tile_n");
  sc.numTilesN = integer(grid, "grid.", "num_tiles_n");
  const json::Array *args = root->getArray("arguments");
  if (!args)
    die("sidecar '" + path + "': missing arguments");
  for (const json::Value &a : *args) {
    const json::Object *o = a.getAsObject();
    sc.args[string(o, "arguments[].", "name")] = {
        uint32_t(integer(o, "arguments[].", "offset")),
        uint32_t(integer(o, "arguments[].", "size"))};
  }
  for (const char *name : {"X", "Xs", "W", "Ws", "Y", "M"})
    if (!sc.args.count(name))
      die("sidecar '" + path + "': no argument named " + name);
  // "#mxgemm.config<tile_m = 128, mfma = m32n32k64, ...>"
  StringRef body = sc.config;
  body = body.drop_until([](char c) { return c == '<'; }).drop_front();
  body = body.take_until([](char c) { return c == '>'; });
  SmallVector<StringRef, 16> fields;
  body.split(fields, ',', -1, false);
  for (StringRef f : fields) {
    auto [key, value] = f.split('=');
    sc.configFields[key.trim().str()] = value.trim().str();
  }
  return sc;
}

int64_t configInt(const Sidecar &sc, StringRef key, int64_t dflt) {
  auto it = sc.configFields.find(key.str());
  int64_t v;
  if (it == sc.configFields.end() || StringRef(it->second).getAsInteger(0, v))
    return dflt;
  return v;
}

int gemmMode(int argc, char **argv, int first) {
  Common c;
  int64_t m = 0, n = 0, kDim = 0, tileM = 0, tileN = 0;
  uint64_t seed = 1, sample = 0;
  std::string sidecarPath;
  std::optional<numerics::FP8Format> xfFlag, wfFlag;
  std::optional<numerics::ScaleGranularity> wgFlag;
  bool f32Flag = false;
  int kStep = 0;
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
      m = int64_t(parseInt(value()));
    else if (a == "--n")
      n = int64_t(parseInt(value()));
    else if (a == "--k")
      kDim = int64_t(parseInt(value()));
    else if (a == "--tile-m")
      tileM = int64_t(parseInt(value()));
    else if (a == "--tile-n")
      tileN = int64_t(parseInt(value()));
    else if (a == "--seed")
      seed = parseInt(value());
    else if (a == "--sample")
      sample = parseInt(value());
    else if (a == "--sidecar")
      sidecarPath = value().str();
    else if (a == "--x-e5m2")
      xfFlag = numerics::FP8Format::E5M2;
    else if (a == "--w-e5m2")
      wfFlag = numerics::FP8Format::E5M2;
    else if (a == "--w-block32")
      wgFlag = numerics::ScaleGranularity::Block32x32;
    else if (a == "--w-per-row")
      wgFlag = numerics::ScaleGranularity::PerRow;
    else if (a == "--f32-out")
      f32Flag = true;
    else if (a == "--k-step")
      kStep = int(parseInt(value()));
    else if (!a.starts_with("-") && c.path.empty())
      c.path = a.str();
    else
      die("unknown option '" + a + "'");
  }
  // Flags override the sidecar; without a sidecar the flags are everything.
  Sidecar sc;
  bool haveSidecar = !sidecarPath.empty();
  if (haveSidecar)
    sc = readSidecar(sidecarPath);
  else
    sc.wg = numerics::ScaleGranularity::PerRow;
  if (!n)
    n = sc.n;
  if (!kDim)
    kDim = sc.k;
  if (!tileM)
    tileM = sc.programTileM;
  if (!tileN)
    tileN = sc.tileN;
  numerics::FP8Format xf = xfFlag.value_or(sc.xf), wf = wfFlag.value_or(sc.wf);
  numerics::ScaleGranularity wg = wgFlag.value_or(sc.wg);
  bool f32Out = f32Flag || sc.f32Out;
  if (c.kernel.empty())
    c.kernel = sc.kernel;
  if (c.path.empty() || m <= 0 || n <= 0 || kDim <= 0)
    die("gemm: need a code object, --m, and --n/--k (or a --sidecar)");
  if (kDim % 32)
    die("K must be a multiple of 32");
  if (m > INT32_MAX)
    die("M must fit the kernel's i32 argument");
  auto co = loadOrDie(c.path);
  const KernelInfo &k = pickKernel(*co, c.kernel);
  if (!kStep) {
    auto it = sc.configFields.find("mfma");
    if (it != sc.configFields.end())
      kStep = it->second == "m16n16k128" ? 128 : 64;
    else
      kStep = StringRef(co->dump()).contains("16x16x128") ? 128 : 64;
  }
  if (sc.workgroupSize && !c.config.workgroup[0])
    c.config.workgroup[0] = uint32_t(sc.workgroupSize);
  int64_t tilesM = tileM ? (m + tileM - 1) / tileM : 0;
  int64_t tilesN = tileN ? (n + tileN - 1) / tileN : 0;
  if (!c.haveGrid) {
    if (!tileM || !tileN)
      die("gemm: give --grid or the tile sizes (--tile-m/--tile-n or sidecar)");
    c.config.grid[0] = uint32_t(tilesM * tilesN);
  }
  uint64_t numWg =
      uint64_t(c.config.grid[0]) * c.config.grid[1] * c.config.grid[2];
  if (sample && c.config.workgroupsToRun.empty()) {
    // M-edge programs are those mapped to the last tile row; the mapping is
    // the config's grouping (TileGrouping.h, the one definition the compiler
    // emits), row-major without a sidecar.
    int64_t groupM = configInt(sc, "group_m", 1),
            groupN = configInt(sc, "group_n", 0);
    auto remap = sc.configFields.find("xcd_remap");
    bool xcd = remap != sc.configFields.end() && remap->second == "true";
    c.config.workgroupsToRun =
        sampleWorkgroups(numWg, sample, [&](uint64_t id) {
          if (!tilesM || !tilesN || numWg != uint64_t(tilesM * tilesN))
            return false;
          ::mxgemm::IntegerTileArith ar;
          auto [tm, tn] = ::mxgemm::mapProgramToTile(
              ar, int64_t(id), tilesM, tilesN, groupM, groupN, xcd);
          // The partial last tile row, at its first, middle and last
          // N tile (N edges and a typical column).
          return tm == tilesM - 1 &&
                 (tn == 0 || tn == tilesN / 2 || tn == tilesN - 1);
        });
  }
  auto X = numerics::randomMXMatrix(seed, m, kDim, xf);
  auto W = numerics::randomMXMatrix(seed + 1, n, kDim, wf, wg);
  DeviceMemory mem;
  size_t ySize = size_t(m) * n * (f32Out ? 4 : 2);
  uint64_t dX = mem.allocate(X.data.size()),
           dXs = mem.allocate(X.scales.size()),
           dW = mem.allocate(W.data.size()),
           dWs = mem.allocate(W.scales.size()), dY = mem.allocate(ySize);
  mem.copyToDevice(dX, X.data.data(), X.data.size());
  mem.copyToDevice(dXs, X.scales.data(), X.scales.size());
  // stage_w = packed_registers kernels read W packed in MFMA panels, the
  // layout mxgemm_pack_weights produces (WeightPanels.h).
  auto stageW = sc.configFields.find("stage_w");
  if (stageW != sc.configFields.end() && stageW->second == "packed_registers") {
    const int64_t nonK = kStep == 128 ? 16 : 32;
    if (!::mxgemm::canPackWeightPanels(n, kDim, nonK))
      die("W [" + Twine(n) + ", " + Twine(kDim) +
          "] cannot be packed into MFMA panels of " + Twine(nonK) + " rows");
    std::vector<uint8_t> packed(W.data.size());
    ::mxgemm::packWeightPanels(W.data.data(), packed.data(), n, kDim, nonK);
    mem.copyToDevice(dW, packed.data(), packed.size());
    outs() << "W packed in MFMA panels of " << nonK << " rows\n";
  } else {
    mem.copyToDevice(dW, W.data.data(), W.data.size());
  }
  mem.copyToDevice(dWs, W.scales.data(), W.scales.size());
  // A sentinel marks outputs the (possibly sampled) run did not write.
  std::memset(mem.translate(dY, ySize), 0xff, ySize);
  // Section-4 ABI: X, Xs, W, Ws, Y pointers then M (i32), at the offsets
  // the sidecar gives (0, 8, ..., 40 without one).
  auto put = [&](const char *name, uint32_t dflt, const void *value,
                 uint32_t size) {
    uint32_t off = dflt;
    if (haveSidecar) {
      auto [o, sz] = sc.args[name];
      if (sz != size)
        die(Twine("sidecar argument ") + name + " has size " + Twine(sz) +
            ", expected " + Twine(size));
      off = o;
    }
    if (c.config.kernargs.size() < off + size)
      c.config.kernargs.resize(off + size);
    std::memcpy(c.config.kernargs.data() + off, value, size);
  };
  put("X", 0, &dX, 8);
  put("Xs", 8, &dXs, 8);
  put("W", 16, &dW, 8);
  put("Ws", 24, &dWs, 8);
  put("Y", 32, &dY, 8);
  uint32_t m32 = uint32_t(m);
  put("M", 40, &m32, 4);
  auto result = launch(*co, k, c.config, mem);
  if (!result) {
    errs() << "mxgemm-emu: error: " << toString(result.takeError()) << "\n";
    return 2;
  }
  // Y is read in place (the 16384^2 case-table shapes are 512 MiB).
  const uint8_t *y = mem.translate(dY, ySize);
  unsigned es = f32Out ? 4 : 2;
  auto written = [&](size_t idx) {
    for (unsigned b = 0; b < es; ++b)
      if (y[idx * es + b] != 0xff)
        return true;
    return false;
  };
  // Reference only on the 32x32 blocks that hold written outputs.
  std::vector<numerics::OutputRegion> tiles;
  for (int64_t r0 = 0; r0 < m; r0 += 32)
    for (int64_t c0 = 0; c0 < n; c0 += 32) {
      bool any = false;
      for (int64_t r = r0; r < std::min(m, r0 + 32) && !any; ++r)
        for (int64_t col = c0; col < std::min(n, c0 + 32) && !any; ++col)
          any = written(size_t(r) * n + col);
      if (any)
        tiles.push_back({r0, std::min(m, r0 + 32), c0, std::min(n, c0 + 32)});
    }
  numerics::MXGemmOperands ops;
  ops.m = m;
  ops.n = n;
  ops.k = kDim;
  ops.x = X.data.data();
  ops.xScales = X.scales.data();
  ops.xFormat = xf;
  ops.w = W.data.data();
  ops.wScales = W.scales.data();
  ops.wFormat = wf;
  ops.wScaleGranularity = wg;
  // Only the tiles' pages of this buffer are ever touched.
  std::unique_ptr<uint8_t[]> ref(new uint8_t[ySize]);
  numerics::ReferenceOptions ro;
  ro.kStep = kStep;
  numerics::referenceGemmTiles(ops, tiles,
                               f32Out ? numerics::OutputType::F32
                                      : numerics::OutputType::BF16,
                               ref.get(), ro);
  uint64_t compared = 0, mismatches = 0, unwritten = 0;
  bool full = c.config.workgroupsToRun.empty();
  for (int64_t r = 0; r < m; ++r)
    for (int64_t col = 0; col < n; ++col) {
      size_t idx = size_t(r) * n + col;
      if (!written(idx)) {
        ++unwritten;
        continue;
      }
      ++compared;
      if (std::memcmp(&y[idx * es], &ref[idx * es], es)) {
        if (mismatches < 10) {
          uint32_t got = 0, want = 0;
          std::memcpy(&got, &y[idx * es], es);
          std::memcpy(&want, &ref[idx * es], es);
          errs() << "mismatch at Y[" << r << "][" << col << "]: got 0x"
                 << utohexstr(got) << ", expected 0x" << utohexstr(want)
                 << "\n";
        }
        ++mismatches;
      }
    }
  int status = report(*result, c);
  outs() << "compared " << compared << " outputs, " << mismatches
         << " mismatches";
  if (unwritten)
    outs() << ", " << unwritten << " not written";
  outs() << "\n";
  // A sampled run must still cover the partial last tile row.
  bool edgeCovered = false;
  for (int64_t col = 0; col < n && !edgeCovered; ++col)
    edgeCovered = written(size_t(m - 1) * n + col);
  if (!full)
    outs() << "sampled " << c.config.workgroupsToRun.size() << " of " << numWg
           << " workgroups, M edge "
           << (edgeCovered ? "covered" : "NOT covered") << "\n";
  if (full && unwritten) {
    errs() << "error: the full run left " << unwritten
           << " outputs unwritten\n";
    status = 1;
  }
  return mismatches ? 1 : status;
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
              "       mxgemm-emu [gemm] K.hsaco --m M [--n N --k K] "
              "[--sidecar K.json] [--tile-m T --tile-n T | --grid G] "
              "[--seed S] [--sample N | --workgroups a,b,c] [--stats] "
              "[--stats-json FILE]\n";
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
