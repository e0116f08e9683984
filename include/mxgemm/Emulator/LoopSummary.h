//===- LoopSummary.h - static summary of a kernel's loops -------*- C++ -*-===//
//
// What a K loop issues per iteration, read from the code object itself: the
// instructions between a backward branch's target and the branch, counted by
// class, with the waits and barriers among them. Kernel authors compare
// structures by it (MFMA : other instructions, waits per iteration) without a
// disassembly by hand; `mxgemm-emu loops K.hsaco` prints it. Static counts:
// a conditional block inside the loop counts whether or not it runs.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_LOOPSUMMARY_H
#define MXGEMM_EMULATOR_LOOPSUMMARY_H

#include "mxgemm/Emulator/Emulator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::emu {

class CodeObject;

/// One loop: every instruction from a backward branch's target up to the
/// last backward branch to that target.
struct LoopSummary {
  std::string kernel;          // the kernel whose entry precedes the loop
  uint64_t begin = 0, end = 0; // byte offsets in .text, [begin, end)
  bool innermost = true;       // no other loop lies inside it
  uint64_t instructions = 0;
  ClassCounts classes = {};    // by InstClass
  uint64_t waits = 0;          // s_waitcnt
  uint64_t vmcntZeroWaits = 0; // s_waitcnt with vmcnt(0)
  uint64_t barriers = 0;       // s_barrier
  uint64_t nops = 0;           // s_nop
  /// Instructions that are not MFMAs.
  uint64_t otherInstructions() const {
    return instructions - classes[ClassMfma];
  }
};

/// The loops of every kernel of `object`, in address order.
std::vector<LoopSummary> summarizeLoops(const CodeObject &object);

/// One line per loop; "no loops" when there are none.
void printLoopSummaries(llvm::raw_ostream &os,
                        llvm::ArrayRef<LoopSummary> loops);
/// {"loops": [{kernel, begin, end, innermost, instructions, mfma, ...}]}.
void printLoopSummariesJson(llvm::raw_ostream &os,
                            llvm::ArrayRef<LoopSummary> loops);

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_LOOPSUMMARY_H
