//===- CodeObjectCheck.cpp - a bounded look at an AMDGPU code object ------===//
//
// ELF64 little-endian only (every AMDGPU code object). Fields are read with
// memcpy at offsets that were checked against the buffer first; every sum
// and product of untrusted values is checked for overflow.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/CodeObjectCheck.h"

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/KernelDescriptor.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace mxgemm;
using namespace mxgemm::contract;

namespace {
// ELF constants (System V gABI; AMDGPU values from LLVM's
// llvm/BinaryFormat/ELF.h and the AMDGPU backend user guide).
constexpr uint8_t kElfClass64 = 2, kElfData2Lsb = 1, kElfOsAbiAmdgpuHsa = 64;
constexpr uint16_t kElfTypeDyn = 3, kElfMachineAmdgpu = 224;
constexpr uint32_t kSectionDynsym = 11, kSectionStrtab = 3;
constexpr uint8_t kSymbolObject = 1, kSymbolFunc = 2;
constexpr uint64_t kEhdrSize = 64, kShdrSize = 64, kSymSize = 24;
constexpr uint64_t kKernelDescriptorSize = 64;
/// EF_AMDGPU_MACH (the low byte of e_flags) of the chips we model.
struct ChipMach {
  std::string_view chip;
  uint32_t mach;
};
constexpr ChipMach kChipMachs[] = {{"gfx950", 0x04f}};
constexpr uint32_t kElfMachMask = 0x0ff;

/// Bounded little-endian reads from the image.
class Image {
public:
  Image(const void *data, size_t size)
      : bytes(static_cast<const uint8_t *>(data)), size(size) {}
  /// True if [offset, offset + length) lies inside the image.
  bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size && length <= size - offset;
  }
  template <typename T> T read(uint64_t offset) const {
    T v;
    std::memcpy(&v, bytes + offset, sizeof(T)); // offset checked by caller
    return v;
  }
  const uint8_t *at(uint64_t offset) const { return bytes + offset; }

private:
  const uint8_t *bytes;
  uint64_t size;
};

struct Section {
  uint32_t type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};
} // namespace

ErrorMessage contract::checkKernelCodeObject(const void *data, size_t size,
                                             std::string_view chip,
                                             std::string_view kernel) {
  const std::string what = "code object: ";
  if (!data || size < kEhdrSize)
    return what + "is " + std::to_string(size) +
           " bytes, shorter than an ELF header";
  Image image(data, size);
  const uint8_t *ident = image.at(0);
  if (std::memcmp(ident,
                  "\x7f"
                  "ELF",
                  4) != 0)
    return what + "is not an ELF file (bad magic)";
  if (ident[4] != kElfClass64 || ident[5] != kElfData2Lsb)
    return what + "is not a 64-bit little-endian ELF file";
  if (ident[7] != kElfOsAbiAmdgpuHsa)
    return what + "ELF OS/ABI is " + std::to_string(ident[7]) +
           ", not AMDGPU HSA (64)";
  if (image.read<uint16_t>(16) != kElfTypeDyn ||
      image.read<uint16_t>(18) != kElfMachineAmdgpu)
    return what + "is not an AMDGPU shared object (e_type " +
           std::to_string(image.read<uint16_t>(16)) + ", e_machine " +
           std::to_string(image.read<uint16_t>(18)) + ")";
  const ChipMach *expected = nullptr;
  for (const ChipMach &c : kChipMachs)
    if (c.chip == chip)
      expected = &c;
  if (!expected)
    return what + "no ELF machine is known for chip '" + std::string(chip) +
           "'";
  const uint32_t mach = image.read<uint32_t>(48) & kElfMachMask;
  if (mach != expected->mach)
    return what + "is built for EF_AMDGPU_MACH " + std::to_string(mach) +
           ", not " + std::string(chip) + " (" +
           std::to_string(expected->mach) + ")";

  // Section headers: the table and every section we read lie in the image.
  const uint64_t shoff = image.read<uint64_t>(40);
  const uint16_t shentsize = image.read<uint16_t>(58);
  const uint16_t shnum = image.read<uint16_t>(60);
  if (shentsize != kShdrSize || shnum == 0 ||
      !image.contains(shoff, uint64_t(shnum) * kShdrSize))
    return what + "section header table (offset " + std::to_string(shoff) +
           ", " + std::to_string(shnum) + " x " + std::to_string(shentsize) +
           " bytes) does not lie in the " + std::to_string(size) +
           "-byte image";
  auto section = [&](uint32_t index) {
    const uint64_t h = shoff + uint64_t(index) * kShdrSize;
    Section s;
    s.type = image.read<uint32_t>(h + 4);
    s.offset = image.read<uint64_t>(h + 24);
    s.size = image.read<uint64_t>(h + 32);
    s.link = image.read<uint32_t>(h + 40);
    s.entsize = image.read<uint64_t>(h + 56);
    return s;
  };
  for (uint32_t i = 0; i < shnum; ++i) {
    const Section symbols = section(i);
    if (symbols.type != kSectionDynsym)
      continue;
    if (symbols.entsize != kSymSize ||
        !image.contains(symbols.offset, symbols.size))
      return what + "the dynamic symbol table does not lie in the image";
    if (symbols.link >= shnum)
      return what + "the dynamic symbol table names no string table";
    const Section strings = section(symbols.link);
    if (strings.type != kSectionStrtab ||
        !image.contains(strings.offset, strings.size))
      return what + "the dynamic string table does not lie in the image";
    // The symbol's name equals `name`: compared in place, within the table.
    auto named = [&](uint32_t nameOffset, std::string_view name) {
      return nameOffset < strings.size &&
             name.size() < strings.size - nameOffset &&
             std::memcmp(image.at(strings.offset + nameOffset), name.data(),
                         name.size()) == 0 &&
             *image.at(strings.offset + nameOffset + name.size()) == '\0';
    };
    const std::string descriptorName = std::string(kernel) + ".kd";
    bool function = false, descriptor = false;
    for (uint64_t s = 0; s < symbols.size / kSymSize; ++s) {
      const uint64_t e = symbols.offset + s * kSymSize;
      const uint32_t name = image.read<uint32_t>(e);
      const uint8_t type = image.read<uint8_t>(e + 4) & 0xf;
      const uint16_t sectionIndex = image.read<uint16_t>(e + 6);
      const uint64_t symbolSize = image.read<uint64_t>(e + 16);
      const bool defined = sectionIndex != 0 && sectionIndex < shnum;
      if (defined && type == kSymbolFunc && named(name, kernel))
        function = true;
      if (defined && type == kSymbolObject &&
          symbolSize == kKernelDescriptorSize && named(name, descriptorName))
        descriptor = true;
    }
    if (!function || !descriptor)
      return what + "defines no kernel '" + std::string(kernel) +
             "' (a function '" + std::string(kernel) +
             "' and a 64-byte object '" + descriptorName +
             "' in the dynamic symbol table)";
    return std::nullopt;
  }
  return what + "has no dynamic symbol table";
}

ErrorMessage contract::checkCodeObjectAgainst(const KernelDescriptor &d,
                                              const void *data, size_t size) {
  const std::string digest = sha256Hex(data, size);
  if (digest != d.codeObjectSha256)
    return "code object: its SHA-256 is " + digest +
           ", but the kernel descriptor's code_object_sha256 is " +
           d.codeObjectSha256 + " (not the code object it describes)";
  return checkKernelCodeObject(data, size, d.chip, d.kernel);
}
