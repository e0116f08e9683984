//===- TileGrouping.h - the grid and program id -> tile map ---*- C++ -*-===//
//
// The one definition of a kernel's grid (how many workgroups serve M rows)
// and of the program-id -> output tile mapping. The mapping is written once
// over an arithmetic policy so that mxgemm-group-tiles emits exactly the
// formula the unit tests enumerate for bijectivity (every tile produced
// exactly once, ragged edges included), and the runtime, the tools and
// Python (through the runtime's C API) evaluate the same function on
// integers with every input checked (`TileGrid`).
//
// Order of operations:
//   1. optional XCD remap: gfx950 sends program p to XCD p % 8 (the target
//      model's numXcds); the remap
//      turns the ids one XCD receives into a contiguous logical range, so
//      neighbouring logical tiles (which share operands) share that XCD's L2.
//   2. grouping: bands of `groupM` tile rows; inside a band, column groups
//      of `groupN` tiles (`groupN = 0`: the whole row, i.e. the classic 1-D
//      GROUP_M); inside a group, M varies fastest. The last band and the
//      last column group may be smaller (ragged edges).
//   `groupM = 1, groupN = 0` without remap is plain row-major order.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_TILEGROUPING_H
#define MXGEMM_CONTRACT_TILEGROUPING_H

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mxgemm::contract {

/// Maps `pid` in [0, numTilesM * numTilesN) to (tileM, tileN); `numXcds` is
/// the number of XCDs the hardware distributes consecutive workgroups over
/// (only read with `xcdRemap`). `Arith`
/// provides: Value, cst(int64), add, sub, mul, divu, remu, minu,
/// selectLt(a, b, then, else) (= a < b ? then : else, unsigned).
template <typename Arith>
std::pair<typename Arith::Value, typename Arith::Value>
mapProgramToTile(Arith &a, typename Arith::Value pid,
                 typename Arith::Value numTilesM, int64_t numTilesN,
                 int64_t groupM, int64_t groupN, bool xcdRemap,
                 int64_t numXcds) {
  using V = typename Arith::Value;
  V tilesN = a.cst(numTilesN);
  if (xcdRemap) {
    // Ragged XCD remap: the first `tall` XCDs receive `perXcd` programs, the
    // others one fewer.
    // Every value is named so that the emitted IR order does not depend on
    // the C++ compiler's argument evaluation order.
    V xcds = a.cst(numXcds);
    V numPids = a.mul(numTilesM, tilesN);
    V roundUp = a.add(numPids, a.cst(numXcds - 1));
    V perXcd = a.divu(roundUp, xcds);
    V rem = a.remu(numPids, xcds);
    V one = a.cst(1);
    V tall = a.selectLt(rem, one, xcds, rem); // rem == 0 -> all tall
    V xcd = a.remu(pid, xcds);
    V local = a.divu(pid, xcds);
    V tallBase = a.mul(xcd, perXcd);
    V onTall = a.add(tallBase, local);
    V shortIndex = a.sub(xcd, tall);
    V shortSize = a.sub(perXcd, one);
    V shortOffset = a.mul(shortIndex, shortSize);
    V tallEnd = a.mul(tall, perXcd);
    V shortBase = a.add(tallEnd, shortOffset);
    V onShort = a.add(shortBase, local);
    pid = a.selectLt(xcd, tall, onTall, onShort);
  }
  if (groupM == 1 && groupN == 0)
    return {a.divu(pid, tilesN), a.remu(pid, tilesN)};
  const int64_t width = groupN == 0 ? numTilesN : groupN;
  V bandTiles = a.cst(groupM * numTilesN);
  V band = a.divu(pid, bandTiles);
  V inBand = a.remu(pid, bandTiles);
  V rows = a.cst(groupM);
  V firstRow = a.mul(band, rows);
  V rowsLeft = a.sub(numTilesM, firstRow);
  V height = a.minu(rows, rowsLeft);
  V cols = a.cst(width);
  V groupTiles = a.mul(height, cols);
  V groupCol = a.divu(inBand, groupTiles);
  V inGroup = a.remu(inBand, groupTiles);
  V rowInGroup = a.remu(inGroup, height);
  V tileM = a.add(firstRow, rowInGroup);
  V firstCol = a.mul(groupCol, cols);
  V colInGroup = a.divu(inGroup, height);
  V tileN = a.add(firstCol, colInGroup);
  return {tileM, tileN};
}

/// The policy over plain integers (TileGrid, tests).
struct IntegerTileArith {
  using Value = int64_t;
  Value cst(int64_t v) { return v; }
  Value add(Value x, Value y) { return x + y; }
  Value sub(Value x, Value y) { return x - y; }
  Value mul(Value x, Value y) { return x * y; }
  Value divu(Value x, Value y) { return static_cast<uint64_t>(x) / y; }
  Value remu(Value x, Value y) { return static_cast<uint64_t>(x) % y; }
  Value minu(Value x, Value y) {
    return static_cast<uint64_t>(x) < static_cast<uint64_t>(y) ? x : y;
  }
  Value selectLt(Value x, Value y, Value t, Value e) {
    return static_cast<uint64_t>(x) < static_cast<uint64_t>(y) ? t : e;
  }
};

/// The grid of one kernel: 1-D, ceil(M / programTileM) * numTilesN
/// workgroups (docs/Design.md section 4), and its program-id -> tile
/// mapping, evaluated with every input checked so that a caller-built grid
/// (group_m = 0, a workgroup past the grid, M past the i32 argument) is an
/// error instead of a division by zero.
struct TileGrid {
  int64_t programTileM = 0, tileN = 0, numTilesN = 0;
  int64_t groupM = 1, groupN = 0;
  bool xcdRemap = false;
  int64_t numXcds = 0;
  /// Split-K segments: the grid's y dimension (x is the tile).
  int64_t kSplits = 1;
  /// Persistent grids: at most this many workgroups, each walking the tiles
  /// w, w + grid, ... (config `persistent` x the CUs); 0 = one per tile.
  int64_t maxWorkgroups = 0;
  /// Tail split (config `tail_split`, docs/Design.md "Tail split"): only
  /// the T % roundWorkgroups tiles past the last whole round of T tiles are
  /// split into kSplits segments. The grid is then 1-D in both launches.
  bool tailSplit = false;
  /// Workgroups of one round for the tail split: the target's CUs.
  int64_t roundWorkgroups = 0;

  /// The grid of `config` for N = `n` on `target`.
  static TileGrid of(const KernelConfig &config, int64_t n,
                     const target::TargetModel &target);

  /// The grid for a call with N = `n`: numTilesN = ceil(n / tileN), the
  /// rest unchanged (a generic kernel's descriptor has numTilesN = 0, the
  /// launcher computes it; invalid when n is outside 1..2^24).
  TileGrid forN(int64_t n) const;

  /// True if the fields describe a grid (validate() says why not). Cheap:
  /// the runtime checks it on every dispatch.
  bool isValid() const;
  /// Why the fields cannot describe a grid, or nothing.
  ErrorMessage validate() const;
  /// Workgroups for `m` rows, all dimensions (x tiles times y = k_splits
  /// segments); nothing if the grid is invalid, m < 1, m
  /// exceeds the kernel's i32 M argument or the count exceeds UINT32_MAX
  /// (HIP grid dimensions are 32-bit); for a persistent grid, if the tiles
  /// exceed INT32_MAX minus the grid (its walk's i32 counter).
  std::optional<int64_t> numWorkgroups(int64_t m) const;
  /// Output tiles for `m` rows (without the k_splits dimension); equal to
  /// the workgroups of x unless the grid is persistent.
  std::optional<int64_t> numTiles(int64_t m) const;
  /// A tail split's tiles for `m` rows: the first `whole` run their whole K
  /// in the first launch (tile = workgroup id), the `tail` after them are
  /// cut into kSplits segments (whole + tail = numTiles).
  struct TailTiles {
    int64_t whole = 0, tail = 0;
  };
  /// The split of the tiles for `m` rows; nothing where numTiles is nothing
  /// or the grid has no tail split.
  std::optional<TailTiles> tailTiles(int64_t m) const;
  /// Workgroups of the second launch of a split-K kernel (the reduction)
  /// for `m` rows: tail * kSplits with a tail split (0: no second launch),
  /// else numWorkgroups. Nothing where numWorkgroups is nothing.
  std::optional<int64_t> reductionWorkgroups(int64_t m) const;
  /// True if tile `tile` (in the walk order) is split into kSplits segments
  /// for `m` rows: every tile of a split-K grid, the tail tiles of a tail
  /// split.
  bool isSplitTile(int64_t tile, int64_t m) const;
  /// First output row and column of each tail tile of a tail split for `m`
  /// rows (where the segment rule's boundaries apply); empty without a
  /// tail split or without tail tiles.
  std::vector<std::pair<int64_t, int64_t>> tailTileOrigins(int64_t m) const;
  /// First output row and column of workgroup `workgroup` (the flat id,
  /// x + y * tiles; with a tail split whole tiles then tail segments) for
  /// `m` rows;
  /// nothing where numWorkgroups is nothing or workgroup is past the grid.
  std::optional<std::pair<int64_t, int64_t>> tileOrigin(int64_t workgroup,
                                                        int64_t m) const;
  /// First output row and column of tile `tile` (0 .. numTiles(m) - 1) in
  /// the walk order; a persistent workgroup w runs the tiles w + i * grid.
  std::optional<std::pair<int64_t, int64_t>> tileOriginOfTile(int64_t tile,
                                                              int64_t m) const;
};

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_TILEGROUPING_H
