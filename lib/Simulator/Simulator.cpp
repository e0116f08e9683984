//===- Simulator.cpp - sampling, tracing and extrapolation ----------------===//
//
// The kernel-level part of the simulator: occupancy from the code object's
// resources, the dispatch of workgroups to XCDs and CUs, the choice of the
// rounds that are simulated (a head and a tail window of the busiest CU;
// the rounds between them are extrapolated from the last head round), the
// functional tracing of every workgroup that runs in those rounds on the
// traced XCDs, the cache pass, the timing pass at the sustained and at the
// peak clock, and the whole-kernel figures. docs/Simulator.md describes the
// sampling and its measured error.
//
//===----------------------------------------------------------------------===//

#include "../Emulator/EmulatorImpl.h"
#include "CacheModel.h"
#include "SimulatorImpl.h"

#include "mxgemm/Emulator/Emulator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <unordered_map>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::sim;

StringRef mxgemm::sim::stallKindName(unsigned kind) {
  static const char *const names[NumStallKinds] = {
      "issue_mfma",       "issue_other",     "vmcnt",      "lgkmcnt",
      "barrier",          "mfma_dependency", "mfma_busy",  "dependency",
      "issue_contention", "lds_queue",       "vmem_queue", "nop_sleep_branch",
      "store_drain"};
  return kind < NumStallKinds ? names[kind] : "unknown";
}

StringRef mxgemm::sim::idleKindName(unsigned kind) {
  static const char *const names[NumIdleKinds] = {
      "non_mfma_issue", "vmcnt",     "lgkmcnt",    "barrier",   "dependency",
      "vmem_queue",     "lds_queue", "contention", "nop_sleep", "no_wave"};
  return kind < NumIdleKinds ? names[kind] : "unknown";
}

StringRef mxgemm::sim::unitKindName(unsigned kind) {
  static const char *const names[NumUnits] = {
      "mfma",    "valu",     "salu",       "lds",      "vmem_address",
      "l1_fill", "l2_share", "mall_share", "hbm_share"};
  return kind < NumUnits ? names[kind] : "unknown";
}

namespace {

//===----------------------------------------------------------------------===//
// Recording observer
//===----------------------------------------------------------------------===//

/// Records what the timing and cache passes need while the emulator runs
/// workgroups functionally: per wave the global accesses as cache lines,
/// and for timed workgroups every executed instruction with its LDS and
/// counter effects.
class StreamRecorder : public emu::ExecObserver {
public:
  StreamRecorder(const uint32_t grid[3], unsigned lineShift,
                 const std::vector<StaticInst> &statics)
      : lineShift(lineShift), statics(statics) {
    gx = grid[0];
    gy = grid[1];
  }

  std::unordered_map<uint64_t, WorkgroupTrace *> targets;
  uint64_t instructions = 0;

  void globalAccess(const emu::ExecContext &ctx, const emu::Wave &w,
                    const emu::Inst &inst, emu::AccessKind kind,
                    const uint64_t *laneAddress, uint64_t laneMask,
                    unsigned bytesPerLane) override {
    WaveTrace *wave = waveOf(ctx, w);
    if (!wave)
      return;
    uint64_t lines[128];
    unsigned n = 0;
    uint64_t mask = laneMask;
    unsigned lanes = 0;
    bool sorted = true;
    while (mask) {
      unsigned l = unsigned(__builtin_ctzll(mask));
      mask &= mask - 1;
      ++lanes;
      uint64_t a = laneAddress[l];
      uint64_t first = a >> lineShift,
               last = (a + bytesPerLane - 1) >> lineShift;
      for (uint64_t x = first; x <= last && n < 128; ++x) {
        // Consecutive lanes usually touch the same or the next line.
        if (n && lines[n - 1] == x)
          continue;
        if (n && lines[n - 1] > x)
          sorted = false;
        lines[n++] = x;
      }
    }
    if (!sorted) {
      std::sort(lines, lines + n);
      n = unsigned(std::unique(lines, lines + n) - lines);
    }
    GlobalOp op;
    op.firstRun = uint32_t(wave->runs.size());
    op.numLines = uint16_t(n);
    op.activeLanes = uint8_t(lanes);
    op.bytesPerLane = uint8_t(bytesPerLane);
    op.kind = kind == emu::AccessKind::Store       ? GlobalKind::Store
              : kind == emu::AccessKind::LoadToLds ? GlobalKind::LoadToLds
                                                   : GlobalKind::Load;
    for (unsigned i = 0; i < n; ++i) {
      if (i && lines[i] == lines[i - 1] + 1) {
        ++wave->runs.back().count;
        continue;
      }
      wave->runs.push_back({lines[i], 1});
      ++op.numRuns;
    }
    wave->globalOps.push_back(op);
    pendingGlobal = int32_t(wave->globalOps.size() - 1);
  }

  void ldsAccess(const emu::ExecContext &ctx, const emu::Wave &w,
                 const emu::Inst &inst, bool store, const uint32_t *laneAddress,
                 uint64_t laneMask, unsigned bytesPerLane) override {
    WaveTrace *wave = waveOf(ctx, w);
    if (!wave || !current->timed)
      return;
    unsigned cycles = ldsServiceCycles(laneAddress, laneMask, bytesPerLane);
    unsigned lanes = unsigned(__builtin_popcountll(laneMask));
    if (pendingLds < 0) {
      wave->ldsOps.push_back(LdsOp());
      pendingLds = int32_t(wave->ldsOps.size() - 1);
    }
    LdsOp &op = wave->ldsOps[size_t(pendingLds)];
    op.serviceCycles = uint16_t(op.serviceCycles + cycles);
    op.activeLanes = uint16_t(std::max<unsigned>(op.activeLanes, lanes));
    op.bytes += lanes * bytesPerLane;
    op.store = store;
  }

  void instructionExecuted(const emu::ExecContext &ctx, const emu::Wave &w,
                           uint32_t index, uint32_t vmBefore,
                           uint32_t lgkmBefore) override {
    ++instructions;
    WaveTrace *wave = waveOf(ctx, w);
    if (wave) {
      const StaticInst &si = statics[index];
      if (si.unit == Unit::Mfma) {
        ++current->mfmaCount;
      }
      if (current->timed) {
        DynInst d;
        d.index = index;
        d.op = si.unit == Unit::Lds ? pendingLds : pendingGlobal;
        if (si.unit != Unit::Lds && si.unit != Unit::Vmem)
          d.op = -1;
        d.vmInc = uint8_t(w.vmIssued - vmBefore);
        d.lgkmInc = uint8_t(w.lgkmIssued - lgkmBefore);
        wave->insts.push_back(d);
      }
    }
    pendingGlobal = pendingLds = -1;
  }

private:
  WaveTrace *waveOf(const emu::ExecContext &ctx, const emu::Wave &w) {
    uint64_t id = ctx.workgroupId[0] + uint64_t(ctx.workgroupId[1]) * gx +
                  uint64_t(ctx.workgroupId[2]) * gx * gy;
    if (!current || current->id != id) {
      auto it = targets.find(id);
      current = it == targets.end() ? nullptr : it->second;
    }
    if (!current)
      return nullptr;
    if (current->waves.size() <= w.id)
      current->waves.resize(w.id + 1);
    return &current->waves[w.id];
  }

  unsigned lineShift;
  const std::vector<StaticInst> &statics;
  uint64_t gx = 1, gy = 1;
  WorkgroupTrace *current = nullptr;
  int32_t pendingGlobal = -1, pendingLds = -1;
};

//===----------------------------------------------------------------------===//
// Dispatch geometry
//===----------------------------------------------------------------------===//

/// Workgroup id -> XCD is id % numXcds (the hardware deals workgroups to
/// XCDs round robin: ROCm MI300 workload-tuning guide; gluon tutorials'
/// XCD remap); an XCD's k-th workgroup goes, in round k / slots, to CU
/// (k % slots) % cusPerXcd: every CU gets one workgroup before any gets a
/// second (ASSUMPTION: breadth-first placement).
struct Geometry {
  unsigned xcds = 8, cusPerXcd = 32, occupancy = 1;
  uint64_t numWorkgroups = 0;
  std::vector<uint64_t> perXcd;
  unsigned rounds = 0;
  uint64_t slotsPerXcd() const { return uint64_t(cusPerXcd) * occupancy; }
  uint64_t idOf(unsigned xcd, uint64_t k) const { return k * xcds + xcd; }
  /// Workgroups of XCD `x` in round r (XCD-local indices).
  std::pair<uint64_t, uint64_t> roundRange(unsigned x, unsigned r) const {
    uint64_t lo = uint64_t(r) * slotsPerXcd();
    uint64_t hi = std::min(perXcd[x], lo + slotsPerXcd());
    return {std::min(lo, perXcd[x]), hi};
  }
  unsigned activeCus(unsigned r, unsigned x) const {
    auto [lo, hi] = roundRange(x, r);
    return unsigned(std::min<uint64_t>(cusPerXcd, hi - lo));
  }
  unsigned activeCusChip(unsigned r) const {
    unsigned n = 0;
    for (unsigned x = 0; x < xcds; ++x)
      n += activeCus(r, x);
    return n;
  }
};

std::string fmt(double x, int prec = 3) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", prec, x);
  return buf;
}

} // namespace

Expected<Prediction> mxgemm::sim::simulate(const emu::CodeObject &object,
                                           const emu::KernelInfo &kernel,
                                           const Launch &launch,
                                           emu::DeviceMemory &memory,
                                           const target::TargetModel &target,
                                           const SimOptions &options) {
  const target::TimingModel &tm = target.timing;
  Prediction p;
  p.kernel = kernel.name;
  p.description = launch.description;
  p.targetHash = targetModelHash(target);

  // Workgroup shape (the emulator's rules).
  uint32_t wg[3];
  for (unsigned i = 0; i < 3; ++i)
    wg[i] =
        launch.workgroup[i] ? launch.workgroup[i] : kernel.reqdWorkgroupSize[i];
  if (!wg[0]) {
    wg[0] = kernel.maxFlatWorkgroupSize ? kernel.maxFlatWorkgroupSize : 256;
    wg[1] = wg[2] = 1;
  }
  for (unsigned i = 0; i < 3; ++i)
    wg[i] = std::max(1u, wg[i]);
  uint64_t threads = uint64_t(wg[0]) * wg[1] * wg[2];
  unsigned wavesPerWg = unsigned((threads + 63) / 64);
  p.wavesPerWorkgroup = wavesPerWg;
  p.numWorkgroups = uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  if (!p.numWorkgroups)
    return createStringError(inconvertibleErrorCode(), "empty grid");

  // Occupancy: the unified register file (AGPRs sit after accum_offset in
  // the same allocation, so .vgpr_count covers them), LDS, wave slots.
  unsigned vgprs = kernel.vgprCount;
  if (!kernel.hasMetadata || !vgprs)
    vgprs = ((kernel.descriptor.computePgmRsrc1 & 0x3f) + 1) * 8;
  unsigned granule = unsigned(target.vgprAllocGranule);
  vgprs = std::max(granule, (vgprs + granule - 1) / granule * granule);
  p.vgprsAllocated = vgprs;
  unsigned wavesPerSimd = unsigned(std::min<int64_t>(
      target.maxWavesPerSimd, target.vgprsPerLane / std::max(1u, vgprs)));
  uint64_t lds = uint64_t(kernel.descriptor.groupSegmentFixedSize) +
                 launch.dynamicLdsBytes;
  uint64_t ldsGranule = uint64_t(target.ldsAllocationGranule);
  uint64_t ldsAlloc =
      lds ? (lds + ldsGranule - 1) / ldsGranule * ldsGranule : 0;
  p.ldsBytes = lds;
  unsigned occ = 0;
  std::string limit = "waves";
  {
    unsigned perSimd[4] = {};
    uint64_t ldsUsed = 0;
    while (true) {
      unsigned trial[4] = {perSimd[0], perSimd[1], perSimd[2], perSimd[3]};
      bool fits = true;
      for (unsigned i = 0; i < wavesPerWg; ++i) {
        unsigned s = 0;
        for (unsigned k = 1; k < 4; ++k)
          if (trial[k] < trial[s])
            s = k;
        if (trial[s] + 1 > wavesPerSimd) {
          fits = false;
          limit = wavesPerSimd < unsigned(target.maxWavesPerSimd) ? "registers"
                                                                  : "waves";
          break;
        }
        ++trial[s];
      }
      if (fits && ldsUsed + ldsAlloc > uint64_t(target.ldsBytesPerCu)) {
        fits = false;
        limit = "lds";
      }
      if (!fits)
        break;
      std::copy(trial, trial + 4, perSimd);
      ldsUsed += ldsAlloc;
      ++occ;
      if (occ >= 32)
        break;
    }
  }
  if (!occ)
    return createStringError(inconvertibleErrorCode(),
                             "a workgroup does not fit a CU (" +
                                 Twine(wavesPerWg) + " waves, " + Twine(vgprs) +
                                 " VGPRs, " + Twine(lds) + " bytes of LDS)");
  p.occupancy = occ;
  p.occupancyLimit = limit;

  Geometry geo;
  geo.xcds = unsigned(target.numXcds);
  geo.cusPerXcd = unsigned(target.cusPerXcd());
  geo.occupancy = occ;
  geo.numWorkgroups = p.numWorkgroups;
  geo.perXcd.assign(geo.xcds, 0);
  for (unsigned x = 0; x < geo.xcds; ++x)
    geo.perXcd[x] =
        p.numWorkgroups / geo.xcds + (x < p.numWorkgroups % geo.xcds ? 1 : 0);
  geo.rounds =
      unsigned((geo.perXcd[0] + geo.slotsPerXcd() - 1) / geo.slotsPerXcd());
  p.rounds = geo.rounds;

  // Windows of timed rounds.
  struct Window {
    unsigned first, last; // timed rounds [first, last)
    unsigned warmFrom;    // traced from here for the caches
  };
  std::vector<Window> windows;
  unsigned head = std::max(2u, options.headRounds);
  unsigned tail = std::max(1u, options.tailRounds);
  unsigned middle = 0;
  if (options.fullRounds || !launch.alikeWorkgroups ||
      geo.rounds <= head + tail) {
    windows.push_back({0, geo.rounds, 0});
  } else {
    windows.push_back({0, head, 0});
    unsigned tf = geo.rounds - tail;
    windows.push_back(
        {tf, geo.rounds,
         std::max(head, tf - std::min(tf, options.warmupRounds))});
    middle = geo.rounds - head - tail;
  }
  p.extrapolatedRounds = middle;
  for (const Window &w : windows)
    for (unsigned r = w.first; r < w.last; ++r)
      p.timedRounds.push_back(r);

  std::vector<StaticInst> statics = analyseProgram(object.program(), target);
  unsigned tracedXcds = options.traceAllXcds ? geo.xcds : 1;
  CacheHierarchy caches(target, tracedXcds);
  unsigned lineShift = unsigned(std::log2(double(tm.cacheLineBytes)));

  // Per window: traces of the simulated CU's workgroups and the traffic of
  // each round.
  struct WindowData {
    std::vector<std::unique_ptr<WorkgroupTrace>> timed;
    std::vector<TimedWorkgroup> order;
    std::map<unsigned, RoundTraffic> traffic;
  };
  std::vector<WindowData> data(windows.size());
  // The sensitivity study replays the caches with other associativities:
  // it keeps every traced round (streams in cache-pass order).
  struct Stash {
    size_t window;
    unsigned round;
    std::vector<CacheHierarchy::Stream> streams;
    std::vector<std::unique_ptr<WorkgroupTrace>> untimed;
  };
  std::vector<Stash> stash;
  double phaseSeconds[3] = {}; // trace, cache, timing (MXGEMM_SIM_DEBUG)
  RoundTraffic totals;
  double mfmaBusySum = 0, mfmaCountSum = 0;
  uint64_t wgTraced = 0;
  double mfmaCyclesOf = 0;

  for (size_t wi = 0; wi < windows.size(); ++wi) {
    const Window &win = windows[wi];
    for (unsigned r = win.warmFrom; r < win.last; ++r) {
      bool timedRound = r >= win.first;
      std::vector<std::unique_ptr<WorkgroupTrace>> traces;
      StreamRecorder rec(launch.grid, lineShift, statics);
      emu::LaunchConfig cfg;
      std::copy(launch.grid, launch.grid + 3, cfg.grid);
      std::copy(wg, wg + 3, cfg.workgroup);
      cfg.kernargs = launch.kernargs;
      cfg.dynamicLdsBytes = launch.dynamicLdsBytes;
      cfg.checks = false;
      cfg.threads = 1;
      cfg.collectStats = false;
      cfg.perWorkgroupStats = false;
      cfg.skipMfmaArithmetic = !options.exactMfma;
      cfg.observer = &rec;
      // Streams in the cache pass's order: the simulated CU first.
      struct Placed {
        unsigned xcd, cu, slot;
        WorkgroupTrace *trace;
      };
      std::vector<Placed> placed;
      for (unsigned x = 0; x < tracedXcds; ++x) {
        auto [lo, hi] = geo.roundRange(x, r);
        for (uint64_t k = lo; k < hi; ++k) {
          auto t = std::make_unique<WorkgroupTrace>();
          t->id = geo.idOf(x, k);
          uint64_t local = k - uint64_t(r) * geo.slotsPerXcd();
          unsigned cu = unsigned(local % geo.cusPerXcd);
          unsigned slot = unsigned(local / geo.cusPerXcd);
          t->timed = timedRound && x == 0 && cu == 0;
          rec.targets[t->id] = t.get();
          cfg.workgroupsToRun.push_back(t->id);
          placed.push_back({x, cu, slot, t.get()});
          traces.push_back(std::move(t));
        }
      }
      std::sort(cfg.workgroupsToRun.begin(), cfg.workgroupsToRun.end());
      if (cfg.workgroupsToRun.empty())
        continue;
      auto t0 = std::chrono::steady_clock::now();
      auto res = emu::launch(object, kernel, cfg, memory);
      if (!res)
        return res.takeError();
      auto t1 = std::chrono::steady_clock::now();
      phaseSeconds[0] += std::chrono::duration<double>(t1 - t0).count();
      p.tracedInstructions += rec.instructions;
      wgTraced += placed.size();
      std::sort(
          placed.begin(), placed.end(), [](const Placed &a, const Placed &b) {
            bool a0 = a.xcd == 0 && a.cu == 0, b0 = b.xcd == 0 && b.cu == 0;
            if (a0 != b0)
              return a0;
            if (a.slot != b.slot)
              return a.slot < b.slot;
            if (a.xcd != b.xcd)
              return a.xcd < b.xcd;
            return a.cu < b.cu;
          });
      std::vector<CacheHierarchy::Stream> streams;
      for (const Placed &pl : placed)
        for (WaveTrace &w : pl.trace->waves)
          streams.push_back({pl.xcd, pl.cu, &w, pl.trace->timed});
      auto t2 = std::chrono::steady_clock::now();
      RoundTraffic traffic = caches.runRound(streams);
      phaseSeconds[1] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t2)
              .count();
      // Without the other XCDs traced, their MALL and HBM traffic is taken
      // to equal this XCD's.
      if (tracedXcds == 1) {
        unsigned activeXcds = 0;
        for (unsigned x = 0; x < geo.xcds; ++x)
          activeXcds += geo.activeCus(r, x) ? 1 : 0;
        traffic.mallLines *= activeXcds;
        traffic.hbmLines *= activeXcds;
      }
      if (std::getenv("MXGEMM_SIM_DEBUG"))
        errs() << formatv("round {0}: load lines {1}, L1 hits {2}, L2 hits "
                          "{3}, MALL hits {4}, HBM reads {5}, stores {6}; "
                          "chip MALL/HBM lines {7}/{8}; CU0 L2/MALL/HBM "
                          "lines {9}/{10}/{11}\n",
                          r, traffic.loadLines, traffic.l1Hits, traffic.l2Hits,
                          traffic.mallHits, traffic.hbmReads,
                          traffic.storeLines, traffic.mallLines,
                          traffic.hbmLines, traffic.cu0L2Lines,
                          traffic.cu0MallLines, traffic.cu0HbmLines);
      if (timedRound) {
        data[wi].traffic[r] = traffic;
        totals.loadLines += traffic.loadLines;
        totals.l1Hits += traffic.l1Hits;
        totals.l2Hits += traffic.l2Hits;
        totals.mallHits += traffic.mallHits;
        totals.hbmReads += traffic.hbmReads;
        totals.storeLines += traffic.storeLines;
      }
      if (options.sensitivity)
        stash.push_back({wi, r, streams, {}});
      for (auto &t : traces) {
        mfmaCountSum += double(t->mfmaCount);
        if (t->timed)
          data[wi].timed.push_back(std::move(t));
        else if (options.sensitivity)
          stash.back().untimed.push_back(std::move(t));
      }
      // Drop the untimed traces now (memory) unless kept.
      traces.clear();
    }
    if (std::getenv("MXGEMM_SIM_DEBUG") && wi == 0) {
      // Per static memory instruction of the simulated CU: executions,
      // lines per execution, serving levels.
      struct Acc {
        uint64_t n = 0, lines = 0, lanes = 0, lv[6] = {};
      };
      std::map<uint32_t, Acc> acc;
      for (auto &t : data[wi].timed)
        for (WaveTrace &w : t->waves) {
          for (const DynInst &d : w.insts) {
            if (d.op < 0 || statics[d.index].unit != Unit::Vmem)
              continue;
            const GlobalOp &op = w.globalOps[size_t(d.op)];
            Acc &a = acc[d.index];
            ++a.n;
            a.lines += op.numLines;
            a.lanes += op.activeLanes;
            for (unsigned i = 0; i < op.numLines; ++i)
              if (op.firstLevel + i < w.levels.size())
                ++a.lv[w.levels[op.firstLevel + i] & LevelMask];
          }
        }
      for (auto &[index, a] : acc)
        errs() << formatv("{0,5} x{1,6} lines {2,6:f1} lanes {3,5:f1} "
                          "L1 {4} L2 {5} MALL {6} HBM {7} store {8}  {9}\n",
                          index, a.n, double(a.lines) / a.n,
                          double(a.lanes) / a.n, a.lv[1], a.lv[2], a.lv[3],
                          a.lv[4], a.lv[5],
                          object.program().disassembly(index));
    }
    // The simulated CU's workgroups in dispatch order.
    std::sort(data[wi].timed.begin(), data[wi].timed.end(),
              [](const auto &a, const auto &b) { return a->id < b->id; });
    for (auto &t : data[wi].timed) {
      uint64_t k = t->id / geo.xcds;
      data[wi].order.push_back({t.get(), unsigned(k / geo.slotsPerXcd())});
    }
  }
  p.tracedWorkgroups = wgTraced;
  double mfmaPerWg = wgTraced ? mfmaCountSum / double(wgTraced) : 0;
  p.mfmaPerWorkgroup = uint64_t(std::llround(mfmaPerWg));
  // Cycles of one MFMA (the kernel's shape, from the first one seen).
  for (const StaticInst &si : statics)
    if (si.unit == Unit::Mfma) {
      mfmaCyclesOf = double(si.mfmaCycles);
      break;
    }
  mfmaBusySum = mfmaPerWg * double(p.numWorkgroups) * mfmaCyclesOf;
  double mfmaFlops = 0;
  for (const StaticInst &si : statics)
    if (si.unit == Unit::Mfma) {
      mfmaFlops = double(si.mfmaFlops);
      break;
    }
  p.flops = launch.flops > 0 ? launch.flops
                             : mfmaPerWg * double(p.numWorkgroups) * mfmaFlops;
  if (totals.loadLines) {
    p.l1HitRate = double(totals.l1Hits) / double(totals.loadLines);
    p.l2HitRate = double(totals.l2Hits) / double(totals.loadLines);
    p.mallHitRate = double(totals.mallHits) / double(totals.loadLines);
  }

  // Timing at each clock.
  bool traceWritten = false;
  auto runClock = [&](const target::TargetModel &target, double clockHz,
                      ClockPrediction &out, bool record) {
    const target::TimingModel &tm = target.timing;
    out.clockHz = clockHz;
    double lineBytes = double(tm.cacheLineBytes);
    double totalCycles = 0, windowCycles = 0;
    std::array<double, NumUnits> busy{};
    out.stalls.assign(wavesPerWg, {});
    double cuMfmaBusy = 0;
    for (size_t wi = 0; wi < windows.size(); ++wi) {
      const Window &win = windows[wi];
      CuInput in;
      in.program = &object.program();
      in.statics = &statics;
      in.target = &target;
      in.clockHz = clockHz;
      in.occupancy = occ;
      in.wavesPerWorkgroup = wavesPerWg;
      in.workgroups = data[wi].order;
      in.shares.resize(geo.rounds + 1);
      for (unsigned r = win.first; r < win.last; ++r) {
        // Fair shares of the active CUs (docs/Simulator.md, "Bandwidth
        // shares").
        RoundShares &s = in.shares[r];
        double cusX = std::max(1u, geo.activeCus(r, 0));
        double cusChip = std::max(1u, geo.activeCusChip(r));
        s.l2CyclesPerLine = lineBytes * cusX /
                            double(tm.l2Channels * tm.l2ChannelBytesPerCycle);
        s.mallCyclesPerLine =
            lineBytes * cusChip / tm.mallBytesPerSecond * clockHz;
        s.hbmCyclesPerLine =
            lineBytes * cusChip / target.hbmBytesPerSecond * clockHz;
      }
      in.recordTrace =
          record && !options.traceFile.empty() && wi == 0 && !traceWritten;
      auto t3 = std::chrono::steady_clock::now();
      CuResult cu = simulateCu(in);
      phaseSeconds[2] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t3)
              .count();
      if (record)
        p.timedInstructions += cu.instructions;
      double cycles = double(cu.cycles);
      if (wi == 0) {
        out.headCycles = cycles;
        if (middle) {
          // Steady state: how long a slot takes per workgroup after the
          // cold first round (from its previous workgroup's end to this
          // one's end), averaged over the slots and the later head rounds.
          // With several slots per CU their workgroups end staggered, so
          // the difference of two rounds' last ends would be noisy.
          // Rounds inside the window only (a round at the window's end
          // runs with fewer co-runners as the window drains).
          unsigned lastInside = win.last >= 3 ? win.last - 1 : win.last;
          double sum = 0;
          unsigned n = 0;
          for (const CuResult::WorkgroupSpan &sp : cu.spans)
            if (sp.round >= 1 && sp.round < lastInside) {
              sum += sp.end - sp.slotFree;
              ++n;
            }
          double steady = n ? sum / n : cycles / double(win.last - win.first);
          out.steadyRoundCycles = steady;
          out.middleCycles = steady * middle;
          cuMfmaBusy += cu.roundMfmaBusy.back() * middle;
        }
      } else {
        out.tailCycles = cycles;
      }
      totalCycles += cycles;
      windowCycles += cycles;
      cuMfmaBusy += cu.mfmaBusy;
      for (unsigned u = 0; u < NumUnits; ++u)
        busy[u] += cu.unitBusy[u];
      for (unsigned w = 0; w < wavesPerWg && w < cu.stalls.size(); ++w)
        for (unsigned k = 0; k < NumStallKinds; ++k)
          out.stalls[w][k] += cu.stalls[w][k];
      for (unsigned k = 0; k < NumIdleKinds; ++k)
        out.mfmaIdle[k] += cu.mfmaIdle[k];
      if (in.recordTrace) {
        writeChromeTrace(options.traceFile, cu, clockHz, p, object.program());
        traceWritten = true;
      }
    }
    totalCycles += out.middleCycles;
    out.cycles = totalCycles;
    out.seconds = totalCycles / clockHz;
    out.tflops = p.flops / out.seconds / 1e12;
    double peakFlops = double(target.mxfp8FlopsPerClockPerCu()) *
                       double(target.numCus) * target.peakClockHz;
    out.percentOfPeak = 100.0 * p.flops / out.seconds / peakFlops;
    out.mfmaUtilisation = mfmaBusySum / (double(target.simdsPerCu) *
                                         double(target.numCus) * totalCycles);
    for (unsigned u = 0; u < NumUnits; ++u)
      out.unitUtilisation[u] =
          busy[u] /
          (windowCycles * (u <= UnitSalu ? double(target.simdsPerCu) : 1.0));
    (void)cuMfmaBusy;
    // The limiter: what kept the matrix pipes idle (docs/Simulator.md).
    double idleTotal = 0;
    unsigned top = 0;
    for (unsigned k = 0; k < NumIdleKinds; ++k) {
      idleTotal += out.mfmaIdle[k];
      if (out.mfmaIdle[k] > out.mfmaIdle[top])
        top = k;
    }
    double cuMfmaUtil = out.unitUtilisation[UnitMfma];
    double activeFraction = std::min(
        1.0, double(p.numWorkgroups) / double(uint64_t(target.numCus) * occ));
    double bw[3] = {out.unitUtilisation[UnitHbm], out.unitUtilisation[UnitMall],
                    out.unitUtilisation[UnitL2]};
    static const char *const bwNames[3] = {"hbm-bandwidth", "mall-bandwidth",
                                           "l2-bandwidth"};
    unsigned topBw = 0;
    for (unsigned k = 1; k < 3; ++k)
      if (bw[k] > bw[topBw])
        topBw = k;
    if (activeFraction < 0.5) {
      out.limiter = "grid";
      out.limiterDetail = "the grid fills " + fmt(100 * activeFraction, 0) +
                          "% of the chip's workgroup slots";
    } else if (mfmaCyclesOf > 0 && cuMfmaUtil >= 0.85) {
      out.limiter = "mfma";
      out.limiterDetail = "the matrix pipes are busy " +
                          fmt(100 * cuMfmaUtil, 1) +
                          "% of the simulated CU's time";
    } else if (bw[topBw] >= 0.8) {
      out.limiter = bwNames[topBw];
      out.limiterDetail = "the CU's share of it is busy " +
                          fmt(100 * bw[topBw], 0) + "% of the time";
    } else if (mfmaCyclesOf > 0) {
      static const char *const names[NumIdleKinds] = {
          "issue",      "memory-latency",   "lds",       "barrier",
          "dependency", "vmem-issue",       "lds-queue", "issue-contention",
          "nop",        "prologue-epilogue"};
      out.limiter = names[top];
      out.limiterDetail =
          "matrix pipes idle " + fmt(100 * (1 - cuMfmaUtil), 1) +
          "% of the time, " +
          fmt(idleTotal > 0 ? 100 * out.mfmaIdle[top] / idleTotal : 0, 0) +
          "% of it " + idleKindName(top).str();
    } else {
      // No MFMAs: the wave state that took the most time.
      std::array<double, NumStallKinds> sum{};
      for (auto &w : out.stalls)
        for (unsigned k = 0; k < NumStallKinds; ++k)
          sum[k] += w[k];
      unsigned worst = StateIssueOther;
      for (unsigned k = 0; k < NumStallKinds; ++k)
        if (sum[k] > sum[worst])
          worst = k;
      out.limiter = stallKindName(worst).str();
      out.limiterDetail = "the longest wave state";
    }
  };
  if (options.onlyClockHz > 0) {
    runClock(target, options.onlyClockHz, p.sustained, true);
    p.hasSustained = true;
  } else {
    runClock(target, tm.sustainedClockHz, p.sustained, true);
    runClock(target, target.peakClockHz, p.peak, false);
    p.hasSustained = p.hasPeak = true;
  }

  if (std::getenv("MXGEMM_SIM_DEBUG"))
    errs() << formatv("phases: trace {0:f2} s, caches {1:f2} s, timing "
                      "{2:f2} s\n",
                      phaseSeconds[0], phaseSeconds[1], phaseSeconds[2]);
  if (options.sensitivity) {
    // Every ASSUMPTION at 0.5x and 1.5x; the caches are replayed when an
    // associativity changes.
    auto replayCaches = [&](const target::TargetModel &t) {
      CacheHierarchy c(t, tracedXcds);
      for (Stash &st : stash) {
        for (CacheHierarchy::Stream &str : st.streams)
          if (str.timed)
            str.wave->levels.clear();
        c.runRound(st.streams);
      }
    };
    double base = p.sustained.seconds;
    double clock =
        options.onlyClockHz > 0 ? options.onlyClockHz : tm.sustainedClockHz;
    for (const TimingField &f : timingFields()) {
      if (!f.assumption)
        continue;
      bool cache = StringRef(f.name).ends_with("Ways");
      Prediction::Sensitivity sens;
      sens.field = f.name;
      sens.value = f.get(tm);
      for (unsigned k = 0; k < 2; ++k) {
        target::TargetModel t2 = target;
        f.set(t2.timing, sens.value * (k ? 1.5 : 0.5));
        if (cache)
          replayCaches(t2);
        ClockPrediction c;
        runClock(t2, clock, c, false);
        (k ? sens.high : sens.low) = 100.0 * (c.seconds / base - 1.0);
      }
      if (cache)
        replayCaches(target);
      p.sensitivity.push_back(sens);
    }
  }
  return p;
}

static void appendClock(double flops, ClockPrediction &first,
                        const ClockPrediction &second) {
  const double cycles = first.cycles + second.cycles;
  if (cycles <= 0 || first.seconds + second.seconds <= 0)
    return;
  // Busy SIMD-cycles are utilisation x cycles in each launch.
  first.mfmaUtilisation = (first.mfmaUtilisation * first.cycles +
                           second.mfmaUtilisation * second.cycles) /
                          cycles;
  const double seconds = first.seconds + second.seconds;
  first.percentOfPeak *= first.seconds / seconds;
  first.cycles = cycles;
  first.seconds = seconds;
  first.tflops = flops / seconds / 1e12;
}

void mxgemm::sim::appendLaunch(Prediction &first, const Prediction &second) {
  if (first.hasSustained && second.hasSustained)
    appendClock(first.flops, first.sustained, second.sustained);
  if (first.hasPeak && second.hasPeak)
    appendClock(first.flops, first.peak, second.peak);
}
