//===- DescriptorFuzzer.cpp - fuzz the kernel-descriptor JSON reader ------===//
//
// Every consumer (runtime, emulator tools, Python through the runtime)
// trusts what KernelDescriptor::parse accepts: the grid and the argument
// offsets it returns are used to launch. An accepted descriptor must
// therefore describe a grid that evaluates without error for M = 1 and
// round-trip through its own writer.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelDescriptor.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  namespace contract = mxgemm::contract;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  contract::KernelDescriptor d;
  if (contract::KernelDescriptor::parse(text, d))
    return 0;
  if (!d.grid.numWorkgroups(1) || !d.grid.tileOrigin(0, 1))
    std::abort(); // accepted, yet describes no usable grid
  contract::KernelDescriptor back;
  if (contract::KernelDescriptor::parse(d.toJson(), back) ||
      back.toJson() != d.toJson())
    std::abort(); // the writer and the reader disagree
  return 0;
}
