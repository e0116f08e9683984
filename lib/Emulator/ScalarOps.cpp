//===- ScalarOps.cpp - SALU, SOPP and control-flow handlers
//----------------===//
//
// Scalar ALU, compare, branch, wait and barrier instructions. One handler per
// encoding family, with the operation chosen by the decode-time parameter:
// SALU executes once per wave instruction, so a switch costs nothing next to
// the per-lane VALU and MFMA work.
//
//===----------------------------------------------------------------------===//

#include "EmulatorImpl.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mxgemm::emu;

namespace {

enum SOp : uint32_t {
  // SOP2 (32-bit)
  AddU32,
  SubU32,
  AddI32,
  SubI32,
  AddcU32,
  SubbU32,
  MinI32,
  MinU32,
  MaxI32,
  MaxU32,
  CselectB32,
  AndB32,
  OrB32,
  XorB32,
  Andn2B32,
  Orn2B32,
  NandB32,
  NorB32,
  XnorB32,
  LshlB32,
  LshrB32,
  AshrI32,
  BfmB32,
  MulI32,
  BfeU32,
  BfeI32,
  AbsdiffI32,
  Lshl1Add,
  Lshl2Add,
  Lshl3Add,
  Lshl4Add,
  MulHiU32,
  MulHiI32,
  PackLL,
  PackLH,
  PackHH,
  // SOP2 (64-bit)
  CselectB64,
  AndB64,
  OrB64,
  XorB64,
  Andn2B64,
  Orn2B64,
  NandB64,
  NorB64,
  XnorB64,
  LshlB64,
  LshrB64,
  AshrI64,
  BfeU64,
  BfeI64,
  // SOP1
  MovB32,
  MovB64,
  CmovB32,
  CmovB64,
  NotB32,
  NotB64,
  BrevB32,
  Bitset0B32,
  Bitset1B32,
  Bcnt1B32,
  Bcnt1B64,
  Ff1B32,
  FlbitB32,
  SextI8,
  SextI16,
  AbsI32,
  AndSaveexec,
  OrSaveexec,
  Andn2Saveexec,
  GetPc,
};

enum CmpOp : uint32_t { Eq, Lg, Gt, Ge, Lt, Le };

Status sop2(ExecContext &, Wave &w, const Inst &I) {
  const Operand &d = I.vals[0];
  uint32_t a = sread(w, I.vals[1]), b = sread(w, I.vals[2]);
  uint64_t a64 = sread64(w, I.vals[1]), b64 = sread64(w, I.vals[2]);
  uint32_t r = 0;
  uint64_t r64 = 0;
  bool is64 = false;
  bool &scc = w.scc;
  switch (SOp(I.param)) {
  case AddU32: {
    uint64_t s = uint64_t(a) + b;
    r = uint32_t(s);
    scc = s >> 32;
    break;
  }
  case SubU32:
    r = a - b;
    scc = b > a;
    break;
  case AddI32:
    r = a + b;
    scc = (~(a ^ b) & (a ^ r)) >> 31;
    break;
  case SubI32:
    r = a - b;
    scc = ((a ^ b) & (a ^ r)) >> 31;
    break;
  case AddcU32: {
    uint64_t s = uint64_t(a) + b + scc;
    r = uint32_t(s);
    scc = s >> 32;
    break;
  }
  case SubbU32: {
    uint64_t s = uint64_t(a) - b - scc;
    r = uint32_t(s);
    scc = (s >> 32) != 0;
    break;
  }
  case MinI32:
    scc = int32_t(a) < int32_t(b);
    r = scc ? a : b;
    break;
  case MinU32:
    scc = a < b;
    r = scc ? a : b;
    break;
  case MaxI32:
    scc = int32_t(a) > int32_t(b);
    r = scc ? a : b;
    break;
  case MaxU32:
    scc = a > b;
    r = scc ? a : b;
    break;
  case CselectB32:
    r = scc ? a : b;
    break;
  case AndB32:
    r = a & b;
    scc = r;
    break;
  case OrB32:
    r = a | b;
    scc = r;
    break;
  case XorB32:
    r = a ^ b;
    scc = r;
    break;
  case Andn2B32:
    r = a & ~b;
    scc = r;
    break;
  case Orn2B32:
    r = a | ~b;
    scc = r;
    break;
  case NandB32:
    r = ~(a & b);
    scc = r;
    break;
  case NorB32:
    r = ~(a | b);
    scc = r;
    break;
  case XnorB32:
    r = ~(a ^ b);
    scc = r;
    break;
  case LshlB32:
    r = a << (b & 31);
    scc = r;
    break;
  case LshrB32:
    r = a >> (b & 31);
    scc = r;
    break;
  case AshrI32:
    r = uint32_t(int32_t(a) >> (b & 31));
    scc = r;
    break;
  case BfmB32:
    r = ((1u << (a & 31)) - 1) << (b & 31);
    break;
  case MulI32:
    r = a * b;
    break;
  case MulHiU32:
    r = uint32_t((uint64_t(a) * b) >> 32);
    break;
  case MulHiI32:
    r = uint32_t((int64_t(int32_t(a)) * int32_t(b)) >> 32);
    break;
  case BfeU32: {
    unsigned off = b & 31, width = (b >> 16) & 0x7f;
    r = width == 0 ? 0 : (a >> off) & (width >= 32 ? ~0u : (1u << width) - 1);
    scc = r;
    break;
  }
  case BfeI32: {
    unsigned off = b & 31, width = (b >> 16) & 0x7f;
    if (width == 0) {
      r = 0;
    } else if (width >= 32) {
      r = uint32_t(int32_t(a) >> off);
    } else {
      r = uint32_t(int32_t((a >> off) << (32 - width)) >> (32 - width));
    }
    scc = r;
    break;
  }
  case AbsdiffI32: {
    int64_t x = int64_t(int32_t(a)) - int32_t(b);
    r = uint32_t(x < 0 ? -x : x);
    scc = r;
    break;
  }
  case Lshl1Add:
  case Lshl2Add:
  case Lshl3Add:
  case Lshl4Add: {
    unsigned sh = I.param - Lshl1Add + 1;
    uint64_t s = (uint64_t(a) << sh) + b;
    r = uint32_t(s);
    scc = (s >> 32) != 0;
    break;
  }
  case PackLL:
    r = (a & 0xffff) | (b << 16);
    break;
  case PackLH:
    r = (a & 0xffff) | (b & 0xffff0000u);
    break;
  case PackHH:
    r = (a >> 16) | (b & 0xffff0000u);
    break;
  case CselectB64:
    is64 = true;
    r64 = scc ? a64 : b64;
    break;
  case AndB64:
    is64 = true;
    r64 = a64 & b64;
    scc = r64;
    break;
  case OrB64:
    is64 = true;
    r64 = a64 | b64;
    scc = r64;
    break;
  case XorB64:
    is64 = true;
    r64 = a64 ^ b64;
    scc = r64;
    break;
  case Andn2B64:
    is64 = true;
    r64 = a64 & ~b64;
    scc = r64;
    break;
  case Orn2B64:
    is64 = true;
    r64 = a64 | ~b64;
    scc = r64;
    break;
  case NandB64:
    is64 = true;
    r64 = ~(a64 & b64);
    scc = r64;
    break;
  case NorB64:
    is64 = true;
    r64 = ~(a64 | b64);
    scc = r64;
    break;
  case XnorB64:
    is64 = true;
    r64 = ~(a64 ^ b64);
    scc = r64;
    break;
  case LshlB64:
    is64 = true;
    r64 = a64 << (b & 63);
    scc = r64;
    break;
  case LshrB64:
    is64 = true;
    r64 = a64 >> (b & 63);
    scc = r64;
    break;
  case AshrI64:
    is64 = true;
    r64 = uint64_t(int64_t(a64) >> (b & 63));
    scc = r64;
    break;
  case BfeU64:
  case BfeI64: {
    is64 = true;
    unsigned off = b & 63, width = (b >> 16) & 0x7f;
    if (width == 0) {
      r64 = 0;
    } else if (width >= 64) {
      r64 = I.param == BfeI64 ? uint64_t(int64_t(a64) >> off) : a64 >> off;
    } else if (I.param == BfeU64) {
      r64 = (a64 >> off) & ((1ull << width) - 1);
    } else {
      r64 = uint64_t(int64_t((a64 >> off) << (64 - width)) >> (64 - width));
    }
    scc = r64;
    break;
  }
  default:
    break;
  }
  if (is64)
    swrite64(w, d, r64);
  else
    swrite(w, d, r);
  return Status::Continue;
}

Status sop1(ExecContext &, Wave &w, const Inst &I) {
  const Operand &d = I.vals[0];
  const Operand &src = I.vals[I.numVals > 1 ? 1 : 0];
  uint32_t a = sread(w, src);
  uint64_t a64 = sread64(w, src);
  switch (SOp(I.param)) {
  case MovB32:
    swrite(w, d, a);
    break;
  case MovB64:
    swrite64(w, d, a64);
    break;
  case CmovB32:
    if (w.scc)
      swrite(w, d, a);
    break;
  case CmovB64:
    if (w.scc)
      swrite64(w, d, a64);
    break;
  case NotB32:
    swrite(w, d, ~a);
    w.scc = ~a;
    break;
  case NotB64:
    swrite64(w, d, ~a64);
    w.scc = ~a64;
    break;
  case BrevB32:
    swrite(w, d, llvm::reverseBits(a));
    break;
  case Bitset0B32: // D[S0[4:0]] = 0, the other bits kept (SCC unchanged)
    swrite(w, d, sread(w, d) & ~(1u << (a & 31)));
    break;
  case Bitset1B32: // D[S0[4:0]] = 1
    swrite(w, d, sread(w, d) | (1u << (a & 31)));
    break;
  case Bcnt1B32:
    swrite(w, d, llvm::popcount(a));
    w.scc = a;
    break;
  case Bcnt1B64:
    swrite(w, d, llvm::popcount(a64));
    w.scc = a64;
    break;
  case Ff1B32:
    swrite(w, d, a ? llvm::countr_zero(a) : ~0u);
    break;
  case FlbitB32:
    swrite(w, d, a ? llvm::countl_zero(a) : ~0u);
    break;
  case SextI8:
    swrite(w, d, uint32_t(int32_t(int8_t(a))));
    break;
  case SextI16:
    swrite(w, d, uint32_t(int32_t(int16_t(a))));
    break;
  case AbsI32: {
    int32_t x = int32_t(a);
    uint32_t r = x < 0 ? 0u - a : a;
    swrite(w, d, r);
    w.scc = r;
    break;
  }
  case AndSaveexec:
  case OrSaveexec:
  case Andn2Saveexec: {
    uint64_t e = w.exec();
    swrite64(w, d, e);
    e = I.param == AndSaveexec  ? (a64 & e)
        : I.param == OrSaveexec ? (a64 | e)
                                : (a64 & ~e);
    w.setExec(e);
    w.scc = e != 0;
    break;
  }
  default:
    break;
  }
  return Status::Continue;
}

Status getpc(ExecContext &ctx, Wave &w, const Inst &I) {
  // Addresses are .text offsets; nothing reads code as data in the emulator.
  swrite64(w, I.vals[0], uint64_t(I.offset) + I.size);
  return Status::Continue;
}

template <typename T> bool compare(uint32_t op, T a, T b) {
  switch (op) {
  case Eq:
    return a == b;
  case Lg:
    return a != b;
  case Gt:
    return a > b;
  case Ge:
    return a >= b;
  case Lt:
    return a < b;
  default:
    return a <= b;
  }
}

// param: CmpOp | 8 (signed) | 16 (64-bit)
Status sopc(ExecContext &, Wave &w, const Inst &I) {
  uint32_t op = I.param & 7;
  if (I.param & 16)
    w.scc = compare<uint64_t>(op, sread64(w, I.vals[0]), sread64(w, I.vals[1]));
  else if (I.param & 8)
    w.scc = compare<int32_t>(op, int32_t(sread(w, I.vals[0])),
                             int32_t(sread(w, I.vals[1])));
  else
    w.scc = compare<uint32_t>(op, sread(w, I.vals[0]), sread(w, I.vals[1]));
  return Status::Continue;
}

Status bitcmp(ExecContext &, Wave &w, const Inst &I) {
  uint32_t bit = (sread(w, I.vals[0]) >> (sread(w, I.vals[1]) & 31)) & 1;
  w.scc = bit == I.param;
  return Status::Continue;
}

// SOPK: param 0 movk, 1 cmovk, 2 addk, 3 mulk, 16+CmpOp(+8 signed) cmpk.
Status sopk(ExecContext &, Wave &w, const Inst &I) {
  int32_t k = int32_t(int16_t(I.imms[0]));
  uint32_t uk = uint32_t(uint16_t(I.imms[0]));
  switch (I.param) {
  case 0:
    swrite(w, I.vals[0], uint32_t(k));
    break;
  case 1:
    if (w.scc)
      swrite(w, I.vals[0], uint32_t(k));
    break;
  case 2: {
    uint32_t a = sread(w, I.vals[0]), r = a + uint32_t(k);
    w.scc = (~(a ^ uint32_t(k)) & (a ^ r)) >> 31;
    swrite(w, I.vals[0], r);
    break;
  }
  case 3:
    swrite(w, I.vals[0], sread(w, I.vals[0]) * uint32_t(k));
    break;
  default: {
    uint32_t op = (I.param - 16) & 7;
    if ((I.param - 16) & 8)
      w.scc = compare<int32_t>(op, int32_t(sread(w, I.vals[0])), k);
    else
      w.scc = compare<uint32_t>(op, sread(w, I.vals[0]), uk);
  }
  }
  return Status::Continue;
}

enum BranchCond : uint32_t { Always, Scc0, Scc1, Vccz, Vccnz, Execz, Execnz };

Status branch(ExecContext &, Wave &w, const Inst &I) {
  bool taken;
  uint64_t vcc = w.sgpr64(SlotVccLo);
  switch (I.param) {
  case Always:
    taken = true;
    break;
  case Scc0:
    taken = !w.scc;
    break;
  case Scc1:
    taken = w.scc;
    break;
  case Vccz:
    taken = vcc == 0;
    break;
  case Vccnz:
    taken = vcc != 0;
    break;
  case Execz:
    taken = w.exec() == 0;
    break;
  default:
    taken = w.exec() != 0;
    break;
  }
  if (taken)
    w.pc = I.target;
  return Status::Continue;
}

Status nop(ExecContext &, Wave &, const Inst &) { return Status::Continue; }
Status endpgm(ExecContext &, Wave &w, const Inst &) {
  w.done = true;
  return Status::End;
}
Status codeEnd(ExecContext &ctx, Wave &, const Inst &I) {
  return ctx.fail(I, "executed s_code_end padding (fell off the kernel)");
}
Status barrier(ExecContext &ctx, Wave &w, const Inst &) {
  w.atBarrier = true;
  if (ctx.stats)
    ++ctx.wg.barriers;
  return Status::Barrier;
}

Status waitcnt(ExecContext &ctx, Wave &w, const Inst &I) {
  uint32_t imm = uint32_t(I.imms[0]);
  uint32_t vm = waitcntVmcnt(imm);
  uint32_t lgkm = (imm >> 8) & 0xf;
  if (w.vmIssued - w.vmRetired > vm)
    w.vmRetired = w.vmIssued - vm;
  if (w.lgkmIssued - w.lgkmRetired > lgkm)
    w.lgkmRetired = w.lgkmIssued - lgkm;
  // SMEM returns out of order: only lgkmcnt(0) guarantees its results.
  if (lgkm == 0)
    w.smemRetired = w.lgkmIssued;
  if (ctx.stats) {
    ++ctx.wg.waits;
    ctx.wg.vmcntZeroWaits += vm == 0;
    ctx.wg.fullDrainWaits += vm == 0 && lgkm == 0;
  }
  return Status::Yield;
}

} // namespace

void mxgemm::emu::registerSaluHandlers(void (*add)(llvm::StringRef, Handler,
                                                   uint32_t, uint16_t)) {
  struct {
    const char *name;
    uint32_t op;
  } sop2s[] = {{"S_ADD_U32", AddU32},         {"S_SUB_U32", SubU32},
               {"S_ADD_I32", AddI32},         {"S_SUB_I32", SubI32},
               {"S_ADDC_U32", AddcU32},       {"S_SUBB_U32", SubbU32},
               {"S_MIN_I32", MinI32},         {"S_MIN_U32", MinU32},
               {"S_MAX_I32", MaxI32},         {"S_MAX_U32", MaxU32},
               {"S_CSELECT_B32", CselectB32}, {"S_AND_B32", AndB32},
               {"S_OR_B32", OrB32},           {"S_XOR_B32", XorB32},
               {"S_ANDN2_B32", Andn2B32},     {"S_ORN2_B32", Orn2B32},
               {"S_NAND_B32", NandB32},       {"S_NOR_B32", NorB32},
               {"S_XNOR_B32", XnorB32},       {"S_LSHL_B32", LshlB32},
               {"S_LSHR_B32", LshrB32},       {"S_ASHR_I32", AshrI32},
               {"S_BFM_B32", BfmB32},         {"S_MUL_I32", MulI32},
               {"S_BFE_U32", BfeU32},         {"S_BFE_I32", BfeI32},
               {"S_ABSDIFF_I32", AbsdiffI32}, {"S_LSHL1_ADD_U32", Lshl1Add},
               {"S_LSHL2_ADD_U32", Lshl2Add}, {"S_LSHL3_ADD_U32", Lshl3Add},
               {"S_LSHL4_ADD_U32", Lshl4Add}, {"S_MUL_HI_U32", MulHiU32},
               {"S_MUL_HI_I32", MulHiI32},    {"S_PACK_LL_B32_B16", PackLL},
               {"S_PACK_LH_B32_B16", PackLH}, {"S_PACK_HH_B32_B16", PackHH},
               {"S_CSELECT_B64", CselectB64}, {"S_AND_B64", AndB64},
               {"S_OR_B64", OrB64},           {"S_XOR_B64", XorB64},
               {"S_ANDN2_B64", Andn2B64},     {"S_ORN2_B64", Orn2B64},
               {"S_NAND_B64", NandB64},       {"S_NOR_B64", NorB64},
               {"S_XNOR_B64", XnorB64},       {"S_LSHL_B64", LshlB64},
               {"S_LSHR_B64", LshrB64},       {"S_ASHR_I64", AshrI64},
               {"S_BFE_U64", BfeU64},         {"S_BFE_I64", BfeI64}};
  for (auto &e : sop2s)
    add(e.name, sop2, e.op, 0);
  struct {
    const char *name;
    uint32_t op;
  } sop1s[] = {{"S_MOV_B32", MovB32},
               {"S_MOV_B64", MovB64},
               {"S_CMOV_B32", CmovB32},
               {"S_CMOV_B64", CmovB64},
               {"S_NOT_B32", NotB32},
               {"S_NOT_B64", NotB64},
               {"S_BREV_B32", BrevB32},
               {"S_BITSET0_B32", Bitset0B32},
               {"S_BITSET1_B32", Bitset1B32},
               {"S_BCNT1_I32_B32", Bcnt1B32},
               {"S_BCNT1_I32_B64", Bcnt1B64},
               {"S_FF1_I32_B32", Ff1B32},
               {"S_FLBIT_I32_B32", FlbitB32},
               {"S_SEXT_I32_I8", SextI8},
               {"S_SEXT_I32_I16", SextI16},
               {"S_ABS_I32", AbsI32},
               {"S_AND_SAVEEXEC_B64", AndSaveexec},
               {"S_OR_SAVEEXEC_B64", OrSaveexec},
               {"S_ANDN2_SAVEEXEC_B64", Andn2Saveexec}};
  for (auto &e : sop1s)
    add(e.name, sop1, e.op, 0);
  add("S_GETPC_B64", getpc, 0, 0);
  const char *cmpNames[] = {"EQ", "LG", "GT", "GE", "LT", "LE"};
  for (uint32_t c = 0; c < 6; ++c) {
    std::string n = cmpNames[c];
    add("S_CMP_" + n + "_U32", sopc, c, 0);
    add("S_CMP_" + n + "_I32", sopc, c | 8, 0);
    add("S_CMPK_" + n + "_U32", sopk, 16 + c, 0);
    add("S_CMPK_" + n + "_I32", sopk, 16 + (c | 8), 0);
  }
  add("S_CMP_EQ_U64", sopc, Eq | 16, 0);
  add("S_CMP_LG_U64", sopc, Lg | 16, 0);
  add("S_BITCMP0_B32", bitcmp, 0, 0);
  add("S_BITCMP1_B32", bitcmp, 1, 0);
  add("S_MOVK_I32", sopk, 0, 0);
  add("S_CMOVK_I32", sopk, 1, 0);
  add("S_ADDK_I32", sopk, 2, 0);
  add("S_MULK_I32", sopk, 3, 0);
  add("S_BRANCH", branch, Always, FlagBranch | FlagUncond);
  add("S_CBRANCH_SCC0", branch, Scc0, FlagBranch);
  add("S_CBRANCH_SCC1", branch, Scc1, FlagBranch);
  add("S_CBRANCH_VCCZ", branch, Vccz, FlagBranch);
  add("S_CBRANCH_VCCNZ", branch, Vccnz, FlagBranch);
  add("S_CBRANCH_EXECZ", branch, Execz, FlagBranch);
  add("S_CBRANCH_EXECNZ", branch, Execnz, FlagBranch);
  add("S_ENDPGM", endpgm, 0, FlagEnd);
  add("S_CODE_END", codeEnd, 0, FlagEnd);
  add("S_WAITCNT", waitcnt, 0, 0);
  add("S_BARRIER", barrier, 0, 0);
  // Scheduling hints and delays: no architectural effect.
  for (const char *n : {"S_NOP", "S_SETPRIO", "S_SLEEP", "S_DCACHE_WB",
                        "S_DCACHE_INV", "S_ICACHE_INV"})
    add(n, nop, 0, 0);
}
