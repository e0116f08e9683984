//===- Report.cpp - predictions as text, JSON and Chrome traces -----------===//
//
// Output of the simulator: the human-readable report, the one-object JSON
// the tools read, the Chrome/Perfetto trace of one CU's waves, the hash of
// the target table every prediction records, and the by-name access to the
// timing figures that --set and the sensitivity study use.
//
//===----------------------------------------------------------------------===//

#include "../Emulator/EmulatorImpl.h"
#include "SimulatorImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <type_traits>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::sim;

//===----------------------------------------------------------------------===//
// Timing fields and the target hash
//===----------------------------------------------------------------------===//

#define MXGEMM_FIELD(name, assumption, source)                                 \
  TimingField {                                                                \
#name, assumption, source,                                                 \
        [](const target::TimingModel &t) { return double(t.name); },           \
        [](target::TimingModel &t, double v) {                                 \
          using T = std::remove_reference_t<decltype(t.name)>;                 \
          if constexpr (std::is_integral_v<T>)                                 \
            t.name = T(std::max<double>(1, std::llround(v)));                  \
          else                                                                 \
            t.name = T(v);                                                     \
        }   \
  }

ArrayRef<TimingField> mxgemm::sim::timingFields() {
  static const TimingField fields[] = {
      MXGEMM_FIELD(issueIntervalCycles, false,
                   "ROCm Compute Profiler, Pipeline descriptions: Scheduler "
                   "(one SIMD per cycle, round robin)"),
      MXGEMM_FIELD(
          valuCycles, false,
          "ROCm Compute Profiler (16-wide SIMDs); gluon lds_throughput.md 1.1"),
      MXGEMM_FIELD(
          valuQuarterRateCycles, false,
          "LLVM SISchedule.td (WriteTrans32, WriteQuarterRate32, "
          "WriteFloatCvt); pyhip mfma-valu-coissue.md (16.0 measured)"),
      MXGEMM_FIELD(
          mfmaIssueCycles, false,
          "pyhip mfma-valu-coissue.md (VALU issues 4 cycles after the MFMA)"),
      MXGEMM_FIELD(mfmaReadExtraPasses, false,
                   "CDNA3 ISA 7.6 via LLVM GCNHazardRecognizer (XDL write, "
                   "SrcA/B or VALU read: passes + 3)"),
      MXGEMM_FIELD(mfmaSrcCPartialExtraPasses, false,
                   "CDNA3 ISA 7.6 via LLVM GCNHazardRecognizer (overlapped "
                   "SrcC: passes + 1)"),
      MXGEMM_FIELD(
          mfmaPassCycles, false,
          "ROCm matrix-core blog (32x32x64 FP8: 64 cycles = 16 passes)"),
      MXGEMM_FIELD(smemLatencyCycles, true, "ASSUMPTION"),
      MXGEMM_FIELD(takenBranchCycles, true, "ASSUMPTION"),
      MXGEMM_FIELD(sleepCyclesPerUnit, false,
                   "CDNA3/CDNA4 ISA, S_SLEEP (64 x SIMM16[6:0] clocks)"),
      MXGEMM_FIELD(barrierCycles, true, "ASSUMPTION"),
      MXGEMM_FIELD(workgroupLaunchCycles, true, "ASSUMPTION"),
      MXGEMM_FIELD(
          ldsServiceBytesPerCycle, false,
          "gluon lds_throughput.md 1.3; ROCm CDNA4 FP8 GEMM blog Table 1"),
      MXGEMM_FIELD(ldsPortBytesPerCycle, false,
                   "gluon lds_throughput.md 1.2, 1.4 (128 B/clk per SIMD pair "
                   "each way)"),
      MXGEMM_FIELD(ldsQueueEntries, false,
                   "gluon lds_throughput.md 1.6 (8-entry FIFO per SIMD pair)"),
      MXGEMM_FIELD(
          ldsLatencyCycles, false,
          "gluon lds_throughput.md 1.6 (50-70); triton PR 2507 (69 measured)"),
      MXGEMM_FIELD(vmemQueueEntries, false,
                   "gluon v8_sliceMN README 4.2 (~12 entries per CU)"),
      MXGEMM_FIELD(
          tcpInflightBytes, false,
          "gluon v8_sliceMN README 4.1; memory_bandwidth_model.md (32 KB TCP)"),
      MXGEMM_FIELD(tcpLanesPerCycleNarrow, false,
                   "gluon v8_sliceMN README 4.3 (dword: 4 cycles)"),
      MXGEMM_FIELD(tcpLanesPerCycleWide, false,
                   "gluon v8_sliceMN README 4.3 (dwordx2, dwordx4: 16 cycles)"),
      MXGEMM_FIELD(tcpLinesPerCycle, true, "ASSUMPTION"),
      MXGEMM_FIELD(
          cacheLineBytes, false,
          "ROCm Compute Profiler, L2 cache (128 B lines on MI200/MI300)"),
      MXGEMM_FIELD(l1Bytes, false, "gluon v8_sliceMN README 4.1 (32 KB TCP)"),
      MXGEMM_FIELD(l1Ways, true, "ASSUMPTION"),
      MXGEMM_FIELD(l2Ways, true, "ASSUMPTION"),
      MXGEMM_FIELD(mallWays, true, "ASSUMPTION"),
      MXGEMM_FIELD(
          returnBytesPerCycle, false,
          "derived from gluon v8_sliceMN README 4.3 (1 KB in 16 cycles)"),
      MXGEMM_FIELD(l1FillBytesPerCycle, true, "ASSUMPTION"),
      MXGEMM_FIELD(l1HitCycles, true, "ASSUMPTION"),
      MXGEMM_FIELD(l2HitCycles, true, "ASSUMPTION"),
      MXGEMM_FIELD(
          l2Channels, false,
          "ROCm Compute Profiler, L2 cache (16 channels per XCD on MI300)"),
      MXGEMM_FIELD(l2ChannelBytesPerCycle, false,
                   "ROCm Compute Profiler L2 speed-of-light peak (channels x "
                   "128 B x sclk on MI300/MI350)"),
      MXGEMM_FIELD(mallBytesPerSecond, true,
                   "ASSUMPTION (MI300X published 17.2 TB/s; none for MI355X)"),
      MXGEMM_FIELD(mallExtraNs, true, "ASSUMPTION"),
      MXGEMM_FIELD(hbmExtraNs, false,
                   "derived: pyhip mem_latency.md (500-800 cycles, 650 at 2.4 "
                   "GHz) minus l2HitCycles"),
      MXGEMM_FIELD(sustainedClockHz, false,
                   "derived: docs/Simulator.md, The sustained clock"),
  };
  return fields;
}

void mxgemm::sim::printTimingTable(raw_ostream &os,
                                   const target::TargetModel &target) {
  os << "| figure | value | source |\n|---|---|---|\n";
  for (const TimingField &f : timingFields())
    os << "| `" << f.name << "` | " << format("%g", f.get(target.timing))
       << " | " << f.source << " |\n";
  os << "\nTarget table hash: `" << targetModelHash(target) << "`\n";
}

std::string mxgemm::sim::targetModelHash(const target::TargetModel &t) {
  // Every figure, printed in declaration order with full precision, after
  // the model's revision: a change of behaviour without a changed figure
  // must still tell old predictions from new ones. Revision 2: an LDS-DMA
  // counts in vmcnt only, as on the hardware (revision 1 also counted it in
  // lgkmcnt, as LLVM 22 does).
  constexpr int kModelRevision = 2;
  std::string s;
  raw_string_ostream os(s);
  os << "revision=" << kModelRevision << ';';
  os << t.chip << ';' << t.amdhsaTarget << ';' << t.computeCapabilityMajor
     << ';' << t.computeCapabilityMinor << ';' << t.numCus << ';' << t.numXcds
     << ';' << t.simdsPerCu << ';' << t.waveSize << ';' << t.maxWavesPerSimd
     << ';' << t.maxWavesPerWorkgroup << ';' << t.vgprsPerLane << ';'
     << t.maxArchVgprs << ';' << t.vgprAllocGranule << ';' << t.maxSgprsPerWave
     << ';' << t.ldsBytesPerCu << ';' << t.maxLdsBytesPerWorkgroup << ';'
     << t.ldsAllocationGranule << ';' << t.ldsBanks << ';' << t.ldsBankBytes
     << ';' << format("%.17g", t.peakClockHz) << ';'
     << format("%.17g", t.hbmBytesPerSecond) << ';' << t.l2BytesPerXcd << ';'
     << t.mallBytes;
  for (const target::MfmaInstruction &m : t.mfma)
    os << ';' << m.mnemonic << ',' << m.m << ',' << m.n << ',' << m.k << ','
       << m.cyclesFp8 << ',' << m.cyclesFp6Fp4;
  for (const TimingField &f : timingFields())
    os << ';' << f.name << '=' << format("%.17g", f.get(t.timing));
  return utohexstr(xxh3_64bits(StringRef(s)), /*LowerCase=*/true, 16);
}

//===----------------------------------------------------------------------===//
// Text report
//===----------------------------------------------------------------------===//

namespace {

void printClock(raw_ostream &os, const char *title, const ClockPrediction &c,
                unsigned wavesPerWg) {
  os << formatv("{0} ({1:f2} GHz):\n", title, c.clockHz / 1e9);
  os << formatv("  predicted time   {0:f2} us ({1:f0} cycles)\n",
                c.seconds * 1e6, c.cycles);
  os << formatv("  predicted TFLOPS {0:f1} ({1:f1}% of the 5.03 PF peak)\n",
                c.tflops, c.percentOfPeak);
  os << formatv("  MFMA utilisation {0:f1}% of SIMD-cycles, whole kernel\n",
                100 * c.mfmaUtilisation);
  os << "  limiter          " << c.limiter << " (" << c.limiterDetail << ")\n";
  os << formatv("  windows          head {0:f0} + middle {1:f0} (steady "
                "round {2:f0}) + tail {3:f0} cycles\n",
                c.headCycles, c.middleCycles, c.steadyRoundCycles,
                c.tailCycles);
}

} // namespace

void mxgemm::sim::printReport(raw_ostream &os, const Prediction &p) {
  os << "kernel " << p.kernel;
  if (!p.description.empty())
    os << ", " << p.description;
  os << "\n";
  os << "PREDICTION (mxgemm-sim, not a measurement), target table "
     << p.targetHash << "\n";
  os << formatv("grid {0} workgroups x {1} waves; {2} workgroups per CU "
                "(limit: {3}; {4} VGPRs, {5} B LDS); {6} rounds on the "
                "busiest CU\n",
                p.numWorkgroups, p.wavesPerWorkgroup, p.occupancy,
                p.occupancyLimit, p.vgprsAllocated, p.ldsBytes, p.rounds);
  os << "timed rounds:";
  for (unsigned r : p.timedRounds)
    os << " " << r;
  os << formatv("; extrapolated rounds: {0}; traced {1} workgroups ({2} "
                "wave instructions), timed {3} instructions\n",
                p.extrapolatedRounds, p.tracedWorkgroups, p.tracedInstructions,
                p.timedInstructions);
  os << formatv("cache (sample): L1 {0:f1}%, L2 {1:f1}%, MALL {2:f1}% of "
                "load lines\n",
                100 * p.l1HitRate, 100 * p.l2HitRate, 100 * p.mallHitRate);
  if (p.hasSustained)
    printClock(os, p.hasPeak ? "at the sustained MFMA clock" : "at the clock",
               p.sustained, p.wavesPerWorkgroup);
  if (p.hasPeak)
    printClock(os, "at the peak clock", p.peak, p.wavesPerWorkgroup);
  const ClockPrediction &c = p.sustained;
  os << "unit utilisation (simulated CU, timed rounds):";
  for (unsigned u = 0; u < NumUnits; ++u)
    os << formatv(" {0} {1:f0}%", unitKindName(u), 100 * c.unitUtilisation[u]);
  os << "\nwhy the matrix pipes were idle (SIMD-cycles):";
  double idle = 0;
  for (double x : c.mfmaIdle)
    idle += x;
  for (unsigned k = 0; k < NumIdleKinds; ++k)
    if (c.mfmaIdle[k] > 0)
      os << formatv(" {0} {1:f0}%", idleKindName(k),
                    idle > 0 ? 100 * c.mfmaIdle[k] / idle : 0);
  os << "\nstall breakdown per wave (% of the wave's time):\n";
  auto sensitivity = [&] {
    if (p.sensitivity.empty())
      return;
    os << "sensitivity of the sustained-clock time to each ASSUMPTION:\n";
    for (const Prediction::Sensitivity &s : p.sensitivity)
      os << formatv("  {0,-24} {1,12:g}  x0.5 {2,+7:f2}%  x1.5 {3,+7:f2}%\n",
                    s.field, s.value, s.low, s.high);
  };
  for (unsigned w = 0; w < c.stalls.size(); ++w) {
    double total = 0;
    for (double x : c.stalls[w])
      total += x;
    os << "  wave " << w << ":";
    for (unsigned k = 0; k < NumStallKinds; ++k)
      if (c.stalls[w][k] > 0 && total > 0 &&
          100 * c.stalls[w][k] / total >= 0.5)
        os << formatv(" {0} {1:f1}", stallKindName(k),
                      100 * c.stalls[w][k] / total);
    os << "\n";
  }
  sensitivity();
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

void mxgemm::sim::printJson(raw_ostream &os, const Prediction &p,
                            ArrayRef<std::pair<std::string, double>> extra) {
  json::OStream j(os, 1);
  auto clock = [&](const ClockPrediction &c, StringRef suffix) {
    j.attribute(("time_us" + suffix).str(), c.seconds * 1e6);
    j.attribute(("tflops" + suffix).str(), c.tflops);
    j.attribute(("percent_of_peak" + suffix).str(), c.percentOfPeak);
    j.attribute(("cycles" + suffix).str(), c.cycles);
    j.attribute(("mfma_utilisation" + suffix).str(), c.mfmaUtilisation);
    j.attribute(("limiter" + suffix).str(), c.limiter);
  };
  j.object([&] {
    j.attribute("prediction", "mxgemm-sim (not a measurement)");
    j.attribute("kernel", p.kernel);
    j.attribute("description", p.description);
    j.attribute("target_hash", p.targetHash);
    const ClockPrediction &c = p.sustained;
    clock(c, "");
    j.attribute("clock_ghz", c.clockHz / 1e9);
    j.attribute("limiter_detail", c.limiterDetail);
    if (p.hasPeak) {
      clock(p.peak, "_peak_clock");
      j.attribute("peak_clock_ghz", p.peak.clockHz / 1e9);
    }
    for (const auto &[name, value] : extra)
      j.attribute(name, value);
    j.attribute("flops", p.flops);
    j.attribute("workgroups", int64_t(p.numWorkgroups));
    j.attribute("waves_per_workgroup", int64_t(p.wavesPerWorkgroup));
    j.attributeObject("occupancy", [&] {
      j.attribute("workgroups_per_cu", int64_t(p.occupancy));
      j.attribute("limit", p.occupancyLimit);
      j.attribute("vgprs_allocated", int64_t(p.vgprsAllocated));
      j.attribute("lds_bytes", int64_t(p.ldsBytes));
    });
    j.attribute("mfma_per_workgroup", int64_t(p.mfmaPerWorkgroup));
    j.attributeObject("sample", [&] {
      j.attribute("rounds", int64_t(p.rounds));
      j.attributeArray("timed_rounds", [&] {
        for (unsigned r : p.timedRounds)
          j.value(int64_t(r));
      });
      j.attribute("extrapolated_rounds", int64_t(p.extrapolatedRounds));
      j.attribute("traced_workgroups", int64_t(p.tracedWorkgroups));
      j.attribute("traced_instructions", int64_t(p.tracedInstructions));
      j.attribute("timed_instructions", int64_t(p.timedInstructions));
      j.attribute("head_cycles", c.headCycles);
      j.attribute("middle_cycles", c.middleCycles);
      j.attribute("steady_round_cycles", c.steadyRoundCycles);
      j.attribute("tail_cycles", c.tailCycles);
    });
    j.attributeObject("cache", [&] {
      j.attribute("l1_hit_rate", p.l1HitRate);
      j.attribute("l2_hit_rate", p.l2HitRate);
      j.attribute("mall_hit_rate", p.mallHitRate);
    });
    j.attributeObject("unit_utilisation", [&] {
      for (unsigned u = 0; u < NumUnits; ++u)
        j.attribute(unitKindName(u), c.unitUtilisation[u]);
    });
    j.attributeObject("mfma_idle_cycles", [&] {
      for (unsigned k = 0; k < NumIdleKinds; ++k)
        j.attribute(idleKindName(k), c.mfmaIdle[k]);
    });
    if (!p.sensitivity.empty())
      j.attributeArray("sensitivity", [&] {
        for (const Prediction::Sensitivity &s : p.sensitivity)
          j.object([&] {
            j.attribute("field", s.field);
            j.attribute("value", s.value);
            j.attribute("percent_at_half", s.low);
            j.attribute("percent_at_one_and_a_half", s.high);
          });
      });
    j.attributeArray("stalls_per_wave", [&] {
      for (const auto &w : c.stalls)
        j.object([&] {
          for (unsigned k = 0; k < NumStallKinds; ++k)
            j.attribute(stallKindName(k), w[k]);
        });
    });
  });
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Chrome trace
//===----------------------------------------------------------------------===//

void mxgemm::sim::writeChromeTrace(const std::string &path, const CuResult &cu,
                                   double clockHz, const Prediction &p,
                                   const emu::Program &) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Text);
  if (ec)
    return;
  double usPerCycle = 1e6 / clockHz;
  json::OStream j(os);
  j.object([&] {
    j.attribute("displayTimeUnit", "ns");
    j.attributeObject("otherData", [&] {
      j.attribute("prediction", "mxgemm-sim (not a measurement)");
      j.attribute("kernel", p.kernel);
      j.attribute("description", p.description);
      j.attribute("target_hash", p.targetHash);
      j.attribute("clock_ghz", clockHz / 1e9);
    });
    j.attributeArray("traceEvents", [&] {
      j.object([&] {
        j.attribute("name", "process_name");
        j.attribute("ph", "M");
        j.attribute("pid", 0);
        j.attributeObject(
            "args", [&] { j.attribute("name", "simulated CU (XCD 0, CU 0)"); });
      });
      for (size_t i = 0; i < cu.trace.size(); ++i) {
        const CuResult::TraceWave &w = cu.trace[i];
        j.object([&] {
          j.attribute("name", "thread_name");
          j.attribute("ph", "M");
          j.attribute("pid", 0);
          j.attribute("tid", int64_t(i));
          j.attributeObject("args", [&] {
            j.attribute("name", formatv("SIMD {0} | wg {1} wave {2}", w.simd,
                                        w.workgroup, w.wave)
                                    .str());
          });
        });
        j.object([&] {
          j.attribute("name", "thread_sort_index");
          j.attribute("ph", "M");
          j.attribute("pid", 0);
          j.attribute("tid", int64_t(i));
          j.attributeObject("args", [&] {
            j.attribute("sort_index", int64_t(w.simd * 1000 + i));
          });
        });
        for (const WaveInterval &iv : w.intervals) {
          j.object([&] {
            j.attribute("name", stallKindName(iv.state));
            j.attribute("cat", iv.state <= StateIssueOther ? "issue" : "stall");
            j.attribute("ph", "X");
            j.attribute("pid", 0);
            j.attribute("tid", int64_t(i));
            j.attribute("ts", double(iv.start) * usPerCycle);
            j.attribute("dur", double(iv.end - iv.start) * usPerCycle);
          });
        }
      }
    });
  });
}
