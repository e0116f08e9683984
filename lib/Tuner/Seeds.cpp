//===- Seeds.cpp - the first population of mxgemm-tune --------------------===//

#include "mxgemm/Tuner/Seeds.h"

#include "mxgemm/Contract/ConfigSelection.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mxgemm;
using namespace mxgemm::tuner;
using contract::KernelConfig;
using contract::LdsLayout;
using contract::MfmaShape;
using contract::Schedule;
using contract::Staging;

namespace {

struct Tile {
  int64_t m, n, waveM, waveN;
};

std::string tileName(const char *kind, const KernelConfig &c) {
  std::string s = std::string(kind) + " " + std::to_string(c.tileM) + "x" +
                  std::to_string(c.tileN) + "x" + std::to_string(c.tileK) +
                  " " + std::to_string(c.wavesM) + "x" +
                  std::to_string(c.wavesN);
  if (c.kSplits > 1)
    s += " k_splits " + std::to_string(c.kSplits);
  if (c.schedule == Schedule::LoadsFirst)
    s += " loads_first";
  if (c.prefetchesRegisters())
    s += " stages " + std::to_string(c.stages);
  return s;
}

/// `c`, and `c` with 2 and 3 stages where its K loop (of a kernel without
/// an LDS ring) has the K tiles to pipeline: register prefetch, one or two
/// K tiles of loads in flight during a K tile's MFMAs.
void withPrefetch(const char *kind, KernelConfig c, int64_t k,
                  std::vector<SeedStructure> &out) {
  out.push_back({tileName(kind, c), c});
  const int64_t trips = llvm::divideCeil(k / c.kSplits, c.tileK);
  for (int64_t stages : {2, 3})
    if (trips >= stages) {
      c.stages = stages;
      out.push_back({tileName(kind, c), c});
    }
}

/// `c`, and `c` with every global load of a K tile issued before its MFMAs
/// (direct loads from HBM at small M: one memory latency per K tile), with
/// and without register prefetch.
void withLoadsFirst(const char *kind, KernelConfig c, int64_t k,
                    std::vector<SeedStructure> &out) {
  out.push_back({tileName(kind, c), c});
  c.schedule = Schedule::LoadsFirst;
  withPrefetch(kind, c, k, out);
}

KernelConfig direct(Tile t, int64_t tileK, MfmaShape mfma) {
  KernelConfig c;
  c.tileM = t.m;
  c.tileN = t.n;
  c.tileK = tileK;
  c.wavesM = t.waveM;
  c.wavesN = t.waveN;
  c.mfma = mfma;
  return c;
}

/// X and W through a 3-stage XOR LDS ring, two groups of waves taking turns
/// (docs/Design.md, "Ping-pong"), 32x32x64 MFMAs.
KernelConfig pingPong(Tile t, int64_t tileK) {
  return contract::pingPongConfig(t.m, t.n, tileK, t.waveM, t.waveN,
                                  MfmaShape::M32N32K64, 3);
}

/// X through a padded 2-stage LDS ring, W straight from MFMA panels.
KernelConfig packedStaged(Tile t, int64_t tileK, int64_t stages, bool grouped) {
  KernelConfig c = direct(t, tileK, MfmaShape::M32N32K64);
  c.stageX = Staging::LdsAsync;
  c.stageW = Staging::PackedRegisters;
  c.stages = stages;
  c.ldsLayout = LdsLayout::Padded;
  c.schedule = Schedule::Interleave;
  if (grouped) {
    c.groupM = 8;
    c.groupN = 4;
    c.xcdRemap = true;
  }
  return c;
}

int64_t firstDivisor(int64_t k, std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes)
    if (k % s == 0)
      return s;
  return 0;
}

void rowMajor(const contract::GemmProblem &p, int64_t m, int64_t cus,
              std::vector<SeedStructure> &out) {
  const int64_t n = p.n, k = p.k;
  // Direct loads mask a K tail, so a tile_k that divides nothing still runs.
  int64_t tk = firstDivisor(k, {256, 384, 128});
  if (!tk)
    tk = k < 256 ? 128 : 256;
  if (m <= 64) {
    // Decode: 16x16x128 MFMAs, both operands loaded directly (no LDS, no
    // barrier), narrow tiles so that the grid spreads W over the CUs, and
    // long K tiles so that each wave keeps many W bytes in flight.
    std::vector<Tile> shapes = {{16, 16, 1, 1},
                                {16, 32, 1, 2},
                                {16, 64, 1, 4},
                                {16, 64, 1, 2},
                                {16, 128, 1, 4}};
    // Above 16 rows, also tiles of one wave: waves that split a tile's rows
    // or columns each load the other operand's whole slice again (direct
    // loads share nothing), and at M = 64 that copy costs as much address
    // unit time as W itself (docs/Performance.md, "M = 17..64: one wave per
    // tile").
    if (m > 16)
      shapes.insert(shapes.end(), {{32, 32, 2, 1},
                                   {32, 64, 2, 2},
                                   {64, 64, 2, 2},
                                   {32, 32, 1, 1},
                                   {32, 64, 1, 1},
                                   {64, 32, 1, 1},
                                   {64, 64, 1, 1}});
    for (Tile t : shapes) {
      KernelConfig c = direct(t, tk, MfmaShape::M16N16K128);
      withLoadsFirst("decode", c, k, out);
      // Split-K when N alone gives too few workgroups to stream W from
      // every CU (an FP32 workspace and a second launch).
      for (int64_t splits : {2, 4})
        if (k % (splits * tk) == 0 &&
            int64_t(llvm::divideCeil(n, t.n)) < 2 * cus) {
          c.kSplits = splits;
          withLoadsFirst("decode", c, k, out);
        }
    }
    return;
  }
  if (m <= 1024) {
    for (Tile t : std::initializer_list<Tile>{{32, 64, 2, 2},
                                              {64, 64, 2, 2},
                                              {64, 128, 2, 2},
                                              {128, 64, 4, 1},
                                              {128, 128, 2, 2},
                                              {128, 128, 4, 2}}) {
      // Above M = 256 the small direct tiles lose (and take the longest to
      // simulate: thousands of workgroups).
      if (m > 256 && t.m * t.n < 64 * 128)
        continue;
      KernelConfig c = direct(t, tk, MfmaShape::M16N16K128);
      withLoadsFirst("direct", c, k, out);
      const int64_t tiles = llvm::divideCeil(m, t.m) * llvm::divideCeil(n, t.n);
      for (int64_t splits : fillingSplits(k, tk, tiles, cus)) {
        c.kSplits = splits;
        withLoadsFirst("direct", c, k, out);
      }
    }
    KernelConfig staged = direct({64, 128, 1, 4}, 128, MfmaShape::M32N32K64);
    staged.stageX = staged.stageW = Staging::LdsAsync;
    staged.stages = 2;
    staged.ldsLayout = LdsLayout::Xor;
    out.push_back({tileName("staged", staged), staged});
  }
  // Ping-pong: Q3 (256x256x64, 4x2 waves), R1 (256x128x128), R2
  // (128x256x128, 2x4 waves, both MFMA shapes), Q3's tile in a two-slot
  // ring; R1 only up to M = 1024, the two-slot one only above.
  if (k % 64 == 0 && n % 256 == 0)
    out.push_back({"Q3", pingPong({256, 256, 4, 2}, 64)});
  if (m <= 1024 && k % 128 == 0 && n % 128 == 0)
    out.push_back({"R1", pingPong({256, 128, 4, 2}, 128)});
  if (k % 128 == 0 && n % 256 == 0) {
    out.push_back({"R2", pingPong({128, 256, 2, 4}, 128)});
    // R2 with 16x16x128 MFMAs, the form of the qualified engram,
    // shared_gate_up and fused_qkv entries, predicted faster than the
    // 32x32x64 form there (docs/Performance.md).
    out.push_back({"R2 16x16x128", contract::r2Config()});
    // Q3's 256x256 tile with 128-K copies (whole 128-byte rows) in a
    // two-slot ring, each K tile in two turns (docs/Design.md, "Two-slot
    // ping-pong").
    if (m > 1024)
      out.push_back({"Q3 two-slot 256x256x128", contract::twoSlotConfig()});
  }
  if (m > 1024) {
    // The structure with both operands through an XOR ring, one schedule.
    KernelConfig f = direct({256, 256, 2, 4}, 128, MfmaShape::M32N32K64);
    f.stageX = f.stageW = Staging::LdsAsync;
    f.stages = 2;
    f.ldsLayout = LdsLayout::Xor;
    f.schedule = Schedule::Interleave;
    f.groupM = 8;
    f.groupN = 4;
    f.xcdRemap = true;
    out.push_back({"F", f});
  }
}

void panels(const contract::GemmProblem &p, int64_t m, int64_t cus,
            std::vector<SeedStructure> &out) {
  // Panels need whole K tiles.
  int64_t tk = firstDivisor(p.k, {512, 256, 128});
  if (m <= 64) {
    if (!tk)
      return;
    std::vector<Tile> shapes = {
        {32, 32, 1, 1}, {32, 64, 1, 2}, {32, 128, 1, 4}};
    if (m > 32)
      shapes.insert(shapes.end(), {{64, 64, 2, 1}, {64, 128, 2, 2}});
    for (Tile t : shapes) {
      KernelConfig c = direct(t, tk, MfmaShape::M32N32K64);
      c.stageW = Staging::PackedRegisters;
      withPrefetch("decode panels", c, p.k, out);
      // Split-K when the tile columns alone leave most CUs idle: every
      // segment count up to 16 that cuts K into whole K tiles (K = 5120
      // in 512-element tiles splits 2, 5 or 10 ways, not 4 or 8).
      const int64_t columns = llvm::divideCeil(p.n, t.n);
      for (int64_t splits = 2; splits <= 16 && columns < 2 * cus; ++splits)
        if (p.k % (splits * tk) == 0 && columns * splits <= 8 * cus) {
          c.kSplits = splits;
          withPrefetch("decode panels", c, p.k, out);
        }
    }
    return;
  }
  if (m <= 1024) {
    std::vector<Tile> shapes;
    if (m <= 256)
      shapes.push_back({64, 64, 2, 2});
    shapes.insert(shapes.end(), {{64, 128, 1, 4}, {128, 128, 2, 2}});
    for (Tile t : shapes) {
      KernelConfig c = direct(t, 128, MfmaShape::M32N32K64);
      c.stageW = Staging::PackedRegisters;
      withPrefetch("direct panels", c, p.k, out);
      // Split-K with the longest whole K tile, as for decode.
      if (!tk)
        continue;
      c.tileK = tk;
      const int64_t tiles =
          llvm::divideCeil(m, t.m) * llvm::divideCeil(p.n, t.n);
      for (int64_t splits : fillingSplits(p.k, tk, tiles, cus)) {
        c.kSplits = splits;
        withPrefetch("direct panels", c, p.k, out);
      }
    }
    for (Tile t : {Tile{64, 128, 1, 4}, Tile{64, 256, 1, 4}}) {
      KernelConfig c = packedStaged(t, 128, 2, false);
      out.push_back({tileName("staged panels", c), c});
    }
  }
  // E128: the case table's first tuned structure (docs/Tuning.md).
  out.push_back({"E128", packedStaged({128, 256, 1, 4}, 128, 2, true)});
  if (m <= 1024) {
    out.push_back({"E128n128", packedStaged({128, 128, 1, 4}, 128, 2, true)});
    if (p.k % 256 == 0)
      out.push_back(
          {"E256n128s1", packedStaged({128, 128, 1, 4}, 256, 1, true)});
  } else {
    out.push_back({"E256", packedStaged({128, 256, 1, 4}, 256, 2, true)});
    out.push_back({"E128n128", packedStaged({128, 128, 1, 4}, 128, 2, true)});
  }
}

} // namespace

std::vector<int64_t> tuner::tailSplitCounts(int64_t k, int64_t tileK,
                                            const std::vector<int64_t> &tails,
                                            int64_t round) {
  std::vector<int64_t> out;
  if (tails.empty() || llvm::any_of(tails, [](int64_t t) { return t <= 0; }))
    return out;
  const int64_t longest = *std::max_element(tails.begin(), tails.end());
  // More segments shorten the tail's round but add partials to read back
  // (shared_gate_up at M = 16384: 2, 4 and 8 segments give 164.8, 154.8
  // and 180.2 us; docs/Performance.md): the two largest that fit.
  for (int64_t splits = 16; splits >= 2 && out.size() < 2; --splits)
    if (k % (splits * tileK) == 0 && longest * splits <= round)
      out.push_back(splits);
  return out;
}

contract::KernelConfig tuner::tailSplitVariant(contract::KernelConfig config,
                                               int64_t splits) {
  config.kSplits = splits;
  config.tailSplit = true;
  return config;
}

std::vector<int64_t> tuner::fillingSplits(int64_t k, int64_t tileK,
                                          int64_t tiles, int64_t slots) {
  std::vector<int64_t> out;
  if (tiles >= slots)
    return out;
  auto add = [&](int64_t splits) {
    if (std::find(out.begin(), out.end(), splits) == out.end())
      out.push_back(splits);
  };
  for (int64_t target : {slots, 2 * slots})
    for (int64_t splits = 2; splits <= 16; ++splits)
      if (k % (splits * tileK) == 0 && tiles * splits >= target) {
        add(splits);
        break;
      }
  // The most segments that still fit one round: when the count that fills
  // the slots overshoots them, a kernel with one workgroup per CU would run
  // a second, nearly empty round (56 tiles split 5 ways is 280 workgroups
  // on 256 CUs; 4 ways, 224, is one round).
  for (int64_t splits = 16; splits >= 2; --splits)
    if (k % (splits * tileK) == 0 && tiles * splits <= slots) {
      add(splits);
      break;
    }
  return out;
}

std::vector<SeedStructure>
tuner::seedStructures(const contract::GemmProblem &problem, int64_t m,
                      bool readsPanels, const target::TargetModel &target) {
  std::vector<SeedStructure> out;
  if (readsPanels)
    panels(problem, m, target.numCus, out);
  else
    rowMajor(problem, m, target.numCus, out);
  // Drop the structures whose tiles the problem's N or K cannot take.
  out.erase(
      std::remove_if(
          out.begin(), out.end(),
          [&](const SeedStructure &s) {
            return contract::verifyProblemConfig(problem, s.config).has_value();
          }),
      out.end());
  return out;
}
