//===- CodeObject.h - gfx950 code object loader for the emulator -*- C++
//-*-===//
//
// Parses an AMDGPU code object (ELF, EM_AMDGPU, gfx950) into what the
// emulator needs to launch a kernel: the 64-byte kernel descriptor of every
// `<name>.kd` symbol, the msgpack `amdhsa.kernels` metadata when present, and
// the decoded `.text` (decoded once, at load; execution never re-decodes).
// Malformed or foreign objects are rejected with an llvm::Error, never a
// crash, because the HIP facade feeds it whatever the caller hands over.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_CODEOBJECT_H
#define MXGEMM_EMULATOR_CODEOBJECT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxgemm::emu {

class Program;

/// The fields of the AMDHSA kernel descriptor the emulator uses, plus the
/// initial-state rules derived from them.
struct KernelDescriptor {
  uint32_t groupSegmentFixedSize = 0;
  uint32_t privateSegmentFixedSize = 0;
  uint32_t kernargSize = 0;
  int64_t kernelCodeEntryByteOffset = 0;
  uint32_t computePgmRsrc1 = 0;
  uint32_t computePgmRsrc2 = 0;
  uint32_t computePgmRsrc3 = 0;
  uint16_t kernelCodeProperties = 0;
  uint16_t kernargPreload = 0;

  unsigned userSgprCount() const { return (computePgmRsrc2 >> 1) & 0x1f; }
  bool workgroupIdEnabled(unsigned dim) const {
    return (computePgmRsrc2 >> (7 + dim)) & 1;
  }
  bool workgroupInfoEnabled() const { return (computePgmRsrc2 >> 10) & 1; }
  bool privateSegmentWaveOffsetEnabled() const { return computePgmRsrc2 & 1; }
  /// 0 = X, 1 = X and Y, 2 = X, Y and Z.
  unsigned vgprWorkitemIdDims() const { return (computePgmRsrc2 >> 11) & 3; }
  bool hasProperty(unsigned bit) const {
    return (kernelCodeProperties >> bit) & 1;
  }
  /// First AGPR of the unified VGPR file on gfx90a+ ((rsrc3[5:0] + 1) * 4).
  unsigned accumOffset() const { return ((computePgmRsrc3 & 0x3f) + 1) * 4; }
  unsigned kernargPreloadLength() const { return kernargPreload & 0x7f; }
  unsigned kernargPreloadOffset() const { return kernargPreload >> 7; }
};

/// One explicit or hidden kernel argument from the metadata (`.args`).
struct KernelArgInfo {
  std::string name;
  std::string
      valueKind; // "global_buffer", "by_value", "hidden_block_count_x"...
  uint32_t offset = 0;
  uint32_t size = 0;
};

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
  /// Copies `bytes`, validates the ELF, decodes `.text`. Fails if any
  /// instruction reachable from a kernel entry has no emulator handler (the
  /// message names the instruction and its offset).
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
