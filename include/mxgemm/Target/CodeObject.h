//===- CodeObject.h - the one code-object reader ----------------*- C++ -*-===//
//
// Reads an AMDGPU code object (ELF64, HSA OS ABI, code object v4-v6): the
// ELF header, the section and program header tables, the symbol table, the
// 64-byte kernel descriptors of the `<kernel>.kd` symbols and the
// NT_AMDGPU_METADATA msgpack note. The compiler fills its JSON sidecar from
// it, and the emulator's loader (so also the HIP facade) loads with it, so
// that both read a code object the same way.
//
// Every offset, size and count taken from the input is checked against the
// buffer with overflow-checked arithmetic before anything is read, and every
// msgpack value's type is checked before it is used: malformed input is an
// llvm::Error, never a crash, because the facade hands over whatever its
// caller passes. LLVM Support/BinaryFormat only: the emulator and the
// runtime side must not link MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_CODEOBJECT_H
#define MXGEMM_TARGET_CODEOBJECT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxgemm::target {

//===----------------------------------------------------------------------===//
// Kernel descriptor
//===----------------------------------------------------------------------===//

/// The fields of the 64-byte AMDHSA kernel descriptor (AMDGPUUsage, "Kernel
/// Descriptor"), plus the initial-state rules the emulator derives from them.
struct KernelDescriptor {
  static constexpr unsigned kSize = 64;

  uint32_t groupSegmentFixedSize = 0;
  uint32_t privateSegmentFixedSize = 0;
  uint32_t kernargSize = 0;
  int64_t kernelCodeEntryByteOffset = 0;
  uint32_t computePgmRsrc1 = 0;
  uint32_t computePgmRsrc2 = 0;
  uint32_t computePgmRsrc3 = 0;
  uint16_t kernelCodeProperties = 0;
  uint16_t kernargPreload = 0;

  /// Decodes the little-endian descriptor at `bytes` (kSize bytes).
  static KernelDescriptor decode(const uint8_t *bytes);

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
  /// kernel_code_properties bit 10: the kernel is wave32.
  bool isWave32() const { return hasProperty(10); }
  /// First AGPR of the unified VGPR file on gfx90a+ ((rsrc3[5:0] + 1) * 4).
  /// The metadata note has no accum_offset; this is the only record of it.
  unsigned accumOffset() const { return ((computePgmRsrc3 & 0x3f) + 1) * 4; }
  unsigned kernargPreloadLength() const { return kernargPreload & 0x7f; }
  unsigned kernargPreloadOffset() const { return kernargPreload >> 7; }
};

//===----------------------------------------------------------------------===//
// Metadata note (amdhsa.kernels)
//===----------------------------------------------------------------------===//

/// One explicit or hidden kernel argument (`.args`).
struct KernelArgument {
  std::string name;
  std::string valueKind;    // "global_buffer", "by_value", "hidden_..."...
  std::string addressSpace; // "global", "generic", ... or empty
  uint32_t offset = 0;
  uint32_t size = 0;

  bool isHidden() const {
    return llvm::StringRef(valueKind).starts_with("hidden_");
  }
  /// A pointer the caller must pass to device memory.
  bool isGlobalBuffer() const { return valueKind == "global_buffer"; }
};

/// One entry of `amdhsa.kernels`. Absent numeric fields read as 0; a field
/// of the wrong msgpack type or out of range is an error.
struct KernelMetadata {
  std::string name;
  std::string symbol; // `<name>.kd`
  uint32_t vgprCount = 0, agprCount = 0, sgprCount = 0;
  uint32_t vgprSpillCount = 0, sgprSpillCount = 0;
  uint32_t privateSegmentFixedSize = 0; // scratch bytes per lane
  uint32_t groupSegmentFixedSize = 0;   // LDS bytes
  uint32_t kernargSegmentSize = 0;
  uint32_t kernargSegmentAlign = 0;
  uint32_t maxFlatWorkgroupSize = 0;
  uint32_t wavefrontSize = 0;
  /// `.reqd_workgroup_size`, or all 0 when the kernel has none.
  uint32_t reqdWorkgroupSize[3] = {0, 0, 0};
  std::vector<KernelArgument> args;
  /// First AGPR (gfx90a+ unified register file). The note has no such
  /// field: CodeObjectFile::parse and readCodeObjectMetadata take it from
  /// the kernel's descriptor (KernelDescriptor::accumOffset), when the
  /// object has a `.kd` symbol for the kernel (by name or `.symbol`).
  std::optional<uint32_t> accumOffset;

  bool hasReqdWorkgroupSize() const { return reqdWorkgroupSize[0] != 0; }
  /// Bytes from the start of the kernarg segment to the end of the last
  /// explicit (not hidden) argument.
  uint32_t explicitArgumentBytes() const;
};

struct CodeObjectMetadata {
  std::string target; // amdhsa.target, e.g. amdgcn-amd-amdhsa--gfx950
  uint32_t version[2] = {0, 0};
  /// False if the note has no `amdhsa.kernels` at all.
  bool hasKernelList = false;
  std::vector<KernelMetadata> kernels;

  const KernelMetadata *findKernel(llvm::StringRef name) const;
};

/// Parses the desc of an NT_AMDGPU_METADATA note (msgpack). Every map key,
/// value and nesting level is checked; nothing in the blob can crash it.
llvm::Expected<CodeObjectMetadata> parseMetadataNote(llvm::StringRef msgpack);

//===----------------------------------------------------------------------===//
// The code object
//===----------------------------------------------------------------------===//

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, address = 0, offset = 0, size = 0;
  uint64_t entrySize = 0, alignment = 0;
  uint32_t link = 0, info = 0;
};

/// A `<name>.kd` symbol and the descriptor it points at.
struct KernelSymbol {
  std::string name;               // without ".kd"
  uint64_t descriptorAddress = 0; // the symbol's value
  KernelDescriptor descriptor;
  /// Address of the first instruction: descriptor address + entry offset,
  /// + 256 when kernargs are preloaded (skipping the compatibility
  /// trampoline that firmware without preloading runs).
  uint64_t entryAddress = 0;
};

/// A parsed, consistency-checked AMDGPU code object. Borrows the bytes it
/// was parsed from, which must outlive it.
class CodeObjectFile {
public:
  /// Checks the ELF header (ELF64 LE, EM_AMDGPU, OS ABI AMDGPU-HSA, code
  /// object v4-v6), the section and program header tables, section names,
  /// the symbol table, every `<name>.kd` descriptor and the metadata note.
  /// Any inconsistency is an error naming it.
  static llvm::Expected<CodeObjectFile> parse(llvm::ArrayRef<uint8_t> bytes);

  uint16_t elfType() const { return Type; }
  uint8_t abiVersion() const { return AbiVersion; }
  uint32_t flags() const { return Flags; }
  /// EF_AMDGPU_MACH_* of e_flags.
  unsigned machine() const;

  llvm::ArrayRef<ElfSection> sections() const { return Sections; }
  /// The first section called `name`, or null.
  const ElfSection *findSection(llvm::StringRef name) const;
  /// The bytes of a section of this file (empty for SHT_NOBITS); the range
  /// was checked by parse().
  llvm::ArrayRef<uint8_t> contents(const ElfSection &section) const;

  /// Kernel descriptors from `.symtab`, or `.dynsym` if `.symtab` has none.
  llvm::ArrayRef<KernelSymbol> kernels() const { return Kernels; }
  /// The NT_AMDGPU_METADATA note, if the object has one.
  const std::optional<CodeObjectMetadata> &metadata() const { return Metadata; }

private:
  CodeObjectFile() = default;
  llvm::ArrayRef<uint8_t> Bytes;
  uint16_t Type = 0;
  uint8_t AbiVersion = 0;
  uint32_t Flags = 0;
  std::vector<ElfSection> Sections;
  std::vector<KernelSymbol> Kernels;
  std::optional<CodeObjectMetadata> Metadata;
};

/// The metadata note of a code object (what the compiler's sidecar records:
/// what the backend really allocated). An object without a note, or whose
/// note lists no kernels, is an error.
llvm::Expected<CodeObjectMetadata> readCodeObjectMetadata(llvm::StringRef elf);

//===----------------------------------------------------------------------===//
// Images without a size
//===----------------------------------------------------------------------===//

/// hipModuleLoadData receives a pointer and no size. The size is then what
/// the ELF header claims: the end of the section header table, which ends
/// every code object lld and the LLVM assembler write. Reads only the 64
/// header bytes; checks that the claim is self-consistent (ELF64 LE, header
/// size, table entry sizes, counts, alignment, program headers before the
/// section headers, no overflow) and at most `maxBytes`. The caller then
/// loads exactly that many bytes through the sized API, which checks every
/// section against them. Whether the caller's buffer really holds the
/// claimed bytes cannot be checked by anyone.
llvm::Expected<uint64_t> claimedImageSize(const uint8_t *header,
                                          uint64_t maxBytes);

} // namespace mxgemm::target

#endif // MXGEMM_TARGET_CODEOBJECT_H
