//===- CodeObjectFuzzer.cpp - the code-object loader on arbitrary bytes ---===//
//
// Whatever the bytes, loading must end in a code object or an llvm::Error:
// the HIP facade loads what its callers hand over. One input drives
//  - the emulator's sized loader, CodeObject::load: the ELF walk, kernel
//    descriptors and metadata note of the one code-object reader, then the
//    decoding of .text and the reachability check; what loads is dumped,
//    which walks the decoded program;
//  - the facade's rule for images without a size: the extent the first 64
//    bytes claim (claimedImageSize), then the sized loader on exactly that
//    prefix when the input holds it (the rule's precondition);
//  - the compiler's metadata reader, readCodeObjectMetadata.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/CodeObject.h"
#include "mxgemm/Emulator/HipFacade.h"
#include "mxgemm/Target/CodeObject.h"

#include <cstddef>
#include <cstdint>

using namespace mxgemm;

static void loadAndDump(llvm::ArrayRef<uint8_t> bytes) {
  auto object = emu::CodeObject::load(bytes);
  if (!object) {
    llvm::consumeError(object.takeError());
    return;
  }
  (void)(*object)->dump();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::ArrayRef<uint8_t> bytes(data, size);
  loadAndDump(bytes);

  if (size >= 64) {
    auto claimed = target::claimedImageSize(data, mxgemmHipMaxImageBytes);
    if (!claimed)
      llvm::consumeError(claimed.takeError());
    else if (*claimed <= size && *claimed != size)
      loadAndDump(bytes.take_front(*claimed));
  }

  auto metadata = target::readCodeObjectMetadata(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (!metadata)
    llvm::consumeError(metadata.takeError());
  return 0;
}
