//===- Problem.cpp - formats, problems, arguments and the grid ------------===//
//
// The small pieces of the contract that every layer shares: the one
// spelling of each format, the problem limits, the argument list of the
// kernel ABI and the checked grid arithmetic.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Contract/KernelABI.h"
#include "mxgemm/Contract/TileGrouping.h"

#include <algorithm>
#include <sstream>

using namespace mxgemm;
using namespace mxgemm::contract;

//===----------------------------------------------------------------------===//
// Formats
//===----------------------------------------------------------------------===//

namespace {
constexpr std::string_view kElementNames[] = {"e4m3", "e5m2", "bf16", "f16",
                                              "f32"};
constexpr std::string_view kGranularityNames[] = {"block32x32", "per_row"};
} // namespace

std::string_view contract::elementTypeName(ElementType type) {
  auto i = static_cast<size_t>(type);
  return i < std::size(kElementNames) ? kElementNames[i] : "?";
}

std::optional<ElementType> contract::parseElementType(std::string_view name) {
  for (size_t i = 0; i < std::size(kElementNames); ++i)
    if (kElementNames[i] == name)
      return static_cast<ElementType>(i);
  return std::nullopt;
}

std::string_view contract::scaleGranularityName(ScaleGranularity g) {
  auto i = static_cast<size_t>(g);
  return i < std::size(kGranularityNames) ? kGranularityNames[i] : "?";
}

std::optional<ScaleGranularity>
contract::parseScaleGranularity(std::string_view name) {
  for (size_t i = 0; i < std::size(kGranularityNames); ++i)
    if (kGranularityNames[i] == name)
      return static_cast<ScaleGranularity>(i);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Problems
//===----------------------------------------------------------------------===//

ErrorMessage contract::validateProblem(const GemmProblem &p,
                                       bool allowDynamic) {
  std::ostringstream os;
  auto inRange = [&](int64_t v) {
    return (allowDynamic && v == kDynamicExtent) ||
           (v >= 1 && v <= kMaxProblemExtent);
  };
  if (!inRange(p.n) || !inRange(p.k)) {
    os << "N and K must be in 1.." << kMaxProblemExtent
       << (allowDynamic ? " (or dynamic)" : "") << ", got N = " << p.n
       << ", K = " << p.k;
    return os.str();
  }
  if (!p.dynamicK() && p.k % kScaleBlock != 0) {
    os << "K must be a multiple of 32 (one E8M0 scale per 32 elements), got "
       << p.k;
    return os.str();
  }
  if (!isFP8(p.xType) || !isFP8(p.wType)) {
    os << "X and W must be e4m3 or e5m2, got " << elementTypeName(p.xType)
       << " and " << elementTypeName(p.wType);
    return os.str();
  }
  if (p.outType != ElementType::BF16 && p.outType != ElementType::F32) {
    os << "the output type must be bf16 or f32, got "
       << elementTypeName(p.outType);
    return os.str();
  }
  return std::nullopt;
}

ErrorMessage contract::verifyProblemConfig(const GemmProblem &p,
                                           const KernelConfig &c) {
  std::ostringstream os;
  const bool directLoads =
      c.stageX == Staging::Direct && c.stageW == Staging::Direct;
  if (p.isGeneric()) {
    // Only direct loads mask every edge a run-time N and K can have; the
    // LDS rings, MFMA panels and split-K segments size themselves from
    // compile-time N and K.
    if (!directLoads)
      return std::string("a dynamic N or K needs stage_x = stage_w = direct "
                         "(only direct loads mask every N and K edge)");
    if (c.splitsK())
      return std::string("a dynamic N or K cannot be split (k_splits = 1)");
    // Register prefetch pipelines a K loop of a trip count known when the
    // kernel is compiled.
    if (p.dynamicK() && c.prefetchesRegisters())
      return std::string("a dynamic K cannot prefetch K tiles into "
                         "registers (stages = 1)");
    if (c.groupM != 1 || c.groupN != 0 || c.xcdRemap)
      return std::string("a dynamic N needs the row-major tile order "
                         "(group_m = 1, group_n = 0, xcd_remap = false)");
    if (c.tileN <= 0 || c.tileK <= 0)
      return std::string("tile_n and tile_k must be positive");
  }
  // A partial last tile column is masked (rows of W clamped to N - 1, the
  // output stored element by element); MFMA panels tile N whole.
  if (c.tileN <= 0 || (c.readsWeightPanels() && p.n % c.tileN != 0)) {
    os << "N (" << p.n << ") must be a multiple of tile_n (" << c.tileN
       << ") for stage_w = packed_registers";
    return os.str();
  }
  // A K tail is masked where each lane loads its own operand bytes; LDS
  // copies and MFMA panels move whole K tiles.
  if (c.tileK <= 0 || (!directLoads && p.k % c.tileK != 0)) {
    os << "K (" << p.k << ") must be a multiple of tile_k (" << c.tileK
       << ") unless stage_x = stage_w = direct";
    return os.str();
  }
  // MFMA-native scale layouts are addressed from compile-time K (the
  // chunks per row) and have no masked K tail; a block32x32 W-scale row
  // serves 32 columns, which the per-row layout does not describe.
  const bool nativeScales = c.xScaleLayout != ScaleLayout::RowMajor ||
                            c.wScaleLayout != ScaleLayout::RowMajor;
  if (nativeScales && (p.isGeneric() || p.k % c.tileK != 0)) {
    os << "an MFMA-native scale layout needs static N and K and K a "
          "multiple of tile_k ("
       << c.tileK << ")";
    return os.str();
  }
  if (c.wScaleLayout != ScaleLayout::RowMajor &&
      p.wScale != ScaleGranularity::PerRow)
    return std::string("w_scale_layout = ") +
           std::string(scaleLayoutName(c.wScaleLayout)) +
           " needs per-row weight scales (w_scale = per_row); block32x32 "
           "weight scales stay row-major";
  // Every segment is the same whole number of K tiles: one loop trip count
  // for every workgroup, and boundaries on K-step multiples.
  if (c.splitsK() && (c.kSplits > kMaxKSplits || p.k % (c.kSplits * c.tileK))) {
    os << "K (" << p.k << ") must be a multiple of k_splits * tile_k ("
       << c.kSplits << " * " << c.tileK << ") for split-K";
    return os.str();
  }
  return std::nullopt;
}

std::vector<int64_t> contract::kSegmentBoundaries(const GemmProblem &p,
                                                  const KernelConfig &c) {
  return kSegmentBoundaries(p.k, c.kSplits);
}

std::vector<int64_t> contract::kSegmentBoundaries(int64_t k, int64_t kSplits) {
  const int64_t splits = std::max<int64_t>(kSplits, 1);
  std::vector<int64_t> bounds;
  for (int64_t s = 0; s <= splits; ++s)
    bounds.push_back(k / splits * s);
  bounds.back() = k;
  return bounds;
}

std::optional<OperandBytes> contract::operandBytes(const GemmProblem &p,
                                                   int64_t m,
                                                   ScaleLayout xScaleLayout,
                                                   ScaleLayout wScaleLayout) {
  if (m < 1 || m > kMaxM || p.isGeneric() || p.n < 1 ||
      p.n > kMaxProblemExtent || p.k < kScaleBlock || p.k > kMaxProblemExtent)
    return std::nullopt;
  auto product = [](uint64_t a, uint64_t b, uint64_t c, uint64_t &out) {
    return !__builtin_mul_overflow(a, b, &out) &&
           !__builtin_mul_overflow(out, c, &out);
  };
  const uint64_t rows = uint64_t(m), n = uint64_t(p.n), k = uint64_t(p.k);
  const uint64_t blocks = uint64_t(p.scaleColumns());
  OperandBytes b;
  if (!product(rows, k, uint64_t(elementBytes(p.xType)), b.x) ||
      !product(n, k, uint64_t(elementBytes(p.wType)), b.w) ||
      !product(rows, n, uint64_t(elementBytes(p.outType)), b.y))
    return std::nullopt;
  std::optional<uint64_t> xs =
      scaleTensorBytes(xScaleLayout, m, int64_t(blocks));
  std::optional<uint64_t> ws =
      scaleTensorBytes(wScaleLayout, p.weightScaleRows(), int64_t(blocks));
  if (!xs || !ws)
    return std::nullopt;
  b.xScales = *xs;
  b.wScales = *ws;
  return b;
}

std::optional<uint64_t>
contract::splitWorkspaceBytes(const GemmProblem &p, const KernelConfig &c,
                              int64_t m, const target::TargetModel &target) {
  if (m < 1 || m > kMaxM || p.n < 1 || c.kSplits < 1)
    return std::nullopt;
  if (!c.splitsK())
    return uint64_t(0);
  uint64_t bytes;
  if (c.tailSplit) {
    // One compact program tile per tail tile and segment.
    std::optional<TileGrid::TailTiles> t =
        TileGrid::of(c, p.n, target).tailTiles(m);
    if (!t ||
        __builtin_mul_overflow(uint64_t(c.kSplits), uint64_t(t->tail),
                               &bytes) ||
        __builtin_mul_overflow(bytes, uint64_t(c.programTileM()), &bytes) ||
        __builtin_mul_overflow(bytes, uint64_t(c.tileN), &bytes) ||
        __builtin_mul_overflow(bytes, uint64_t(4), &bytes))
      return std::nullopt;
    return bytes;
  }
  if (__builtin_mul_overflow(uint64_t(c.kSplits), uint64_t(m), &bytes) ||
      __builtin_mul_overflow(bytes, uint64_t(p.n), &bytes) ||
      __builtin_mul_overflow(bytes, uint64_t(4), &bytes))
    return std::nullopt;
  return bytes;
}

//===----------------------------------------------------------------------===//
// Kernel ABI
//===----------------------------------------------------------------------===//

std::string_view contract::argumentKindName(ArgumentKind kind) {
  return kind == ArgumentKind::I32 ? "i32" : "global_pointer";
}

std::optional<ArgumentKind> contract::parseArgumentKind(std::string_view name) {
  if (name == "global_pointer")
    return ArgumentKind::GlobalPointer;
  if (name == "i32")
    return ArgumentKind::I32;
  return std::nullopt;
}

std::vector<KernelArgument>
contract::kernelArguments(const GemmProblem &problem,
                          const KernelConfig &config) {
  std::vector<KernelArgument> args;
  uint32_t offset = 0;
  auto add = [&](std::string_view name, ArgumentKind kind, uint32_t size) {
    offset = (offset + size - 1) / size * size;
    args.push_back({std::string(name), kind, offset, size});
    offset += size;
  };
  for (std::string_view name : {kArgX, kArgXScales, kArgW, kArgWScales, kArgY})
    add(name, ArgumentKind::GlobalPointer, 8);
  add(kArgM, ArgumentKind::I32, 4);
  // A generic kernel takes both extents, whichever of them is dynamic, and
  // the row strides of X, its scales and Y (callers pass views of
  // activations; weights are contiguous): one ABI for every generic kernel.
  if (problem.isGeneric()) {
    add(kArgN, ArgumentKind::I32, 4);
    add(kArgK, ArgumentKind::I32, 4);
    add(kArgLdX, ArgumentKind::I32, 4);
    add(kArgLdXScales, ArgumentKind::I32, 4);
    add(kArgLdY, ArgumentKind::I32, 4);
  }
  // Split-K: the FP32 partials and which of the two launches this is.
  if (config.splitsK()) {
    add(kArgWorkspace, ArgumentKind::GlobalPointer, 8);
    add(kArgPhase, ArgumentKind::I32, 4);
  }
  return args;
}

uint32_t
contract::explicitArgumentBytes(const std::vector<KernelArgument> &args) {
  uint32_t end = 0;
  for (const KernelArgument &a : args)
    end = std::max(end, a.offset + a.size);
  return end;
}

//===----------------------------------------------------------------------===//
// The grid
//===----------------------------------------------------------------------===//

TileGrid TileGrid::of(const KernelConfig &config, int64_t n,
                      const target::TargetModel &target) {
  TileGrid g;
  g.programTileM = config.programTileM();
  g.tileN = config.tileN;
  // A dynamic N has no tile columns until a call gives it (forN).
  g.numTilesN =
      config.tileN > 0 && n > 0 ? (n + config.tileN - 1) / config.tileN : 0;
  g.groupM = config.groupM;
  g.groupN = config.groupN;
  g.xcdRemap = config.xcdRemap;
  g.numXcds = target.numXcds;
  g.kSplits = config.kSplits;
  g.maxWorkgroups = config.persistent * target.numCus;
  g.tailSplit = config.tailSplit;
  if (config.tailSplit)
    g.roundWorkgroups = target.numCus;
  return g;
}

TileGrid TileGrid::forN(int64_t n) const {
  TileGrid g = *this;
  g.numTilesN = tileN > 0 && n > 0 && n <= kMaxProblemExtent
                    ? (n + tileN - 1) / tileN
                    : 0;
  return g;
}

namespace {
/// The parts streamed into one string. Only called on failure: the grid
/// checks are on the runtime's dispatch path, where a stream per call would
/// cost more than the whole decision.
template <typename... Parts> std::string concat(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}
} // namespace

bool TileGrid::isValid() const {
  return programTileM >= 1 && programTileM <= kMaxTileExtent && tileN >= 1 &&
         tileN <= kMaxTileExtent && numTilesN >= 1 &&
         numTilesN <= kMaxProblemExtent && groupM >= 1 &&
         groupM <= kMaxGroupExtent && groupN >= 0 &&
         groupN <= kMaxGroupExtent &&
         (!xcdRemap || (numXcds >= 1 && numXcds <= 64)) && kSplits >= 1 &&
         kSplits <= kMaxKSplits && maxWorkgroups >= 0 &&
         maxWorkgroups <= kMaxPersistentWorkgroups &&
         (maxWorkgroups == 0 || kSplits == 1) &&
         (!tailSplit ||
          (kSplits > 1 && maxWorkgroups == 0 && roundWorkgroups >= 1 &&
           roundWorkgroups <= kMaxPersistentWorkgroups));
}

ErrorMessage TileGrid::validate() const {
  if (isValid())
    return std::nullopt;
  if (programTileM < 1 || programTileM > kMaxTileExtent || tileN < 1 ||
      tileN > kMaxTileExtent)
    return concat("program_tile_m and tile_n must be in 1..", kMaxTileExtent,
                  ", got ", programTileM, " and ", tileN);
  if (numTilesN < 1 || numTilesN > kMaxProblemExtent)
    return concat("num_tiles_n must be in 1..", kMaxProblemExtent, ", got ",
                  numTilesN);
  if (groupM < 1 || groupM > kMaxGroupExtent || groupN < 0 ||
      groupN > kMaxGroupExtent)
    return concat("group_m must be in 1..", kMaxGroupExtent,
                  " and group_n in 0..", kMaxGroupExtent, ", got ", groupM,
                  " x ", groupN);
  if (kSplits < 1 || kSplits > kMaxKSplits)
    return concat("k_splits must be in 1..", kMaxKSplits, ", got ", kSplits);
  if (maxWorkgroups < 0 || maxWorkgroups > kMaxPersistentWorkgroups)
    return concat("max_workgroups must be in 0..", kMaxPersistentWorkgroups,
                  ", got ", maxWorkgroups);
  if (maxWorkgroups != 0 && kSplits != 1)
    return concat("a persistent grid (max_workgroups = ", maxWorkgroups,
                  ") cannot split K (k_splits = ", kSplits, ")");
  if (tailSplit && (kSplits < 2 || maxWorkgroups != 0 || roundWorkgroups < 1 ||
                    roundWorkgroups > kMaxPersistentWorkgroups))
    return concat("a tail split needs k_splits > 1, no persistent grid and "
                  "round_workgroups in 1..",
                  kMaxPersistentWorkgroups, ", got k_splits = ", kSplits,
                  ", round_workgroups = ", roundWorkgroups);
  return concat("num_xcds must be in 1..64 with xcd_remap, got ", numXcds);
}

std::optional<int64_t> TileGrid::numWorkgroups(int64_t m) const {
  if (!isValid() || m < 1 || m > kMaxM)
    return std::nullopt;
  // Checked although isValid() bounds both factors (2^31 and 2^24): the
  // grid is a size every launch trusts.
  const int64_t tilesM = (m + programTileM - 1) / programTileM;
  int64_t count;
  if (__builtin_mul_overflow(tilesM, numTilesN, &count))
    return std::nullopt;
  // A tail split: the whole tiles, then kSplits workgroups per tail tile.
  const int64_t splitTiles = tailSplit ? count % roundWorkgroups : count;
  int64_t splitCount;
  if (__builtin_mul_overflow(splitTiles, kSplits, &splitCount) ||
      __builtin_add_overflow(count - splitTiles, splitCount, &count) ||
      count > int64_t(UINT32_MAX))
    return std::nullopt;
  // A persistent kernel walks its tiles with an i32 counter that steps
  // past the last tile by at most one grid.
  if (maxWorkgroups != 0) {
    if (count > int64_t(INT32_MAX) - maxWorkgroups)
      return std::nullopt;
    count = std::min(count, maxWorkgroups);
  }
  return count;
}

std::optional<int64_t> TileGrid::numTiles(int64_t m) const {
  // The uncapped grid checks every product, splits included (a tile count
  // alone is not a launch).
  TileGrid all = *this;
  all.maxWorkgroups = 0;
  if (!all.numWorkgroups(m))
    return std::nullopt;
  return (m + programTileM - 1) / programTileM * numTilesN;
}

std::optional<TileGrid::TailTiles> TileGrid::tailTiles(int64_t m) const {
  std::optional<int64_t> tiles = numTiles(m);
  if (!tiles || !tailSplit)
    return std::nullopt;
  TailTiles t;
  t.tail = *tiles % roundWorkgroups;
  t.whole = *tiles - t.tail;
  return t;
}

std::optional<int64_t> TileGrid::reductionWorkgroups(int64_t m) const {
  if (!tailSplit)
    return numWorkgroups(m);
  std::optional<TailTiles> t = tailTiles(m);
  if (!t)
    return std::nullopt;
  return t->tail * kSplits; // <= numWorkgroups(m), which was checked
}

std::vector<std::pair<int64_t, int64_t>>
TileGrid::tailTileOrigins(int64_t m) const {
  std::vector<std::pair<int64_t, int64_t>> origins;
  if (std::optional<TailTiles> t = tailTiles(m))
    for (int64_t tile = t->whole; tile < t->whole + t->tail; ++tile)
      origins.push_back(*tileOriginOfTile(tile, m));
  return origins;
}

bool TileGrid::isSplitTile(int64_t tile, int64_t m) const {
  if (kSplits < 2)
    return false;
  if (!tailSplit)
    return true;
  std::optional<TailTiles> t = tailTiles(m);
  return t && tile >= t->whole;
}

std::optional<std::pair<int64_t, int64_t>>
TileGrid::tileOriginOfTile(int64_t tile, int64_t m) const {
  std::optional<int64_t> tiles = numTiles(m);
  if (!tiles || tile < 0 || tile >= *tiles)
    return std::nullopt;
  IntegerTileArith arith;
  const int64_t tilesM = (m + programTileM - 1) / programTileM;
  auto [tileM, tileCol] = mapProgramToTile(arith, tile, tilesM, numTilesN,
                                           groupM, groupN, xcdRemap, numXcds);
  return std::make_pair(tileM * programTileM, tileCol * tileN);
}

std::optional<std::pair<int64_t, int64_t>>
TileGrid::tileOrigin(int64_t workgroup, int64_t m) const {
  std::optional<int64_t> count = numWorkgroups(m);
  if (!count || workgroup < 0 || workgroup >= *count)
    return std::nullopt;
  // A tail split's workgroups past the whole tiles take the tail tiles in
  // turn, segment by segment (docs/Design.md, "Tail split").
  if (tailSplit) {
    std::optional<TailTiles> t = tailTiles(m);
    if (!t)
      return std::nullopt;
    if (workgroup < t->whole)
      return tileOriginOfTile(workgroup, m);
    return tileOriginOfTile(t->whole + (workgroup - t->whole) % t->tail, m);
  }
  // Split-K grids are 2-D: x is the tile, y the K segment; flat id w is
  // x + y * tiles. A persistent workgroup's first tile is its id.
  return tileOriginOfTile(workgroup % (*count / kSplits), m);
}
