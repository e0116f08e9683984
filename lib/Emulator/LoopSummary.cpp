//===- LoopSummary.cpp - static summary of a kernel's loops ---------------===//
//
// A loop is the range from a backward branch's target to the last backward
// branch that reaches it (a loop with several back edges is one loop). The
// counts come from the decoded program the emulator runs, so they are the
// instructions of the code object, not of the compiler's IR.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/LoopSummary.h"
#include "EmulatorImpl.h"
#include "mxgemm/Emulator/CodeObject.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace mxgemm::emu;

std::vector<LoopSummary> mxgemm::emu::summarizeLoops(const CodeObject &object) {
  const Program &program = object.program();
  // Target instruction index -> index of its last backward branch.
  std::map<uint32_t, uint32_t> lastBackEdge;
  for (uint32_t i = 0; i < program.insts.size(); ++i) {
    const Inst &inst = program.insts[i];
    if ((inst.flags & FlagBranch) && inst.fn && inst.target <= i) {
      uint32_t &last = lastBackEdge[inst.target];
      last = std::max(last, i);
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> ranges(lastBackEdge.begin(),
                                                    lastBackEdge.end());
  std::vector<LoopSummary> loops;
  for (auto [first, last] : ranges) {
    LoopSummary loop;
    const KernelInfo *owner = nullptr;
    for (const KernelInfo &k : object.kernels())
      if (k.entryIndex <= first && (!owner || k.entryIndex > owner->entryIndex))
        owner = &k;
    if (owner)
      loop.kernel = owner->name;
    for (auto [otherFirst, otherLast] : ranges)
      if (std::make_pair(otherFirst, otherLast) !=
              std::make_pair(first, last) &&
          first <= otherFirst && otherLast <= last)
        loop.innermost = false;
    loop.begin = program.insts[first].offset;
    loop.end = program.insts[last].offset + program.insts[last].size;
    for (uint32_t i = first; i <= last; ++i) {
      const Inst &inst = program.insts[i];
      StringRef text = StringRef(program.text[i]).trim();
      ++loop.instructions;
      ++loop.classes[inst.cls];
      if (text.starts_with("s_waitcnt ")) {
        ++loop.waits;
        loop.vmcntZeroWaits +=
            inst.numImms > 0 && waitcntVmcnt(uint32_t(inst.imms[0])) == 0;
      } else if (text.starts_with("s_barrier")) {
        ++loop.barriers;
      } else if (text.starts_with("s_nop")) {
        ++loop.nops;
      }
    }
    loops.push_back(std::move(loop));
  }
  return loops;
}

void mxgemm::emu::printLoopSummaries(raw_ostream &os,
                                     ArrayRef<LoopSummary> loops) {
  if (loops.empty()) {
    os << "no loops\n";
    return;
  }
  for (const LoopSummary &l : loops) {
    os << l.kernel << " loop .text+0x" << format_hex_no_prefix(l.begin, 1)
       << "..0x" << format_hex_no_prefix(l.end, 1)
       << (l.innermost ? " (innermost)" : "") << ": " << l.instructions
       << " instructions, " << l.classes[ClassMfma]
       << " mfma : " << l.otherInstructions() << " other (";
    ListSeparator sep;
    for (unsigned c = 0; c < NumInstClasses; ++c)
      if (c != ClassMfma)
        os << sep << l.classes[c] << " " << instClassName(c);
    os << "); " << l.waits << " s_waitcnt (" << l.vmcntZeroWaits
       << " vmcnt(0)), " << l.barriers << " s_barrier, " << l.nops
       << " s_nop\n";
  }
}

void mxgemm::emu::printLoopSummariesJson(raw_ostream &os,
                                         ArrayRef<LoopSummary> loops) {
  json::Array array;
  for (const LoopSummary &l : loops) {
    json::Object classes;
    for (unsigned c = 0; c < NumInstClasses; ++c)
      classes[instClassName(c)] = int64_t(l.classes[c]);
    array.push_back(json::Object{{"kernel", l.kernel},
                                 {"begin", int64_t(l.begin)},
                                 {"end", int64_t(l.end)},
                                 {"innermost", l.innermost},
                                 {"instructions", int64_t(l.instructions)},
                                 {"mfma", int64_t(l.classes[ClassMfma])},
                                 {"other", int64_t(l.otherInstructions())},
                                 {"classes", std::move(classes)},
                                 {"waits", int64_t(l.waits)},
                                 {"vmcnt0_waits", int64_t(l.vmcntZeroWaits)},
                                 {"barriers", int64_t(l.barriers)},
                                 {"nops", int64_t(l.nops)}});
  }
  os << formatv("{0:2}", json::Value(json::Object{{"loops", std::move(array)}}))
     << "\n";
}
