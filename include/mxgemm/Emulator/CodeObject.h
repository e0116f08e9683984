//===- CodeObject.h - gfx950 code-object loader -----------------*- C++ -*-===//
//
// Turns an AMDGPU code object (ELF, EM_AMDGPU, gfx950) into what the
// emulator needs to launch a kernel: the 64-byte kernel descriptor of every
// `<name>.kd` symbol, the msgpack `amdhsa.kernels` metadata when present, and
// the decoded `.text` (decoded once, at load; execution never re-decodes).
// The ELF and the metadata are read by the project's one bounds-checked
// reader (mxgemm/Target/CodeObject.h); malformed or foreign objects are
// rejected with an llvm::Error, never a crash, because the HIP facade feeds
// it whatever the caller hands over.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_CODEOBJECT_H
#define MXGEMM_EMULATOR_CODEOBJECT_H

#include "mxgemm/Target/CodeObject.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxgemm::emu {

class Program;

/// The descriptor and argument records of the one code-object reader.
using KernelDescriptor = target::KernelDescriptor;
using KernelArgInfo = target::KernelArgument;

/// Everything known about one kernel of a code object.
struct KernelInfo {
  std::string name;
  KernelDescriptor descriptor;
  /// Byte offset of the first instruction inside `.text`.
  uint64_t entryTextOffset = 0;
  /// Index of the first instruction in the decoded program.
  uint32_t entryIndex = 0;
  /// From the metadata note, or derived from the descriptor if absent.
  bool hasMetadata = false;
  uint32_t vgprCount = 0, agprCount = 0, sgprCount = 0;
  uint32_t kernargSegmentSize = 0, groupSegmentFixedSize = 0;
  uint32_t privateSegmentFixedSize = 0;
  uint32_t maxFlatWorkgroupSize = 0;
  uint32_t reqdWorkgroupSize[3] = {0, 0, 0};
  std::vector<KernelArgInfo> args;
};

/// A loaded, validated and decoded gfx950 code object.
class CodeObject {
public:
  /// Copies exactly `bytes` (the sized loader: nothing outside them is
  /// read), validates the ELF, decodes `.text`. Fails if any instruction
  /// reachable from a kernel entry has no emulator handler (the message
  /// names the instruction and its offset).
  static llvm::Expected<std::unique_ptr<CodeObject>>
  load(llvm::ArrayRef<uint8_t> bytes);
  static llvm::Expected<std::unique_ptr<CodeObject>>
  loadFile(llvm::StringRef path);
  ~CodeObject();

  llvm::ArrayRef<KernelInfo> kernels() const { return Kernels; }
  /// nullptr if there is no such kernel.
  const KernelInfo *findKernel(llvm::StringRef name) const;
  const Program &program() const { return *Prog; }
  /// Human-readable disassembly of the decoded program with the handler of
  /// each instruction (for `mxgemm-emu dump`).
  std::string dump() const;

private:
  CodeObject();
  std::vector<uint8_t> Bytes;
  std::vector<KernelInfo> Kernels;
  std::unique_ptr<Program> Prog;
};

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_CODEOBJECT_H
