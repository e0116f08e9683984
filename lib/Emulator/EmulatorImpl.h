//===- EmulatorImpl.h - internal state of the gfx950 emulator ---*- C++ -*-===//
//
// Shared by the decoder, the executor and the instruction handlers: the
// decoded instruction form (a handler pointer plus operands resolved once at
// load into register-file indices and immediates), the per-wave register
// state with the checkers' shadow state, and the per-thread execution
// context. Kept out of include/ because handlers are the only clients.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_EMULATOR_EMULATORIMPL_H
#define MXGEMM_LIB_EMULATOR_EMULATORIMPL_H

#include "mxgemm/Emulator/Emulator.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mxgemm::emu {

/// SGPR-file slots of the special registers, so that every scalar operand is
/// an index into one array.
enum : unsigned {
  NumSgprs = 108, // s0..s105 plus VCC
  SlotVccLo = 106,
  SlotVccHi = 107,
  SlotM0 = 124,
  SlotExecLo = 126,
  SlotExecHi = 127,
  SgprFileSize = 128,
  AgprBase = 256, // a0 is VGPR-file slot 256
  VgprFileSize = 512,
  WaveSize = 64,
};

enum class OpKind : uint8_t { None, Vgpr, Sgpr, Imm, Scc };

/// One resolved value operand.
struct Operand {
  OpKind kind = OpKind::None;
  uint8_t width = 1; // in dwords
  uint8_t mods =
      0; // VOP3 source modifiers (neg=1, abs=2, op_sel=4, op_sel_hi=8)
  uint16_t reg = 0;         // VGPR slot (AGPR = 256 + n) or SGPR slot
  uint32_t imm[2] = {0, 0}; // literal / inline constant (low, high dword)
};

struct Wave;
struct ExecContext;
struct Inst;

enum class Status : uint8_t { Continue, Yield, Barrier, End, Error };
using Handler = Status (*)(ExecContext &, Wave &, const Inst &);

enum InstFlags : uint16_t {
  FlagVmLoad = 1 << 0,   // writes its defs at a later vmcnt wait
  FlagLgkmLoad = 1 << 1, // DS read: defs land at an lgkmcnt wait
  FlagSmemLoad = 1 << 2, // SMEM: defs land at lgkmcnt(0) (out of order)
  FlagStore = 1 << 3,    // its VGPR uses must be initialised
  FlagMfma = 1 << 4,
  FlagBranch = 1 << 5,
  FlagEnd = 1 << 6,    // s_endpgm / s_code_end: ends reachability
  FlagUncond = 1 << 7, // unconditional branch
  // 64-bit integer op whose low result dword depends only on the low dwords
  // of its sources (carries flow upwards): the uninitialised-data taint of
  // the low dword ignores the sources' high dwords.
  FlagLowToHigh = 1 << 8,
};

/// A contiguous register range an instruction reads or writes (checkers).
struct RegRange {
  bool vgpr;
  uint16_t first;
  uint8_t count;
};

struct Inst {
  Handler fn = nullptr;
  uint32_t opcode = 0;
  uint32_t offset = 0; // byte offset in .text
  uint32_t target = 0; // branch target instruction index
  uint16_t flags = 0;
  uint8_t size = 0;
  uint8_t cls = ClassValu; // InstClass (statistics)
  uint8_t numVals = 0, numImms = 0;
  uint32_t param = 0; // handler parameter (width, sub-operation, ...)
  Operand vals[8];
  int64_t imms[6] = {0, 0, 0, 0, 0, 0};
  llvm::SmallVector<RegRange, 4> uses, defs;
};

/// The decoded `.text` of a code object.
class Program {
public:
  std::vector<Inst> insts;
  /// Instruction index of each byte offset that starts an instruction (-1
  /// elsewhere), for branch targets and kernel entries.
  std::vector<int32_t> indexOfOffset;
  /// MC opcode names (shared by all programs).
  const std::vector<std::string> *opcodeNames = nullptr;
  /// Per instruction: name of an opcode without handler ("" = handled).
  std::vector<std::string> unhandled;
  std::string disassembly(uint32_t index) const;
  std::vector<std::string> text; // printed instruction per index
};

/// The vmcnt field of an s_waitcnt immediate (gfx9: bits 3:0 and 15:14).
inline uint32_t waitcntVmcnt(uint32_t imm) {
  return (imm & 0xf) | ((imm >> 14) & 3) << 4;
}

/// Decode `.text`; `textAddress` is its virtual address (branch targets).
llvm::Error decodeProgram(llvm::ArrayRef<uint8_t> text, uint64_t textAddress,
                          Program &program);
/// Error naming the first unmodelled instruction reachable from `entry`.
llvm::Error checkReachable(const Program &program, uint32_t entry,
                           llvm::StringRef kernel);

/// Shadow state of one LDS dword for the race and pending-load checkers.
struct LdsShadow {
  uint32_t writeEpoch = 0;
  uint32_t readEpoch = 0;
  uint32_t pendingVmSeq = 0;   // global->LDS load of `writer` not yet waited
  uint32_t pendingLgkmSeq = 0; // ds_write of `writer` not yet waited
  uint16_t readMask = 0;       // waves that read it in readEpoch
  uint8_t writer = 0xff;
};

struct alignas(64) Wave {
  uint32_t v[VgprFileSize][WaveSize];
  uint32_t s[SgprFileSize];
  bool scc = false;
  bool done = false, atBarrier = false;
  uint32_t pc = 0;
  unsigned id = 0;
  // Counters of issued and retired (waited-for) memory operations.
  uint32_t vmIssued = 0, vmRetired = 0;
  uint32_t lgkmIssued = 0, lgkmRetired = 0, smemRetired = 0;
  // The retired counts when the wave last arrived at a barrier that has been
  // released: what other waves may rely on (a wait after the barrier does
  // not order this wave's memory operations before their accesses).
  uint32_t vmRetiredAtBarrier = 0, lgkmRetiredAtBarrier = 0;
  ClassCounts classCount;
  // Statistics only: classCount when each vector-memory operation issued
  // (index = its sequence number), and the waits measured against them.
  std::vector<ClassCounts> vmIssueCounts;
  std::vector<WorkgroupStats::VmWait> vmWaits;
  // Per register: sequence number of the load that will write it.
  uint32_t vPendVm[VgprFileSize];
  uint32_t vPendLgkm[VgprFileSize];
  uint32_t sPend[SgprFileSize];
  uint8_t vDefined[VgprFileSize];

  uint64_t exec() const {
    return uint64_t(s[SlotExecLo]) | (uint64_t(s[SlotExecHi]) << 32);
  }
  void setExec(uint64_t e) {
    s[SlotExecLo] = uint32_t(e);
    s[SlotExecHi] = uint32_t(e >> 32);
  }
  uint64_t sgpr64(unsigned i) const {
    return uint64_t(s[i]) | (uint64_t(s[i + 1]) << 32);
  }
  void setSgpr64(unsigned i, uint64_t x) {
    s[i] = uint32_t(x);
    s[i + 1] = uint32_t(x >> 32);
  }
};

/// Kind of a global memory access reported to an ExecObserver.
enum class AccessKind : uint8_t { Load, Store, LoadToLds };

/// Hooks for a timing model (lib/Simulator): called by the executor after
/// each instruction and by the memory handlers for each access, with the
/// per-lane addresses the handler computed. Inactive lanes (and buffer lanes
/// outside num_records) are not in `laneMask`.
class ExecObserver {
public:
  virtual ~ExecObserver() = default;
  /// `index` ran; the counts are the wave's issued vmcnt/lgkmcnt operations
  /// before it.
  virtual void instructionExecuted(const ExecContext &ctx, const Wave &w,
                                   uint32_t index, uint32_t vmIssuedBefore,
                                   uint32_t lgkmIssuedBefore) = 0;
  virtual void globalAccess(const ExecContext &ctx, const Wave &w,
                            const Inst &inst, AccessKind kind,
                            const uint64_t *laneAddress, uint64_t laneMask,
                            unsigned bytesPerLane) = 0;
  /// One address set of a ds_* instruction (read2/write2 report two).
  virtual void ldsAccess(const ExecContext &ctx, const Wave &w,
                         const Inst &inst, bool store,
                         const uint32_t *laneAddress, uint64_t laneMask,
                         unsigned bytesPerLane) = 0;
};

/// Per-thread state of a launch.
struct ExecContext {
  const Program *program = nullptr;
  const KernelInfo *kernel = nullptr;
  DeviceMemory *memory = nullptr;
  const LaunchConfig *config = nullptr;
  bool checks = true;
  bool stats = true;
  bool skipMfma = false;            // LaunchConfig::skipMfmaArithmetic
  ExecObserver *observer = nullptr; // LaunchConfig::observer
  uint32_t workgroupId[3] = {0, 0, 0};
  // LDS of the current workgroup.
  std::vector<uint8_t> lds;
  std::vector<LdsShadow> ldsShadow;
  uint32_t epoch = 1; // barrier epoch of the workgroup
  std::vector<Wave *> waves;
  // Last translated allocation (a one-entry cache in front of the map).
  uint64_t cacheBase = 0, cacheSize = 0;
  uint8_t *cacheHost = nullptr;
  // Results.
  std::vector<Finding> findings;
  uint64_t totalFindings = 0;
  LaunchStats stats_;
  WorkgroupStats wg; // counters of the running workgroup
  std::vector<uint64_t> perInstCount;
  std::string error; // set with Status::Error

  uint8_t *translate(uint64_t address, size_t bytes) {
    if (address - cacheBase < cacheSize &&
        bytes <= cacheSize - (address - cacheBase))
      return cacheHost + (address - cacheBase);
    uint64_t base, size;
    uint8_t *host;
    if (!memory->lookup(address, base, size, host))
      return nullptr;
    cacheBase = base;
    cacheSize = size;
    cacheHost = host;
    if (bytes > size - (address - base))
      return nullptr;
    return host + (address - base);
  }
  void report(Finding::Kind kind, const Wave &w, const Inst &inst, int lane,
              uint64_t address, std::string detail);
  Status fail(const Inst &inst, const std::string &message);
};

//===----------------------------------------------------------------------===//
// Operand access helpers used by the handlers.
//===----------------------------------------------------------------------===//

/// A source operand seen per lane: VGPRs advance with the lane, SGPRs and
/// constants do not (stride 0), so handlers read `p[lane * stride]` without
/// branching on the operand kind.
struct Src {
  const uint32_t *lo, *hi;
  unsigned stride;
  Src(const Wave &w, const Operand &op) {
    switch (op.kind) {
    case OpKind::Vgpr:
      lo = w.v[op.reg];
      hi = w.v[(op.reg + 1) & (VgprFileSize - 1)];
      stride = 1;
      break;
    case OpKind::Sgpr:
      lo = &w.s[op.reg];
      hi = &w.s[(op.reg + 1) & (SgprFileSize - 1)];
      stride = 0;
      break;
    default:
      lo = &op.imm[0];
      hi = &op.imm[1];
      stride = 0;
      break;
    }
  }
  uint32_t operator[](unsigned lane) const { return lo[lane * stride]; }
  uint64_t u64(unsigned lane) const {
    return uint64_t(lo[lane * stride]) | (uint64_t(hi[lane * stride]) << 32);
  }
};

/// Scalar value of an SGPR/constant operand (dword `i` of it).
inline uint32_t sread(const Wave &w, const Operand &op, unsigned i = 0) {
  if (op.kind == OpKind::Sgpr)
    return w.s[(op.reg + i) & (SgprFileSize - 1)];
  if (op.kind == OpKind::Scc)
    return w.scc;
  if (op.kind == OpKind::Vgpr) // only v_readfirstlane-like uses
    return w.v[op.reg + i][0];
  return op.imm[i & 1];
}
inline uint64_t sread64(const Wave &w, const Operand &op) {
  return uint64_t(sread(w, op, 0)) | (uint64_t(sread(w, op, 1)) << 32);
}
inline void swrite(Wave &w, const Operand &op, uint32_t x, unsigned i = 0) {
  if (op.kind == OpKind::Sgpr)
    w.s[(op.reg + i) & (SgprFileSize - 1)] = x;
}
inline void swrite64(Wave &w, const Operand &op, uint64_t x) {
  swrite(w, op, uint32_t(x), 0);
  swrite(w, op, uint32_t(x >> 32), 1);
}

inline float asFloat(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline uint32_t asBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

/// Handler registration: the decoder looks up a normalised MC opcode name.
struct HandlerEntry {
  Handler fn;
  uint32_t param;
  uint16_t flags;
};
void registerSaluHandlers(void (*add)(llvm::StringRef, Handler, uint32_t,
                                      uint16_t));
void registerValuHandlers(void (*add)(llvm::StringRef, Handler, uint32_t,
                                      uint16_t));
void registerMemoryHandlers(void (*add)(llvm::StringRef, Handler, uint32_t,
                                        uint16_t));
void registerMfmaHandlers(void (*add)(llvm::StringRef, Handler, uint32_t,
                                      uint16_t));

} // namespace mxgemm::emu

#endif // MXGEMM_LIB_EMULATOR_EMULATORIMPL_H
