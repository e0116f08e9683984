//===- CuModel.cpp - one gfx950 compute unit, cycle by cycle --------------===//
//
// Issues the recorded instruction streams of the workgroups of one CU in
// time. Each cycle one SIMD (round robin) may issue, so a SIMD issues every
// `issueIntervalCycles`; at its turn it issues at most one instruction per
// wave and one per unit (VALU incl. MFMA, VMEM, SALU/SMEM, LDS, branch),
// taking waves by s_setprio priority, then age. A wave waits for its
// register dependencies (a per-wave scoreboard: VALU results in one issue
// interval, quarter-rate ones in four, MFMA results by the wait-state rules
// of the ISA), for its unit (the SIMD's VALU and matrix pipe, the SIMD
// pair's LDS FIFO, the CU's vector-memory queue), for s_waitcnt counters
// (retiring in order, as the emulator counts them; SMEM out of order), for
// s_barrier and s_nop/s_sleep. Memory operations reserve FIFO servers (LDS
// service and ports, the address unit, the TCP's in-flight bytes, L1 fill,
// the CU's shares of L2/MALL/HBM, data return) when they issue, so every
// completion time is known at issue and the model jumps from event to event
// instead of stepping idle cycles. docs/Simulator.md has the rules and their
// sources.
//
//===----------------------------------------------------------------------===//

#include "../Emulator/EmulatorImpl.h"
#include "SimulatorImpl.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

using namespace mxgemm;
using namespace mxgemm::sim;

namespace {

constexpr double Never = std::numeric_limits<double>::infinity();

/// A bandwidth server: a request arriving at `a` that needs `d` cycles of
/// service takes the earliest idle gap of that length at or after `a`.
/// Requests are made when instructions issue, some for the future (the LDS
/// write of an LDS-DMA when its data arrives), so the server keeps its busy
/// intervals instead of a single free time; those ending before the
/// simulation's present are dropped.
struct Server {
  double busy = 0;
  std::vector<std::pair<double, double>> intervals; // sorted, disjoint
  double reserve(double a, double d) {
    busy += d;
    if (d <= 0)
      return a;
    // First interval that ends after a.
    auto it = std::lower_bound(intervals.begin(), intervals.end(), a,
                               [](const std::pair<double, double> &iv,
                                  double x) { return iv.second <= x; });
    double start = a;
    while (it != intervals.end() && it->first < start + d) {
      start = std::max(start, it->second);
      ++it;
    }
    // Insert [start, start + d) before `it`, merging with neighbours.
    auto pos = intervals.insert(it, {start, start + d});
    if (pos != intervals.begin() && std::prev(pos)->second >= pos->first) {
      std::prev(pos)->second = std::max(std::prev(pos)->second, pos->second);
      pos = intervals.erase(pos) - 1;
    }
    if (std::next(pos) != intervals.end() &&
        std::next(pos)->first <= pos->second) {
      pos->second = std::max(pos->second, std::next(pos)->second);
      intervals.erase(std::next(pos));
    }
    return start;
  }
  /// Forget what ended before `now` (no request arrives earlier).
  void prune(double now) {
    size_t n = 0;
    while (n < intervals.size() && intervals[n].second < now)
      ++n;
    if (n > 64)
      intervals.erase(intervals.begin(), intervals.begin() + long(n));
  }
};

/// Issue categories: one instruction of each per SIMD per issue turn.
enum Category : unsigned {
  CatValu,
  CatVmem,
  CatSalu,
  CatLds,
  CatBranch,
  CatNone
};

Category categoryOf(Unit u) {
  switch (u) {
  case Unit::Valu:
  case Unit::Mfma:
    return CatValu;
  case Unit::Vmem:
    return CatVmem;
  case Unit::Salu:
  case Unit::Smem:
    return CatSalu;
  case Unit::Lds:
    return CatLds;
  case Unit::Branch:
    return CatBranch;
  case Unit::Internal:
    return CatNone;
  }
  return CatNone;
}

/// Scoreboard entry of one register.
struct RegState {
  double ready = 0;       // for every reader (non-MFMA writers, loads)
  double mfmaIssue = -1;  // issue cycle of the MFMA that wrote it, or -1
  uint16_t mfmaFirst = 0; // that MFMA's destination range
  uint8_t mfmaCount = 0;
  uint8_t mfmaPasses = 0;
};

struct LgkmOp {
  double done;
  bool smem;
};

struct SimWave {
  const WaveTrace *trace = nullptr;
  size_t pos = 0;
  unsigned slot = 0, waveInWg = 0, simd = 0, traceIndex = 0;
  uint64_t age = 0;
  unsigned prio = 0;
  double notBefore = 0;
  uint8_t notBeforeState = StateIssueOther;
  bool done = false, atBarrier = false;
  double release = Never; // barrier release, once known
  double doneAt = 0;
  // Counters, as the emulator counts them.
  std::vector<double> vmRetire;
  double lastVmRetire = 0, lastDsDone = 0;
  std::vector<LgkmOp> lgkm;
  size_t lgkmRetiredBase = 0; // ops before this index are all retired
  RegState v[emu::VgprFileSize];
  double s[emu::SgprFileSize] = {};
  double lastEnd = 0;
  std::deque<WaveInterval> recent; // for the MFMA-idle attribution
  std::vector<WaveInterval> *full = nullptr;
  std::array<double, NumStallKinds> *stalls = nullptr;
};

struct Slot {
  const TimedWorkgroup *wg = nullptr;
  double freeAt = 0;           // when the slot took this workgroup
  std::vector<unsigned> waves; // indices into CuModel::waves
  unsigned live = 0, atBarrier = 0;
  double doneAt = 0;
  bool busy = false;
};

class CuModel {
public:
  explicit CuModel(const CuInput &in) : in(in), t(in.target->timing) {
    double ghz = in.clockHz / 1e9;
    latL1 = double(t.l1HitCycles);
    latL2 = double(t.l2HitCycles);
    latMall = latL2 + t.mallExtraNs * ghz;
    latHbm = latL2 + t.hbmExtraNs * ghz;
    vmemFixed = t.isolatedVmemCycles();
    // An isolated ds_read_b128: issue, 256 B of addresses, 4 service cycles,
    // 1 KB of data over the SIMD pair's port.
    ldsFixed = double(t.ldsLatencyCycles) -
               (double(t.issueIntervalCycles) +
                256.0 / double(t.ldsPortBytesPerCycle) +
                1024.0 / double(t.ldsServiceBytesPerCycle) +
                1024.0 / double(t.ldsPortBytesPerCycle));
    if (ldsFixed < 0)
      ldsFixed = 0;
    lineBytes = double(t.cacheLineBytes);
    l1Lines = std::max<int64_t>(1, t.tcpInflightBytes / t.cacheLineBytes);
    result.stalls.assign(in.wavesPerWorkgroup, {});
    slots.resize(in.occupancy);
  }

  CuResult run();

private:
  const CuInput &in;
  const target::TimingModel &t;
  double latL1, latL2, latMall, latHbm, vmemFixed, ldsFixed, lineBytes;
  int64_t l1Lines;
  CuResult result;

  std::vector<SimWave> waves;
  std::vector<unsigned> live; // indices of waves not done
  std::vector<Slot> slots;
  size_t nextWg = 0;
  uint64_t ageCounter = 0;
  unsigned simdWaves[4] = {};

  // Per SIMD.
  double valuFree[4] = {}, mfmaFree[4] = {}, mfmaIdleSince[4] = {};
  double nextTurn[4] = {};
  double valuBusy = 0, saluBusy = 0;
  // Per SIMD pair.
  Server ldsIn[2], ldsOut[2];
  std::vector<double> ldsFifo[2];
  // Per CU.
  Server ldsService, ta, l1Fill, l2, mall, hbm, ret;
  double taFree = 0;
  std::deque<double> taQueue;
  std::vector<std::pair<double, double>> inflight; // (done, bytes)

  // Rounds.
  std::vector<double> roundEnd;
  std::vector<double> roundMfmaBusy;
  std::vector<double> pendingDispatch; // slot free times

  double latencyOf(uint8_t level) const {
    switch (level & LevelMask) {
    case LevelL1:
      return latL1;
    case LevelL2:
    case LevelStore:
      return latL2;
    case LevelMall:
      return latMall;
    default:
      return latHbm;
    }
  }

  void dispatch(unsigned slotIndex, double at);
  double regReady(const SimWave &w, const StaticInst &si, bool vgpr,
                  unsigned reg, bool &fromMfma) const;
  double earliest(SimWave &w, uint8_t &reason);
  double waitcntTime(const SimWave &w, const StaticInst &si,
                     uint8_t &reason) const;
  double drainTime(const SimWave &w) const;
  void account(SimWave &w, double from, double to, uint8_t state);
  void attributeIdle(unsigned simd, const SimWave &w, double from, double to);
  void issue(SimWave &w, double now);
  void issueGlobal(SimWave &w, const DynInst &d, double now);
  void issueLds(SimWave &w, const DynInst &d, double now);
  void finishWave(SimWave &w, double at);
};

void CuModel::dispatch(unsigned slotIndex, double at) {
  Slot &slot = slots[slotIndex];
  slot = Slot();
  if (nextWg >= in.workgroups.size())
    return;
  const TimedWorkgroup &twg = in.workgroups[nextWg++];
  slot.wg = &twg;
  slot.busy = true;
  slot.freeAt = at;
  double start = at + double(t.workgroupLaunchCycles);
  unsigned round = twg.round;
  if (roundEnd.size() <= round) {
    roundEnd.resize(round + 1, 0);
    roundMfmaBusy.resize(round + 1, 0);
  }
  if (std::find(result.roundIds.begin(), result.roundIds.end(), round) ==
      result.roundIds.end())
    result.roundIds.push_back(round);
  for (unsigned i = 0; i < twg.trace->waves.size(); ++i) {
    // Waves go to the least-loaded SIMD, lowest first: round robin for one
    // workgroup (gfx942 places wave i and i + 4 on one SIMD, pyhip
    // mfma-valu-coissue.md).
    unsigned simd = 0;
    for (unsigned s = 1; s < 4; ++s)
      if (simdWaves[s] < simdWaves[simd])
        simd = s;
    ++simdWaves[simd];
    waves.emplace_back();
    SimWave &w = waves.back();
    w.trace = &twg.trace->waves[i];
    w.slot = slotIndex;
    w.waveInWg = i;
    w.simd = simd;
    w.age = ageCounter++;
    w.notBefore = start;
    w.lastEnd = start;
    w.stalls = &result.stalls[std::min<size_t>(i, result.stalls.size() - 1)];
    if (in.recordTrace) {
      result.trace.push_back({unsigned(nextWg - 1), i, simd, {}});
      w.traceIndex = unsigned(result.trace.size() - 1);
    }
    slot.waves.push_back(unsigned(waves.size() - 1));
    live.push_back(unsigned(waves.size() - 1));
    ++slot.live;
  }
  if (slot.live == 0) {
    slot.busy = false;
    pendingDispatch.push_back(start);
  }
}

double CuModel::regReady(const SimWave &w, const StaticInst &si, bool vgpr,
                         unsigned reg, bool &fromMfma) const {
  if (!vgpr)
    return reg < emu::SgprFileSize ? w.s[reg] : 0;
  const RegState &r = w.v[reg & (emu::VgprFileSize - 1)];
  double ready = r.ready;
  if (r.mfmaIssue >= 0) {
    double pass = double(t.mfmaPassCycles);
    double after;
    bool inC = si.unit == Unit::Mfma && si.mfmaCCount && reg >= si.mfmaC &&
               reg < si.mfmaC + si.mfmaCCount;
    if (inC && si.mfmaC == r.mfmaFirst && si.mfmaCCount == r.mfmaCount)
      after = r.mfmaIssue; // back-to-back accumulation: the pipe orders it
    else if (inC)
      after =
          r.mfmaIssue + (r.mfmaPasses + t.mfmaSrcCPartialExtraPasses) * pass;
    else
      after = r.mfmaIssue + (r.mfmaPasses + t.mfmaReadExtraPasses) * pass;
    if (after > ready) {
      ready = after;
      fromMfma = true;
    }
  }
  return ready;
}

double CuModel::waitcntTime(const SimWave &w, const StaticInst &si,
                            uint8_t &reason) const {
  double tv = 0, tl = 0;
  size_t vmIssued = w.vmRetire.size();
  if (si.vmWait != 0xff && vmIssued > si.vmWait)
    tv = w.vmRetire[vmIssued - si.vmWait - 1];
  if (si.lgkmWait != 0xff && w.lgkm.size() > si.lgkmWait) {
    // Smallest time at which at most lgkmWait operations are outstanding.
    // DS operations retire in order (their done times are monotone); SMEM
    // ones in any order and only lgkmcnt(0) covers them, as the emulator
    // assumes.
    if (si.lgkmWait == 0) {
      for (size_t i = w.lgkmRetiredBase; i < w.lgkm.size(); ++i)
        tl = std::max(tl, w.lgkm[i].done);
    } else {
      std::vector<double> ds;
      for (size_t i = w.lgkmRetiredBase; i < w.lgkm.size(); ++i)
        ds.push_back(w.lgkm[i].done);
      if (ds.size() > si.lgkmWait) {
        std::sort(ds.begin(), ds.end());
        tl = ds[ds.size() - si.lgkmWait - 1];
      }
    }
  }
  reason = tv >= tl ? StallVmcnt : StallLgkmcnt;
  return std::max(tv, tl);
}

double CuModel::drainTime(const SimWave &w) const {
  double d = w.lastVmRetire;
  for (size_t i = w.lgkmRetiredBase; i < w.lgkm.size(); ++i)
    d = std::max(d, w.lgkm[i].done);
  return d;
}

double CuModel::earliest(SimWave &w, uint8_t &reason) {
  if (w.done)
    return Never;
  if (w.atBarrier) {
    reason = StallBarrier;
    return w.release;
  }
  const DynInst &d = w.trace->insts[w.pos];
  const StaticInst &si = (*in.statics)[d.index];
  double e = w.notBefore;
  reason = w.notBeforeState;
  auto bump = [&](double x, uint8_t why) {
    if (x > e) {
      e = x;
      reason = why;
    }
  };
  for (const auto &u : si.uses)
    for (unsigned i = 0; i < u[2]; ++i) {
      bool fromMfma = false;
      double r = regReady(w, si, u[0], u[1] + i, fromMfma);
      bump(r, fromMfma ? StallMfmaDependency : StallDependency);
    }
  switch (si.unit) {
  case Unit::Mfma:
    bump(mfmaFree[w.simd], StallMfmaBusy);
    bump(valuFree[w.simd], StallIssue);
    break;
  case Unit::Valu:
    bump(valuFree[w.simd], StallIssue);
    if (si.packedF32)
      bump(mfmaFree[w.simd], StallMfmaBusy);
    break;
  case Unit::Vmem:
    if (taQueue.size() >= size_t(t.vmemQueueEntries))
      bump(taQueue[taQueue.size() - size_t(t.vmemQueueEntries)],
           StallVmemQueue);
    break;
  case Unit::Lds: {
    // Entries leave the SIMD pair's FIFO when the LDS has served them.
    const std::vector<double> &fifo = ldsFifo[w.simd / 2];
    if (fifo.size() >= size_t(t.ldsQueueEntries)) {
      std::vector<double> f(fifo);
      std::sort(f.begin(), f.end());
      bump(f[f.size() - size_t(t.ldsQueueEntries)], StallLdsQueue);
    }
    break;
  }
  case Unit::Internal:
    if (si.internal == Internal::Waitcnt) {
      uint8_t why;
      double x = waitcntTime(w, si, why);
      bump(x, why);
    }
    break;
  default:
    break;
  }
  return e;
}

void CuModel::account(SimWave &w, double from, double to, uint8_t state) {
  if (to <= from)
    return;
  (*w.stalls)[state] += to - from;
  auto push = [&](auto &v) {
    if (!v.empty() && v.back().state == state && v.back().end == from)
      v.back().end = to;
    else
      v.push_back({uint64_t(from), uint64_t(to), state});
  };
  push(w.recent);
  if (w.recent.size() > 256)
    w.recent.pop_front();
  if (in.recordTrace)
    push(result.trace[w.traceIndex].intervals);
}

void CuModel::attributeIdle(unsigned simd, const SimWave &w, double from,
                            double to) {
  if (to <= from)
    return;
  auto kindOf = [](uint8_t state) -> unsigned {
    switch (state) {
    case StateIssueOther:
    case StateIssueMfma:
      return IdleNonMfmaIssue;
    case StallVmcnt:
    case StallDrain:
      return IdleVmcnt;
    case StallLgkmcnt:
      return IdleLgkmcnt;
    case StallBarrier:
      return IdleBarrier;
    case StallMfmaDependency:
    case StallMfmaBusy:
    case StallDependency:
      return IdleDependency;
    case StallNopSleep:
      return IdleNopSleep;
    case StallVmemQueue:
      return IdleVmemQueue;
    case StallLdsQueue:
      return IdleLdsQueue;
    default:
      return IdleContention;
    }
  };
  double covered = 0;
  for (const WaveInterval &iv : w.recent) {
    double a = std::max(from, double(iv.start)),
           b = std::min(to, double(iv.end));
    if (b > a) {
      result.mfmaIdle[kindOf(iv.state)] += b - a;
      covered += b - a;
    }
  }
  result.mfmaIdle[IdleNoWave] += std::max(0.0, (to - from) - covered);
  (void)simd;
}

void CuModel::finishWave(SimWave &w, double at) {
  w.done = true;
  w.doneAt = at;
  --simdWaves[w.simd];
  Slot &slot = slots[w.slot];
  slot.doneAt = std::max(slot.doneAt, at);
  if (--slot.live == 0) {
    unsigned round = slot.wg->round;
    roundEnd[round] = std::max(roundEnd[round], slot.doneAt);
    result.spans.push_back({round, slot.freeAt, slot.doneAt});
    slot.busy = false;
    pendingDispatch.push_back(slot.doneAt);
  }
}

void CuModel::issueGlobal(SimWave &w, const DynInst &d, double now) {
  const GlobalOp &op = w.trace->globalOps[size_t(d.op)];
  const TimedWorkgroup &twg = *slots[w.slot].wg;
  const RoundShares &share = in.shares[twg.round];
  double arrive = now + double(t.issueIntervalCycles);
  // The TCP holds a line for each fill in flight (32 KB): the lines that
  // miss it.
  unsigned misses = 0;
  for (unsigned i = 0; i < op.numLines; ++i) {
    size_t at = op.firstLevel + i;
    if (at >= w.trace->levels.size() ||
        (w.trace->levels[at] & LevelMask) != LevelL1)
      ++misses;
  }
  double bytes =
      std::min<double>(double(misses) * lineBytes, double(t.tcpInflightBytes));
  double capacityAt = arrive;
  {
    std::vector<std::pair<double, double>> live;
    double used = 0;
    for (auto &e : inflight)
      if (e.first > arrive) {
        live.push_back(e);
        used += e.second;
      }
    inflight.swap(live);
    if (used + bytes > double(t.tcpInflightBytes)) {
      std::vector<std::pair<double, double>> sorted(inflight);
      std::sort(sorted.begin(), sorted.end());
      for (auto &e : sorted) {
        used -= e.second;
        capacityAt = e.first;
        if (used + bytes <= double(t.tcpInflightBytes))
          break;
      }
    }
  }
  unsigned lanesPerCycle = op.bytesPerLane <= 4
                               ? unsigned(t.tcpLanesPerCycleNarrow)
                               : unsigned(t.tcpLanesPerCycleWide);
  double laneCycles = std::ceil(double(op.activeLanes) / lanesPerCycle);
  double lineCycles = std::ceil(double(op.numLines) / t.tcpLinesPerCycle);
  double dur = std::max({laneCycles, lineCycles, 1.0});
  // The address unit takes requests in order.
  double start = std::max({arrive, capacityAt, taFree});
  taFree = start + dur;
  ta.busy += dur;
  taQueue.push_back(start + dur);
  while (taQueue.size() > size_t(t.vmemQueueEntries) + 1)
    taQueue.pop_front();
  // Each line from the level the cache pass found, through the servers on
  // its way: L1 fill and the CU's shares of L2, MALL and HBM.
  double maxReady = start + dur;
  double fill = lineBytes / double(t.l1FillBytesPerCycle);
  bool store = op.kind == GlobalKind::Store;
  double storeDone = start + dur;
  for (unsigned i = 0; i < op.numLines; ++i) {
    uint8_t level = op.firstLevel + i < w.trace->levels.size()
                        ? w.trace->levels[op.firstLevel + i]
                        : uint8_t(LevelL2);
    double a = start + dur * double(i) / double(op.numLines);
    unsigned lv = level & LevelMask;
    bool merged = level & LevelMerged;
    if (store) {
      a = l2.reserve(a, share.l2CyclesPerLine) + share.l2CyclesPerLine;
      if (!merged) // the line's one write-back, not waited for
        hbm.reserve(a, share.hbmCyclesPerLine);
      storeDone = std::max(storeDone, a + latL2 - vmemFixed);
      continue;
    }
    if (lv != LevelL1) {
      a = l1Fill.reserve(a, fill) + fill;
      a = l2.reserve(a, share.l2CyclesPerLine) + share.l2CyclesPerLine;
      if (!merged && lv >= LevelMall)
        a = mall.reserve(a, share.mallCyclesPerLine) + share.mallCyclesPerLine;
      if (!merged && lv == LevelHbm)
        a = hbm.reserve(a, share.hbmCyclesPerLine) + share.hbmCyclesPerLine;
    }
    maxReady = std::max(maxReady, a + latencyOf(level) - vmemFixed);
  }
  double done;
  if (store) {
    done = storeDone;
  } else if (op.kind == GlobalKind::LoadToLds) {
    double b = double(op.activeLanes) * op.bytesPerLane;
    double dLds = b / double(t.ldsServiceBytesPerCycle);
    done = ldsService.reserve(maxReady, dLds) + dLds;
  } else {
    double b = double(op.activeLanes) * op.bytesPerLane;
    double dRet = b / double(t.returnBytesPerCycle);
    done = ret.reserve(maxReady, dRet) + dRet;
  }
  inflight.push_back({done, bytes});
  for (unsigned i = 0; i < d.vmInc; ++i) {
    w.lastVmRetire = std::max(w.lastVmRetire, done);
    w.vmRetire.push_back(w.lastVmRetire);
  }
  for (unsigned i = 0; i < d.lgkmInc; ++i) {
    // No LDS-DMA takes an lgkmcnt slot (the hardware, LLVM PR 179305, and
    // the emulator); a recorded one would retire with its data, in order
    // with the DS operations.
    w.lastDsDone = std::max(w.lastDsDone, done);
    w.lgkm.push_back({w.lastDsDone, false});
  }
  if (!store) {
    const StaticInst &si = (*in.statics)[d.index];
    for (const auto &def : si.defs)
      for (unsigned i = 0; i < def[2]; ++i)
        if (def[0])
          w.v[(def[1] + i) & (emu::VgprFileSize - 1)].ready = done;
  }
}

void CuModel::issueLds(SimWave &w, const DynInst &d, double now) {
  const LdsOp &op = w.trace->ldsOps[size_t(d.op)];
  unsigned pair = w.simd / 2;
  double a = now + double(t.issueIntervalCycles);
  double inBytes =
      double(op.activeLanes) * 4 + (op.store ? double(op.bytes) : 0);
  double dIn = inBytes / double(t.ldsPortBytesPerCycle);
  a = ldsIn[pair].reserve(a, dIn) + dIn;
  double dSvc =
      double(op.serviceCycles) * 256.0 / double(t.ldsServiceBytesPerCycle);
  a = ldsService.reserve(a, dSvc) + dSvc;
  // The request leaves the SIMD pair's FIFO once the LDS has served it.
  double served = a;
  if (!op.store) {
    double dOut = double(op.bytes) / double(t.ldsPortBytesPerCycle);
    a = ldsOut[pair].reserve(a, dOut) + dOut;
  }
  double done = a + ldsFixed;
  std::vector<double> &fifo = ldsFifo[pair];
  fifo.erase(std::remove_if(fifo.begin(), fifo.end(),
                            [&](double x) { return x <= now; }),
             fifo.end());
  fifo.push_back(served);
  for (unsigned i = 0; i < d.lgkmInc; ++i) {
    w.lastDsDone = std::max(w.lastDsDone, done);
    w.lgkm.push_back({w.lastDsDone, false});
  }
  for (unsigned i = 0; i < d.vmInc; ++i) {
    w.lastVmRetire = std::max(w.lastVmRetire, done);
    w.vmRetire.push_back(w.lastVmRetire);
  }
  if (!op.store) {
    const StaticInst &si = (*in.statics)[d.index];
    for (const auto &def : si.defs)
      for (unsigned i = 0; i < def[2]; ++i)
        if (def[0])
          w.v[(def[1] + i) & (emu::VgprFileSize - 1)].ready = w.lastDsDone;
  }
}

void CuModel::issue(SimWave &w, double now) {
  const DynInst &d = w.trace->insts[w.pos];
  const StaticInst &si = (*in.statics)[d.index];
  double interval = double(t.issueIntervalCycles);
  double next = now + interval;
  uint8_t state = si.unit == Unit::Mfma ? StateIssueMfma : StateIssueOther;
  account(w, now, next, state);
  w.lastEnd = next;
  w.notBefore = next;
  w.notBeforeState = StallIssue;
  ++result.instructions;
  auto setDefs = [&](double ready) {
    for (const auto &def : si.defs)
      for (unsigned i = 0; i < def[2]; ++i) {
        if (def[0]) {
          RegState &r = w.v[(def[1] + i) & (emu::VgprFileSize - 1)];
          r.ready = ready;
          r.mfmaIssue = -1;
        } else if (def[1] + i < emu::SgprFileSize) {
          w.s[def[1] + i] = ready;
        }
      }
  };
  switch (si.unit) {
  case Unit::Mfma: {
    double cycles = double(si.mfmaCycles);
    // Idle gap of the matrix pipe, explained by this wave's recent states.
    attributeIdle(w.simd, w, mfmaIdleSince[w.simd], now);
    mfmaFree[w.simd] = now + cycles;
    mfmaIdleSince[w.simd] = now + cycles;
    valuFree[w.simd] =
        std::max(valuFree[w.simd], now + double(t.mfmaIssueCycles));
    result.mfmaBusy += cycles;
    roundMfmaBusy[slots[w.slot].wg->round] += cycles;
    ++result.mfmas;
    for (const auto &def : si.defs)
      for (unsigned i = 0; i < def[2]; ++i)
        if (def[0]) {
          RegState &r = w.v[(def[1] + i) & (emu::VgprFileSize - 1)];
          r.ready = now;
          r.mfmaIssue = now;
          r.mfmaFirst = si.mfmaDst;
          r.mfmaCount = uint8_t(si.mfmaDstCount);
          r.mfmaPasses = uint8_t(si.mfmaPasses);
        }
    break;
  }
  case Unit::Valu: {
    double cycles =
        double(si.quarterRate ? t.valuQuarterRateCycles : t.valuCycles);
    valuFree[w.simd] = now + cycles;
    valuBusy += cycles;
    setDefs(now + cycles);
    break;
  }
  case Unit::Salu:
    saluBusy += interval;
    setDefs(now + interval);
    break;
  case Unit::Smem: {
    saluBusy += interval;
    double done = now + double(t.smemLatencyCycles);
    for (unsigned i = 0; i < d.lgkmInc; ++i)
      w.lgkm.push_back({done, true});
    setDefs(done);
    break;
  }
  case Unit::Vmem:
    if (d.op >= 0)
      issueGlobal(w, d, now);
    break;
  case Unit::Lds:
    if (d.op >= 0)
      issueLds(w, d, now);
    break;
  case Unit::Branch: {
    bool taken = w.pos + 1 < w.trace->insts.size() &&
                 w.trace->insts[w.pos + 1].index != d.index + 1;
    if (taken) {
      w.notBefore = next + double(t.takenBranchCycles);
      w.notBeforeState = StallNopSleep;
    }
    break;
  }
  case Unit::Internal:
    switch (si.internal) {
    case Internal::Nop:
      w.notBefore = now + interval * (si.imm + 1);
      w.notBeforeState = StallNopSleep;
      break;
    case Internal::Sleep:
      w.notBefore = std::max(next, now + double(t.sleepCyclesPerUnit) * si.imm);
      w.notBeforeState = StallNopSleep;
      break;
    case Internal::Setprio:
      w.prio = si.imm;
      break;
    case Internal::Waitcnt: {
      // What has completed is retired; keep the rest.
      std::vector<LgkmOp> &ops = w.lgkm;
      ops.erase(std::remove_if(ops.begin() + long(w.lgkmRetiredBase), ops.end(),
                               [&](const LgkmOp &o) { return o.done <= now; }),
                ops.end());
      break;
    }
    case Internal::Barrier: {
      Slot &slot = slots[w.slot];
      w.atBarrier = true;
      w.release = Never;
      if (++slot.atBarrier == slot.live) {
        double release = next + double(t.barrierCycles);
        for (unsigned wi : slot.waves) {
          SimWave &o = waves[wi];
          if (o.atBarrier) {
            o.release = release;
          }
        }
        slot.atBarrier = 0;
      }
      break;
    }
    case Internal::Endpgm: {
      double drain = std::max(next, drainTime(w));
      account(w, next, drain, StallDrain);
      ++w.pos;
      finishWave(w, drain);
      return;
    }
    default:
      break;
    }
    break;
  }
  ++w.pos;
  if (w.pos >= w.trace->insts.size())
    finishWave(w, std::max(next, drainTime(w)));
}

CuResult CuModel::run() {
  for (unsigned s = 0; s < slots.size(); ++s)
    dispatch(s, 0);
  const double interval = double(t.issueIntervalCycles);
  auto turnAt = [&](double e, unsigned simd) {
    double phase = double(simd);
    double turn = std::ceil((e - phase) / interval) * interval + phase;
    return turn < e ? turn + interval : turn;
  };
  double now = 0;
  std::vector<unsigned> order;
  while (true) {
    // The earliest issue turn at which some wave may issue.
    double best = Never;
    unsigned bestSimd = 0;
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](unsigned i) { return waves[i].done; }),
               live.end());
    for (unsigned i : live) {
      SimWave &w = waves[i];
      uint8_t why;
      double e = earliest(w, why);
      if (e == Never)
        continue;
      double turn =
          std::max(turnAt(std::max(e, now), w.simd), nextTurn[w.simd]);
      if (turn < best || (turn == best && w.simd < bestSimd)) {
        best = turn;
        bestSimd = w.simd;
      }
    }
    if (!pendingDispatch.empty()) {
      auto first =
          std::min_element(pendingDispatch.begin(), pendingDispatch.end());
      if (best == Never || *first <= best) {
        double at = *first;
        pendingDispatch.erase(first);
        for (unsigned s = 0; s < slots.size(); ++s)
          if (!slots[s].busy) {
            dispatch(s, at);
            break;
          }
        now = std::max(now, at);
        continue;
      }
    }
    if (best == Never)
      break;
    now = best;
    for (Server *sv : {&ldsIn[0], &ldsIn[1], &ldsOut[0], &ldsOut[1],
                       &ldsService, &ta, &l1Fill, &l2, &mall, &hbm, &ret})
      sv->prune(now);
    // A SIMD's next turn comes one issue interval later.
    nextTurn[bestSimd] = now + interval;
    // Arbitration on this SIMD: s_setprio priority, then age.
    order.clear();
    for (unsigned i : live)
      if (waves[i].simd == bestSimd)
        order.push_back(i);
    std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      if (waves[a].prio != waves[b].prio)
        return waves[a].prio > waves[b].prio;
      return waves[a].age < waves[b].age;
    });
    bool used[CatNone + 1] = {};
    for (unsigned i : order) {
      SimWave &w = waves[i];
      if (w.done)
        continue;
      if (w.atBarrier) {
        if (w.release > now)
          continue;
        account(w, w.lastEnd, w.release, StallBarrier);
        w.lastEnd = std::max(w.lastEnd, w.release);
        w.atBarrier = false;
        w.notBefore = std::max(w.notBefore, w.release);
        w.notBeforeState = StallBarrier;
      }
      uint8_t why = StallIssue;
      double e = earliest(w, why);
      if (e > now)
        continue;
      const StaticInst &si = (*in.statics)[w.trace->insts[w.pos].index];
      Category cat = categoryOf(si.unit);
      if (cat != CatNone && used[cat])
        continue; // an older or higher-priority wave took the unit
      // The gap since the wave's last interval: the binding reason until
      // its SIMD's first turn after it was ready, lost arbitration after.
      double ready = std::min(now, std::max(w.lastEnd, turnAt(e, w.simd)));
      account(w, w.lastEnd, ready, why);
      account(w, std::max(w.lastEnd, ready), now, StallIssue);
      if (cat != CatNone)
        used[cat] = true;
      issue(w, now);
    }
  }
  double end = 0;
  for (const SimWave &w : waves)
    end = std::max(end, w.doneAt);
  for (unsigned s = 0; s < 4; ++s)
    if (end > mfmaIdleSince[s])
      result.mfmaIdle[IdleNoWave] += end - mfmaIdleSince[s];
  result.cycles = uint64_t(std::ceil(end));
  for (unsigned r : result.roundIds)
    result.roundEnd.push_back(uint64_t(std::ceil(roundEnd[r])));
  for (unsigned r : result.roundIds)
    result.roundMfmaBusy.push_back(roundMfmaBusy[r]);
  result.unitBusy[UnitMfma] = result.mfmaBusy;
  result.unitBusy[UnitValu] = valuBusy;
  result.unitBusy[UnitSalu] = saluBusy;
  result.unitBusy[UnitLds] = ldsService.busy;
  result.unitBusy[UnitTa] = ta.busy;
  result.unitBusy[UnitL1Fill] = l1Fill.busy;
  result.unitBusy[UnitL2] = l2.busy;
  result.unitBusy[UnitMall] = mall.busy;
  result.unitBusy[UnitHbm] = hbm.busy;
  return std::move(result);
}

} // namespace

CuResult mxgemm::sim::simulateCu(const CuInput &input) {
  CuModel model(input);
  return model.run();
}
