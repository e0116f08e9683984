//===- CacheModel.cpp - L1, L2 and MALL from real address streams ---------===//
//
// Replays the global accesses of the workgroups that run together through
// a per-CU L1, a per-XCD L2 and the chip's MALL (set-associative, LRU, 128 B
// lines) and records the level that serves each line of the timed
// workgroups. Co-running workgroups advance in lock step: the m-th global
// instruction of every wave of a round is one step, and within a step the
// waves take turns in a pseudo-random order drawn afresh for each step, so the
// fetches of shared lines spread over the CUs. An access to a line that another
// access of the same step is still filling is a hit-on-miss (the L2 counts
// it as a hit): it waits for the fill but uses no bandwidth below the
// level that holds it.
//
//===----------------------------------------------------------------------===//

#include "CacheModel.h"

#include <algorithm>

using namespace mxgemm;
using namespace mxgemm::sim;

SetAssocCache::SetAssocCache(uint64_t bytes, unsigned ways, unsigned lineBytes)
    : ways(std::max(1u, ways)) {
  uint64_t lines = std::max<uint64_t>(1, bytes / lineBytes);
  sets = std::max<uint64_t>(1, lines / this->ways);
  setMask = (sets & (sets - 1)) == 0 ? sets - 1 : 0;
  tags.assign(sets * this->ways, ~0ull);
  stamps.assign(sets * this->ways, 0);
  meta.assign(sets * this->ways, Meta());
}

CacheHierarchy::CacheHierarchy(const target::TargetModel &target,
                               unsigned tracedXcds)
    : target(target) {
  const target::TimingModel &t = target.timing;
  unsigned line = unsigned(t.cacheLineBytes);
  unsigned cus = unsigned(target.cusPerXcd());
  for (unsigned x = 0; x < tracedXcds; ++x) {
    l2.emplace_back(uint64_t(target.l2BytesPerXcd), unsigned(t.l2Ways), line);
    l1.emplace_back();
    for (unsigned c = 0; c < cus; ++c)
      l1.back().emplace_back(uint64_t(t.l1Bytes), unsigned(t.l1Ways), line);
  }
  mall = std::make_unique<SetAssocCache>(uint64_t(target.mallBytes),
                                         unsigned(t.mallWays), line);
}

namespace {
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
} // namespace

RoundTraffic CacheHierarchy::runRound(std::vector<Stream> &streams) {
  RoundTraffic traffic;
  // Streams still running at step m are the first live(m) ones of
  // `byLength` (longest first).
  std::vector<Stream *> byLength;
  for (Stream &s : streams)
    byLength.push_back(&s);
  std::stable_sort(
      byLength.begin(), byLength.end(), [](const Stream *a, const Stream *b) {
        return a->wave->globalOps.size() > b->wave->globalOps.size();
      });
  size_t steps = byLength.empty() ? 0 : byLength[0]->wave->globalOps.size();
  size_t live = byLength.size();
  std::vector<Stream *> order;
  for (size_t m = 0; m < steps; ++m) {
    while (live && byLength[live - 1]->wave->globalOps.size() <= m)
      --live;
    uint32_t step = ++stepCounter;
    // Within a step the waves take turns in a fresh pseudo-random order
    // (a fixed generator, so runs repeat), so that every sharer of a line
    // is as likely as any other to be the one that fetches it.
    order.assign(byLength.begin(), byLength.begin() + long(live));
    uint64_t rng = step;
    for (size_t i = live; i > 1; --i)
      std::swap(order[i - 1], order[splitmix64(rng) % i]);
    for (Stream *sp : order) {
      Stream &s = *sp;
      WaveTrace &wave = *s.wave;
      GlobalOp &op = wave.globalOps[m];
      bool cu0 = s.xcd == 0 && s.cu == 0;
      bool store = op.kind == GlobalKind::Store;
      if (s.timed) {
        op.firstLevel = uint32_t(wave.levels.size());
        wave.levels.resize(wave.levels.size() + op.numLines, LevelL2);
      }
      unsigned i = 0;
      for (unsigned r = 0; r < op.numRuns; ++r) {
        const LineRun &run = wave.runs[op.firstRun + r];
        for (uint32_t j = 0; j < run.count; ++j, ++i) {
          uint8_t level =
              access(s, run.firstLine + j, store, step, traffic, cu0);
          if (s.timed)
            wave.levels[op.firstLevel + i] = level;
        }
      }
    }
  }
  return traffic;
}

uint8_t CacheHierarchy::access(const Stream &s, uint64_t line, bool store,
                               uint32_t step, RoundTraffic &traffic, bool cu0) {
  SetAssocCache &myL1 = l1[s.xcd][s.cu];
  SetAssocCache &myL2 = l2[s.xcd];
  bool xcd0 = s.xcd == 0;
  bool hit;
  if (store) {
    // The L1 writes through without allocating; the L2 is write-back and
    // write-allocate (the CDNA3 ISA has BUFFER_WBL2 to write dirty L2
    // lines back), so a line goes back to HBM
    // once however many stores fill it while it stays in the L2: the
    // write-back is counted at the store that makes the line dirty, and a
    // store into a dirty line only merges. (When the write-back leaves the
    // L2 is not modelled: it is charged at that first store. ASSUMPTION.)
    ++traffic.storeLines;
    if (xcd0)
      ++traffic.l2Lines;
    if (cu0)
      ++traffic.cu0L2Lines;
    SetAssocCache::Meta &e = myL2.access(line, hit);
    if (!hit) {
      e.fillStep = step;
      e.fillLevel = LevelL2;
    }
    if (hit && e.dirty)
      return LevelStore | LevelMerged;
    e.dirty = true;
    ++traffic.hbmLines;
    if (cu0)
      ++traffic.cu0HbmLines;
    return LevelStore;
  }
  ++traffic.loadLines;
  myL1.access(line, hit);
  if (hit) {
    ++traffic.l1Hits;
    return LevelL1;
  }
  if (xcd0)
    ++traffic.l2Lines;
  if (cu0)
    ++traffic.cu0L2Lines;
  SetAssocCache::Meta &l2e = myL2.access(line, hit);
  if (hit) {
    ++traffic.l2Hits;
    if (l2e.fillStep == step)
      return uint8_t(l2e.fillLevel | LevelMerged);
    return LevelL2;
  }
  l2e.fillStep = step;
  ++traffic.mallLines;
  if (cu0)
    ++traffic.cu0MallLines;
  uint8_t level;
  SetAssocCache::Meta &m = mall->access(line, hit);
  if (hit) {
    ++traffic.mallHits;
    level = m.fillStep == step ? uint8_t(m.fillLevel | LevelMerged)
                               : uint8_t(LevelMall);
  } else {
    m.fillStep = step;
    m.fillLevel = LevelHbm;
    ++traffic.hbmLines;
    ++traffic.hbmReads;
    if (cu0)
      ++traffic.cu0HbmLines;
    level = LevelHbm;
  }
  l2e.fillLevel = uint8_t(level & LevelMask);
  return level;
}
