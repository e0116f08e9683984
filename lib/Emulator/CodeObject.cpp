//===- CodeObject.cpp - load and validate gfx950 code objects
//--------------===//
//
// Reads the ELF with llvm::object::ELFFile (every accessor is bounds-checked
// and returns llvm::Expected, which is what keeps truncated or corrupted
// objects from crashing the loader), checks that it is an AMDHSA gfx950
// object, reads kernel descriptors and the msgpack metadata note, decodes
// `.text` and proves every instruction reachable from each kernel entry has
// a handler, so unsupported code is reported before anything runs.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/CodeObject.h"
#include "EmulatorImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;
using namespace mxgemm::emu;

namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           "invalid gfx950 code object: " + message);
}

template <typename T> T readLE(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value; // the host is little-endian like the target
}

uint32_t getUInt(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0;
  msgpack::DocNode &node = it->second;
  if (node.getKind() == msgpack::Type::UInt)
    return uint32_t(node.getUInt());
  if (node.getKind() == msgpack::Type::Int)
    return uint32_t(node.getInt());
  return 0;
}

std::string getString(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != msgpack::Type::String)
    return "";
  return it->second.getString().str();
}

/// Fill `kernels` (matched by name) from an `amdhsa.kernels` metadata blob.
Error parseMetadata(StringRef blob, std::vector<KernelInfo> &kernels) {
  msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false))
    return makeError("malformed msgpack metadata note");
  if (doc.getRoot().getKind() != msgpack::Type::Map)
    return makeError("metadata root is not a map");
  msgpack::MapDocNode &root = doc.getRoot().getMap();
  auto it = root.find("amdhsa.kernels");
  if (it == root.end())
    return Error::success();
  if (it->second.getKind() != msgpack::Type::Array)
    return makeError("amdhsa.kernels is not an array");
  for (msgpack::DocNode &k : it->second.getArray()) {
    if (k.getKind() != msgpack::Type::Map)
      return makeError("kernel metadata entry is not a map");
    msgpack::MapDocNode &map = k.getMap();
    std::string name = getString(map, ".name");
    std::string symbol = getString(map, ".symbol");
    for (KernelInfo &info : kernels) {
      if (info.name != name && info.name + ".kd" != symbol)
        continue;
      info.hasMetadata = true;
      info.vgprCount = getUInt(map, ".vgpr_count");
      info.agprCount = getUInt(map, ".agpr_count");
      info.sgprCount = getUInt(map, ".sgpr_count");
      info.kernargSegmentSize = getUInt(map, ".kernarg_segment_size");
      info.groupSegmentFixedSize = getUInt(map, ".group_segment_fixed_size");
      info.privateSegmentFixedSize =
          getUInt(map, ".private_segment_fixed_size");
      info.maxFlatWorkgroupSize = getUInt(map, ".max_flat_workgroup_size");
      auto req = map.find(".reqd_workgroup_size");
      if (req != map.end() && req->second.getKind() == msgpack::Type::Array) {
        unsigned d = 0;
        for (msgpack::DocNode &n : req->second.getArray())
          if (d < 3 && n.getKind() == msgpack::Type::UInt)
            info.reqdWorkgroupSize[d++] = uint32_t(n.getUInt());
      }
      auto args = map.find(".args");
      if (args != map.end() && args->second.getKind() == msgpack::Type::Array) {
        for (msgpack::DocNode &a : args->second.getArray()) {
          if (a.getKind() != msgpack::Type::Map)
            return makeError("kernel argument metadata is not a map");
          msgpack::MapDocNode &am = a.getMap();
          KernelArgInfo arg;
          arg.name = getString(am, ".name");
          arg.valueKind = getString(am, ".value_kind");
          arg.offset = getUInt(am, ".offset");
          arg.size = getUInt(am, ".size");
          info.args.push_back(arg);
        }
      }
    }
  }
  return Error::success();
}

} // namespace

CodeObject::CodeObject() : Prog(std::make_unique<Program>()) {}
CodeObject::~CodeObject() = default;

const KernelInfo *CodeObject::findKernel(StringRef name) const {
  for (const KernelInfo &k : Kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

Expected<std::unique_ptr<CodeObject>> CodeObject::loadFile(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(buffer.getError(),
                             "cannot read '" + path +
                                 "': " + buffer.getError().message());
  StringRef data = (*buffer)->getBuffer();
  return load(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()),
                                data.size()));
}

Expected<std::unique_ptr<CodeObject>>
CodeObject::load(ArrayRef<uint8_t> bytes) {
  std::unique_ptr<CodeObject> co(new CodeObject);
  co->Bytes.assign(bytes.begin(), bytes.end());
  StringRef data(reinterpret_cast<const char *>(co->Bytes.data()),
                 co->Bytes.size());
  if (data.size() < sizeof(ELF::Elf64_Ehdr) || !data.starts_with("\x7f"
                                                                 "ELF"))
    return makeError("not an ELF file");
  if (uint8_t(data[ELF::EI_CLASS]) != ELF::ELFCLASS64 ||
      uint8_t(data[ELF::EI_DATA]) != ELF::ELFDATA2LSB)
    return makeError("not a 64-bit little-endian ELF");
  auto elfOrErr = object::ELF64LEFile::create(data);
  if (!elfOrErr)
    return makeError(toString(elfOrErr.takeError()));
  const object::ELF64LEFile &elf = *elfOrErr;
  const auto &hdr = elf.getHeader();
  if (hdr.e_machine != ELF::EM_AMDGPU)
    return makeError("e_machine is " + Twine(hdr.e_machine) +
                     ", expected EM_AMDGPU (224)");
  if (hdr.e_ident[ELF::EI_OSABI] != ELF::ELFOSABI_AMDGPU_HSA)
    return makeError("OS ABI is not AMDGPU HSA");
  uint8_t abiVersion = hdr.e_ident[ELF::EI_ABIVERSION];
  if (abiVersion < ELF::ELFABIVERSION_AMDGPU_HSA_V4 ||
      abiVersion > ELF::ELFABIVERSION_AMDGPU_HSA_V6)
    return makeError("unsupported code object version (ABI version " +
                     Twine(unsigned(abiVersion)) + "; need v4, v5 or v6)");
  unsigned mach = hdr.e_flags & ELF::EF_AMDGPU_MACH;
  if (mach != ELF::EF_AMDGPU_MACH_AMDGCN_GFX950)
    return makeError("target is not gfx950 (EF_AMDGPU_MACH = 0x" +
                     utohexstr(mach) + ")");

  auto sectionsOrErr = elf.sections();
  if (!sectionsOrErr)
    return makeError(toString(sectionsOrErr.takeError()));
  auto sections = *sectionsOrErr;

  // Locate .text.
  const object::ELF64LE::Shdr *text = nullptr;
  for (const auto &sec : sections) {
    auto name = elf.getSectionName(sec);
    if (!name)
      return makeError(toString(name.takeError()));
    if (*name == ".text" && sec.sh_type == ELF::SHT_PROGBITS)
      text = &sec;
  }
  if (!text)
    return makeError("no .text section");
  auto textBytes = elf.getSectionContents(*text);
  if (!textBytes)
    return makeError(toString(textBytes.takeError()));

  // Kernel descriptors: every `<name>.kd` object symbol of 64 bytes.
  for (const auto &sec : sections) {
    if (sec.sh_type != ELF::SHT_SYMTAB && sec.sh_type != ELF::SHT_DYNSYM)
      continue;
    if (!co->Kernels.empty() && sec.sh_type == ELF::SHT_DYNSYM)
      continue; // .symtab already gave them
    auto symbols = elf.symbols(&sec);
    if (!symbols)
      return makeError(toString(symbols.takeError()));
    auto strtab = elf.getStringTableForSymtab(sec, sections);
    if (!strtab)
      return makeError(toString(strtab.takeError()));
    for (const auto &sym : *symbols) {
      auto name = sym.getName(*strtab);
      if (!name)
        return makeError(toString(name.takeError()));
      if (!name->ends_with(".kd"))
        continue;
      StringRef kernelName = name->drop_back(3);
      bool duplicate = false;
      for (const KernelInfo &k : co->Kernels)
        duplicate |= k.name == kernelName;
      if (duplicate)
        continue;
      if (sym.st_size != 64)
        return makeError("kernel descriptor '" + *name + "' is " +
                         Twine(uint64_t(sym.st_size)) + " bytes, expected 64");
      if (sym.st_shndx == ELF::SHN_UNDEF || sym.st_shndx >= sections.size())
        return makeError("kernel descriptor '" + *name +
                         "' is not in a section");
      const auto &kdSec = sections[sym.st_shndx];
      auto kdBytes = elf.getSectionContents(kdSec);
      if (!kdBytes)
        return makeError(toString(kdBytes.takeError()));
      if (sym.st_value < kdSec.sh_addr ||
          sym.st_value - kdSec.sh_addr > kdBytes->size() ||
          kdBytes->size() - (sym.st_value - kdSec.sh_addr) < 64)
        return makeError("kernel descriptor '" + *name +
                         "' lies outside its section");
      const uint8_t *p = kdBytes->data() + (sym.st_value - kdSec.sh_addr);
      KernelInfo info;
      info.name = kernelName.str();
      KernelDescriptor &kd = info.descriptor;
      kd.groupSegmentFixedSize = readLE<uint32_t>(p + 0);
      kd.privateSegmentFixedSize = readLE<uint32_t>(p + 4);
      kd.kernargSize = readLE<uint32_t>(p + 8);
      kd.kernelCodeEntryByteOffset = readLE<int64_t>(p + 16);
      kd.computePgmRsrc3 = readLE<uint32_t>(p + 44);
      kd.computePgmRsrc1 = readLE<uint32_t>(p + 48);
      kd.computePgmRsrc2 = readLE<uint32_t>(p + 52);
      kd.kernelCodeProperties = readLE<uint16_t>(p + 56);
      kd.kernargPreload = readLE<uint16_t>(p + 58);
      if (kd.hasProperty(10))
        return makeError("kernel '" + kernelName +
                         "' is wave32; gfx950 is wave64 only");
      // Kernels with preloaded kernargs start 256 bytes in on firmware that
      // preloads (the first 256 bytes are a compatibility trampoline).
      uint64_t entryVA = uint64_t(sym.st_value) +
                         uint64_t(kd.kernelCodeEntryByteOffset) +
                         (kd.kernargPreloadLength() ? 256 : 0);
      if (entryVA < text->sh_addr ||
          entryVA - text->sh_addr >= textBytes->size() || entryVA % 4)
        return makeError("kernel '" + kernelName +
                         "' entry point is not inside .text");
      info.entryTextOffset = entryVA - text->sh_addr;
      info.groupSegmentFixedSize = kd.groupSegmentFixedSize;
      info.kernargSegmentSize = kd.kernargSize;
      info.privateSegmentFixedSize = kd.privateSegmentFixedSize;
      co->Kernels.push_back(std::move(info));
    }
  }
  if (co->Kernels.empty())
    return makeError("no kernel descriptor (<name>.kd symbol) found");

  // Metadata notes.
  for (const auto &sec : sections) {
    if (sec.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf.notes(sec, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(sec.sh_addralign);
      if (Error e = parseMetadata(
              StringRef(reinterpret_cast<const char *>(desc.data()),
                        desc.size()),
              co->Kernels)) {
        consumeError(std::move(err));
        return e;
      }
    }
    if (err)
      return makeError(toString(std::move(err)));
  }

  if (Error e = decodeProgram(*textBytes, text->sh_addr, *co->Prog))
    return e;
  for (KernelInfo &k : co->Kernels) {
    int32_t index = co->Prog->indexOfOffset[k.entryTextOffset];
    if (index < 0)
      return makeError("kernel '" + k.name +
                       "' entry point is not an instruction boundary");
    k.entryIndex = uint32_t(index);
    if (Error e = checkReachable(*co->Prog, k.entryIndex, k.name))
      return e;
  }
  return co;
}

std::string CodeObject::dump() const {
  std::string out;
  raw_string_ostream os(out);
  for (const KernelInfo &k : Kernels) {
    const KernelDescriptor &kd = k.descriptor;
    os << "kernel " << k.name << ": entry .text+0x"
       << format_hex_no_prefix(k.entryTextOffset, 1)
       << " lds=" << kd.groupSegmentFixedSize << " kernarg=" << kd.kernargSize
       << " user_sgprs=" << kd.userSgprCount()
       << " rsrc1=" << format_hex(kd.computePgmRsrc1, 10)
       << " rsrc2=" << format_hex(kd.computePgmRsrc2, 10)
       << " rsrc3=" << format_hex(kd.computePgmRsrc3, 10)
       << " props=" << format_hex(kd.kernelCodeProperties, 6);
    if (k.hasMetadata)
      os << " vgprs=" << k.vgprCount << " agprs=" << k.agprCount
         << " sgprs=" << k.sgprCount << " args=" << k.args.size();
    os << "\n";
  }
  for (size_t i = 0; i < Prog->insts.size(); ++i) {
    os << format_hex_no_prefix(Prog->insts[i].offset, 6) << ": "
       << Prog->text[i];
    if (!Prog->unhandled[i].empty())
      os << "    ; not modelled: " << Prog->unhandled[i];
    os << "\n";
  }
  return out;
}
