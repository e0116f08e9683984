//===- Executor.cpp - launch, wave scheduling and checkers ----------------===//
//
// Runs a kernel: builds the hardware's initial wave state from the kernel
// descriptor (user SGPRs in descriptor order, workgroup ids, packed workitem
// ids in v0), interleaves the waves of one workgroup round-robin so that
// s_barrier and LDS sharing behave, and runs workgroups on a thread pool.
// The checkers that are independent of the instruction kind live here:
// before an instruction runs its source registers are checked for pending
// (unwaited) loads and for initialisation, after it runs its destinations
// take the new pending/initialised state.
//
//===----------------------------------------------------------------------===//

#include "EmulatorImpl.h"
#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Target/TargetModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

using namespace llvm;
using namespace mxgemm::emu;

namespace {
const mxgemm::target::TargetModel &gfx950 = mxgemm::target::kGFX950;
static_assert(WaveSize == mxgemm::target::kGFX950.waveSize,
              "the wave state is sized for the target's wave");
} // namespace

char LaunchConfigError::ID = 0;

StringRef mxgemm::emu::findingKindName(Finding::Kind kind) {
  switch (kind) {
  case Finding::OutOfBounds:
    return "out-of-bounds";
  case Finding::UnwaitedRead:
    return "unwaited-read";
  case Finding::LdsRace:
    return "lds-race";
  case Finding::UninitialisedStore:
    return "uninitialised-store";
  }
  return "unknown";
}

void mxgemm::emu::printFinding(raw_ostream &os, const Finding &f) {
  os << "error: " << findingKindName(f.kind) << " in kernel '" << f.kernel
     << "' at pc .text+0x" << format_hex_no_prefix(f.pc, 1) << " ("
     << f.instruction << "), workgroup (" << f.workgroup[0] << ","
     << f.workgroup[1] << "," << f.workgroup[2] << "), wave " << f.wave;
  if (f.lane >= 0)
    os << ", lane " << f.lane;
  if (f.lane >= 0 || f.address)
    os << ", address 0x" << format_hex_no_prefix(f.address, 1);
  os << ": " << f.detail << "\n";
}

StringRef mxgemm::emu::instClassName(unsigned cls) {
  static const char *const names[NumInstClasses] = {
      "mfma", "valu", "salu", "smem", "vmem", "lds", "control"};
  return cls < NumInstClasses ? names[cls] : "unknown";
}

void StatCounters::add(const StatCounters &o) {
  instructions += o.instructions;
  for (unsigned c = 0; c < NumInstClasses; ++c)
    classCount[c] += o.classCount[c];
  mfmaCount += o.mfmaCount;
  mfmaMacs += o.mfmaMacs;
  globalBytesRead += o.globalBytesRead;
  globalBytesWritten += o.globalBytesWritten;
  globalToLdsBytes += o.globalToLdsBytes;
  ldsBytesRead += o.ldsBytesRead;
  ldsBytesWritten += o.ldsBytesWritten;
  dsReadB128 += o.dsReadB128;
  dsWriteB128 += o.dsWriteB128;
  ldsReadB128ConflictCycles += o.ldsReadB128ConflictCycles;
  ldsWriteB128ConflictCycles += o.ldsWriteB128ConflictCycles;
  ldsBankConflictCycles += o.ldsBankConflictCycles;
  waits += o.waits;
  vmcntZeroWaits += o.vmcntZeroWaits;
  fullDrainWaits += o.fullDrainWaits;
  barriers += o.barriers;
}

void LaunchStats::merge(const LaunchStats &o) {
  add(o);
  for (auto &e : o.instructionMix)
    instructionMix[e.first] += e.second;
  workgroupsRun += o.workgroupsRun;
  workgroups.insert(workgroups.end(), o.workgroups.begin(), o.workgroups.end());
}

void LaunchStats::print(raw_ostream &os) const {
  os << "workgroups run:          " << workgroupsRun << "\n"
     << "wave instructions:       " << instructions << "\n";
  for (unsigned c = 0; c < NumInstClasses; ++c)
    os << format("  %-8s               ", instClassName(c).str().c_str())
       << classCount[c] << "\n";
  os << "MFMA instructions:       " << mfmaCount << "\n"
     << "MFMA MACs:               " << mfmaMacs << "\n"
     << "global bytes read:       " << globalBytesRead << "\n"
     << "global bytes written:    " << globalBytesWritten << "\n"
     << "global->LDS bytes:       " << globalToLdsBytes << "\n"
     << "LDS bytes read:          " << ldsBytesRead << "\n"
     << "LDS bytes written:       " << ldsBytesWritten << "\n"
     << "ds_read_b128:            " << dsReadB128 << " (bank conflict cycles "
     << ldsReadB128ConflictCycles << ")\n"
     << "ds_write_b128:           " << dsWriteB128 << " (bank conflict cycles "
     << ldsWriteB128ConflictCycles << ")\n"
     << "LDS bank conflict cycles: " << ldsBankConflictCycles << "\n"
     << "s_waitcnt:               " << waits << "\n"
     << "vmcnt(0) waits:          " << vmcntZeroWaits << "\n"
     << "full-drain waits:        " << fullDrainWaits << "\n"
     << "barriers (per wave):     " << barriers << "\n"
     << format("emulation time:          %.3f s", seconds);
  if (seconds > 0 && mfmaMacs)
    os << format(" (%.3g MFMA MACs/s)", double(mfmaMacs) / seconds);
  os << "\ninstruction mix:\n";
  std::vector<std::pair<uint64_t, std::string>> mix;
  for (auto &e : instructionMix)
    mix.push_back({e.second, e.first});
  std::sort(mix.rbegin(), mix.rend());
  for (auto &e : mix)
    os << format("  %12llu  ", (unsigned long long)e.first) << e.second << "\n";
}

namespace {
void countersJson(json::OStream &j, const StatCounters &c) {
  j.attribute("instructions", int64_t(c.instructions));
  j.attributeObject("classes", [&] {
    for (unsigned k = 0; k < NumInstClasses; ++k)
      j.attribute(instClassName(k), int64_t(c.classCount[k]));
  });
  j.attribute("mfma", int64_t(c.mfmaCount));
  j.attribute("mfma_macs", int64_t(c.mfmaMacs));
  j.attribute("global_bytes_read", int64_t(c.globalBytesRead));
  j.attribute("global_bytes_written", int64_t(c.globalBytesWritten));
  j.attribute("global_to_lds_bytes", int64_t(c.globalToLdsBytes));
  j.attribute("lds_bytes_read", int64_t(c.ldsBytesRead));
  j.attribute("lds_bytes_written", int64_t(c.ldsBytesWritten));
  j.attribute("ds_read_b128", int64_t(c.dsReadB128));
  j.attribute("ds_write_b128", int64_t(c.dsWriteB128));
  j.attribute("ds_read_b128_conflict_cycles",
              int64_t(c.ldsReadB128ConflictCycles));
  j.attribute("ds_write_b128_conflict_cycles",
              int64_t(c.ldsWriteB128ConflictCycles));
  j.attribute("waits", int64_t(c.waits));
  j.attribute("vmcnt0_waits", int64_t(c.vmcntZeroWaits));
  j.attribute("full_drain_waits", int64_t(c.fullDrainWaits));
  j.attribute("barriers", int64_t(c.barriers));
}
} // namespace

void LaunchStats::printJson(raw_ostream &os) const {
  json::OStream j(os, 1);
  j.object([&] {
    j.attribute("workgroups_run", int64_t(workgroupsRun));
    j.attribute("seconds", seconds);
    j.attributeObject("launch", [&] { countersJson(j, *this); });
    j.attributeObject("instruction_mix", [&] {
      for (auto &e : instructionMix)
        j.attribute(e.first, int64_t(e.second));
    });
    // The order of the class counts in "vm_waits".
    j.attributeArray("class_order", [&] {
      for (unsigned k = 0; k < NumInstClasses; ++k)
        j.value(instClassName(k));
    });
    j.attributeArray("workgroups", [&] {
      for (const WorkgroupStats &w : workgroups)
        j.object([&] {
          j.attribute("id", int64_t(w.id));
          j.attribute("waves", int64_t(w.waves));
          countersJson(j, w);
          j.attributeArray("per_wave", [&] {
            for (auto &wave : w.perWave)
              j.object([&] {
                uint64_t total = 0;
                for (unsigned k = 0; k < NumInstClasses; ++k) {
                  j.attribute(instClassName(k), int64_t(wave[k]));
                  total += wave[k];
                }
                j.attribute("instructions", int64_t(total));
              });
          });
          // Per wave: [[counts at issue], [counts at the wait]] per wait,
          // counts by class in "class_order".
          auto counts = [&](const ClassCounts &c) {
            j.array([&] {
              for (uint64_t n : c)
                j.value(int64_t(n));
            });
          };
          j.attributeArray("vm_waits", [&] {
            for (auto &waits : w.vmWaits)
              j.array([&] {
                for (const WorkgroupStats::VmWait &wait : waits)
                  j.array([&] {
                    counts(wait.issued);
                    counts(wait.waited);
                  });
              });
          });
        });
    });
  });
  os << "\n";
}

void ExecContext::report(Finding::Kind kind, const Wave &w, const Inst &inst,
                         int lane, uint64_t address, std::string detail) {
  ++totalFindings;
  if (findings.size() >= config->maxFindings)
    return;
  Finding f;
  f.kind = kind;
  f.kernel = kernel->name;
  f.pc = inst.offset;
  f.instruction = program->disassembly(&inst - program->insts.data());
  std::copy(workgroupId, workgroupId + 3, f.workgroup);
  f.wave = w.id;
  f.lane = lane;
  f.address = address;
  f.detail = std::move(detail);
  findings.push_back(std::move(f));
}

Status ExecContext::fail(const Inst &inst, const std::string &message) {
  std::string s;
  raw_string_ostream os(s);
  os << "kernel '" << kernel->name << "' at pc .text+0x"
     << format_hex_no_prefix(inst.offset, 1) << " ("
     << program->disassembly(&inst - program->insts.data()) << "): " << message;
  error = s;
  return Status::Error;
}

namespace {

std::string regName(bool vgpr, unsigned r) {
  if (vgpr)
    return r >= AgprBase ? "a" + std::to_string(r - AgprBase)
                         : "v" + std::to_string(r);
  return "s" + std::to_string(r);
}

/// Initialisation taint of an instruction's sources: all of them, and only
/// their low dwords (for FlagLowToHigh instructions).
struct Taint {
  bool defined = true, lowDefined = true;
};

/// Checks before an instruction runs; returns whether the VGPR sources are
/// initialised (the taint that flows to its destinations).
Taint preCheck(ExecContext &ctx, Wave &w, const Inst &I) {
  Taint taint;
  bool &defined = taint.defined, reported = false;
  for (const RegRange &r : I.uses) {
    for (unsigned i = 0; i < r.count; ++i) {
      unsigned reg = r.first + i;
      if (r.vgpr) {
        reg &= VgprFileSize - 1;
        defined &= w.vDefined[reg] != 0;
        if (i == 0)
          taint.lowDefined &= w.vDefined[reg] != 0;
        if (!reported && (w.vPendVm[reg] > w.vmRetired ||
                          w.vPendLgkm[reg] > w.lgkmRetired)) {
          bool vm = w.vPendVm[reg] > w.vmRetired;
          ctx.report(Finding::UnwaitedRead, w, I, -1, 0,
                     "reads " + regName(true, reg) +
                         " before the load that writes it was waited for "
                         "(needs s_waitcnt " +
                         (vm ? "vmcnt" : "lgkmcnt") + ")");
          reported = true;
        }
      } else if (reg < SgprFileSize && !reported &&
                 w.sPend[reg] > w.smemRetired) {
        ctx.report(Finding::UnwaitedRead, w, I, -1, 0,
                   "reads " + regName(false, reg) +
                       " before the scalar load that writes it was waited "
                       "for (needs s_waitcnt lgkmcnt(0))");
        reported = true;
      }
    }
  }
  if ((I.flags & FlagStore) && !defined) {
    std::string regs;
    for (const RegRange &r : I.uses)
      for (unsigned i = 0; r.vgpr && i < r.count; ++i)
        if (!w.vDefined[(r.first + i) & (VgprFileSize - 1)]) {
          regs = regName(true, r.first + i);
          break;
        }
    ctx.report(Finding::UninitialisedStore, w, I, -1, 0,
               "stores data derived from never-written register " + regs);
  }
  return taint;
}

void postCheck(Wave &w, const Inst &I, Taint taint) {
  bool load = I.flags & (FlagVmLoad | FlagLgkmLoad | FlagSmemLoad);
  for (const RegRange &r : I.defs) {
    for (unsigned i = 0; i < r.count; ++i) {
      unsigned reg = r.first + i;
      if (r.vgpr) {
        reg &= VgprFileSize - 1;
        bool defined = (I.flags & FlagLowToHigh) && i == 0 ? taint.lowDefined
                                                           : taint.defined;
        w.vDefined[reg] = load || defined;
        if (I.flags & FlagVmLoad)
          w.vPendVm[reg] = w.vmIssued;
        if (I.flags & FlagLgkmLoad)
          w.vPendLgkm[reg] = w.lgkmIssued;
      } else if (reg < SgprFileSize) {
        w.sPend[reg] = (I.flags & FlagSmemLoad) ? w.lgkmIssued : 0;
      }
    }
  }
}

struct DispatchInfo {
  uint64_t kernargAddress = 0;
  uint64_t dispatchPacket = 0;
  uint32_t wgSize[3] = {1, 1, 1};
};

void initWave(ExecContext &ctx, Wave &w, unsigned waveId, unsigned threads,
              const DispatchInfo &d, const std::vector<uint8_t> &kernargs) {
  const KernelDescriptor &kd = ctx.kernel->descriptor;
  std::memset(w.s, 0, sizeof(w.s));
  std::memset(w.vPendVm, 0, sizeof(w.vPendVm));
  std::memset(w.vPendLgkm, 0, sizeof(w.vPendLgkm));
  std::memset(w.sPend, 0, sizeof(w.sPend));
  std::memset(w.vDefined, 0, sizeof(w.vDefined));
  // Registers start as garbage on hardware; a recognisable pattern makes
  // uses of uninitialised values visible in outputs too.
  for (unsigned r = 0; r < VgprFileSize; ++r)
    std::fill(w.v[r], w.v[r] + WaveSize, 0xdeadbeefu);
  w.scc = false;
  w.done = w.atBarrier = false;
  w.pc = ctx.kernel->entryIndex;
  w.id = waveId;
  w.vmIssued = w.vmRetired = w.lgkmIssued = w.lgkmRetired = w.smemRetired = 0;
  w.vmRetiredAtBarrier = w.lgkmRetiredAtBarrier = 0;
  w.classCount.fill(0);
  w.vmIssueCounts.clear();
  w.vmWaits.clear();
  unsigned first = waveId * WaveSize;
  unsigned active = std::min<unsigned>(WaveSize, threads - first);
  w.setExec(active == 64 ? ~0ull : ((1ull << active) - 1));
  // User SGPRs, in the order of AMDGPUUsage "Initial Kernel Execution State".
  unsigned s = 0;
  auto put64 = [&](uint64_t x) {
    w.setSgpr64(s, x);
    s += 2;
  };
  if (kd.hasProperty(0)) // private segment buffer (no scratch modelled)
    s += 4;
  if (kd.hasProperty(1))
    put64(d.dispatchPacket);
  if (kd.hasProperty(2))
    put64(0); // queue ptr
  if (kd.hasProperty(3))
    put64(d.kernargAddress);
  if (kd.hasProperty(4))
    put64(0); // dispatch id
  if (kd.hasProperty(5))
    put64(0); // flat scratch init
  if (kd.hasProperty(6))
    w.s[s++] = 0; // private segment size
  for (unsigned i = 0; i < kd.kernargPreloadLength() && s < NumSgprs; ++i) {
    uint32_t x = 0;
    size_t off = size_t(kd.kernargPreloadOffset()) * 4 + 4 * i;
    if (off + 4 <= kernargs.size())
      std::memcpy(&x, kernargs.data() + off, 4);
    w.s[s++] = x;
  }
  // System SGPRs follow the user SGPRs.
  s = kd.userSgprCount();
  for (unsigned dim = 0; dim < 3; ++dim)
    if (kd.workgroupIdEnabled(dim))
      w.s[s++] = ctx.workgroupId[dim];
  if (kd.workgroupInfoEnabled())
    w.s[s++] = 0;
  if (kd.privateSegmentWaveOffsetEnabled())
    w.s[s++] = 0;
  // gfx90a+ (so gfx950) packs the workitem ids into v0: x | y << 10 | z << 20.
  unsigned dims = kd.vgprWorkitemIdDims();
  for (unsigned l = 0; l < WaveSize; ++l) {
    unsigned t = first + l;
    unsigned x = t % d.wgSize[0];
    unsigned y = (t / d.wgSize[0]) % d.wgSize[1];
    unsigned z = t / (d.wgSize[0] * d.wgSize[1]);
    w.v[0][l] = x | (dims >= 1 ? y << 10 : 0) | (dims >= 2 ? z << 20 : 0);
  }
  w.vDefined[0] = 1;
}

/// Run one workgroup to completion. False on a launch-stopping error.
bool runWorkgroup(ExecContext &ctx, uint64_t flatId, const uint32_t grid[3],
                  const DispatchInfo &d, const std::vector<uint8_t> &kernargs,
                  unsigned ldsBytes) {
  ctx.workgroupId[0] = uint32_t(flatId % grid[0]);
  ctx.workgroupId[1] = uint32_t((flatId / grid[0]) % grid[1]);
  ctx.workgroupId[2] = uint32_t(flatId / (uint64_t(grid[0]) * grid[1]));
  unsigned threads = d.wgSize[0] * d.wgSize[1] * d.wgSize[2];
  unsigned numWaves = (threads + WaveSize - 1) / WaveSize;
  ctx.lds.assign(ldsBytes, 0);
  if (ctx.checks)
    ctx.ldsShadow.assign((ldsBytes + 3) / 4, LdsShadow());
  ctx.epoch = 1;
  for (unsigned i = 0; i < numWaves; ++i)
    initWave(ctx, *ctx.waves[i], i, threads, d, kernargs);
  static_cast<StatCounters &>(ctx.wg) = StatCounters();
  const std::vector<Inst> &insts = ctx.program->insts;
  const unsigned quantum = std::max(1u, ctx.config->quantum);
  uint64_t executed = 0;
  while (true) {
    unsigned running = 0, waiting = 0;
    for (unsigned i = 0; i < numWaves; ++i) {
      Wave &w = *ctx.waves[i];
      if (w.done)
        continue;
      if (w.atBarrier) {
        ++waiting;
        continue;
      }
      ++running;
      for (unsigned n = 0; n < quantum; ++n) {
        if (w.pc >= insts.size()) {
          ctx.error =
              "kernel '" + ctx.kernel->name + "' ran off the end of .text";
          return false;
        }
        uint32_t index = w.pc++;
        const Inst &I = insts[index];
        if (!I.fn) {
          ctx.fail(I, "instruction is not modelled");
          return false;
        }
        Taint defined = ctx.checks ? preCheck(ctx, w, I) : Taint();
        const uint32_t vmIssued = w.vmIssued, vmRetired = w.vmRetired;
        const uint32_t lgkmIssued = w.lgkmIssued;
        Status st = I.fn(ctx, w, I);
        if (ctx.observer)
          ctx.observer->instructionExecuted(ctx, w, index, vmIssued,
                                            lgkmIssued);
        if (ctx.checks)
          postCheck(w, I, defined);
        if (ctx.stats) {
          ++ctx.perInstCount[index];
          // Counts before this instruction, for its loads and its waits.
          for (uint32_t seq = vmIssued; seq < w.vmIssued; ++seq)
            w.vmIssueCounts.push_back(w.classCount);
          if (w.vmRetired > vmRetired && w.vmRetired <= w.vmIssueCounts.size())
            w.vmWaits.push_back(
                {w.vmIssueCounts[w.vmRetired - 1], w.classCount});
          ++w.classCount[I.cls];
        }
        ++executed;
        if (st == Status::Continue)
          continue;
        if (st == Status::Error)
          return false;
        break; // Yield, Barrier or End: let the next wave run
      }
    }
    if (executed > ctx.config->maxInstructionsPerWorkgroup) {
      ctx.error = "kernel '" + ctx.kernel->name + "': workgroup " +
                  std::to_string(flatId) + " exceeded " +
                  std::to_string(ctx.config->maxInstructionsPerWorkgroup) +
                  " instructions (hung?)";
      return false;
    }
    if (running == 0) {
      if (waiting == 0)
        break; // every wave ended
      // Every live wave is at the barrier: release it.
      for (unsigned i = 0; i < numWaves; ++i) {
        Wave &w = *ctx.waves[i];
        w.atBarrier = false;
        w.vmRetiredAtBarrier = w.vmRetired;
        w.lgkmRetiredAtBarrier = w.lgkmRetired;
      }
      ++ctx.epoch;
    }
  }
  ++ctx.stats_.workgroupsRun;
  if (ctx.stats) {
    WorkgroupStats &wg = ctx.wg;
    wg.id = flatId;
    wg.waves = numWaves;
    wg.perWave.assign(numWaves, {});
    wg.vmWaits.assign(numWaves, {});
    for (unsigned i = 0; i < numWaves; ++i)
      wg.vmWaits[i] = std::move(ctx.waves[i]->vmWaits);
    for (unsigned i = 0; i < numWaves; ++i)
      for (unsigned c = 0; c < NumInstClasses; ++c) {
        wg.perWave[i][c] = ctx.waves[i]->classCount[c];
        wg.classCount[c] += ctx.waves[i]->classCount[c];
        wg.instructions += ctx.waves[i]->classCount[c];
      }
    ctx.stats_.add(wg);
    if (ctx.config->perWorkgroupStats)
      ctx.stats_.workgroups.push_back(wg);
  }
  return true;
}

/// Fill the metadata's hidden arguments the caller did not provide.
void fillHiddenArgs(const KernelInfo &k, std::vector<uint8_t> &kernargs,
                    size_t provided, const LaunchConfig &c,
                    const uint32_t wg[3]) {
  for (const KernelArgInfo &a : k.args) {
    if (a.offset < provided || a.offset + a.size > kernargs.size())
      continue;
    uint64_t value = 0;
    StringRef kind = a.valueKind;
    // The dimension suffix comes from the note: only x, y and z index.
    auto dim = [](StringRef suffix) -> int {
      return suffix.size() == 1 && suffix[0] >= 'x' && suffix[0] <= 'z'
                 ? suffix[0] - 'x'
                 : -1;
    };
    if (kind.consume_front("hidden_block_count_") && dim(kind) >= 0)
      value = c.grid[dim(kind)];
    else if (kind.consume_front("hidden_group_size_") && dim(kind) >= 0)
      value = wg[dim(kind)];
    else if (kind == "hidden_grid_dims")
      value = c.grid[2] > 1 ? 3 : c.grid[1] > 1 ? 2 : 1;
    std::memcpy(kernargs.data() + a.offset, &value,
                std::min<size_t>(a.size, 8));
  }
}

} // namespace

void mxgemm::emu::resolveWorkgroupSize(const KernelInfo &kernel,
                                       const LaunchConfig &config,
                                       uint32_t size[3]) {
  for (unsigned i = 0; i < 3; ++i) {
    size[i] = config.workgroup[i];
    if (!size[i])
      size[i] = kernel.reqdWorkgroupSize[i];
  }
  if (!size[0]) {
    size[0] = kernel.maxFlatWorkgroupSize ? kernel.maxFlatWorkgroupSize : 256;
    size[1] = size[2] = 1;
  }
  for (unsigned i = 0; i < 3; ++i)
    if (!size[i])
      size[i] = 1;
}

uint32_t mxgemm::emu::kernargSegmentBytes(const KernelInfo &kernel) {
  // Without a note, KernelInfo::kernargSegmentSize is the descriptor's.
  return kernel.kernargSegmentSize;
}

namespace {
Error reject(LaunchProblem problem, const Twine &message) {
  return make_error<LaunchConfigError>(problem, message.str());
}

/// Workgroups in the grid, or nothing if the count does not fit 64 bits.
std::optional<uint64_t> workgroupCount(const uint32_t grid[3]) {
  uint64_t count = grid[0];
  for (unsigned i = 1; i < 3; ++i)
    if (__builtin_mul_overflow(count, uint64_t(grid[i]), &count))
      return std::nullopt;
  return count;
}
} // namespace

Error mxgemm::emu::checkLaunchShape(const KernelInfo &kernel,
                                    const LaunchConfig &config) {
  uint32_t wg[3];
  resolveWorkgroupSize(kernel, config, wg);
  const std::string name = "kernel '" + kernel.name + "': ";
  uint64_t threads = 1;
  for (unsigned i = 0; i < 3; ++i)
    if (__builtin_mul_overflow(threads, uint64_t(wg[i]), &threads))
      threads = UINT64_MAX;
  const uint64_t maxThreads = gfx950.maxWavesPerWorkgroup * gfx950.waveSize;
  if (threads > maxThreads)
    return reject(LaunchProblem::Configuration,
                  name + "workgroup of " + Twine(threads) +
                      " work-items exceeds " + Twine(maxThreads));
  if (kernel.maxFlatWorkgroupSize && threads > kernel.maxFlatWorkgroupSize)
    return reject(LaunchProblem::Configuration,
                  name + "workgroup of " + Twine(threads) +
                      " work-items exceeds its .max_flat_workgroup_size " +
                      Twine(kernel.maxFlatWorkgroupSize));
  const uint32_t *reqd = kernel.reqdWorkgroupSize;
  if (reqd[0] && (wg[0] != reqd[0] || wg[1] != reqd[1] || wg[2] != reqd[2]))
    return reject(LaunchProblem::Configuration,
                  name + "workgroup " + Twine(wg[0]) + "x" + Twine(wg[1]) +
                      "x" + Twine(wg[2]) + " is not its .reqd_workgroup_size " +
                      Twine(reqd[0]) + "x" + Twine(reqd[1]) + "x" +
                      Twine(reqd[2]));
  for (unsigned i = 0; i < 3; ++i) {
    if (!config.grid[i])
      return reject(LaunchProblem::Configuration, name + "empty grid");
    // The AQL packet holds the grid in work-items, 32 bits per dimension.
    uint64_t items = uint64_t(config.grid[i]) * wg[i]; // < 2^64
    if (items > UINT32_MAX)
      return reject(LaunchProblem::Configuration,
                    name + "grid of " + Twine(items) +
                        " work-items in dimension " + Twine("xyz"[i]) +
                        " exceeds 2^32 - 1");
  }
  std::optional<uint64_t> numWorkgroups = workgroupCount(config.grid);
  if (!numWorkgroups)
    return reject(LaunchProblem::Configuration,
                  name + "the grid's workgroup count overflows 64 bits");
  uint64_t ldsBytes = uint64_t(kernel.descriptor.groupSegmentFixedSize) +
                      config.dynamicLdsBytes; // two 32-bit values
  if (ldsBytes > uint64_t(gfx950.maxLdsBytesPerWorkgroup))
    return reject(LaunchProblem::Resources,
                  name + "LDS request of " + Twine(ldsBytes) +
                      " bytes exceeds gfx950's " +
                      Twine(gfx950.maxLdsBytesPerWorkgroup));
  for (uint64_t id : config.workgroupsToRun)
    if (id >= *numWorkgroups)
      return reject(LaunchProblem::Argument,
                    name + "workgroup " + Twine(id) + " is outside the grid");
  return Error::success();
}

Error mxgemm::emu::checkLaunchArguments(const KernelInfo &kernel,
                                        const LaunchConfig &config,
                                        const DeviceMemory &memory) {
  const std::string name = "kernel '" + kernel.name + "': ";
  uint32_t segment = kernargSegmentBytes(kernel);
  if (config.kernargs.size() > segment)
    return reject(
        LaunchProblem::Argument,
        name + "kernarg buffer of " + Twine(uint64_t(config.kernargs.size())) +
            " bytes exceeds its " + Twine(segment) + "-byte kernarg segment");
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const KernelArgInfo &arg = kernel.args[i];
    if (arg.isHidden())
      continue;
    std::string what = "argument " + std::to_string(i) +
                       (arg.name.empty() ? "" : " ('" + arg.name + "')");
    // offset + size <= segment was checked when the note was read.
    if (uint64_t(arg.offset) + arg.size > config.kernargs.size())
      return reject(LaunchProblem::Argument,
                    name + "kernarg buffer of " +
                        Twine(uint64_t(config.kernargs.size())) +
                        " bytes does not cover " + what + " (bytes " +
                        Twine(arg.offset) + ".." +
                        Twine(uint64_t(arg.offset) + arg.size) + ")");
    if (!arg.isGlobalBuffer() || arg.size != 8)
      continue;
    uint64_t pointer;
    std::memcpy(&pointer, config.kernargs.data() + arg.offset, 8);
    uint64_t base, size;
    uint8_t *host;
    // Null is a legal "no buffer"; any use of it is an out-of-bounds
    // finding. Everything else must be device memory.
    if (pointer && !memory.lookup(pointer, base, size, host))
      return reject(LaunchProblem::Argument,
                    name + what + " = 0x" + utohexstr(pointer) +
                        " is not inside a device allocation");
  }
  return Error::success();
}

Error mxgemm::emu::checkLaunchConfig(const KernelInfo &kernel,
                                     const LaunchConfig &config,
                                     const DeviceMemory &memory) {
  if (Error e = checkLaunchShape(kernel, config))
    return e;
  return checkLaunchArguments(kernel, config, memory);
}

Expected<LaunchResult> mxgemm::emu::launch(const CodeObject &object,
                                           const KernelInfo &kernel,
                                           const LaunchConfig &config,
                                           DeviceMemory &memory) {
  auto start = std::chrono::steady_clock::now();
  if (Error e = checkLaunchConfig(kernel, config, memory))
    return e;
  DispatchInfo d;
  resolveWorkgroupSize(kernel, config, d.wgSize);
  const uint64_t threads = uint64_t(d.wgSize[0]) * d.wgSize[1] * d.wgSize[2];
  const uint64_t ldsBytes = uint64_t(kernel.descriptor.groupSegmentFixedSize) +
                            config.dynamicLdsBytes;
  const uint64_t numWorkgroups = *workgroupCount(config.grid);
  // Without a list every workgroup runs; the ids are not materialised, so
  // a grid of billions of workgroups costs no memory up front.
  const std::vector<uint64_t> &list = config.workgroupsToRun;
  const uint64_t numToRun = list.empty() ? numWorkgroups : list.size();
  auto workgroupAt = [&](uint64_t i) { return list.empty() ? i : list[i]; };

  // Kernarg segment (explicit bytes, then hidden arguments) and the AQL
  // dispatch packet, both in device memory like on hardware.
  std::vector<uint8_t> kernargs = config.kernargs;
  size_t segment = std::max<size_t>({kernargs.size(), kernel.kernargSegmentSize,
                                     kernel.descriptor.kernargSize});
  kernargs.resize(segment, 0);
  fillHiddenArgs(kernel, kernargs, config.kernargs.size(), config, d.wgSize);
  d.kernargAddress = memory.allocate(std::max<size_t>(segment, 64));
  d.dispatchPacket = memory.allocate(64);
  if (!d.kernargAddress || !d.dispatchPacket) {
    memory.free(d.kernargAddress);
    memory.free(d.dispatchPacket);
    return createStringError(inconvertibleErrorCode(),
                             "out of host memory for the kernarg segment");
  }
  memory.copyToDevice(d.kernargAddress, kernargs.data(), kernargs.size());
  {
    uint8_t packet[64] = {};
    uint16_t dims = config.grid[2] > 1 ? 3 : config.grid[1] > 1 ? 2 : 1;
    std::memcpy(packet + 2, &dims, 2);
    for (unsigned i = 0; i < 3; ++i) {
      uint16_t wg = uint16_t(d.wgSize[i]);
      uint32_t gridItems = config.grid[i] * d.wgSize[i];
      std::memcpy(packet + 4 + 2 * i, &wg, 2);
      std::memcpy(packet + 12 + 4 * i, &gridItems, 4);
    }
    uint32_t group = uint32_t(ldsBytes);
    std::memcpy(packet + 28, &group, 4);
    std::memcpy(packet + 40, &d.kernargAddress, 8);
    memory.copyToDevice(d.dispatchPacket, packet, 64);
  }

  unsigned numThreads =
      config.threads ? config.threads : std::thread::hardware_concurrency();
  numThreads = unsigned(std::max<uint64_t>(
      1, std::min<uint64_t>({numThreads, numToRun, kMaxLaunchThreads})));
  unsigned numWaves = unsigned((threads + WaveSize - 1) / WaveSize);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<ExecContext> contexts(numThreads);
  auto worker = [&](unsigned t) {
    ExecContext &ctx = contexts[t];
    ctx.program = &object.program();
    ctx.kernel = &kernel;
    ctx.memory = &memory;
    ctx.config = &config;
    ctx.checks = config.checks;
    ctx.stats = config.collectStats;
    ctx.skipMfma = config.skipMfmaArithmetic;
    ctx.observer = config.observer;
    ctx.perInstCount.assign(ctx.program->insts.size(), 0);
    std::vector<std::unique_ptr<Wave>> waves;
    for (unsigned i = 0; i < numWaves; ++i) {
      waves.push_back(std::make_unique<Wave>());
      ctx.waves.push_back(waves.back().get());
    }
    while (!failed) {
      uint64_t i = next++;
      if (i >= numToRun)
        break;
      if (!runWorkgroup(ctx, workgroupAt(i), config.grid, d, kernargs,
                        unsigned(ldsBytes)))
        failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < numThreads; ++t) {
    // Out of threads is not an error: the workers share one queue, so the
    // ones that did start (at least this thread) run every workgroup.
    try {
      pool.emplace_back(worker, t);
    } catch (const std::system_error &) {
      break;
    }
  }
  worker(0);
  for (std::thread &th : pool)
    th.join();
  memory.free(d.kernargAddress);
  memory.free(d.dispatchPacket);

  LaunchResult result;
  for (ExecContext &ctx : contexts) {
    if (!ctx.error.empty())
      return createStringError(inconvertibleErrorCode(), ctx.error);
    for (Finding &f : ctx.findings)
      if (result.findings.size() < config.maxFindings)
        result.findings.push_back(std::move(f));
    result.totalFindings += ctx.totalFindings;
    result.stats.merge(ctx.stats_);
    const Program &prog = object.program();
    for (size_t i = 0; i < ctx.perInstCount.size(); ++i) {
      if (!ctx.perInstCount[i])
        continue;
      result.stats.instructionMix[(*prog.opcodeNames)[prog.insts[i].opcode]] +=
          ctx.perInstCount[i];
    }
  }
  std::sort(result.stats.workgroups.begin(), result.stats.workgroups.end(),
            [](const WorkgroupStats &a, const WorkgroupStats &b) {
              return a.id < b.id;
            });
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

std::vector<uint64_t>
mxgemm::emu::sampleWorkgroups(uint64_t numWorkgroups, uint64_t count,
                              const std::function<bool(uint64_t)> &isEdge) {
  std::set<uint64_t> ids;
  if (numWorkgroups == 0)
    return {};
  ids.insert(0);
  ids.insert(numWorkgroups - 1);
  if (isEdge)
    for (uint64_t i = 0; i < numWorkgroups; ++i)
      if (isEdge(i))
        ids.insert(i);
  for (uint64_t i = 0; count > 1 && i < count; ++i)
    ids.insert(i * (numWorkgroups - 1) / (count - 1));
  return std::vector<uint64_t>(ids.begin(), ids.end());
}
