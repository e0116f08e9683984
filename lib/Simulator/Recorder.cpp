//===- Recorder.cpp - what the timing model needs from each instruction ---===//
//
// The emulator's decoded program seen by the timing model: each static
// instruction's unit (VALU, MFMA, SALU, SMEM, VMEM, LDS, branch, internal),
// rate, wait fields and register operands (analyseProgram), and the LDS
// bank rule applied to the addresses the emulator computes
// (ldsServiceCycles). The recording observer itself lives in Simulator.cpp
// beside the launch that feeds it.
//
//===----------------------------------------------------------------------===//

#include "../Emulator/EmulatorImpl.h"
#include "SimulatorImpl.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::sim;

unsigned mxgemm::sim::ldsServiceCycles(const uint32_t *laneAddress,
                                       uint64_t laneMask,
                                       unsigned bytesPerLane) {
  // Lanes per phase: a phase moves at most 64 banks x 4 B.
  unsigned dwordsPerLane = std::max(1u, (bytesPerLane + 3) / 4);
  unsigned phases = bytesPerLane >= 12 ? 4 : bytesPerLane == 8 ? 2 : 1;
  unsigned lanesPerPhase = 64 / phases;
  unsigned cycles = 0;
  for (unsigned phase = 0; phase < phases; ++phase) {
    uint32_t seen[64][64];
    uint8_t count[64] = {};
    unsigned worst = 0;
    for (unsigned l = phase * lanesPerPhase; l < (phase + 1) * lanesPerPhase;
         ++l) {
      if (!((laneMask >> l) & 1))
        continue;
      worst = std::max(worst, 1u);
      for (unsigned d = 0; d < dwordsPerLane; ++d) {
        uint32_t dw = laneAddress[l] / 4 + d;
        unsigned bank = dw % 64;
        bool dup = false;
        for (unsigned i = 0; i < count[bank]; ++i)
          dup |= seen[bank][i] == dw;
        if (!dup && count[bank] < 64) {
          seen[bank][count[bank]++] = dw;
          worst = std::max<unsigned>(worst, count[bank]);
        }
      }
    }
    cycles += worst;
  }
  return cycles;
}

namespace {

bool quarterRateValu(StringRef n) {
  // The quarter-rate VALU classes of LLVM's gfx940/gfx950 scheduling model
  // (SISchedule.td, SICommonWriteRes: WriteTrans32, WriteQuarterRate32 and
  // WriteFloatCvt have a latency of 4 = a quarter of the full rate). 64-bit
  // integer ops and integer multiplies are full rate on gfx940+.
  static const char *const prefixes[] = {
      "V_EXP_",        "V_LOG_",        "V_RCP_",        "V_RSQ_",
      "V_SQRT_",       "V_SIN_",        "V_COS_",        "V_CVT_F32_U32",
      "V_CVT_F32_I32", "V_CVT_U32_F32", "V_CVT_I32_F32", "V_CVT_F64",
      "V_CVT_F32_F64"};
  for (const char *p : prefixes)
    if (n.starts_with(p))
      return true;
  return false;
}

} // namespace

std::vector<StaticInst>
mxgemm::sim::analyseProgram(const emu::Program &program,
                            const target::TargetModel &target) {
  std::vector<StaticInst> out(program.insts.size());
  for (size_t i = 0; i < program.insts.size(); ++i) {
    const emu::Inst &I = program.insts[i];
    StaticInst &s = out[i];
    StringRef name = (*program.opcodeNames)[I.opcode];
    for (const emu::RegRange &r : I.uses)
      s.uses.push_back({uint16_t(r.vgpr), r.first, r.count});
    for (const emu::RegRange &r : I.defs)
      s.defs.push_back({uint16_t(r.vgpr), r.first, r.count});
    switch (I.cls) {
    case emu::ClassMfma: {
      s.unit = Unit::Mfma;
      // 32x32x64 or 16x16x128; FP8 operands (cbsz/blgp 0/1) take the FP8
      // cycle count, FP6/FP4 the other.
      bool big = name.contains("32X32");
      const target::MfmaInstruction &m = target.getMfma(
          big ? target::MfmaShape::M32N32K64 : target::MfmaShape::M16N16K128);
      bool fp8 = I.numImms < 2 || (I.imms[0] <= 1 && I.imms[1] <= 1);
      s.mfmaCycles = uint32_t(fp8 ? m.cyclesFp8 : m.cyclesFp6Fp4);
      s.mfmaPasses = uint32_t(s.mfmaCycles / target.timing.mfmaPassCycles);
      s.mfmaFlops = uint64_t(m.flops());
      if (I.numVals >= 4) {
        const emu::Operand &d = I.vals[0], &c = I.vals[3];
        if (d.kind == emu::OpKind::Vgpr) {
          s.mfmaDst = d.reg;
          s.mfmaDstCount = d.width;
        }
        if (c.kind == emu::OpKind::Vgpr) {
          s.mfmaC = c.reg;
          s.mfmaCCount = c.width;
        }
      }
      break;
    }
    case emu::ClassValu:
      s.unit = Unit::Valu;
      s.quarterRate = quarterRateValu(name);
      s.packedF32 = name.starts_with("V_PK_") && name.contains("_F32");
      break;
    case emu::ClassSalu:
      s.unit = Unit::Salu;
      break;
    case emu::ClassSmem:
      s.unit = Unit::Smem;
      break;
    case emu::ClassVmem:
      s.unit = Unit::Vmem;
      break;
    case emu::ClassLds:
      s.unit = Unit::Lds;
      break;
    case emu::ClassControl:
      if (I.flags & emu::FlagBranch) {
        s.unit = Unit::Branch;
      } else {
        s.unit = Unit::Internal;
        if (name.starts_with("S_WAITCNT")) {
          s.internal = Internal::Waitcnt;
          uint32_t imm = I.numImms ? uint32_t(I.imms[0]) : 0;
          s.vmWait = uint8_t((imm & 0xf) | (((imm >> 14) & 3) << 4));
          s.lgkmWait = uint8_t((imm >> 8) & 0xf);
        } else if (name.starts_with("S_BARRIER")) {
          s.internal = Internal::Barrier;
        } else if (name.starts_with("S_NOP")) {
          s.internal = Internal::Nop;
          s.imm = I.numImms ? uint32_t(I.imms[0] & 0xf) : 0;
        } else if (name.starts_with("S_SLEEP")) {
          s.internal = Internal::Sleep;
          s.imm = I.numImms ? uint32_t(I.imms[0] & 0x7f) : 0;
        } else if (name.starts_with("S_SETPRIO")) {
          s.internal = Internal::Setprio;
          s.imm = I.numImms ? uint32_t(I.imms[0] & 3) : 0;
        } else if (name.starts_with("S_ENDPGM")) {
          s.internal = Internal::Endpgm;
        }
      }
      break;
    default:
      s.unit = Unit::Valu;
    }
  }
  return out;
}
