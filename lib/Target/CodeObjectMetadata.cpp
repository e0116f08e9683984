//===- CodeObjectMetadata.cpp - kernel resources of a code object
//-----------===//
//
// The AMDHSA metadata note is the backend's own record of registers, LDS and
// scratch; reading it back keeps sidecars honest.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Target/CodeObjectMetadata.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"

using namespace llvm;

static int64_t getInt(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0;
  msgpack::DocNode &v = it->second;
  if (v.getKind() == msgpack::Type::UInt)
    return static_cast<int64_t>(v.getUInt());
  if (v.getKind() == msgpack::Type::Int)
    return v.getInt();
  return 0;
}

static std::string getString(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != msgpack::Type::String)
    return "";
  return it->second.getString().str();
}

Expected<mxgemm::CodeObjectInfo> mxgemm::readCodeObjectInfo(StringRef elf) {
  auto buffer = MemoryBuffer::getMemBuffer(elf, "code object",
                                           /*RequiresNullTerminator=*/false);
  auto file =
      object::ObjectFile::createELFObjectFile(buffer->getMemBufferRef());
  if (!file)
    return file.takeError();
  auto *elf64 = dyn_cast<object::ELF64LEObjectFile>(file->get());
  if (!elf64 || elf64->getELFFile().getHeader().e_machine != ELF::EM_AMDGPU)
    return createStringError("not an AMDGPU ELF64 code object");
  const auto &elfFile = elf64->getELFFile();
  auto sections = elfFile.sections();
  if (!sections)
    return sections.takeError();
  for (const auto &section : *sections) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elfFile.notes(section, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      msgpack::Document doc;
      if (!doc.readFromBlob(
              StringRef(reinterpret_cast<const char *>(desc.data()),
                        desc.size()),
              /*Multi=*/false))
        return createStringError("malformed AMDGPU metadata note");
      if (doc.getRoot().getKind() != msgpack::Type::Map)
        return createStringError("AMDGPU metadata is not a map");
      CodeObjectInfo info;
      auto &root = doc.getRoot().getMap();
      info.target = getString(root, "amdhsa.target");
      auto kernels = root.find("amdhsa.kernels");
      if (kernels == root.end() ||
          kernels->second.getKind() != msgpack::Type::Array)
        return createStringError("AMDGPU metadata has no amdhsa.kernels");
      for (msgpack::DocNode &node : kernels->second.getArray()) {
        if (node.getKind() != msgpack::Type::Map)
          return createStringError("malformed amdhsa.kernels entry");
        auto &k = node.getMap();
        KernelResources r;
        r.name = getString(k, ".name");
        r.symbol = getString(k, ".symbol");
        r.vgprCount = getInt(k, ".vgpr_count");
        r.agprCount = getInt(k, ".agpr_count");
        r.sgprCount = getInt(k, ".sgpr_count");
        r.vgprSpillCount = getInt(k, ".vgpr_spill_count");
        r.sgprSpillCount = getInt(k, ".sgpr_spill_count");
        r.privateSegmentFixedSize = getInt(k, ".private_segment_fixed_size");
        r.groupSegmentFixedSize = getInt(k, ".group_segment_fixed_size");
        r.kernargSegmentSize = getInt(k, ".kernarg_segment_size");
        r.maxFlatWorkgroupSize = getInt(k, ".max_flat_workgroup_size");
        r.wavefrontSize = getInt(k, ".wavefront_size");
        info.kernels.push_back(std::move(r));
      }
      return info;
    }
    if (err)
      return err;
  }
  return createStringError("code object has no AMDGPU metadata note");
}
