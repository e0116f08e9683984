//===- GemmRun.cpp - one GEMM kernel run on the emulator and checked ------===//

#include "mxgemm/Emulator/GemmRun.h"

#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Numerics/Quantize.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
/// Row-major scales in an MFMA-native layout of `bytes` bytes; the padding
/// is the E8M0 NaN (0xff), so that a kernel that read it would show NaN in
/// Y.
std::vector<uint8_t> nativeScales(mxgemm::contract::ScaleLayout layout,
                                  const std::vector<uint8_t> &rowMajor,
                                  int64_t rows, int64_t kBlocks,
                                  uint64_t bytes) {
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  mxgemm::contract::preshuffleScales(layout, rowMajor.data(), rows, kBlocks,
                                     kBlocks, out.data(), out.size(),
                                     /*padding=*/0xff);
  return out;
}
} // namespace

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::emu;

namespace {
numerics::FP8Format fp8Format(contract::ElementType t) {
  return t == contract::ElementType::E5M2 ? numerics::FP8Format::E5M2
                                          : numerics::FP8Format::E4M3;
}
} // namespace

Expected<GemmRunResult>
mxgemm::emu::runGemm(const CodeObject &object,
                     const contract::KernelDescriptor &d,
                     const GemmRunOptions &options) {
  const KernelInfo *kernel = object.findKernel(d.kernel);
  if (!kernel)
    return createStringError("the code object has no kernel '" + d.kernel +
                             "'");
  // A generic kernel takes N and K at run time: the call's extents fill
  // its "?"s, and its grid gets ceil(N / tile_n) tile columns.
  auto pick = [](int64_t call, int64_t kernelExtent) {
    return call ? call : kernelExtent;
  };
  const contract::GemmProblem problem = d.problem.withExtents(
      pick(options.n, d.problem.n), pick(options.k, d.problem.k));
  if ((options.n && options.n != problem.n) ||
      (options.k && options.k != problem.k))
    return createStringError("N = " + std::to_string(problem.n) +
                             ", K = " + std::to_string(problem.k) +
                             " are compiled into this kernel; --n/--k differ");
  if ((d.problem.dynamicN() && !options.n) ||
      (d.problem.dynamicK() && !options.k))
    return createStringError("a generic kernel (N or K \"?\" in its "
                             "descriptor) needs the call's N and K (--n, --k)");
  if (auto error = contract::validateProblem(problem))
    return createStringError(*error);
  const int64_t m = options.m, n = problem.n, k = problem.k;
  const contract::TileGrid grid =
      d.problem.dynamicN() ? d.grid.forN(n) : d.grid;
  std::optional<int64_t> numWorkgroups = grid.numWorkgroups(m);
  if (!numWorkgroups)
    return createStringError("M = " + std::to_string(m) +
                             " is not a size this kernel's grid serves (1.." +
                             std::to_string(contract::kMaxM) + ")");
  const bool f32Out = d.problem.outType == contract::ElementType::F32;
  const size_t outBytes = f32Out ? 4 : 2;
  // Row strides: only a kernel with ldX/ldXs/ldY arguments takes views.
  const int64_t ldX = options.ldX ? options.ldX : k,
                ldXs = options.ldXs ? options.ldXs : k / 32,
                ldY = options.ldY ? options.ldY : n;
  if (ldX < k || ldXs < k / 32 || ldY < n)
    return createStringError("a leading dimension is smaller than its row "
                             "length (X " +
                             std::to_string(k) + ", Xs " +
                             std::to_string(k / 32) + ", Y " +
                             std::to_string(n) + ")");
  const bool strided = ldX != k || ldXs != k / 32 || ldY != n;
  if (strided && !d.findArgument(contract::kArgLdX))
    return createStringError("kernel '" + d.kernel +
                             "' takes no row strides: X, its scales and Y "
                             "must be contiguous");
  if (ldX > INT32_MAX || ldXs > INT32_MAX || ldY > INT32_MAX)
    return createStringError("a leading dimension is above 2^31 - 1 (the "
                             "kernel's i32 row stride)");
  uint64_t yBytes, xBytes, xsBytes, yRows;
  if (__builtin_mul_overflow(uint64_t(m), uint64_t(ldY), &yRows) ||
      __builtin_mul_overflow(yRows, outBytes, &yBytes) ||
      __builtin_mul_overflow(uint64_t(m), uint64_t(ldX), &xBytes) ||
      __builtin_mul_overflow(uint64_t(m), uint64_t(ldXs), &xsBytes))
    return createStringError("X or Y does not fit the address space");
  // MFMA-native X scales (contiguous: such kernels take no row strides)
  // are laid out, padded, from the row-major ones below.
  const bool nativeXs = d.xScaleLayout != contract::ScaleLayout::RowMajor;
  if (nativeXs) {
    std::optional<uint64_t> bytes =
        contract::scaleTensorBytes(d.xScaleLayout, m, k / 32);
    if (!bytes)
      return createStringError("the X scales do not fit the address space");
    xsBytes = *bytes;
  }

  GemmRunResult result;
  result.gridSize = uint64_t(*numWorkgroups);
  LaunchConfig config = options.launch;
  // A split-K grid is 2-D: x the tile, y the K segment. A tail split's
  // grids are 1-D: the whole tiles then the tail units, and the tail units
  // alone in the second launch.
  const uint64_t splits = uint64_t(grid.kSplits);
  const std::optional<contract::TileGrid::TailTiles> tail = grid.tailTiles(m);
  const uint64_t tiles =
      tail ? uint64_t(tail->whole + tail->tail) : result.gridSize / splits;
  config.grid[0] = uint32_t(tail ? result.gridSize : tiles);
  config.grid[1] = uint32_t(tail ? 1 : splits);
  config.grid[2] = 1;
  config.workgroup[0] = uint32_t(d.workgroupSize);
  config.workgroup[1] = config.workgroup[2] = 1;
  config.workgroupsToRun = options.workgroups;
  if (config.workgroupsToRun.empty() && options.sample) {
    // M-edge programs are those of the last tile row, at its first, middle
    // and last N tile (N edges and a typical column).
    const int64_t lastRow = (m - 1) / grid.programTileM * grid.programTileM;
    const int64_t lastCol = (grid.numTilesN - 1) * grid.tileN;
    const int64_t midCol = grid.numTilesN / 2 * grid.tileN;
    // Tiles are sampled; a persistent workgroup runs every tile it walks
    // (w, w + grid, ...), so the workgroup of a sampled tile is its id
    // modulo the grid.
    const uint64_t allTiles = uint64_t(*grid.numTiles(m));
    config.workgroupsToRun =
        sampleWorkgroups(allTiles, options.sample, [&](uint64_t tile) {
          auto origin = grid.tileOriginOfTile(int64_t(tile), m);
          return origin && origin->first == lastRow &&
                 (origin->second == 0 || origin->second == midCol ||
                  origin->second == lastCol);
        });
    if (allTiles != tiles) {
      for (uint64_t &id : config.workgroupsToRun)
        id %= tiles;
      std::sort(config.workgroupsToRun.begin(), config.workgroupsToRun.end());
      config.workgroupsToRun.erase(std::unique(config.workgroupsToRun.begin(),
                                               config.workgroupsToRun.end()),
                                   config.workgroupsToRun.end());
    }
  }
  // Every segment of a sampled tile runs, or its sum would be incomplete.
  std::vector<uint64_t> reductionToRun;
  if (tail && !config.workgroupsToRun.empty()) {
    std::vector<uint64_t> all;
    const uint64_t whole = uint64_t(tail->whole), units = uint64_t(tail->tail);
    for (uint64_t tile : config.workgroupsToRun) {
      if (tile < whole) {
        all.push_back(tile);
        continue;
      }
      for (uint64_t s = 0; s < splits; ++s) {
        all.push_back(whole + (tile - whole) + s * units);
        reductionToRun.push_back((tile - whole) + s * units);
      }
    }
    std::sort(all.begin(), all.end());
    std::sort(reductionToRun.begin(), reductionToRun.end());
    config.workgroupsToRun = std::move(all);
  } else if (splits > 1 && !config.workgroupsToRun.empty()) {
    std::vector<uint64_t> all;
    for (uint64_t id : config.workgroupsToRun)
      for (uint64_t s = 0; s < splits; ++s)
        all.push_back(id % tiles + s * tiles);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    config.workgroupsToRun = std::move(all);
  }
  result.sampled = !config.workgroupsToRun.empty();

  const numerics::ScaleGranularity wScale =
      options.dataWScale.value_or(problem.wScale);
  numerics::MXMatrix x =
      numerics::randomMXMatrix(options.seed, m, k, fp8Format(problem.xType));
  numerics::MXMatrix w = numerics::randomMXMatrix(
      options.seed + 1, n, k, fp8Format(problem.wType), wScale);

  std::vector<uint8_t> wScales = w.scales;
  if (d.wScaleLayout != contract::ScaleLayout::RowMajor) {
    const int64_t rows = int64_t(w.scales.size()) / (k / 32);
    std::optional<uint64_t> bytes =
        contract::scaleTensorBytes(d.wScaleLayout, rows, k / 32);
    if (!bytes)
      return createStringError("the W scales do not fit the address space");
    wScales = nativeScales(d.wScaleLayout, w.scales, rows, k / 32, *bytes);
  }

  DeviceMemory memory;
  const uint64_t dX = memory.allocate(xBytes), dXs = memory.allocate(xsBytes),
                 dW = memory.allocate(w.data.size()),
                 dWs = memory.allocate(wScales.size()),
                 dY = memory.allocate(yBytes);
  std::optional<uint64_t> workBytes =
      contract::splitWorkspaceBytes(problem, d.config, m);
  if (!workBytes)
    return createStringError("the split-K workspace does not fit the address "
                             "space");
  const uint64_t dWork = *workBytes ? memory.allocate(*workBytes) : 0;
  if (dWork)
    // NaN bytes: a partial the kernel failed to write poisons its sum.
    std::memset(memory.translate(dWork, *workBytes), 0xff, *workBytes);
  // X and its scales row by row at their strides; the gaps hold poison
  // (0x7f is an E4M3/E5M2 NaN, 0xff the E8M0 NaN), which a read of them
  // into a product would spread into Y.
  std::memset(memory.translate(dX, xBytes), 0x7f, xBytes);
  std::memset(memory.translate(dXs, xsBytes), 0xff, xsBytes);
  for (int64_t r = 0; r < m; ++r) {
    memory.copyToDevice(dX + uint64_t(r) * uint64_t(ldX), x.data.data() + r * k,
                        size_t(k));
    if (!nativeXs)
      memory.copyToDevice(dXs + uint64_t(r) * uint64_t(ldXs),
                          x.scales.data() + r * (k / 32), size_t(k / 32));
  }
  if (nativeXs) {
    std::vector<uint8_t> native =
        nativeScales(d.xScaleLayout, x.scales, m, k / 32, xsBytes);
    memory.copyToDevice(dXs, native.data(), native.size());
  }
  if (d.wLayout == contract::WeightLayout::MfmaPanels) {
    if (!contract::canPackWeightPanels(n, k, d.mfma.nonK))
      return createStringError("W cannot be packed into MFMA panels");
    std::vector<uint8_t> packed(w.data.size());
    contract::packWeightPanels(w.data.data(), packed.data(), n, k, d.mfma.nonK);
    memory.copyToDevice(dW, packed.data(), packed.size());
    result.packedWeights = true;
  } else {
    memory.copyToDevice(dW, w.data.data(), w.data.size());
  }
  memory.copyToDevice(dWs, wScales.data(), wScales.size());
  // A sentinel marks outputs the (possibly sampled) run did not write.
  const uint8_t sentinel = 0xff;
  std::memset(memory.translate(dY, yBytes), sentinel, yBytes);

  // The kernel arguments at the descriptor's offsets.
  config.kernargs.assign(contract::explicitArgumentBytes(d.arguments), 0);
  for (const contract::KernelArgument &a : d.arguments) {
    uint64_t value;
    if (a.name == contract::kArgX)
      value = dX;
    else if (a.name == contract::kArgXScales)
      value = dXs;
    else if (a.name == contract::kArgW)
      value = dW;
    else if (a.name == contract::kArgWScales)
      value = dWs;
    else if (a.name == contract::kArgY)
      value = dY;
    else if (a.name == contract::kArgM)
      value = uint64_t(m);
    else if (a.name == contract::kArgN)
      value = uint64_t(n);
    else if (a.name == contract::kArgK)
      value = uint64_t(k);
    else if (a.name == contract::kArgLdX)
      value = uint64_t(ldX);
    else if (a.name == contract::kArgLdXScales)
      value = uint64_t(ldXs);
    else if (a.name == contract::kArgLdY)
      value = uint64_t(ldY);
    else if (a.name == contract::kArgWorkspace)
      value = dWork;
    else if (a.name == contract::kArgPhase)
      value = 0;
    else
      return createStringError("kernel argument '" + a.name +
                               "' is not one this tool can pass");
    std::memcpy(config.kernargs.data() + a.offset, &value, a.size);
  }
  Expected<LaunchResult> launched = launch(object, *kernel, config, memory);
  if (!launched)
    return launched.takeError();
  result.launch = std::move(*launched);
  // Split-K: the second launch adds the partials (Phase = 1). Its findings
  // and statistics join the first launch's.
  const contract::KernelArgument *phase = d.findArgument(contract::kArgPhase);
  // A tail split without tail tiles (whole rounds) has no second launch.
  const bool sampledNoTail = tail && result.sampled && reductionToRun.empty();
  if (phase && (!tail || tail->tail > 0) && !sampledNoTail) {
    const uint32_t one = 1;
    std::memcpy(config.kernargs.data() + phase->offset, &one, 4);
    if (tail) {
      config.grid[0] = uint32_t(*grid.reductionWorkgroups(m));
      config.workgroupsToRun = reductionToRun;
    }
    Expected<LaunchResult> reduced = launch(object, *kernel, config, memory);
    if (!reduced)
      return reduced.takeError();
    result.launch.findings.insert(result.launch.findings.end(),
                                  reduced->findings.begin(),
                                  reduced->findings.end());
    result.reductionLaunch = std::move(*reduced);
  }

  numerics::MXGemmOperands ops;
  ops.m = m;
  ops.n = n;
  ops.k = k;
  ops.x = x.data.data();
  ops.xScales = x.scales.data();
  ops.xFormat = x.format;
  ops.w = w.data.data();
  ops.wScales = w.scales.data();
  ops.wFormat = w.format;
  ops.wScaleGranularity = wScale;
  numerics::GemmCheckOptions check;
  check.sentinel = sentinel;
  check.reference.kStep = int(d.mfma.kStep);
  if (splits > 1)
    check.reference.kSegments = contract::kSegmentBoundaries(problem, d.config);
  for (auto [row, col] : grid.tailTileOrigins(m))
    check.reference.kSegmentRegions.push_back(
        {row, std::min(m, row + grid.programTileM), col,
         std::min(n, col + grid.tileN)});
  // A tail split without tail tiles splits nothing.
  if (tail && tail->tail == 0)
    check.reference.kSegments.clear();
  // Y is read in place (the 16384^2 case-table shapes are 512 MiB); a
  // strided Y is checked for writes between its rows, then compacted.
  uint8_t *y = static_cast<uint8_t *>(memory.translate(dY, yBytes));
  result.ldX = ldX, result.ldXs = ldXs, result.ldY = ldY;
  std::vector<uint8_t> compact;
  if (ldY != n) {
    const size_t rowBytes = size_t(n) * outBytes,
                 strideBytes = size_t(ldY) * outBytes;
    compact.resize(size_t(m) * rowBytes);
    for (int64_t r = 0; r < m; ++r) {
      const uint8_t *row = y + size_t(r) * strideBytes;
      std::memcpy(compact.data() + size_t(r) * rowBytes, row, rowBytes);
      for (size_t b = rowBytes; b < strideBytes; ++b)
        result.yGapBytesWritten += row[b] != sentinel;
    }
    y = compact.data();
  }
  result.check = numerics::checkGemmOutput(
      ops, y, f32Out ? numerics::OutputType::F32 : numerics::OutputType::BF16,
      check);
  return result;
}
