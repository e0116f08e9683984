//===- CodeObject.cpp - load and validate gfx950 code objects -------------===//
//
// The ELF, the kernel descriptors and the metadata note come from the one
// bounds-checked reader (mxgemm/Target/CodeObject.h); this file adds what is
// specific to the emulator: the object must be for gfx950 and wave64, every
// kernel must start inside `.text`, and every instruction reachable from a
// kernel entry must have a handler, so unsupported code is reported before
// anything runs.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/CodeObject.h"
#include "EmulatorImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace mxgemm::emu;

namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           "invalid gfx950 code object: " + message);
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
  auto file = target::CodeObjectFile::parse(co->Bytes);
  if (!file)
    return makeError(toString(file.takeError()));
  unsigned mach = file->machine();
  if (mach != ELF::EF_AMDGPU_MACH_AMDGCN_GFX950)
    return makeError("target is not gfx950 (EF_AMDGPU_MACH = 0x" +
                     utohexstr(mach) + ")");
  const target::ElfSection *text = file->findSection(".text");
  if (!text || text->type != ELF::SHT_PROGBITS)
    return makeError("no .text section");
  ArrayRef<uint8_t> textBytes = file->contents(*text);

  for (const target::KernelSymbol &symbol : file->kernels()) {
    const KernelDescriptor &kd = symbol.descriptor;
    if (kd.isWave32())
      return makeError("kernel '" + symbol.name +
                       "' is wave32; gfx950 is wave64 only");
    uint64_t entry = symbol.entryAddress;
    if (entry < text->address || entry - text->address >= textBytes.size() ||
        entry % 4)
      return makeError("kernel '" + symbol.name +
                       "' entry point is not inside .text");
    KernelInfo info;
    info.name = symbol.name;
    info.descriptor = kd;
    info.entryTextOffset = entry - text->address;
    info.groupSegmentFixedSize = kd.groupSegmentFixedSize;
    info.kernargSegmentSize = kd.kernargSize;
    info.privateSegmentFixedSize = kd.privateSegmentFixedSize;
    co->Kernels.push_back(std::move(info));
  }
  if (co->Kernels.empty())
    return makeError("no kernel descriptor (<name>.kd symbol) found");

  // The metadata note, when present, is matched to descriptors by name.
  if (const auto &md = file->metadata()) {
    for (const target::KernelMetadata &m : md->kernels) {
      for (KernelInfo &info : co->Kernels) {
        if (info.name != m.name && info.name + ".kd" != m.symbol)
          continue;
        info.hasMetadata = true;
        info.vgprCount = m.vgprCount;
        info.agprCount = m.agprCount;
        info.sgprCount = m.sgprCount;
        info.kernargSegmentSize = m.kernargSegmentSize;
        info.groupSegmentFixedSize = m.groupSegmentFixedSize;
        info.privateSegmentFixedSize = m.privateSegmentFixedSize;
        info.maxFlatWorkgroupSize = m.maxFlatWorkgroupSize;
        std::copy(std::begin(m.reqdWorkgroupSize),
                  std::end(m.reqdWorkgroupSize), info.reqdWorkgroupSize);
        info.args = m.args;
      }
    }
  }

  if (Error e = decodeProgram(textBytes, text->address, *co->Prog))
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
