//===- Emulator.h - launching gfx950 kernels on the CPU -------*- C++ -*-===//
//
// The launch API of the gfx950 emulator: run a kernel of a loaded code object
// over a grid of wave64 workgroups with the hardware's initial register state,
// on a small thread pool, with the correctness checkers of docs/Design.md
// section 6 (out-of-bounds, unwaited loads, LDS races, uninitialised data
// reaching a store) and per-launch statistics. Timing is not modelled.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_EMULATOR_H
#define MXGEMM_EMULATOR_EMULATOR_H

#include "mxgemm/Emulator/CodeObject.h"
#include "mxgemm/Emulator/DeviceMemory.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mxgemm::emu {

class ExecObserver;

/// What a checker found. Every finding names where it happened.
struct Finding {
  enum Kind {
    OutOfBounds,       // global/buffer-without-range/LDS access outside memory
    UnwaitedRead,      // register or LDS read before its load was waited for
    LdsRace,           // conflicting LDS accesses of two waves, no barrier
    UninitialisedStore // stored data came from never-written VGPRs
  };
  Kind kind;
  std::string kernel;
  uint64_t pc = 0; // byte offset in .text
  std::string instruction;
  uint32_t workgroup[3] = {0, 0, 0};
  unsigned wave = 0;
  int lane = -1;        // -1 if not lane-specific
  uint64_t address = 0; // device or LDS address when relevant
  std::string detail;
};
llvm::StringRef findingKindName(Finding::Kind kind);
void printFinding(llvm::raw_ostream &os, const Finding &finding);

/// Instruction classes of the cycle model of the performance tools,
/// from the MC opcode name: MFMA (v_mfma*), VMEM (global_/buffer_, including
/// global->LDS), LDS (ds_*), SMEM (s_load/s_buffer_load), control (SOPP:
/// s_waitcnt, s_barrier, branches, s_nop, s_setprio, s_endpgm, ...), SALU
/// (every other s_*) and VALU (every other v_*).
enum InstClass : unsigned {
  ClassMfma,
  ClassValu,
  ClassSalu,
  ClassSmem,
  ClassVmem,
  ClassLds,
  ClassControl,
  NumInstClasses
};
llvm::StringRef instClassName(unsigned cls);

/// Counters kept per launch, per workgroup and (class counts) per wave.
struct StatCounters {
  uint64_t instructions = 0;                // wave instructions executed
  uint64_t classCount[NumInstClasses] = {}; // by InstClass
  uint64_t mfmaCount = 0;
  uint64_t mfmaMacs = 0; // multiply-accumulates done by MFMAs
  uint64_t globalBytesRead = 0, globalBytesWritten = 0;
  uint64_t globalToLdsBytes = 0;                  // part of globalBytesRead
  uint64_t ldsBytesRead = 0, ldsBytesWritten = 0; // ds_* (not global->LDS)
  uint64_t dsReadB128 = 0, dsWriteB128 = 0;       // instruction counts
  /// Extra LDS cycles of ds_read_b128 / ds_write_b128 from bank conflicts:
  /// 64 banks x 4 B, 4 phases of 16 lanes; per phase, the most distinct
  /// dwords any one bank serves, minus one (same rule for writes).
  uint64_t ldsReadB128ConflictCycles = 0, ldsWriteB128ConflictCycles = 0;
  uint64_t ldsBankConflictCycles = 0; // the sum of the two
  uint64_t waits = 0;                 // s_waitcnt executed
  uint64_t vmcntZeroWaits = 0;        // s_waitcnt with vmcnt(0)
  uint64_t fullDrainWaits = 0;        // s_waitcnt vmcnt(0) lgkmcnt(0)
  uint64_t barriers = 0;              // s_barrier executed (per wave)
  void add(const StatCounters &other);
};

/// Instruction counts by InstClass.
using ClassCounts = std::array<uint64_t, NumInstClasses>;

/// One workgroup's counters; `perWave` holds each wave's instruction counts
/// by class (index = wave id). `vmWaits[wave]` has one entry per s_waitcnt
/// that made that wave wait for a vector-memory operation: the wave's
/// instruction counts (by class, since it started) when the youngest
/// operation it waited for issued, and at the wait. The emulator itself has
/// no clock; timing is mxgemm-sim's (docs/Simulator.md).
struct WorkgroupStats : StatCounters {
  uint64_t id = 0; // flat workgroup id
  uint32_t waves = 0;
  std::vector<ClassCounts> perWave;
  struct VmWait {
    ClassCounts issued, waited;
  };
  std::vector<std::vector<VmWait>> vmWaits;
};

struct LaunchStats : StatCounters {
  /// Dynamic instruction count by MC opcode name.
  std::map<std::string, uint64_t> instructionMix;
  uint64_t workgroupsRun = 0;
  /// Per workgroup, in flat-id order (LaunchConfig::perWorkgroupStats).
  std::vector<WorkgroupStats> workgroups;
  double seconds = 0;
  void merge(const LaunchStats &other);
  void print(llvm::raw_ostream &os) const;
  /// Machine-readable form: {"launch": counters, "instruction_mix",
  /// "workgroups": [counters + id, waves, per_wave]}.
  void printJson(llvm::raw_ostream &os) const;
};

/// The most worker threads one launch starts.
constexpr unsigned kMaxLaunchThreads = 256;

struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};      // in workgroups
  uint32_t workgroup[3] = {0, 0, 0}; // in work-items; 0 = from metadata
  /// Kernel argument bytes (explicit arguments). Hidden arguments described
  /// by the metadata (block counts, group sizes, ...) are filled in by the
  /// emulator when the buffer is shorter than the kernarg segment.
  std::vector<uint8_t> kernargs;
  uint32_t dynamicLdsBytes = 0;
  /// Flat workgroup ids to run (x + y*gx + z*gx*gy); empty = all.
  std::vector<uint64_t> workgroupsToRun;
  bool checks = true;
  /// Worker threads; 0 = hardware concurrency. At most one per workgroup
  /// run and at most kMaxLaunchThreads.
  unsigned threads = 0;
  /// Instructions a wave runs before the scheduler switches waves (waves
  /// also switch at s_barrier and s_waitcnt).
  unsigned quantum = 64;
  /// Findings kept in the result (more are counted, not stored).
  unsigned maxFindings = 64;
  bool collectStats = true;
  /// Keep LaunchStats::workgroups (one record per workgroup run).
  bool perWorkgroupStats = true;
  /// A workgroup that executes more instructions than this is reported as
  /// hung (an emulated infinite loop must not hang the caller).
  uint64_t maxInstructionsPerWorkgroup = 1ull << 32;
  /// Timing-only mode for a performance model (lib/Simulator): MFMAs count
  /// but do not compute, so their destinations keep stale values. Addresses
  /// and control flow of kernels that do not branch on MFMA results are
  /// unchanged.
  bool skipMfmaArithmetic = false;
  /// Sees every executed instruction and memory access (lib/Simulator
  /// records address streams with it; see EmulatorImpl.h). Not thread-safe:
  /// use with threads = 1.
  ExecObserver *observer = nullptr;
};

/// What is wrong with a rejected launch configuration; the HIP facade turns
/// each into its hipError_t.
enum class LaunchProblem {
  /// Grid or workgroup shape: empty, too large for the target or the AQL
  /// packet, or not what the kernel's metadata allows.
  Configuration,
  /// More LDS than a gfx950 workgroup has.
  Resources,
  /// Kernel arguments: a kernarg buffer that does not fit the kernel's
  /// segment or misses explicit arguments, a `global_buffer` pointer outside
  /// every allocation, a workgroup id outside the grid.
  Argument,
};

/// A launch configuration rejected before anything ran.
class LaunchConfigError : public llvm::ErrorInfo<LaunchConfigError> {
public:
  static char ID;
  LaunchConfigError(LaunchProblem problem, std::string message)
      : Problem(problem), Message(std::move(message)) {}
  LaunchProblem problem() const { return Problem; }
  void log(llvm::raw_ostream &os) const override { os << Message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  LaunchProblem Problem;
  std::string Message;
};

/// The work-items per workgroup a launch of `kernel` with `config` uses:
/// the configured size, else the metadata's `.reqd_workgroup_size`, else
/// (`.max_flat_workgroup_size` or 256) x 1 x 1.
void resolveWorkgroupSize(const KernelInfo &kernel, const LaunchConfig &config,
                          uint32_t size[3]);

/// The kernarg segment size of `kernel`: the metadata's
/// `.kernarg_segment_size` if the code object has a note, else the
/// descriptor's kernarg_size. A kernarg buffer may not be larger.
uint32_t kernargSegmentBytes(const KernelInfo &kernel);

/// Checks `config` against the kernel and the gfx950 target model before a
/// launch, with overflow-checked arithmetic for every size: workgroup and
/// grid shape (a workgroup within the target's and the metadata's limits,
/// `.reqd_workgroup_size` matched exactly, at most 2^32 - 1 work-items per
/// grid dimension as in the AQL packet, a workgroup count that fits 64
/// bits), LDS, the kernarg buffer (no larger than the segment, covering
/// every explicit argument of the metadata), every non-null `global_buffer`
/// argument inside an allocation of `memory`, and the workgroup ids to run.
/// Failures are LaunchConfigError. launch() calls it first.
llvm::Error checkLaunchConfig(const KernelInfo &kernel,
                              const LaunchConfig &config,
                              const DeviceMemory &memory);
/// The two halves of checkLaunchConfig: shape, LDS and workgroup ids; and
/// the kernarg buffer with its pointer arguments (the facade checks the
/// shape before it reads the caller's argument pointers).
llvm::Error checkLaunchShape(const KernelInfo &kernel,
                             const LaunchConfig &config);
llvm::Error checkLaunchArguments(const KernelInfo &kernel,
                                 const LaunchConfig &config,
                                 const DeviceMemory &memory);

struct LaunchResult {
  std::vector<Finding> findings;
  uint64_t totalFindings = 0;
  LaunchStats stats;
};

/// Run `kernel` of `object`. Returns an Error for conditions that stop the
/// launch (a configuration checkLaunchConfig rejects, an unsupported
/// instruction operand form found at run time, a hung workgroup); checker
/// findings are in the result. `memory` is read by several worker threads
/// at once and must not be changed (allocate/free) by anyone else while the
/// launch runs (DeviceMemory.h).
llvm::Expected<LaunchResult> launch(const CodeObject &object,
                                    const KernelInfo &kernel,
                                    const LaunchConfig &config,
                                    DeviceMemory &memory);

/// Workgroup ids for sampled runs of an M-tiled grid: `count` ids spread
/// evenly, always including the first and the last id and every id for which
/// `isEdge` returns true (edge tiles are where masking bugs live).
std::vector<uint64_t>
sampleWorkgroups(uint64_t numWorkgroups, uint64_t count,
                 const std::function<bool(uint64_t)> &isEdge = nullptr);

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_EMULATOR_H
