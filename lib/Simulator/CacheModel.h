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
    uint32_t stamp = 0;
    uint32_t fillStep = 0;
    uint8_t fillLevel = 0;
  };
  SetAssocCache(uint64_t bytes, unsigned ways, unsigned lineBytes);
  /// The line's metadata (now most recently used), or null.
  Meta *find(uint64_t line) {
    size_t base = size_t(setOf(line)) * ways;
    const uint64_t *tag = &tags[base];
    for (unsigned i = 0; i < ways; ++i)
      if (tag[i] == line) {
        meta[base + i].stamp = ++clock;
        return &meta[base + i];
      }
    return nullptr;
  }
  /// Allocates the line, evicting the least recently used of its set.
  Meta *insert(uint64_t line);

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
  std::vector<uint64_t> tags; // ~0 = empty
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
