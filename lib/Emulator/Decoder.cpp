//===- Decoder.cpp - decode gfx950 .text once into handler form
//------------===//
//
// Runs LLVM's AMDGPU MC disassembler (cpu gfx950) over `.text` once, at load,
// and turns each MCInst into an Inst: the handler of its opcode family (found
// by the normalised MCInstrInfo name), its value operands resolved to
// register-file slots or constants, VOP3 source modifiers, the remaining
// immediates, and the register ranges the checkers watch. Implicit VCC
// operands of VOP2/VOPC forms are made explicit so that the e32 and e64
// encodings share one handler. Execution never touches MC again.
//
//===----------------------------------------------------------------------===//

#include "EmulatorImpl.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <deque>
#include <mutex>

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUDisassembler();

using namespace llvm;
using namespace mxgemm::emu;

namespace {

/// The MC objects for amdgcn-amd-amdhsa / gfx950, built once per process.
struct MCState {
  std::unique_ptr<MCRegisterInfo> mri;
  std::unique_ptr<MCAsmInfo> mai;
  std::unique_ptr<MCSubtargetInfo> sti;
  std::unique_ptr<MCInstrInfo> mii;
  std::unique_ptr<MCContext> ctx;
  std::unique_ptr<MCDisassembler> disasm;
  std::unique_ptr<MCInstPrinter> printer;
  int modsOperandType = -1; // OperandType of VOP3 source modifiers
  std::string error;
  std::mutex mutex; // the disassembler and printer are not thread-safe
};

MCState &getMC() {
  static MCState *state = [] {
    auto *s = new MCState;
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    Triple triple("amdgcn-amd-amdhsa");
    std::string err;
    const Target *target = TargetRegistry::lookupTarget(triple, err);
    if (!target) {
      s->error = "AMDGPU target not available in libLLVM: " + err;
      return s;
    }
    s->mri.reset(target->createMCRegInfo(triple));
    MCTargetOptions options;
    s->mai.reset(target->createMCAsmInfo(*s->mri, triple, options));
    s->sti.reset(target->createMCSubtargetInfo(triple, "gfx950", ""));
    s->mii.reset(target->createMCInstrInfo());
    if (!s->mri || !s->mai || !s->sti || !s->mii) {
      s->error = "cannot create the gfx950 MC layer";
      return s;
    }
    s->ctx = std::make_unique<MCContext>(triple, s->mai.get(), s->mri.get(),
                                         s->sti.get());
    s->disasm.reset(target->createMCDisassembler(*s->sti, *s->ctx));
    s->printer.reset(
        target->createMCInstPrinter(triple, 0, *s->mai, *s->mii, *s->mri));
    if (!s->disasm || !s->printer) {
      s->error = "AMDGPU disassembler not available in libLLVM";
      return s;
    }
    // The source-modifier operand type is target specific and not in an
    // installed header; read it off an instruction known to have them.
    for (unsigned opc = 0, e = s->mii->getNumOpcodes(); opc != e; ++opc) {
      if (s->mii->getName(opc) == "V_ADD_F32_e64_vi") {
        s->modsOperandType = s->mii->get(opc).operands()[1].OperandType;
        break;
      }
    }
    return s;
  }();
  return *state;
}

StringMap<HandlerEntry> &handlerTable() {
  static StringMap<HandlerEntry> *table = [] {
    auto *t = new StringMap<HandlerEntry>;
    static StringMap<HandlerEntry> *current;
    current = t;
    auto add = [](StringRef name, Handler fn, uint32_t param, uint16_t flags) {
      (*current)[name] = HandlerEntry{fn, param, flags};
    };
    registerSaluHandlers(add);
    registerValuHandlers(add);
    registerMemoryHandlers(add);
    registerMfmaHandlers(add);
    return t;
  }();
  return *table;
}

/// Strip the encoding-family suffixes of an MC opcode name so that one
/// handler serves e.g. V_ADD_U32_e32_gfx9 and V_ADD_U32_e64_gfx9.
std::string normaliseName(StringRef name) {
  static const char *const suffixes[] = {
      "_vcd",    "_acd",       "_vi", "_gfx9", "_gfx90a", "_gfx940",
      "_gfx950", "_gfx6_gfx7", "_si", "_ci",   "_e32",    "_e64"};
  bool changed = true;
  while (changed) {
    changed = false;
    for (const char *suffix : suffixes) {
      if (name.ends_with(suffix)) {
        name = name.drop_back(strlen(suffix));
        changed = true;
      }
    }
  }
  return name.str();
}

/// Resolve a register by its MC name (VGPR4_VGPR5, AGPR0, SGPR2, VCC, ...).
bool resolveRegister(StringRef name, Operand &op, std::string &error) {
  auto single = [&](OpKind kind, unsigned slot, unsigned width) {
    op.kind = kind;
    op.reg = slot;
    op.width = width;
    return true;
  };
  if (name == "VCC")
    return single(OpKind::Sgpr, SlotVccLo, 2);
  if (name == "VCC_LO")
    return single(OpKind::Sgpr, SlotVccLo, 1);
  if (name == "VCC_HI")
    return single(OpKind::Sgpr, SlotVccHi, 1);
  if (name == "EXEC")
    return single(OpKind::Sgpr, SlotExecLo, 2);
  if (name == "EXEC_LO")
    return single(OpKind::Sgpr, SlotExecLo, 1);
  if (name == "EXEC_HI")
    return single(OpKind::Sgpr, SlotExecHi, 1);
  if (name == "M0" || name.starts_with("M0_"))
    return single(OpKind::Sgpr, SlotM0, 1);
  if (name == "SCC")
    return single(OpKind::Scc, 0, 1);
  SmallVector<StringRef, 16> parts;
  name.split(parts, '_');
  StringRef first = parts.front();
  unsigned index;
  if (first.consume_front("VGPR") && !first.getAsInteger(10, index) &&
      index < 256)
    return single(OpKind::Vgpr, index, parts.size());
  first = parts.front();
  if (first.consume_front("AGPR") && !first.getAsInteger(10, index) &&
      index < 256)
    return single(OpKind::Vgpr, AgprBase + index, parts.size());
  first = parts.front();
  if (first.consume_front("SGPR") && !first.getAsInteger(10, index) &&
      index + parts.size() <= NumSgprs)
    return single(OpKind::Sgpr, index, parts.size());
  error = ("register " + name + " is not modelled").str();
  return false;
}

bool isMfmaName(StringRef n) { return n.starts_with("V_MFMA"); }

/// Statistics class of an MC opcode (see InstClass).
unsigned instClass(StringRef n) {
  if (isMfmaName(n))
    return ClassMfma;
  if (n.starts_with("GLOBAL_") || n.starts_with("BUFFER_") ||
      n.starts_with("FLAT_") || n.starts_with("SCRATCH_"))
    return ClassVmem;
  if (n.starts_with("DS_"))
    return ClassLds;
  if (n.starts_with("S_LOAD_") || n.starts_with("S_BUFFER_LOAD_") ||
      n.starts_with("S_STORE_") || n.starts_with("S_BUFFER_STORE_") ||
      n.starts_with("S_DCACHE_") || n.starts_with("S_MEMTIME") ||
      n.starts_with("S_MEMREALTIME"))
    return ClassSmem;
  static const char *const sopp[] = {
      "S_WAITCNT", "S_BARRIER", "S_BRANCH",  "S_CBRANCH",    "S_NOP",
      "S_ENDPGM",  "S_SETPRIO", "S_SLEEP",   "S_CODE_END",   "S_ICACHE_INV",
      "S_SETHALT", "S_TRAP",    "S_SENDMSG", "S_SET_GPR_IDX"};
  for (const char *p : sopp)
    if (n.starts_with(p))
      return ClassControl;
  if (n.starts_with("S_"))
    return ClassSalu;
  return ClassValu;
}

} // namespace

std::string Program::disassembly(uint32_t index) const {
  return index < text.size() ? text[index] : std::string("<invalid pc>");
}

Error mxgemm::emu::decodeProgram(ArrayRef<uint8_t> bytes, uint64_t textAddress,
                                 Program &program) {
  MCState &mc = getMC();
  if (!mc.error.empty())
    return createStringError(inconvertibleErrorCode(), mc.error);
  std::lock_guard<std::mutex> lock(mc.mutex);
  StringMap<HandlerEntry> &table = handlerTable();
  program.insts.clear();
  program.indexOfOffset.assign(bytes.size() + 1, -1);

  uint64_t offset = 0;
  std::vector<int64_t> branchTargets; // byte offset per instruction, or -1
  while (offset < bytes.size()) {
    Inst inst;
    inst.offset = offset;
    MCInst mi;
    uint64_t size = 0;
    std::string unhandled;
    std::string text;
    auto status = mc.disasm->getInstruction(mi, size, bytes.slice(offset),
                                            textAddress + offset, nulls());
    int64_t branchTarget = -1;
    if (status != MCDisassembler::Success || size == 0 ||
        offset + size > bytes.size()) {
      size = std::min<uint64_t>(4, bytes.size() - offset);
      unhandled = "<undecodable bytes>";
      text = "<undecodable>";
    } else {
      raw_string_ostream os(text);
      mc.printer->printInst(&mi, textAddress + offset, "", *mc.sti, os);
      StringRef t = StringRef(text).ltrim();
      text = t.str();
      const MCInstrDesc &desc = mc.mii->get(mi.getOpcode());
      StringRef mcName = mc.mii->getName(mi.getOpcode());
      inst.opcode = mi.getOpcode();
      std::string key = normaliseName(mcName);
      auto it = table.find(key);
      if (it == table.end()) {
        unhandled = mcName.str();
      } else {
        inst.fn = it->second.fn;
        inst.param = it->second.param;
        inst.flags = it->second.flags;
      }
      // Resolve operands.
      uint8_t pendingMods = 0;
      unsigned numDefRegs = 0;
      for (unsigned i = 0, e = mi.getNumOperands(); i != e; ++i) {
        const MCOperand &mo = mi.getOperand(i);
        bool inDesc = i < desc.getNumOperands();
        int regClass = inDesc ? desc.operands()[i].RegClass : -1;
        int opType = inDesc ? desc.operands()[i].OperandType : -1;
        if (mo.isReg()) {
          Operand op;
          std::string err;
          if (!mo.getReg()) {
            continue; // absent optional operand
          }
          if (!resolveRegister(mc.mri->getName(mo.getReg()), op, err)) {
            if (unhandled.empty())
              unhandled = mcName.str() + " (" + err + ")";
            continue;
          }
          op.mods = pendingMods;
          pendingMods = 0;
          if (inst.numVals < 8)
            inst.vals[inst.numVals++] = op;
          if (i < desc.getNumDefs())
            ++numDefRegs;
        } else if (mo.isImm()) {
          if (regClass != -1) {
            Operand op;
            op.kind = OpKind::Imm;
            uint64_t v = uint64_t(mo.getImm());
            op.imm[0] = uint32_t(v);
            op.imm[1] = uint32_t(v >> 32);
            op.mods = pendingMods;
            pendingMods = 0;
            if (inst.numVals < 8)
              inst.vals[inst.numVals++] = op;
          } else if (opType == mc.modsOperandType && mc.modsOperandType != -1) {
            pendingMods = uint8_t(mo.getImm());
          } else if (inst.numImms < 6) {
            inst.imms[inst.numImms++] = mo.getImm();
          }
        }
      }
      // Make implicit VCC explicit for VOP2/VOPC so e32 == e64 layout.
      if (mcName.contains("_e32")) {
        bool defVcc = false, useVcc = false;
        for (MCPhysReg r : desc.implicit_defs())
          defVcc |= mc.mri->getName(r) == StringRef("VCC");
        for (MCPhysReg r : desc.implicit_uses())
          useVcc |= mc.mri->getName(r) == StringRef("VCC");
        Operand vcc;
        vcc.kind = OpKind::Sgpr;
        vcc.reg = SlotVccLo;
        vcc.width = 2;
        if (defVcc && inst.numVals < 8) {
          unsigned at = numDefRegs ? 1 : 0;
          for (unsigned j = inst.numVals; j > at; --j)
            inst.vals[j] = inst.vals[j - 1];
          inst.vals[at] = vcc;
          ++inst.numVals;
          ++numDefRegs;
        }
        if (useVcc && inst.numVals < 8)
          inst.vals[inst.numVals++] = vcc;
        // VOPCX e32 writes EXEC only: give the handler a destination slot.
        if (!defVcc && mcName.starts_with("V_CMPX") && inst.numVals < 8) {
          for (unsigned j = inst.numVals; j > 0; --j)
            inst.vals[j] = inst.vals[j - 1];
          inst.vals[0] = vcc;
          inst.vals[0].reg = SlotExecLo;
          ++inst.numVals;
          ++numDefRegs;
        }
      }
      // Register ranges for the checkers.
      for (unsigned j = 0; j < inst.numVals; ++j) {
        const Operand &op = inst.vals[j];
        if (op.kind != OpKind::Vgpr && op.kind != OpKind::Sgpr)
          continue;
        RegRange r{op.kind == OpKind::Vgpr, op.reg, op.width};
        if (j < numDefRegs)
          inst.defs.push_back(r);
        else
          inst.uses.push_back(r);
      }
      if ((inst.flags & FlagBranch) && inst.numImms > 0)
        branchTarget = int64_t(offset) + 4 + 4 * int64_t(int16_t(inst.imms[0]));
      if (isMfmaName(mcName))
        inst.flags |= FlagMfma;
      inst.cls = uint8_t(instClass(mcName));
    }
    inst.size = uint8_t(size);
    program.indexOfOffset[offset] = int32_t(program.insts.size());
    program.insts.push_back(std::move(inst));
    program.unhandled.push_back(unhandled);
    program.text.push_back(text);
    branchTargets.push_back(branchTarget);
    offset += size;
  }
  // Resolve branch targets to instruction indices.
  for (size_t i = 0; i < program.insts.size(); ++i) {
    Inst &inst = program.insts[i];
    if (!(inst.flags & FlagBranch))
      continue;
    int64_t t = branchTargets[i];
    if (t < 0 || t >= int64_t(bytes.size()) || program.indexOfOffset[t] < 0) {
      inst.fn = nullptr;
      program.unhandled[i] = "branch to an invalid target";
      continue;
    }
    inst.target = uint32_t(program.indexOfOffset[t]);
  }
  static const std::vector<std::string> *names = [&] {
    auto *v = new std::vector<std::string>;
    for (unsigned opc = 0; opc < mc.mii->getNumOpcodes(); ++opc)
      v->push_back(mc.mii->getName(opc).str());
    return v;
  }();
  program.opcodeNames = names;
  return Error::success();
}

Error mxgemm::emu::checkReachable(const Program &program, uint32_t entry,
                                  StringRef kernel) {
  std::vector<bool> seen(program.insts.size(), false);
  std::deque<uint32_t> work{entry};
  // The first unmodelled instruction is named in full; the distinct opcodes
  // of the others are listed too, so one run shows everything that is missing.
  std::string first;
  std::vector<std::string> others;
  while (!work.empty()) {
    uint32_t i = work.front();
    work.pop_front();
    if (i >= program.insts.size() || seen[i])
      continue;
    seen[i] = true;
    const Inst &inst = program.insts[i];
    if (!inst.fn || !program.unhandled[i].empty()) {
      std::string name = program.unhandled[i].empty() ? std::string("<unknown>")
                                                      : program.unhandled[i];
      if (first.empty()) {
        raw_string_ostream os(first);
        os << "kernel '" << kernel << "': instruction " << name
           << " at .text+0x" << format_hex_no_prefix(inst.offset, 1) << " ("
           << program.text[i] << ") is not modelled by the emulator";
        others.push_back(name);
      } else if (std::find(others.begin(), others.end(), name) ==
                 others.end()) {
        others.push_back(name);
      }
      // Keep walking: an unmodelled non-branch falls through.
    }
    if (inst.flags & FlagEnd)
      continue;
    if (inst.flags & FlagBranch) {
      work.push_back(inst.target);
      if (inst.flags & FlagUncond)
        continue;
    }
    work.push_back(i + 1);
  }
  if (first.empty())
    return Error::success();
  if (others.size() > 1) {
    first += " (also unmodelled:";
    for (size_t j = 1; j < others.size(); ++j)
      first += " " + others[j];
    first += ")";
  }
  return createStringError(inconvertibleErrorCode(), first);
}
