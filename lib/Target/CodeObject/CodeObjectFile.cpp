//===- CodeObjectFile.cpp - bounds-checked AMDGPU ELF walking -------------===//
//
// Walks the ELF structures of a code object by hand instead of through
// llvm::object::ELFFile: every range is checked here, with the buffer size
// and overflow-free arithmetic (`fits` below), before a byte of it is read,
// so the reader's safety does not depend on which ELFFile accessors happen
// to check what. Structures are memcpy'd out of the buffer, which therefore
// needs no alignment. The host must be little-endian like the target.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Target/CodeObject.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/SwapByteOrder.h"

#include <cstring>

using namespace llvm;
using namespace mxgemm::target;

static_assert(sys::IsLittleEndianHost,
              "the code-object reader memcpy's little-endian ELF fields");

namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// True if [offset, offset + size) lies inside [0, limit). Written so that
/// no sum can wrap.
bool fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

/// True if `count` entries of `entrySize` bytes at `offset` lie inside
/// [0, limit).
bool tableFits(uint64_t offset, uint64_t count, uint64_t entrySize,
               uint64_t limit) {
  if (entrySize && count > limit / entrySize)
    return false;
  return fits(offset, count * entrySize, limit);
}

template <typename T> T readAt(ArrayRef<uint8_t> bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::string hex(uint64_t v) { return "0x" + utohexstr(v); }

/// A NUL-terminated string at `offset` of a string table, or an error.
Expected<StringRef> tableString(ArrayRef<uint8_t> table, uint64_t offset,
                                const Twine &what) {
  if (offset >= table.size())
    return makeError(what + " name offset " + Twine(offset) +
                     " is outside its string table (" + Twine(table.size()) +
                     " bytes)");
  StringRef rest(reinterpret_cast<const char *>(table.data()) + offset,
                 table.size() - offset);
  size_t end = rest.find('\0');
  if (end == StringRef::npos)
    return makeError(what + " name at offset " + Twine(offset) +
                     " is not NUL-terminated");
  return rest.take_front(end);
}

/// Checks the ELF identification and the header fields the AMDHSA loader
/// relies on; shared by parse() and claimedImageSize().
Error checkIdent(const ELF::Elf64_Ehdr &h) {
  if (std::memcmp(h.e_ident, ELF::ElfMagic, 4) != 0)
    return makeError("not an ELF file");
  if (h.e_ident[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      h.e_ident[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return makeError("not a 64-bit little-endian ELF");
  if (h.e_ident[ELF::EI_VERSION] != ELF::EV_CURRENT)
    return makeError("unknown ELF version " +
                     Twine(unsigned(h.e_ident[ELF::EI_VERSION])));
  if (h.e_ehsize != sizeof(ELF::Elf64_Ehdr))
    return makeError("ELF header size is " + Twine(h.e_ehsize) +
                     ", expected 64");
  return Error::success();
}

/// The section header table's claims, checked against `limit`.
Error checkSectionTable(const ELF::Elf64_Ehdr &h, uint64_t limit) {
  // Code objects always have section headers; extended numbering (e_shnum
  // = 0 with the count in section 0) is never used for them.
  if (h.e_shnum == 0 || h.e_shoff == 0)
    return makeError("no section header table");
  if (h.e_shnum >= ELF::SHN_LORESERVE)
    return makeError("e_shnum " + Twine(h.e_shnum) + " is reserved");
  if (h.e_shentsize != sizeof(ELF::Elf64_Shdr))
    return makeError("section header size is " + Twine(h.e_shentsize) +
                     ", expected 64");
  if (h.e_shoff < sizeof(ELF::Elf64_Ehdr) || h.e_shoff % 8)
    return makeError("section header table offset " + hex(h.e_shoff) +
                     " overlaps the ELF header or is misaligned");
  if (!tableFits(h.e_shoff, h.e_shnum, sizeof(ELF::Elf64_Shdr), limit))
    return makeError("section header table (" + Twine(h.e_shnum) +
                     " entries at " + hex(h.e_shoff) + ") exceeds the " +
                     Twine(limit) + "-byte image");
  if (h.e_shstrndx == ELF::SHN_UNDEF || h.e_shstrndx >= h.e_shnum)
    return makeError("section name table index " + Twine(h.e_shstrndx) +
                     " is not a section");
  return Error::success();
}

Error checkProgramTable(const ELF::Elf64_Ehdr &h, uint64_t limit) {
  if (h.e_phnum == 0)
    return Error::success();
  if (h.e_phnum == ELF::PN_XNUM)
    return makeError("extended program header numbering is not supported");
  if (h.e_phentsize != sizeof(ELF::Elf64_Phdr))
    return makeError("program header size is " + Twine(h.e_phentsize) +
                     ", expected 56");
  if (h.e_phoff < sizeof(ELF::Elf64_Ehdr) || h.e_phoff % 8)
    return makeError("program header table offset " + hex(h.e_phoff) +
                     " overlaps the ELF header or is misaligned");
  if (!tableFits(h.e_phoff, h.e_phnum, sizeof(ELF::Elf64_Phdr), limit))
    return makeError("program header table (" + Twine(h.e_phnum) +
                     " entries at " + hex(h.e_phoff) + ") exceeds the " +
                     Twine(limit) + "-byte image");
  return Error::success();
}

/// Entry address of a kernel: descriptor + signed entry offset (+ 256 with
/// preloaded kernargs), or nothing if that leaves the 64-bit address space.
std::optional<uint64_t> entryAddress(uint64_t descriptor,
                                     const KernelDescriptor &kd) {
  uint64_t address;
  int64_t offset = kd.kernelCodeEntryByteOffset;
  if (offset >= 0) {
    if (__builtin_add_overflow(descriptor, uint64_t(offset), &address))
      return std::nullopt;
  } else {
    // -offset of INT64_MIN is not an int64_t; compare as unsigned.
    uint64_t back = uint64_t(0) - uint64_t(offset);
    if (back > descriptor)
      return std::nullopt;
    address = descriptor - back;
  }
  if (kd.kernargPreloadLength() &&
      __builtin_add_overflow(address, uint64_t(256), &address))
    return std::nullopt;
  return address;
}

} // namespace

KernelDescriptor KernelDescriptor::decode(const uint8_t *p) {
  auto get = [&](auto &field, unsigned offset) {
    std::memcpy(&field, p + offset, sizeof(field));
  };
  KernelDescriptor kd;
  get(kd.groupSegmentFixedSize, 0);
  get(kd.privateSegmentFixedSize, 4);
  get(kd.kernargSize, 8);
  get(kd.kernelCodeEntryByteOffset, 16);
  get(kd.computePgmRsrc3, 44);
  get(kd.computePgmRsrc1, 48);
  get(kd.computePgmRsrc2, 52);
  get(kd.kernelCodeProperties, 56);
  get(kd.kernargPreload, 58);
  return kd;
}

unsigned CodeObjectFile::machine() const { return Flags & ELF::EF_AMDGPU_MACH; }

const ElfSection *CodeObjectFile::findSection(StringRef name) const {
  for (const ElfSection &s : Sections)
    if (s.name == name)
      return &s;
  return nullptr;
}

ArrayRef<uint8_t> CodeObjectFile::contents(const ElfSection &s) const {
  if (s.type == ELF::SHT_NOBITS)
    return {};
  return Bytes.slice(s.offset, s.size);
}

Expected<CodeObjectFile> CodeObjectFile::parse(ArrayRef<uint8_t> bytes) {
  CodeObjectFile file;
  file.Bytes = bytes;
  const uint64_t size = bytes.size();
  if (size < sizeof(ELF::Elf64_Ehdr) ||
      std::memcmp(bytes.data(), ELF::ElfMagic, 4) != 0)
    return makeError("not an ELF file");
  auto h = readAt<ELF::Elf64_Ehdr>(bytes, 0);
  if (Error e = checkIdent(h))
    return e;
  if (h.e_machine != ELF::EM_AMDGPU)
    return makeError("e_machine is " + Twine(h.e_machine) +
                     ", expected EM_AMDGPU (224)");
  if (h.e_ident[ELF::EI_OSABI] != ELF::ELFOSABI_AMDGPU_HSA)
    return makeError("OS ABI is not AMDGPU HSA");
  uint8_t abi = h.e_ident[ELF::EI_ABIVERSION];
  if (abi < ELF::ELFABIVERSION_AMDGPU_HSA_V4 ||
      abi > ELF::ELFABIVERSION_AMDGPU_HSA_V6)
    return makeError("unsupported code object version (ABI version " +
                     Twine(unsigned(abi)) + "; need v4, v5 or v6)");
  file.Type = h.e_type;
  file.AbiVersion = abi;
  file.Flags = h.e_flags;
  if (Error e = checkSectionTable(h, size))
    return e;
  if (Error e = checkProgramTable(h, size))
    return e;

  // Segments: only their file ranges matter here (nothing is mapped).
  for (unsigned i = 0; i < h.e_phnum; ++i) {
    auto ph = readAt<ELF::Elf64_Phdr>(bytes, h.e_phoff + uint64_t(i) * 56);
    if (!fits(ph.p_offset, ph.p_filesz, size))
      return makeError("segment " + Twine(i) + " (" + Twine(ph.p_filesz) +
                       " bytes at " + hex(ph.p_offset) + ") lies outside the " +
                       Twine(size) + "-byte file");
  }

  // Sections: ranges first, then names (the name table is a section).
  std::vector<ELF::Elf64_Shdr> headers(h.e_shnum);
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    headers[i] = readAt<ELF::Elf64_Shdr>(
        bytes, h.e_shoff + uint64_t(i) * sizeof(ELF::Elf64_Shdr));
    const ELF::Elf64_Shdr &sh = headers[i];
    if (sh.sh_type != ELF::SHT_NOBITS && !fits(sh.sh_offset, sh.sh_size, size))
      return makeError("section " + Twine(i) + " (" + Twine(sh.sh_size) +
                       " bytes at " + hex(sh.sh_offset) +
                       ") lies outside the " + Twine(size) + "-byte file");
  }
  const ELF::Elf64_Shdr &names = headers[h.e_shstrndx];
  if (names.sh_type != ELF::SHT_STRTAB)
    return makeError("section name table (section " + Twine(h.e_shstrndx) +
                     ") is not a string table");
  ArrayRef<uint8_t> nameTable = bytes.slice(names.sh_offset, names.sh_size);
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    const ELF::Elf64_Shdr &sh = headers[i];
    auto name = tableString(nameTable, sh.sh_name, "section " + Twine(i));
    if (!name)
      return name.takeError();
    ElfSection s;
    s.name = name->str();
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.address = sh.sh_addr;
    s.offset = sh.sh_offset;
    s.size = sh.sh_size;
    s.entrySize = sh.sh_entsize;
    s.alignment = sh.sh_addralign;
    s.link = sh.sh_link;
    s.info = sh.sh_info;
    file.Sections.push_back(std::move(s));
  }

  // Kernel descriptors: `<name>.kd` object symbols of 64 bytes, from
  // .symtab, or from .dynsym when .symtab has none (a stripped object).
  for (uint32_t wanted : {ELF::SHT_SYMTAB, ELF::SHT_DYNSYM}) {
    if (!file.Kernels.empty())
      break;
    for (unsigned index = 0; index < h.e_shnum; ++index) {
      const ELF::Elf64_Shdr &symtab = headers[index];
      if (symtab.sh_type != wanted)
        continue;
      if (symtab.sh_entsize != sizeof(ELF::Elf64_Sym) ||
          symtab.sh_size % sizeof(ELF::Elf64_Sym))
        return makeError("symbol table (section " + Twine(index) +
                         ") has entries of " + Twine(symtab.sh_entsize) +
                         " bytes and size " + Twine(symtab.sh_size) +
                         ", expected multiples of 24");
      if (symtab.sh_link == 0 || symtab.sh_link >= h.e_shnum ||
          headers[symtab.sh_link].sh_type != ELF::SHT_STRTAB)
        return makeError("symbol table (section " + Twine(index) +
                         ") does not link to a string table");
      const ELF::Elf64_Shdr &strtab = headers[symtab.sh_link];
      ArrayRef<uint8_t> strings = bytes.slice(strtab.sh_offset, strtab.sh_size);
      uint64_t count = symtab.sh_size / sizeof(ELF::Elf64_Sym);
      for (uint64_t i = 1; i < count; ++i) { // entry 0 is the null symbol
        auto sym = readAt<ELF::Elf64_Sym>(
            bytes, symtab.sh_offset + i * sizeof(ELF::Elf64_Sym));
        auto name = tableString(strings, sym.st_name, "symbol " + Twine(i));
        if (!name)
          return name.takeError();
        if (!name->ends_with(".kd"))
          continue;
        StringRef kernel = name->drop_back(3);
        bool duplicate = false;
        for (const KernelSymbol &k : file.Kernels)
          duplicate |= k.name == kernel;
        if (duplicate)
          continue;
        if (sym.st_size != KernelDescriptor::kSize)
          return makeError("kernel descriptor '" + *name + "' is " +
                           Twine(uint64_t(sym.st_size)) +
                           " bytes, expected 64");
        if (sym.st_shndx == ELF::SHN_UNDEF || sym.st_shndx >= h.e_shnum)
          return makeError("kernel descriptor '" + *name +
                           "' is not in a section");
        const ELF::Elf64_Shdr &home = headers[sym.st_shndx];
        // In a relocatable object the value is section-relative and
        // sh_addr is 0, so one rule serves both kinds of object.
        if (home.sh_type == ELF::SHT_NOBITS || sym.st_value < home.sh_addr ||
            !fits(sym.st_value - home.sh_addr, KernelDescriptor::kSize,
                  home.sh_size))
          return makeError("kernel descriptor '" + *name +
                           "' lies outside its section");
        KernelSymbol k;
        k.name = kernel.str();
        k.descriptorAddress = sym.st_value;
        k.descriptor = KernelDescriptor::decode(bytes.data() + home.sh_offset +
                                                (sym.st_value - home.sh_addr));
        auto entry = entryAddress(sym.st_value, k.descriptor);
        if (!entry)
          return makeError("kernel '" + kernel +
                           "' entry offset leaves the address space");
        k.entryAddress = *entry;
        file.Kernels.push_back(std::move(k));
      }
    }
  }

  // Notes: 12-byte header, name and desc each padded to the note alignment.
  for (unsigned index = 0; index < h.e_shnum; ++index) {
    const ELF::Elf64_Shdr &sh = headers[index];
    if (sh.sh_type != ELF::SHT_NOTE)
      continue;
    if (sh.sh_addralign > 1 && sh.sh_addralign != 4 && sh.sh_addralign != 8)
      return makeError("note section " + Twine(index) + " has alignment " +
                       Twine(sh.sh_addralign) + ", expected 4 or 8");
    const uint64_t align = sh.sh_addralign == 8 ? 8 : 4;
    ArrayRef<uint8_t> notes = bytes.slice(sh.sh_offset, sh.sh_size);
    uint64_t pos = 0;
    while (pos < notes.size()) {
      if (!fits(pos, sizeof(ELF::Elf64_Nhdr), notes.size()))
        return makeError("truncated note header in section " + Twine(index));
      auto nh = readAt<ELF::Elf64_Nhdr>(notes, pos);
      // 32-bit sizes: none of these sums can wrap a uint64_t.
      uint64_t nameAt = pos + sizeof(ELF::Elf64_Nhdr);
      uint64_t descAt = nameAt + alignTo(nh.n_namesz, align);
      if (!fits(nameAt, nh.n_namesz, notes.size()) ||
          !fits(descAt, nh.n_descsz, notes.size()))
        return makeError("note at offset " + Twine(pos) + " of section " +
                         Twine(index) + " (name " + Twine(nh.n_namesz) +
                         " bytes, desc " + Twine(nh.n_descsz) +
                         " bytes) overruns the section");
      StringRef noteName(reinterpret_cast<const char *>(notes.data()) + nameAt,
                         nh.n_namesz);
      noteName = noteName.take_until([](char c) { return c == '\0'; });
      if (noteName == "AMDGPU" && nh.n_type == ELF::NT_AMDGPU_METADATA) {
        if (file.Metadata)
          return makeError("more than one AMDGPU metadata note");
        auto md = parseMetadataNote(
            StringRef(reinterpret_cast<const char *>(notes.data()) + descAt,
                      nh.n_descsz));
        if (!md)
          return md.takeError();
        file.Metadata = std::move(*md);
      }
      // The last note's padding may be cut off by the section's end.
      pos = std::min<uint64_t>(descAt + alignTo(nh.n_descsz, align),
                               notes.size());
    }
  }

  // The one resource the note lacks comes from the descriptor.
  if (file.Metadata)
    for (KernelMetadata &m : file.Metadata->kernels)
      for (const KernelSymbol &k : file.Kernels)
        if (k.name == m.name || k.name + ".kd" == m.symbol)
          m.accumOffset = k.descriptor.accumOffset();
  return file;
}

Expected<CodeObjectMetadata>
mxgemm::target::readCodeObjectMetadata(StringRef elf) {
  auto file = CodeObjectFile::parse(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(elf.data()), elf.size()));
  if (!file)
    return file.takeError();
  if (!file->metadata())
    return makeError("code object has no AMDGPU metadata note");
  if (!file->metadata()->hasKernelList)
    return makeError("AMDGPU metadata has no amdhsa.kernels");
  return *file->metadata();
}

Expected<uint64_t> mxgemm::target::claimedImageSize(const uint8_t *header,
                                                    uint64_t maxBytes) {
  ELF::Elf64_Ehdr h;
  std::memcpy(&h, header, sizeof(h));
  if (Error e = checkIdent(h))
    return e;
  if (Error e = checkSectionTable(h, maxBytes))
    return e;
  uint64_t end = h.e_shoff + uint64_t(h.e_shnum) * sizeof(ELF::Elf64_Shdr);
  if (Error e = checkProgramTable(h, h.e_shoff))
    return makeError("program headers must precede the section headers: " +
                     toString(std::move(e)));
  return end;
}
