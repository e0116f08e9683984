//===- GemmLaunch.cpp - GEMM launches for the timing simulator ------------===//
//
// readGemmSidecar is the one reader of the JSON sidecar mxgemm-compile
// writes beside each code object; when the typed v2 kernel descriptor
// lands, only this function changes. prepareGemmLaunch lays out the
// section-4 ABI of docs/Design.md.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Simulator/GemmLaunch.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::sim;

Expected<GemmKernelDescription> mxgemm::sim::readGemmSidecar(StringRef path) {
  auto fail = [&](const Twine &msg) -> Error {
    return createStringError(inconvertibleErrorCode(),
                             "sidecar '" + path + "': " + msg);
  };
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    return fail("cannot read it");
  auto root = json::parse((*buf)->getBuffer());
  if (!root)
    return fail(toString(root.takeError()));
  const json::Object *o = root->getAsObject();
  if (!o)
    return fail("not a JSON object");
  GemmKernelDescription d;
  std::string missing;
  auto str = [&](const json::Object *obj, StringRef key) -> std::string {
    std::optional<StringRef> v = obj ? obj->getString(key) : std::nullopt;
    if (!v && missing.empty())
      missing = "missing string " + key.str();
    return v ? v->str() : std::string();
  };
  auto num = [&](const json::Object *obj, StringRef key) -> int64_t {
    std::optional<int64_t> v = obj ? obj->getInteger(key) : std::nullopt;
    if (!v && missing.empty())
      missing = "missing integer " + key.str();
    return v ? *v : 0;
  };
  d.kernel = str(o, "kernel");
  const json::Object *problem = o->getObject("problem");
  const json::Object *grid = o->getObject("grid");
  d.n = num(problem, "n");
  d.k = num(problem, "k");
  d.programTileM = num(grid, "program_tile_m");
  d.tileN = num(grid, "tile_n");
  d.numTilesN = num(grid, "num_tiles_n");
  d.workgroupSize = num(grid, "workgroup_size");
  d.wScalePerRow = str(problem, "w_scale") == "per_row";
  d.outBytes = str(problem, "out_type") == "f32" ? 4 : 2;
  const json::Array *args = o->getArray("arguments");
  if (!args)
    return fail("missing arguments");
  for (const json::Value &a : *args) {
    const json::Object *ao = a.getAsObject();
    std::string name = str(ao, "name");
    uint32_t off = uint32_t(num(ao, "offset"));
    if (name == "X")
      d.offX = off;
    else if (name == "Xs")
      d.offXs = off;
    else if (name == "W")
      d.offW = off;
    else if (name == "Ws")
      d.offWs = off;
    else if (name == "Y")
      d.offY = off;
    else if (name == "M")
      d.offM = off;
  }
  if (!missing.empty())
    return fail(missing);
  if (d.programTileM <= 0 || d.numTilesN <= 0 || d.workgroupSize <= 0)
    return fail("grid fields must be positive");
  // The config: today the #mxgemm.config text, "mfma = m16n16k128, ...".
  std::string config;
  if (const json::Value *c = o->get("config")) {
    if (std::optional<StringRef> text = c->getAsString())
      config = text->str();
  }
  d.mfmaKStep = StringRef(config).contains("m16n16k128") ? 128 : 64;
  d.wPacked = StringRef(config).contains("stage_w = packed_registers");
  return d;
}

Expected<Launch> mxgemm::sim::prepareGemmLaunch(const GemmKernelDescription &d,
                                                int64_t m,
                                                emu::DeviceMemory &memory) {
  if (m <= 0 || m > INT32_MAX)
    return createStringError(inconvertibleErrorCode(),
                             "M must be in [1, 2^31)");
  if (d.k % 32)
    return createStringError(inconvertibleErrorCode(),
                             "K must be a multiple of 32");
  int64_t kBlocks = d.k / 32;
  uint64_t sizes[5] = {
      uint64_t(m) * uint64_t(d.k),     // X (fp8)
      uint64_t(m) * uint64_t(kBlocks), // Xs (e8m0 per row, 32 K)
      uint64_t(d.n) * uint64_t(d.k),   // W
      uint64_t(d.wScalePerRow ? d.n : (d.n + 31) / 32) * uint64_t(kBlocks),
      uint64_t(m) * uint64_t(d.n) * d.outBytes}; // Y
  uint64_t addr[5];
  for (unsigned i = 0; i < 5; ++i) {
    addr[i] = memory.allocate(size_t(sizes[i]));
    if (!addr[i])
      return createStringError(inconvertibleErrorCode(),
                               "out of host memory for the GEMM buffers");
  }
  Launch l;
  int64_t tilesM = (m + d.programTileM - 1) / d.programTileM;
  l.grid[0] = uint32_t(tilesM * d.numTilesN);
  l.workgroup[0] = uint32_t(d.workgroupSize);
  auto put = [&](uint32_t off, const void *v, size_t n) {
    if (l.kernargs.size() < off + n)
      l.kernargs.resize(off + n);
    std::memcpy(l.kernargs.data() + off, v, n);
  };
  put(d.offX, &addr[0], 8);
  put(d.offXs, &addr[1], 8);
  put(d.offW, &addr[2], 8);
  put(d.offWs, &addr[3], 8);
  put(d.offY, &addr[4], 8);
  uint32_t m32 = uint32_t(m);
  put(d.offM, &m32, 4);
  l.flops = 2.0 * double(m) * double(d.n) * double(d.k);
  l.description = "GEMM M=" + std::to_string(m) + " N=" + std::to_string(d.n) +
                  " K=" + std::to_string(d.k);
  return l;
}
