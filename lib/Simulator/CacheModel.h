//===- CacheModel.h - L1, L2 and MALL from real address streams -*- C++ -*-===//
//
// The cache pass of the simulator (see CacheModel.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_SIMULATOR_CACHEMODEL_H
#define MXGEMM_LIB_SIMULATOR_CACHEMODEL_H

#include "SimulatorImpl.h"

#include <memory>
#include <vector>

namespace mxgemm::sim {

/// A set-associative LRU cache of line addresses with, per line, the step
/// and level of the fill that brought it in.
class SetAssocCache {
public:
  struct Meta {
    uint32_t fillStep = 0;
    uint8_t fillLevel = 0;
    /// An L2 line written since it was allocated: its write-back to HBM is
    /// already counted.
    bool dirty = false;
  };
  SetAssocCache(uint64_t bytes, unsigned ways, unsigned lineBytes);
  /// Looks the line up and makes it the most recently used; allocates it
  /// over the least recently used line of its set on a miss (`hit` false,
  /// metadata reset).
  Meta &access(uint64_t line, bool &hit) {
    size_t base = size_t(setOf(line)) * ways;
    uint64_t *tag = &tags[base];
    uint32_t *stamp = &stamps[base];
    for (unsigned i = 0; i < ways; ++i)
      if (tag[i] == line) {
        stamp[i] = ++clock;
        hit = true;
        return meta[base + i];
      }
    unsigned victim = 0;
    uint32_t oldest = stamp[0];
    for (unsigned i = 1; i < ways; ++i)
      if (stamp[i] < oldest) {
        oldest = stamp[i];
        victim = i;
      }
    hit = false;
    tag[victim] = line;
    stamp[victim] = ++clock;
    meta[base + victim] = Meta();
    return meta[base + victim];
  }

private:
  unsigned setOf(uint64_t line) const {
    // Hashed set index (the L2 hashes addresses over its channels; the
    // exact hash is not public). ASSUMPTION.
    uint64_t h = line ^ (line >> 13) ^ (line >> 27);
    return unsigned(setMask ? h & setMask : h % sets);
  }
  uint64_t sets, setMask;
  unsigned ways;
  uint32_t clock = 0;
  std::vector<uint64_t> tags; // ~0 = empty (stamp 0: oldest)
  std::vector<uint32_t> stamps;
  std::vector<Meta> meta;
};

/// The caches of the traced XCDs: 32 L1s and an L2 each, and the MALL.
class CacheHierarchy {
public:
  CacheHierarchy(const target::TargetModel &target, unsigned tracedXcds);

  /// One wave of a traced workgroup in a round.
  struct Stream {
    unsigned xcd, cu;
    WaveTrace *wave;
    bool timed; // record the serving levels (the simulated CU, XCD 0 CU 0)
  };
  /// Replays one round; `streams` in dispatch order with the simulated CU's
  /// waves first.
  RoundTraffic runRound(std::vector<Stream> &streams);

private:
  uint8_t access(const Stream &s, uint64_t line, bool store, uint32_t step,
                 RoundTraffic &traffic, bool cu0);
  const target::TargetModel &target;
  std::vector<std::vector<SetAssocCache>> l1;
  std::vector<SetAssocCache> l2;
  std::unique_ptr<SetAssocCache> mall;
  uint32_t stepCounter = 0;
};

} // namespace mxgemm::sim

#endif // MXGEMM_LIB_SIMULATOR_CACHEMODEL_H
