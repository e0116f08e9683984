//===- Simulator.h - cycle-approximate gfx950 timing simulator --*- C++ -*-===//
//
// Predicts how long a gfx950 code object takes on an MI355X, which nobody
// here can run: the emulator executes a documented sample of workgroups
// functionally (real addresses, real control flow), a cache model replays
// the address streams of the workgroups that run together on an XCD, and an
// event-driven model issues one compute unit's waves cycle by cycle (SIMD
// arbitration by priority then age, MFMA/VALU/SALU/LDS/vector-memory pipes,
// s_waitcnt counters as the emulator counts them, barriers). Rounds of
// workgroups between the sampled ones are extrapolated. Every figure is a
// prediction; every constant comes from target::TimingModel with its source.
// docs/Simulator.md describes the model, the sampling and its measured
// error.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SIMULATOR_SIMULATOR_H
#define MXGEMM_SIMULATOR_SIMULATOR_H

#include "mxgemm/Emulator/CodeObject.h"
#include "mxgemm/Emulator/DeviceMemory.h"
#include "mxgemm/Target/TargetModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::sim {

/// One launch to simulate. Pointers in `kernargs` point into the
/// DeviceMemory passed to simulate(); their contents do not matter for the
/// timing of kernels whose addresses do not depend on loaded data.
struct Launch {
  uint32_t grid[3] = {1, 1, 1};      // in workgroups
  uint32_t workgroup[3] = {0, 0, 0}; // in work-items; 0 = from metadata
  std::vector<uint8_t> kernargs;
  uint32_t dynamicLdsBytes = 0;
  /// Useful FLOP of the launch (2*M*N*K for a GEMM); 0 = the MFMA FLOP the
  /// sample executes, scaled to the grid.
  double flops = 0;
  /// For reports, e.g. "GEMM M=16384 N=12800 K=6144".
  std::string description;
  /// False where workgroups of one launch do different work (a tail
  /// split's whole tiles and K segments): no round then stands for another,
  /// so every round is timed (as with SimOptions::fullRounds).
  bool alikeWorkgroups = true;
};

struct SimOptions {
  /// Rounds of the simulated CU timed at the start (`headRounds`, at least
  /// 2) and at the end (`tailRounds`); the rounds in between take the mean
  /// time a slot spends per workgroup in the head rounds after the first
  /// and before the last. `fullRounds` times every round.
  unsigned headRounds = 3, tailRounds = 1;
  bool fullRounds = false;
  /// Rounds traced before the tail window only to warm the caches.
  unsigned warmupRounds = 1;
  /// Trace the co-running workgroups of every XCD (the MALL sees them all)
  /// or only of the simulated CU's XCD (the other XCDs' MALL traffic is then
  /// taken to equal it).
  bool traceAllXcds = true;
  /// Compute MFMA results while tracing (slow; only needed for kernels that
  /// branch on them).
  bool exactMfma = false;
  /// Chrome/Perfetto trace of the simulated CU's waves ("" = none).
  std::string traceFile;
  /// Simulate only at this clock (0 = both the sustained and the peak one).
  double onlyClockHz = 0;
  /// Also predict with every ASSUMPTION of the timing model at 0.5x and
  /// 1.5x (Prediction::sensitivity); keeps all traces in memory.
  bool sensitivity = false;
};

/// States of a wave's timeline; the stall breakdown per wave sums them.
enum StallKind : unsigned {
  StateIssueMfma,      // issuing an MFMA
  StateIssueOther,     // issuing any other instruction
  StallVmcnt,          // s_waitcnt vmcnt
  StallLgkmcnt,        // s_waitcnt lgkmcnt (LDS, SMEM)
  StallBarrier,        // s_barrier
  StallMfmaDependency, // reads a result of an MFMA still in flight
  StallMfmaBusy,       // its MFMA waits for the SIMD's matrix pipe
  StallDependency,     // reads a result of another unit still in flight
  StallIssue,          // ready, but another wave took the issue slot/unit
  StallLdsQueue,       // the SIMD pair's LDS request FIFO is full
  StallVmemQueue,      // the CU's vector-memory queue is full
  StallNopSleep,       // s_nop, s_sleep, taken-branch refetch
  StallDrain,          // s_endpgm waiting for its stores
  NumStallKinds
};
llvm::StringRef stallKindName(unsigned kind);

/// Why a SIMD's MFMA pipe sat idle (SIMD-cycles), judged by the wave whose
/// MFMA ended the idle gap, or by the lack of a wave.
enum IdleKind : unsigned {
  IdleNonMfmaIssue, // that wave was issuing other instructions
  IdleVmcnt,
  IdleLgkmcnt,
  IdleBarrier,
  IdleDependency, // MFMA or other register dependencies
  IdleVmemQueue,  // its vector-memory instruction could not enter the queue
  IdleLdsQueue,   // its LDS instruction could not enter the FIFO
  IdleContention, // issue turns taken by other waves
  IdleNopSleep,
  IdleNoWave, // no wave with MFMAs resident (launch, epilogue, idle slot)
  NumIdleKinds
};
llvm::StringRef idleKindName(unsigned kind);

/// Units whose busy fraction the report gives (of the simulated CU's time).
enum UnitKind : unsigned {
  UnitMfma, // SIMD-cycles of the matrix pipes / (4 x cycles)
  UnitValu,
  UnitSalu,
  UnitLds, // LDS service
  UnitTa,  // vector-memory address unit
  UnitL1Fill,
  UnitL2,   // the CU's share of the L2
  UnitMall, // the CU's share of the MALL
  UnitHbm,  // the CU's share of HBM
  NumUnits
};
llvm::StringRef unitKindName(unsigned kind);

/// The prediction at one clock.
struct ClockPrediction {
  double clockHz = 0;
  double cycles = 0;
  double seconds = 0;
  double tflops = 0;
  double percentOfPeak = 0;   // of 8192 FLOP/clk/CU x 256 CUs at 2.4 GHz
  double mfmaUtilisation = 0; // SIMD-cycles with the MFMA pipe busy
  std::string limiter;
  std::string limiterDetail;
  std::array<double, NumUnits> unitUtilisation{}; // simulated CU
  /// Per wave index of a workgroup: cycles in each StallKind, summed over
  /// the simulated CU's workgroups.
  std::vector<std::array<double, NumStallKinds>> stalls;
  std::array<double, NumIdleKinds> mfmaIdle{};
  /// Cycles of the timed windows and of the extrapolated middle.
  double headCycles = 0, middleCycles = 0, tailCycles = 0;
  double steadyRoundCycles = 0;
};

struct Prediction {
  std::string kernel;
  std::string description;
  std::string targetHash;
  double flops = 0;
  uint64_t numWorkgroups = 0;
  unsigned wavesPerWorkgroup = 0;
  unsigned occupancy = 0; // workgroups per CU
  std::string occupancyLimit;
  unsigned vgprsAllocated = 0;
  uint64_t ldsBytes = 0;
  unsigned rounds = 0; // rounds of workgroups on the busiest CU
  std::vector<unsigned> timedRounds;
  unsigned extrapolatedRounds = 0;
  uint64_t tracedWorkgroups = 0;
  uint64_t tracedInstructions = 0;
  uint64_t timedInstructions = 0;
  uint64_t mfmaPerWorkgroup = 0;
  /// Fractions of the chip's load lines served by each level (sample).
  double l1HitRate = 0, l2HitRate = 0, mallHitRate = 0;
  double hbmBytesPerFlop = 0;
  ClockPrediction sustained, peak;
  bool hasSustained = false, hasPeak = false;
  /// SimOptions::sensitivity: change of the sustained-clock time (%) with
  /// each ASSUMPTION at half and one and a half times its value.
  struct Sensitivity {
    std::string field;
    double value = 0, low = 0, high = 0;
  };
  std::vector<Sensitivity> sensitivity;
};

/// Simulate `kernel` of `object` over `launch`.
llvm::Expected<Prediction>
simulate(const emu::CodeObject &object, const emu::KernelInfo &kernel,
         const Launch &launch, emu::DeviceMemory &memory,
         const target::TargetModel &target, const SimOptions &options);

/// Adds a second launch of the same kernel to `first` (split K: phase 0
/// computes the partials, phase 1 adds them): at each clock both predict,
/// cycles and seconds are summed and the rates (TFLOPS, % of peak, MFMA
/// utilisation) are taken over both launches, so that they agree with the
/// summed time. `first` keeps its FLOPs (the reduction does no MFMA work),
/// its occupancy and its limiter.
void appendLaunch(Prediction &first, const Prediction &second);

void printReport(llvm::raw_ostream &os, const Prediction &p);
/// One JSON object: time_us, tflops (sustained clock), time_us_peak_clock,
/// clock_ghz, mfma_utilisation, limiter, ... (docs/Simulator.md); `extra`
/// figures (a GEMM's bounds) follow the clocks' fields.
void printJson(llvm::raw_ostream &os, const Prediction &p,
               llvm::ArrayRef<std::pair<std::string, double>> extra = {});

/// Hash (hex) of every figure of `target`, recorded in every prediction.
std::string targetModelHash(const target::TargetModel &target);

/// The TimingModel fields by name (for --set and the sensitivity study),
/// with whether each is an ASSUMPTION.
struct TimingField {
  const char *name;
  bool assumption;
  const char *source; // the public source, or "ASSUMPTION"
  double (*get)(const target::TimingModel &);
  void (*set)(target::TimingModel &, double);
};
llvm::ArrayRef<TimingField> timingFields();
/// The timing figures of `target` as a markdown table (field, value,
/// source), as docs/Simulator.md shows it.
void printTimingTable(llvm::raw_ostream &os, const target::TargetModel &target);

} // namespace mxgemm::sim

#endif // MXGEMM_SIMULATOR_SIMULATOR_H
