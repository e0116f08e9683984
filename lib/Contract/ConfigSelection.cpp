//===- ConfigSelection.cpp - the config the compiler picks ----------------===//
//
// The database lookup and the heuristic of docs/Compiler.md. The heuristic
// is a short ordered list of rules; each builds one config from the M
// bucket, N and K and applies only if the verifier accepts it, so a
// rule can never hand the pipeline a config it would refuse. Everything
// here is a handful of integer tests: a selection costs microseconds.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ConfigSelection.h"
#include "mxgemm/Contract/TuningDatabase.h"

#include <algorithm>
#include <initializer_list>
#include <optional>

using namespace mxgemm;
using namespace mxgemm::contract;

int contract::findMBucket(int64_t m) {
  if (m < 1)
    return -1;
  for (size_t i = 0; i < kMBuckets.size(); ++i)
    if (m <= kMBuckets[i].mMax)
      return int(i);
  return int(kMBuckets.size()) - 1;
}

std::string ConfigChoice::sourceLabel() const {
  switch (source) {
  case ConfigSource::Explicit:
    return "explicit";
  case ConfigSource::Default:
    return "default";
  case ConfigSource::Database:
    return "database:" + name;
  case ConfigSource::Heuristic:
    return "heuristic:" + name;
  }
  return "?";
}

KernelConfig contract::pingPongConfig(int64_t tileM, int64_t tileN,
                                      int64_t tileK, int64_t wavesM,
                                      int64_t wavesN, MfmaShape mfma,
                                      int64_t stages) {
  KernelConfig c;
  c.tileM = tileM;
  c.tileN = tileN;
  c.tileK = tileK;
  c.wavesM = wavesM;
  c.wavesN = wavesN;
  c.mfma = mfma;
  c.groupM = 8;
  c.groupN = 4;
  c.xcdRemap = true;
  c.stageX = c.stageW = Staging::LdsAsync;
  c.stages = stages;
  c.ldsLayout = LdsLayout::Xor;
  c.schedule = Schedule::PingPong;
  return c;
}

KernelConfig contract::twoSlotConfig() {
  return pingPongConfig(256, 256, 128, 4, 2, MfmaShape::M32N32K64, 2);
}

KernelConfig contract::r2Config() {
  return pingPongConfig(128, 256, 128, 2, 4, MfmaShape::M16N16K128, 3);
}

namespace {
/// The largest of `sizes` (descending) that divides `extent`, or 0.
int64_t largestDivisor(int64_t extent, std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes)
    if (extent % s == 0)
      return s;
  return 0;
}

/// The M the heuristic sizes tiles for: the hint, or without one the top
/// of the bucket the database's entries serve today (8193..16384).
int64_t sizingM(int64_t mHint) { return mHint > 0 ? mHint : 16384; }

/// A workgroup tile (tile_m x tile_n).
struct Tile {
  int64_t m, n;
};

/// The bucket's base tile and the one it grows to, as ranked on mxgemm-sim
/// (docs/Compiler.md, "How the rules were ranked"): narrow 32 x 128 tiles up
/// to M = 1024 (small M: more workgroups to stream W), 64 x 256 up to 4096,
/// the tuned kernels' 128 x 256 above.
Tile baseTile(int64_t m) {
  if (m <= 1024)
    return {32, 128};
  if (m <= 4096)
    return {64, 256};
  return {128, 256};
}
Tile grownTile(Tile t) {
  if (t.m == 32)
    return {64, 256};
  return {128, 256};
}

/// The base tile, grown once when its grid would exceed four workgroups per
/// CU (then the larger tile's reuse wins over the extra parallelism), with
/// tile_n shrunk to the largest of `widths` that divides N; {0, 0} if none.
Tile pickTile(const GemmProblem &p, int64_t m, const target::TargetModel &t,
              std::initializer_list<int64_t> widths) {
  auto fit = [&](Tile tile) {
    for (int64_t w : widths)
      if (w <= tile.n && p.n % w == 0)
        return Tile{tile.m, w};
    return Tile{0, 0};
  };
  Tile tile = fit(baseTile(m));
  if (!tile.n)
    return tile;
  const int64_t workgroups = (m + tile.m - 1) / tile.m * (p.n / tile.n);
  if (workgroups > 4 * t.numCus && tile.m < 128)
    if (Tile grown = fit(grownTile(tile)); grown.n)
      return grown;
  return tile;
}

/// Padded LDS rows (the tuned kernels') when every lds_async stage stays
/// whole 1024-byte copies with them, else the XOR swizzle (no padding).
LdsLayout ldsLayoutFor(const KernelConfig &c) {
  const int64_t padded = c.tileK + 16;
  bool fits = (!usesLds(c.stageX) || c.programTileM() * padded % 1024 == 0) &&
              (!usesLds(c.stageW) || c.tileN * padded % 1024 == 0);
  return fits ? LdsLayout::Padded : LdsLayout::Xor;
}

/// A config with pickTile's tile over `widths` and the largest tile_k (128,
/// 64) that divides K; nullopt when no tile fits.
std::optional<KernelConfig> tiledConfig(const GemmProblem &p, int64_t m,
                                        const target::TargetModel &t,
                                        std::initializer_list<int64_t> widths) {
  Tile tile = pickTile(p, m, t, widths);
  KernelConfig c;
  c.tileM = tile.m;
  c.tileN = tile.n;
  c.tileK = largestDivisor(p.k, {128, 64});
  if (!c.tileN || !c.tileK)
    return std::nullopt;
  return c;
}

/// The tuned families' structure (wq_b and four more): X through LDS, W
/// pre-packed in 32x64 MFMA panels, one row of four waves, interleaved.
std::optional<KernelConfig> packedFamily(const GemmProblem &p, int64_t m,
                                         const target::TargetModel &t) {
  std::optional<KernelConfig> tiled = tiledConfig(p, m, t, {256, 128});
  if (!tiled)
    return std::nullopt;
  KernelConfig c = *tiled;
  c.wavesM = 1;
  c.wavesN = 4;
  c.mfma = MfmaShape::M32N32K64;
  c.stageX = Staging::LdsAsync;
  c.stageW = Staging::PackedRegisters;
  c.stages = 2;
  c.ldsLayout = ldsLayoutFor(c);
  c.schedule = Schedule::Interleave;
  if (c.tileM == 128) {
    c.groupM = 8;
    c.groupN = 4;
    c.xcdRemap = true;
  }
  return c;
}

/// Output tiles of `c` over M x N (workgroups before any K split).
int64_t tileCount(const KernelConfig &c, const GemmProblem &p, int64_t m) {
  return (m + c.tileM - 1) / c.tileM * ((p.n + c.tileN - 1) / c.tileN);
}

/// Rounds of `workgroups` at one workgroup per CU.
int64_t rounds(int64_t workgroups, const target::TargetModel &t) {
  return (workgroups + t.numCus - 1) / t.numCus;
}

/// The most of 8, 4, 2 K segments that divide K into whole K tiles, keep
/// every segment at least 1024 deep and `tiles` x segments within
/// `maxWorkgroups`; 1 if none does (no split).
int64_t fillingKSplits(const GemmProblem &p, int64_t tileK, int64_t tiles,
                       int64_t maxWorkgroups) {
  for (int64_t splits : {8, 4, 2})
    if (p.k % (splits * tileK) == 0 && p.k / splits >= 1024 &&
        tiles * splits <= maxWorkgroups)
      return splits;
  return 1;
}

/// The database's mid-M structure (R2, the entries of engram, wo_b,
/// shared_gate_up and fused_qkv from M = 65 to 1024): 128x256x128, 2x4
/// waves of 16x16x128 MFMAs in two ping-pong groups, both operands through
/// a 3-stage XOR-swizzled LDS ring, 8x4 groups with XCD remap; K split
/// (fillingKSplits, the grid within one round) where its tiles leave CUs
/// idle. Up to M = 1024 where K >= 4096 or its tiles fill half the CUs
/// (else `staged`'s smaller tiles win); above, where its rounds are fewer
/// than the two-slot kernel's by more than a two-slot round's cost (1.5 of
/// its own, as ranked on mxgemm-sim; docs/Compiler.md).
std::optional<KernelConfig> r2Family(const GemmProblem &p, int64_t m,
                                     const target::TargetModel &t) {
  if (m < 65 || p.n % 256 || p.k % 128)
    return std::nullopt;
  KernelConfig c = r2Config();
  const int64_t tiles = tileCount(c, p, m);
  const bool pays = m <= 1024
                        ? p.k >= 4096 || 2 * tiles >= t.numCus
                        : 2 * rounds(tiles, t) <
                              3 * rounds(tileCount(twoSlotConfig(), p, m), t);
  if (!pays)
    return std::nullopt;
  c.kSplits = fillingKSplits(p, c.tileK, tiles, t.numCus);
  return c;
}

/// The ping-pong kernel of the database's large-M entries, for M >= 1025
/// (one 256-row tile would be mostly empty below): the two-slot kernel
/// (256x256x128, 8 waves of 32x32x64 MFMAs in two ping-pong groups, both
/// operands through two LDS slots; docs/Design.md, "Two-slot ping-pong")
/// where K divides into 128-deep tiles, else Q3 (256x256x64, a 3-stage
/// ring).
std::optional<KernelConfig> pingPongFamily(const GemmProblem &p, int64_t m,
                                           const target::TargetModel &) {
  if (m < 1025 || p.n % 256 || p.k % 64)
    return std::nullopt;
  if (p.k % 128 == 0)
    return twoSlotConfig();
  return pingPongConfig(256, 256, 64, 4, 2, MfmaShape::M32N32K64, 3);
}

/// Both operands row-major through a 2-stage LDS ring, the packed family's
/// tiles; tile_n down to 32 for narrow N.
std::optional<KernelConfig> stagedFamily(const GemmProblem &p, int64_t m,
                                         const target::TargetModel &t) {
  std::optional<KernelConfig> tiled = tiledConfig(p, m, t, {256, 128, 64, 32});
  if (!tiled)
    return std::nullopt;
  KernelConfig c = *tiled;
  c.wavesN = std::min<int64_t>(4, c.tileN / 32);
  c.wavesM = std::min<int64_t>(c.tileM / 32, 4 / c.wavesN);
  c.mfma = MfmaShape::M32N32K64;
  c.stageX = c.stageW = Staging::LdsAsync;
  c.stages = 2;
  c.ldsLayout = ldsLayoutFor(c);
  return c;
}

/// Decode (M <= 64), W row-major: the structure of the database's decode
/// entries (docs/Compiler.md, "The rules ranked for keys outside the
/// database"): 16x16x128 MFMAs with both operands loaded straight to
/// registers (no LDS ring, no barrier), `loads_first`, narrow tiles so that
/// W spreads over the CUs: 16 x 32 (1x2 waves, 3 stages) up to M = 16,
/// 32 x 64 (one wave, 2 stages) above. K splits (the segment rule; a second
/// launch adds the partials) where the tiles alone leave CUs idle
/// (fillingKSplits), the grid within 256 workgroups (M <= 16) or 512 (the
/// one-wave tiles). tile_k 256 (128 where 128 divides K and 256 does not,
/// or K < 256). Direct loads mask partial tile columns and K tails, so it
/// fits every N and K.
std::optional<KernelConfig> decodeFamily(const GemmProblem &p, int64_t m,
                                         const target::TargetModel &t) {
  if (m > 64)
    return std::nullopt;
  KernelConfig c;
  c.mfma = MfmaShape::M16N16K128;
  c.schedule = Schedule::LoadsFirst;
  c.tileK = p.k % 256 == 0 ? 256 : p.k % 128 == 0 || p.k < 256 ? 128 : 256;
  int64_t maxWorkgroups;
  if (m <= 16) {
    c.tileM = 16;
    c.tileN = 32;
    c.wavesM = 1;
    c.wavesN = 2;
    c.stages = 3;
    maxWorkgroups = t.numCus;
  } else {
    c.tileM = 32;
    c.tileN = 64;
    c.wavesM = c.wavesN = 1;
    c.stages = 2;
    maxWorkgroups = 2 * t.numCus;
  }
  c.kSplits = fillingKSplits(p, c.tileK, tileCount(c, p, m), maxWorkgroups);
  return c;
}

/// Decode (M <= 64), W in 32x32x64 MFMA panels: one 32-row tile, 32
/// columns per wave straight from the panels, X loaded directly, the
/// largest K tile up to 512 that divides K (panels need whole K tiles).
std::optional<KernelConfig> packedDecodeFamily(const GemmProblem &p, int64_t m,
                                               const target::TargetModel &) {
  if (m > 64 || p.n % 64)
    return std::nullopt;
  KernelConfig c;
  c.tileM = 32;
  c.tileN = 64;
  c.tileK = largestDivisor(p.k, {512, 256, 128, 64});
  if (!c.tileK)
    return std::nullopt;
  c.wavesM = 1;
  c.wavesN = 2;
  c.mfma = MfmaShape::M32N32K64;
  c.stageW = Staging::PackedRegisters;
  return c;
}

/// The naive kernel (KernelConfig{}) with tile_n and tile_k shrunk to
/// divide N and K; where none divides, 128, and the kernel masks the partial
/// last tile column and the K tail (direct loads, nothing staged: the only
/// structure that masks a K tail).
std::optional<KernelConfig> naiveSizeFamily(const GemmProblem &p, int64_t,
                                            const target::TargetModel &) {
  KernelConfig c;
  c.tileN = largestDivisor(p.n, {128, 64, 32});
  c.tileK = largestDivisor(p.k, {128, 64});
  if (!c.tileN)
    c.tileN = 128;
  if (!c.tileK)
    c.tileK = 128;
  c.wavesN = std::min<int64_t>(2, c.tileN / 32);
  return c;
}

struct Rule {
  const char *name;
  /// Reads W packed in MFMA panels (m32n32k64) rather than row-major.
  bool packedW;
  std::optional<KernelConfig> (*build)(const GemmProblem &, int64_t m,
                                       const target::TargetModel &);
  const char *why;
};

/// In order; the first rule whose config verifies wins. Keep in step with
/// the table in docs/Compiler.md.
constexpr Rule kRules[] = {
    {"packed-decode", true, packedDecodeFamily,
     "decode: X loaded directly, W straight from MFMA panels, 32 x 64 "
     "tiles"},
    {"decode", false, decodeFamily,
     "decode: 16x16x128 MFMAs, both operands loaded directly, narrow "
     "tiles, K split to fill the CUs"},
    {"packed", true, packedFamily,
     "the tuned kernels' structure (X through LDS, W in MFMA panels)"},
    {"r2", false, r2Family,
     "128x256x128 ping-pong with 16x16x128 MFMAs and a 3-stage LDS ring, "
     "K split to fill the CUs"},
    {"pingpong", false, pingPongFamily,
     "the two-slot ping-pong kernel (256x256x128; 256x256x64 with 3 "
     "stages where K is not a multiple of 128)"},
    {"staged", false, stagedFamily,
     "both operands row-major through a 2-stage LDS ring"},
    {"naive-size", false, naiveSizeFamily,
     "the naive kernel with tiles that divide N and K, or masked edges"},
};

std::string bucketText(int64_t mHint, int bucket) {
  std::string range = "[" + std::to_string(kMBuckets[bucket].mMin) + ", " +
                      std::to_string(kMBuckets[bucket].mMax) + "]";
  return mHint > 0 ? "M " + std::to_string(mHint) + " in bucket " + range
                   : "no M hint, sized for M 16384 in bucket " + range;
}
} // namespace

KernelConfig contract::genericConfig(int64_t m) {
  KernelConfig c; // M > 64: the naive kernel, 32x32x64, 128x128x128 tiles
  if (m >= 1 && m <= 64) {
    // The decode rule's structure, for M <= 16 and M <= 64.
    c.mfma = MfmaShape::M16N16K128;
    c.tileN = 64;
    c.tileK = 256;
    c.tileM = m <= 16 ? 16 : 64;
    c.wavesM = m <= 16 ? 1 : 2;
    c.wavesN = m <= 16 ? 4 : 2;
  }
  return c;
}

ErrorMessage contract::selectConfig(const GemmProblem &problem, int64_t mHint,
                                    const TuningDatabase *database,
                                    const target::TargetModel &target,
                                    ConfigChoice &out) {
  if (ErrorMessage e = validateProblem(problem, /*allowDynamic=*/true))
    return e;
  if (mHint < 0 || mHint > kMaxM)
    return "the M hint must be in 0.." + std::to_string(kMaxM) +
           " (0: none), got " + std::to_string(mHint);
  // A generic kernel (run-time N or K) has no key in the database and no
  // N or K to size tiles by: the direct-load structure for its M.
  if (problem.isGeneric()) {
    out.config = genericConfig(mHint);
    out.source = ConfigSource::Heuristic;
    out.name = "generic";
    out.reason = std::string("heuristic rule 'generic': run-time N or K, "
                             "both operands loaded directly, ") +
                 (mHint >= 1 && mHint <= 64
                      ? "16x16x128 decode tiles for M " + std::to_string(mHint)
                      : std::string("32x32x64 128x128x128 tiles for M > 64 "
                                    "(or no hint)"));
    return std::nullopt;
  }

  // 1. The database: entries of this key, the one whose range holds the
  // hint (ranges of a key never overlap), or without a hint the one that
  // holds the largest M. Never a scale-layout variant: auto's kernels read
  // row-major scales, the default; a variant is compiled by its name.
  const TuningEntry *best = nullptr;
  bool keyHasEntries = false, keyPacked = false;
  MfmaShape keyMfma = MfmaShape::M32N32K64;
  if (database)
    for (const TuningEntry &e : database->entries) {
      if (e.arch != target.chip || e.problem != problem)
        continue;
      keyHasEntries = true;
      keyPacked = e.config.readsWeightPanels();
      keyMfma = e.config.mfma;
      if (e.isScaleLayoutVariant())
        continue;
      bool fits = mHint ? e.mMin <= mHint && mHint <= e.mMax
                        : !best || e.mMax > best->mMax;
      if (fits)
        best = &e;
    }
  if (best) {
    out.config = best->config;
    out.source = ConfigSource::Database;
    out.name = best->name;
    out.reason = "tuning-database entry '" + best->name + "' (M range " +
                 std::to_string(best->mMin) + ".." +
                 std::to_string(best->mMax) +
                 (mHint ? " holds M " + std::to_string(mHint)
                        : ", the largest M of the key; no M hint") +
                 ")";
    return std::nullopt;
  }

  // 2. The heuristic. W's layout is a property of the key, not of M: the
  // database's for a known key, else row-major, which every entry of the
  // shipped database reads (its row-major kernels beat the panel ones at
  // every M bucket of the seven keys; docs/Compiler.md).
  const int64_t m = sizingM(mHint);
  const int bucket = findMBucket(m);
  bool packedW;
  std::string layoutWhy;
  if (keyHasEntries) {
    if (keyPacked && keyMfma != MfmaShape::M32N32K64)
      return "the database's entries for N = " + std::to_string(problem.n) +
             ", K = " + std::to_string(problem.k) + " read W in " +
             std::string(mfmaShapeName(keyMfma)) +
             " panels, which no heuristic family reads; add an entry for "
             "this M or give --config";
    packedW = keyPacked;
    layoutWhy = "W layout of the key's database entries";
  } else {
    packedW = false;
    layoutWhy = "W row-major (no database entry of the key reads panels)";
  }
  for (const Rule &rule : kRules) {
    if (rule.packedW != packedW)
      continue;
    std::optional<KernelConfig> config = rule.build(problem, m, target);
    if (!config || verifyConfig(*config, target) ||
        verifyProblemConfig(problem, *config))
      continue;
    out.config = *config;
    out.source = ConfigSource::Heuristic;
    out.name = rule.name;
    out.reason = std::string("heuristic rule '") + rule.name +
                 "': " + rule.why + "; " + bucketText(mHint, bucket) + "; " +
                 layoutWhy +
                 (keyHasEntries ? "; no database entry of the key holds M"
                                : "; no database entry for this key");
    return std::nullopt;
  }
  return "no config fits N = " + std::to_string(problem.n) +
         ", K = " + std::to_string(problem.k) +
         " with W in the layout of the key's database entries (MFMA "
         "panels need N a multiple of 128 and K of 64; only the naive "
         "kernel masks edges, and it reads W row-major); give --config";
}
