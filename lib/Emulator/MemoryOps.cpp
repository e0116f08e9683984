//===- MemoryOps.cpp - SMEM, global, buffer and LDS handlers
//---------------===//
//
// Memory instructions. Results are written at issue; the checkers (see
// Executor.cpp) keep the destinations "pending" until an s_waitcnt covers the
// operation, which is how an unwaited read is caught without delaying data.
// Global addresses go through DeviceMemory, so every lane's access is bounds
// checked; buffer instructions apply the gfx9 descriptor range check first
// (out-of-range loads read 0 and stores are dropped, silently, because that
// is the masking idiom compilers rely on). LDS accesses feed the race checker
// and the ds_*_b128 bank-conflict statistics.
//
//===----------------------------------------------------------------------===//

#include "EmulatorImpl.h"

#include "llvm/ADT/bit.h"

#include <cstring>

using namespace mxgemm::emu;

namespace {

enum : uint32_t {
  PSigned = 1 << 8,
  PSaddr = 1 << 9,
  PModeShift = 10, // buffer: 0 offset, 1 offen, 2 idxen, 3 bothen
  PLds = 1 << 12,
  PStore = 1 << 13,
  PHi16 = 1 << 14,
  PTwo = 1 << 15,  // ds_read2/ds_write2
  PSt64 = 1 << 16, // ds_*2st64
};

template <typename F> inline void forLanes(const Wave &w, F f) {
  uint64_t e = w.exec();
  while (e) {
    unsigned l = llvm::countr_zero(e);
    e &= e - 1;
    f(l);
  }
}

/// Write `bytes` loaded bytes into dwords of the destination for one lane.
inline void writeLoaded(Wave &w, unsigned reg, unsigned lane,
                        const uint8_t *src, unsigned bytes, uint32_t param) {
  if (bytes >= 4) {
    for (unsigned i = 0; i < bytes / 4; ++i)
      std::memcpy(&w.v[reg + i][lane], src + 4 * i, 4);
    return;
  }
  uint32_t x = 0;
  std::memcpy(&x, src, bytes);
  if (param & PSigned)
    x = bytes == 1 ? uint32_t(int32_t(int8_t(x)))
                   : uint32_t(int32_t(int16_t(x)));
  w.v[reg][lane] = x;
}

/// Gather the bytes one lane stores.
inline void readStored(const Wave &w, unsigned reg, unsigned lane, uint8_t *dst,
                       unsigned bytes, uint32_t param) {
  if (bytes >= 4) {
    for (unsigned i = 0; i < bytes / 4; ++i)
      std::memcpy(dst + 4 * i, &w.v[reg + i][lane], 4);
    return;
  }
  uint32_t x = w.v[reg][lane];
  if (param & PHi16)
    x >>= 16;
  std::memcpy(dst, &x, bytes);
}

/// Whether the LDS write recorded in `sh` is complete as far as wave `w` may
/// rely on: the writer's own later accesses see it once the writer has
/// waited for it; another wave only once the writer waited for it *before*
/// arriving at a barrier that has since been released (the writer's counts
/// at that barrier), since the barrier is what orders the two waves.
inline const char *ldsWritePending(const ExecContext &ctx, const Wave &w,
                                   const LdsShadow &sh) {
  if (sh.writer >= ctx.waves.size())
    return nullptr;
  const Wave &writer = *ctx.waves[sh.writer];
  bool self = sh.writer == w.id;
  // Another wave's access in the writer's epoch is an lds-race already.
  if (!self && sh.writeEpoch == ctx.epoch)
    return nullptr;
  if (sh.pendingVmSeq &&
      (self ? writer.vmRetired : writer.vmRetiredAtBarrier) < sh.pendingVmSeq)
    return "global->LDS load";
  // A wave's own DS operations execute in order.
  if (!self && sh.pendingLgkmSeq &&
      writer.lgkmRetiredAtBarrier < sh.pendingLgkmSeq)
    return "ds_write";
  return nullptr;
}

/// LDS shadow update for the race / pending-load checker. `vmSeq` is the
/// vmcnt sequence number of a global->LDS write, `lgkmSeq` the lgkmcnt one
/// of a ds_write (0 = not pending).
bool ldsCheck(ExecContext &ctx, Wave &w, const Inst &I, unsigned lane,
              uint32_t address, unsigned bytes, bool write, uint32_t vmSeq,
              uint32_t lgkmSeq, bool reported) {
  uint32_t first = address / 4, last = (address + bytes - 1) / 4;
  for (uint32_t dw = first; dw <= last; ++dw) {
    LdsShadow &sh = ctx.ldsShadow[dw];
    const char *pending = reported ? nullptr : ldsWritePending(ctx, w, sh);
    if (!write) {
      if (pending) {
        bool self = sh.writer == w.id;
        ctx.report(
            Finding::UnwaitedRead, w, I, lane, dw * 4,
            std::string("LDS read of data whose ") + pending + " (wave " +
                std::to_string(sh.writer) + ") has not been waited for" +
                (self ? " with s_waitcnt "
                      : " before an s_barrier ahead of this read "
                        "(s_waitcnt ") +
                (pending[0] == 'g' ? "vmcnt" : "lgkmcnt") + (self ? "" : ")"));
        reported = true;
      }
      if (sh.writer != 0xff && sh.writer != w.id &&
          sh.writeEpoch == ctx.epoch && !reported) {
        ctx.report(Finding::LdsRace, w, I, lane, dw * 4,
                   "read after write by wave " + std::to_string(sh.writer) +
                       " with no s_barrier in between");
        reported = true;
      }
      if (sh.readEpoch != ctx.epoch) {
        sh.readEpoch = ctx.epoch;
        sh.readMask = 0;
      }
      sh.readMask |= uint16_t(1u << (w.id & 15));
    } else {
      if (pending && sh.writer != w.id) {
        ctx.report(Finding::LdsRace, w, I, lane, dw * 4,
                   std::string("write to LDS that a ") + pending + " of wave " +
                       std::to_string(sh.writer) +
                       " may still be writing (not waited for before the "
                       "s_barrier ahead of this write)");
        reported = true;
      }
      if (!reported && sh.writer != 0xff && sh.writer != w.id &&
          sh.writeEpoch == ctx.epoch) {
        ctx.report(Finding::LdsRace, w, I, lane, dw * 4,
                   "write after write by wave " + std::to_string(sh.writer) +
                       " with no s_barrier in between");
        reported = true;
      }
      if (!reported && sh.readEpoch == ctx.epoch &&
          (sh.readMask & ~uint16_t(1u << (w.id & 15)))) {
        ctx.report(Finding::LdsRace, w, I, lane, dw * 4,
                   "write after a read by another wave with no s_barrier in "
                   "between");
        reported = true;
      }
      sh.writer = uint8_t(w.id);
      sh.writeEpoch = ctx.epoch;
      sh.pendingVmSeq = vmSeq;
      sh.pendingLgkmSeq = lgkmSeq;
    }
  }
  return reported;
}

uint64_t globalAddress(const Wave &w, const Inst &I, unsigned lane,
                       unsigned vaddrIdx, int saddrIdx) {
  // The disassembler yields the 13-bit signed FLAT offset unsigned.
  int64_t off = int64_t(uint64_t(I.imms[0]) << 51) >> 51;
  if (saddrIdx >= 0)
    return sread64(w, I.vals[saddrIdx]) + w.v[I.vals[vaddrIdx].reg][lane] +
           uint64_t(off);
  const Operand &va = I.vals[vaddrIdx];
  return (uint64_t(w.v[va.reg][lane]) |
          (uint64_t(w.v[va.reg + 1][lane]) << 32)) +
         uint64_t(off);
}

// global_load_*: vals = vdst, [saddr,] vaddr.
Status globalLoad(ExecContext &ctx, Wave &w, const Inst &I) {
  unsigned bytes = I.param & 0xff;
  bool saddr = I.param & PSaddr;
  unsigned dst = I.vals[0].reg;
  bool reported = false;
  uint64_t observed[WaveSize];
  forLanes(w, [&](unsigned l) {
    uint64_t a = globalAddress(w, I, l, saddr ? 2 : 1, saddr ? 1 : -1);
    observed[l] = a;
    const uint8_t *p = ctx.translate(a, bytes);
    static const uint8_t zeros[16] = {};
    if (!p) {
      if (!reported)
        ctx.report(Finding::OutOfBounds, w, I, l, a,
                   "global load of " + std::to_string(bytes) +
                       " bytes outside every allocation");
      reported = true;
      p = zeros;
    }
    writeLoaded(w, dst, l, p, bytes, I.param);
  });
  if (ctx.observer)
    ctx.observer->globalAccess(ctx, w, I, AccessKind::Load, observed, w.exec(),
                               bytes);
  ++w.vmIssued;
  if (ctx.stats)
    ctx.wg.globalBytesRead += uint64_t(bytes) * llvm::popcount(w.exec());
  return Status::Continue;
}

// global_store_*: vals = vaddr, vdata[, saddr].
Status globalStore(ExecContext &ctx, Wave &w, const Inst &I) {
  unsigned bytes = I.param & 0xff;
  bool saddr = I.param & PSaddr;
  unsigned src = I.vals[1].reg;
  bool reported = false;
  uint64_t observed[WaveSize];
  forLanes(w, [&](unsigned l) {
    uint64_t a = globalAddress(w, I, l, 0, saddr ? 2 : -1);
    observed[l] = a;
    uint8_t *p = ctx.translate(a, bytes);
    if (!p) {
      if (!reported)
        ctx.report(Finding::OutOfBounds, w, I, l, a,
                   "global store of " + std::to_string(bytes) +
                       " bytes outside every allocation");
      reported = true;
      return;
    }
    readStored(w, src, l, p, bytes, I.param);
  });
  if (ctx.observer)
    ctx.observer->globalAccess(ctx, w, I, AccessKind::Store, observed, w.exec(),
                               bytes);
  ++w.vmIssued;
  if (ctx.stats)
    ctx.wg.globalBytesWritten += uint64_t(bytes) * llvm::popcount(w.exec());
  return Status::Continue;
}

/// Copy one lane's global bytes into LDS at M0 + inst_offset + lane * bytes.
void toLds(ExecContext &ctx, Wave &w, const Inst &I, unsigned l,
           const uint8_t *p, unsigned bytes, int64_t instOffset,
           bool &reported) {
  uint32_t la = w.s[SlotM0] + uint32_t(instOffset) + l * bytes;
  if (uint64_t(la) + bytes > ctx.lds.size()) {
    if (!reported)
      ctx.report(Finding::OutOfBounds, w, I, l, la,
                 "global->LDS load writes outside the workgroup's LDS");
    reported = true;
    return;
  }
  std::memcpy(ctx.lds.data() + la, p, bytes);
  if (ctx.checks)
    reported = ldsCheck(ctx, w, I, l, la, bytes, true, w.vmIssued, 0, reported);
}

// global_load_lds_*: vals = [saddr,] vaddr (SADDR: saddr first).
Status globalLoadLds(ExecContext &ctx, Wave &w, const Inst &I) {
  unsigned bytes = I.param & 0xff;
  bool saddr = I.param & PSaddr;
  bool reported = false;
  ++w.vmIssued; // the LDS bytes become valid when this op is waited for
  // Only vmcnt counts it, as on the hardware (LLVM PR 179305, merged after
  // the LLVM 22 branch): LLVM 22's SIInsertWaitcnts also counts it in
  // lgkmcnt and may emit e.g. ds_read, global_load_lds, lgkmcnt(1), use,
  // which the hardware does not wait for. Counting it here too would hide
  // that; not counting it makes the register checker report the use.
  uint64_t observed[WaveSize];
  forLanes(w, [&](unsigned l) {
    uint64_t a = globalAddress(w, I, l, saddr ? 1 : 0, saddr ? 0 : -1);
    observed[l] = a;
    const uint8_t *p = ctx.translate(a, bytes);
    static const uint8_t zeros[16] = {};
    if (!p) {
      if (!reported)
        ctx.report(Finding::OutOfBounds, w, I, l, a,
                   "global->LDS load outside every allocation");
      reported = true;
      p = zeros;
    }
    toLds(ctx, w, I, l, p, bytes, int64_t(uint64_t(I.imms[0]) << 51) >> 51,
          reported);
  });
  if (ctx.observer)
    ctx.observer->globalAccess(ctx, w, I, AccessKind::LoadToLds, observed,
                               w.exec(), bytes);
  if (ctx.stats) {
    uint64_t n = uint64_t(bytes) * llvm::popcount(w.exec());
    ctx.wg.globalBytesRead += n;
    ctx.wg.globalToLdsBytes += n;
  }
  return Status::Continue;
}

// buffer_*: vals = [vdata,] [vaddr,] srsrc, soffset; imms = offset, ...
Status bufferOp(ExecContext &ctx, Wave &w, const Inst &I) {
  unsigned bytes = I.param & 0xff;
  unsigned mode = (I.param >> PModeShift) & 3;
  bool lds = I.param & PLds, store = I.param & PStore;
  unsigned k = 0;
  const Operand *vdata = lds ? nullptr : &I.vals[k++];
  const Operand *vaddr = mode ? &I.vals[k++] : nullptr;
  const Operand &rsrc = I.vals[k++];
  uint32_t soffset = sread(w, I.vals[k]);
  uint64_t base = uint64_t(sread(w, rsrc, 0)) |
                  (uint64_t(sread(w, rsrc, 1) & 0xffff) << 32);
  uint32_t stride = (sread(w, rsrc, 1) >> 16) & 0x3fff;
  uint32_t numRecords = sread(w, rsrc, 2);
  int64_t instOffset = I.imms[0];
  bool reported = false;
  if (!store)
    ++w.vmIssued;
  uint64_t moved = 0;
  uint64_t observed[WaveSize], observedMask = 0;
  forLanes(w, [&](unsigned l) {
    uint32_t index = 0, voff = 0;
    if (mode == 1)
      voff = w.v[vaddr->reg][l];
    else if (mode == 2)
      index = w.v[vaddr->reg][l];
    else if (mode == 3) {
      index = w.v[vaddr->reg][l];
      voff = w.v[vaddr->reg + 1][l];
    }
    uint64_t offset = uint64_t(voff) + uint64_t(instOffset);
    uint8_t buf[16] = {};
    unsigned chunks = bytes >= 4 ? bytes / 4 : 1;
    unsigned chunk = bytes >= 4 ? 4 : bytes;
    if (store)
      readStored(w, vdata->reg, l, buf, bytes, I.param);
    for (unsigned c = 0; c < chunks; ++c) {
      uint64_t o = offset + c * chunk;
      // gfx9 range check (soffset is not part of it).
      bool inRange = stride == 0 ? o + chunk <= numRecords
                                 : index < numRecords && o + chunk <= stride;
      if (!inRange)
        continue; // loads read 0, stores are dropped
      uint64_t a = base + soffset + uint64_t(stride) * index + o;
      if (!((observedMask >> l) & 1)) {
        observed[l] = a;
        observedMask |= uint64_t(1) << l;
      }
      uint8_t *p = ctx.translate(a, chunk);
      if (!p) {
        if (!reported)
          ctx.report(Finding::OutOfBounds, w, I, l, a,
                     "buffer access inside num_records but outside every "
                     "allocation");
        reported = true;
        continue;
      }
      moved += chunk;
      if (store)
        std::memcpy(p, buf + c * chunk, chunk);
      else
        std::memcpy(buf + c * chunk, p, chunk);
    }
    if (store)
      return;
    if (lds)
      toLds(ctx, w, I, l, buf, bytes, instOffset, reported);
    else
      writeLoaded(w, vdata->reg, l, buf, bytes, I.param);
  });
  if (store)
    ++w.vmIssued;
  if (ctx.observer)
    ctx.observer->globalAccess(ctx, w, I,
                               store ? AccessKind::Store
                               : lds ? AccessKind::LoadToLds
                                     : AccessKind::Load,
                               observed, observedMask, bytes);
  if (ctx.stats) {
    (store ? ctx.wg.globalBytesWritten : ctx.wg.globalBytesRead) += moved;
    if (lds)
      ctx.wg.globalToLdsBytes += moved;
  }
  return Status::Continue;
}

/// Extra cycles of a 128-bit LDS access: 4 phases of 16 lanes; in a phase,
/// lanes hitting one of the 64 banks with different dwords serialise.
uint64_t bankConflicts(const Wave &w, const uint32_t *addr) {
  uint64_t extra = 0;
  uint64_t e = w.exec();
  for (unsigned phase = 0; phase < 4; ++phase) {
    uint32_t seen[64][16];
    uint8_t count[64] = {};
    unsigned worst = 1;
    for (unsigned l = phase * 16; l < phase * 16 + 16; ++l) {
      if (!((e >> l) & 1))
        continue;
      for (unsigned d = 0; d < 4; ++d) {
        uint32_t dw = addr[l] / 4 + d;
        unsigned bank = dw % 64;
        bool dup = false;
        for (unsigned i = 0; i < count[bank]; ++i)
          dup |= seen[bank][i] == dw;
        if (!dup && count[bank] < 16) {
          seen[bank][count[bank]++] = dw;
          worst = std::max<unsigned>(worst, count[bank]);
        }
      }
    }
    extra += worst - 1;
  }
  return extra;
}

// ds_read*: vals = vdst, addr; ds_write*: vals = addr, data[, data1].
Status dsOp(ExecContext &ctx, Wave &w, const Inst &I) {
  unsigned bytes = I.param & 0xff;
  bool store = I.param & PStore, two = I.param & PTwo;
  unsigned addrIdx = store ? 0 : 1;
  unsigned reg = I.vals[store ? 1 : 0].reg;
  unsigned reg1 = store && two ? I.vals[2].reg : reg + bytes / 4;
  uint32_t offsets[2];
  unsigned n = 1;
  if (two) {
    unsigned unit = bytes * ((I.param & PSt64) ? 64 : 1);
    offsets[0] = uint32_t(I.imms[0] & 0xff) * unit;
    offsets[1] = uint32_t(I.imms[1] & 0xff) * unit;
    n = 2;
  } else {
    offsets[0] = uint32_t(I.imms[0] & 0xffff);
  }
  bool reported = false;
  uint32_t addrs[WaveSize];
  // ds_read and ds_write both count in lgkmcnt (in order with each other).
  ++w.lgkmIssued;
  const uint32_t *va = w.v[I.vals[addrIdx].reg];
  forLanes(w, [&](unsigned l) {
    addrs[l] = va[l] + offsets[0];
    for (unsigned j = 0; j < n; ++j) {
      uint32_t a = va[l] + offsets[j];
      unsigned r = j ? reg1 : reg;
      if (uint64_t(a) + bytes > ctx.lds.size()) {
        if (!reported)
          ctx.report(Finding::OutOfBounds, w, I, l, a,
                     "LDS access outside the workgroup's allocation of " +
                         std::to_string(ctx.lds.size()) + " bytes");
        reported = true;
        if (!store)
          for (unsigned d = 0; d < (bytes + 3) / 4; ++d)
            w.v[r + d][l] = 0;
        continue;
      }
      uint8_t *p = ctx.lds.data() + a;
      if (ctx.checks)
        reported = ldsCheck(ctx, w, I, l, a, bytes, store, 0,
                            store ? w.lgkmIssued : 0, reported);
      if (store)
        readStored(w, r, l, p, bytes, I.param);
      else
        writeLoaded(w, r, l, p, bytes, I.param);
    }
  });
  if (ctx.observer) {
    ctx.observer->ldsAccess(ctx, w, I, store, addrs, w.exec(), bytes);
    if (two) {
      uint32_t second[WaveSize];
      // From the addresses read before the data was written (a read2 may
      // load into its own address register).
      forLanes(w, [&](unsigned l) {
        second[l] = addrs[l] - offsets[0] + offsets[1];
      });
      ctx.observer->ldsAccess(ctx, w, I, store, second, w.exec(), bytes);
    }
  }
  if (ctx.stats) {
    uint64_t moved = uint64_t(bytes) * n * llvm::popcount(w.exec());
    (store ? ctx.wg.ldsBytesWritten : ctx.wg.ldsBytesRead) += moved;
    if (bytes == 16 && !two) {
      uint64_t extra = bankConflicts(w, addrs);
      ctx.wg.ldsBankConflictCycles += extra;
      if (store) {
        ++ctx.wg.dsWriteB128;
        ctx.wg.ldsWriteB128ConflictCycles += extra;
      } else {
        ++ctx.wg.dsReadB128;
        ctx.wg.ldsReadB128ConflictCycles += extra;
      }
    }
  }
  return Status::Continue;
}

// s_load_* / s_buffer_load_*: vals = sdst, sbase[, soffset]; imms = offset.
Status smemLoad(ExecContext &ctx, Wave &w, const Inst &I) {
  unsigned dwords = I.param & 0xff;
  bool isBuffer = I.param & PLds; // reused bit: s_buffer_load
  const Operand &dst = I.vals[0];
  uint64_t offset = uint64_t(I.imms[0]);
  if (I.numVals > 2)
    offset += sread(w, I.vals[2]);
  uint64_t base;
  uint32_t limit = ~0u;
  if (isBuffer) {
    base = uint64_t(sread(w, I.vals[1], 0)) |
           (uint64_t(sread(w, I.vals[1], 1) & 0xffff) << 32);
    limit = sread(w, I.vals[1], 2);
  } else {
    base = sread64(w, I.vals[1]);
  }
  uint64_t a = (base + offset) & ~3ull; // SMEM ignores the low two bits
  for (unsigned i = 0; i < dwords; ++i) {
    uint32_t x = 0;
    if (!isBuffer || offset + 4 * i + 4 <= limit) {
      const uint8_t *p = ctx.translate(a + 4 * i, 4);
      if (p)
        std::memcpy(&x, p, 4);
      else {
        ctx.report(Finding::OutOfBounds, w, I, -1, a + 4 * i,
                   "scalar load outside every allocation");
        break;
      }
    }
    w.s[(dst.reg + i) & (SgprFileSize - 1)] = x;
  }
  ++w.lgkmIssued;
  return Status::Continue;
}

} // namespace

void mxgemm::emu::registerMemoryHandlers(void (*add)(llvm::StringRef, Handler,
                                                     uint32_t, uint16_t)) {
  struct {
    const char *suffix;
    uint32_t param;
  } loads[] = {{"UBYTE", 1},    {"SBYTE", 1 | PSigned},
               {"USHORT", 2},   {"SSHORT", 2 | PSigned},
               {"DWORD", 4},    {"DWORDX2", 8},
               {"DWORDX3", 12}, {"DWORDX4", 16}};
  for (auto &l : loads) {
    std::string s = l.suffix;
    add("GLOBAL_LOAD_" + s, globalLoad, l.param, FlagVmLoad);
    add("GLOBAL_LOAD_" + s + "_SADDR", globalLoad, l.param | PSaddr,
        FlagVmLoad);
    add("GLOBAL_LOAD_LDS_" + s, globalLoadLds, l.param, 0);
    add("GLOBAL_LOAD_LDS_" + s + "_SADDR", globalLoadLds, l.param | PSaddr, 0);
    const char *modes[] = {"_OFFSET", "_OFFEN", "_IDXEN", "_BOTHEN"};
    for (uint32_t m = 0; m < 4; ++m) {
      add("BUFFER_LOAD_" + s + modes[m], bufferOp, l.param | (m << PModeShift),
          FlagVmLoad);
      add("BUFFER_LOAD_" + s + "_LDS" + modes[m], bufferOp,
          l.param | (m << PModeShift) | PLds, 0);
    }
  }
  struct {
    const char *suffix;
    uint32_t param;
  } stores[] = {{"BYTE", 1},     {"BYTE_D16_HI", 1 | PHi16},
                {"SHORT", 2},    {"SHORT_D16_HI", 2 | PHi16},
                {"DWORD", 4},    {"DWORDX2", 8},
                {"DWORDX3", 12}, {"DWORDX4", 16}};
  for (auto &s : stores) {
    std::string n = s.suffix;
    add("GLOBAL_STORE_" + n, globalStore, s.param, FlagStore);
    add("GLOBAL_STORE_" + n + "_SADDR", globalStore, s.param | PSaddr,
        FlagStore);
    const char *modes[] = {"_OFFSET", "_OFFEN", "_IDXEN", "_BOTHEN"};
    for (uint32_t m = 0; m < 4; ++m)
      add("BUFFER_STORE_" + n + modes[m], bufferOp,
          s.param | (m << PModeShift) | PStore, FlagStore);
  }
  struct {
    const char *name;
    uint32_t param;
  } ds[] = {{"DS_READ_U8", 1},
            {"DS_READ_I8", 1 | PSigned},
            {"DS_READ_U16", 2},
            {"DS_READ_I16", 2 | PSigned},
            {"DS_READ_B32", 4},
            {"DS_READ_B64", 8},
            {"DS_READ_B96", 12},
            {"DS_READ_B128", 16},
            {"DS_READ2_B32", 4 | PTwo},
            {"DS_READ2_B64", 8 | PTwo},
            {"DS_READ2ST64_B32", 4 | PTwo | PSt64},
            {"DS_READ2ST64_B64", 8 | PTwo | PSt64}};
  for (auto &d : ds)
    add(d.name, dsOp, d.param, FlagLgkmLoad);
  struct {
    const char *name;
    uint32_t param;
  } dsw[] = {{"DS_WRITE_B8", 1},
             {"DS_WRITE_B8_D16_HI", 1 | PHi16},
             {"DS_WRITE_B16", 2},
             {"DS_WRITE_B16_D16_HI", 2 | PHi16},
             {"DS_WRITE_B32", 4},
             {"DS_WRITE_B64", 8},
             {"DS_WRITE_B96", 12},
             {"DS_WRITE_B128", 16},
             {"DS_WRITE2_B32", 4 | PTwo},
             {"DS_WRITE2_B64", 8 | PTwo},
             {"DS_WRITE2ST64_B32", 4 | PTwo | PSt64},
             {"DS_WRITE2ST64_B64", 8 | PTwo | PSt64}};
  for (auto &d : dsw)
    add(d.name, dsOp, d.param | PStore, 0);
  struct {
    const char *suffix;
    uint32_t dwords;
  } smem[] = {{"DWORD", 1},
              {"DWORDX2", 2},
              {"DWORDX4", 4},
              {"DWORDX8", 8},
              {"DWORDX16", 16}};
  for (auto &s : smem) {
    std::string n = s.suffix;
    for (const char *form : {"_IMM", "_SGPR", "_SGPR_IMM"}) {
      add("S_LOAD_" + n + form, smemLoad, s.dwords, FlagSmemLoad);
      add("S_BUFFER_LOAD_" + n + form, smemLoad, s.dwords | PLds, FlagSmemLoad);
    }
  }
}
