//===- SimulatorImpl.h - internal data of the timing simulator --*- C++ -*-===//
//
// The simulator works in three passes over a sample of workgroups (see
// docs/Simulator.md): the emulator runs them functionally and records, per
// wave, the dynamic instruction stream and every memory access
// (WorkgroupTrace); a cache pass replays the global accesses of all
// co-running workgroups through per-CU L1s, per-XCD L2s and the shared MALL
// and stores the level that serves each line; a timing pass issues the
// recorded streams of one CU cycle by cycle. This header holds what the
// passes exchange. Only lib/Simulator includes it.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_SIMULATOR_SIMULATORIMPL_H
#define MXGEMM_LIB_SIMULATOR_SIMULATORIMPL_H

#include "mxgemm/Simulator/Simulator.h"

#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace mxgemm::emu {
class Program;
}

namespace mxgemm::sim {

//===----------------------------------------------------------------------===//
// Recorded streams (pass 1)
//===----------------------------------------------------------------------===//

enum class GlobalKind : uint8_t { Load, Store, LoadToLds };

/// One global/buffer memory instruction: the distinct cache lines its
/// active lanes touch, run-length encoded (`firstRun`, `numRuns` index
/// WaveTrace::runs; a run is a first line and a count).
struct GlobalOp {
  uint32_t firstRun = 0;
  uint16_t numRuns = 0;
  uint16_t numLines = 0;
  uint8_t activeLanes = 0;
  uint8_t bytesPerLane = 0;
  GlobalKind kind = GlobalKind::Load;
  /// Offset of the first line's serving level in WaveTrace::levels (timed
  /// workgroups only).
  uint32_t firstLevel = 0;
};

/// One ds_* instruction: LDS service cycles (64 banks, the emulator's
/// bank-conflict rule), bytes moved (both address sets of read2/write2).
struct LdsOp {
  uint16_t serviceCycles = 0;
  uint16_t activeLanes = 0;
  uint32_t bytes = 0;
  bool store = false;
};

struct LineRun {
  uint64_t firstLine;
  uint32_t count;
};

/// One executed instruction of a timed wave.
struct DynInst {
  uint32_t index;  // in the Program
  int32_t op;      // GlobalOp or LdsOp index by the instruction class, -1
  uint8_t vmInc;   // vmcnt operations it issued (emulator counting)
  uint8_t lgkmInc; // lgkmcnt operations it issued (emulator counting)
};

struct WaveTrace {
  std::vector<DynInst> insts; // timed workgroups only
  std::vector<GlobalOp> globalOps;
  std::vector<LdsOp> ldsOps;
  std::vector<LineRun> runs;
  /// Serving level of each line of each GlobalOp (CacheLevel), timed only.
  std::vector<uint8_t> levels;
};

struct WorkgroupTrace {
  uint64_t id = 0;
  bool timed = false;
  uint64_t mfmaCount = 0;
  std::vector<WaveTrace> waves;
};

//===----------------------------------------------------------------------===//
// Cache levels (pass 2)
//===----------------------------------------------------------------------===//

/// Where a line was served from. `Merged` marks a hit on a line another
/// access in the same step is still filling (the L2 counts these as hits;
/// they wait for the fill but use no bandwidth below the L2).
enum CacheLevel : uint8_t {
  LevelL1 = 1,
  LevelL2 = 2,
  LevelMall = 3,
  LevelHbm = 4,
  LevelStore = 5, // a store: acknowledged by the L2
  LevelMask = 7,
  LevelMerged = 0x80,
};

/// Lines and bytes per level in one round (for bandwidth shares).
struct RoundTraffic {
  uint64_t l2Lines = 0;   // requests into the simulated XCD's L2
  uint64_t mallLines = 0; // L2 misses of the chip (traced, scaled)
  uint64_t hbmLines = 0;  // MALL misses and write-backs of the chip
  uint64_t cu0L2Lines = 0, cu0MallLines = 0, cu0HbmLines = 0;
  // Hit statistics of the chip (for the report).
  uint64_t loadLines = 0, l1Hits = 0, l2Hits = 0, mallHits = 0, hbmReads = 0;
  uint64_t storeLines = 0;
};

//===----------------------------------------------------------------------===//
// Static instruction information (timing pass)
//===----------------------------------------------------------------------===//

enum class Unit : uint8_t {
  Valu,
  Mfma,
  Salu,
  Smem,
  Vmem,
  Lds,
  Branch,
  Internal
};
enum class Internal : uint8_t {
  None,
  Waitcnt,
  Barrier,
  Nop,
  Sleep,
  Setprio,
  Endpgm,
};

struct StaticInst {
  Unit unit = Unit::Valu;
  Internal internal = Internal::None;
  bool packedF32 = false; // v_pk_*_f32: cannot issue under an MFMA
  bool quarterRate = false;
  uint8_t vmWait = 0xff, lgkmWait = 0xff; // s_waitcnt fields (0xff: none)
  uint32_t imm = 0;                       // s_nop / s_sleep / s_setprio value
  uint32_t mfmaCycles = 0, mfmaPasses = 0;
  uint64_t mfmaFlops = 0;
  // MFMA destination and C operand (VGPR-file slots), for the exact-chain
  // rule; count 0 when absent.
  uint16_t mfmaDst = 0, mfmaDstCount = 0, mfmaC = 0, mfmaCCount = 0;
  llvm::SmallVector<std::array<uint16_t, 3>, 6> uses, defs; // vgpr?, first, n
};

std::vector<StaticInst> analyseProgram(const emu::Program &program,
                                       const target::TargetModel &target);

//===----------------------------------------------------------------------===//
// Timing pass
//===----------------------------------------------------------------------===//

/// A workgroup to time on the simulated CU, in dispatch order.
struct TimedWorkgroup {
  const WorkgroupTrace *trace;
  unsigned round;
};

/// Per-line server cost (cycles) of the simulated CU's share of the L2, the
/// MALL and HBM in one round (docs/Simulator.md, "Bandwidth shares").
struct RoundShares {
  double l2CyclesPerLine = 0, mallCyclesPerLine = 0, hbmCyclesPerLine = 0;
};

struct CuInput {
  const emu::Program *program;
  const std::vector<StaticInst> *statics;
  const target::TargetModel *target;
  double clockHz;
  unsigned occupancy; // workgroup slots
  unsigned wavesPerWorkgroup;
  std::vector<TimedWorkgroup> workgroups; // in dispatch order
  std::vector<RoundShares> shares;        // indexed by round
  bool recordTrace = false;
};

/// One interval of a wave's timeline (for --trace and the MFMA-idle
/// attribution).
struct WaveInterval {
  uint64_t start, end;
  uint8_t state; // StallKind
};

struct CuResult {
  uint64_t cycles = 0;
  /// Completion cycle of each round's last workgroup (rounds in order of
  /// first appearance).
  std::vector<uint64_t> roundEnd;
  std::vector<unsigned> roundIds;
  /// Per workgroup: its round, when its slot became free for it (the
  /// previous workgroup's end, or 0), and when it ended.
  struct WorkgroupSpan {
    unsigned round;
    double slotFree, end;
  };
  std::vector<WorkgroupSpan> spans;
  /// Stall cycles per wave index within the workgroup, summed.
  std::vector<std::array<double, NumStallKinds>> stalls;
  /// MFMA pipe idle cycles (SIMD-cycles) attributed to a reason.
  std::array<double, NumIdleKinds> mfmaIdle{};
  double mfmaBusy = 0; // SIMD-cycles
  std::array<double, NumUnits> unitBusy{};
  uint64_t instructions = 0, mfmas = 0;
  /// Per round: MFMA busy SIMD-cycles (for extrapolation).
  std::vector<double> roundMfmaBusy;
  // Timeline of the waves (recordTrace): per wave slot of the CU.
  struct TraceWave {
    unsigned workgroup, wave, simd;
    std::vector<WaveInterval> intervals;
  };
  std::vector<TraceWave> trace;
};

CuResult simulateCu(const CuInput &input);

/// Chrome/Perfetto trace (Trace Event Format) of a CuResult recorded with
/// CuInput::recordTrace.
void writeChromeTrace(const std::string &path, const CuResult &cu,
                      double clockHz, const Prediction &p,
                      const emu::Program &program);

/// LDS service cycles of one address set under the bank rule of
/// docs/Emulator.md (64 banks x 4 B; b128 in 4 phases of 16 lanes, b64 in 2
/// of 32, narrower in 1 of 64; per phase the most distinct dwords one bank
/// serves).
unsigned ldsServiceCycles(const uint32_t *laneAddress, uint64_t laneMask,
                          unsigned bytesPerLane);

} // namespace mxgemm::sim

#endif // MXGEMM_LIB_SIMULATOR_SIMULATORIMPL_H
