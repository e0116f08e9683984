//===- DataKernelDescriptor.h - sidecars of data-movement kernels -*- C++
//-*-===//
//
// What the descriptors of the runtime's data-movement kernels (quantize,
// weight packing) have in common: mxgemm-compile writes one JSON document
// beside each code object with the kernel's name, target, workgroup size,
// resources and SHA-256, plus the fields of its kind
// (QuantizeDescriptor.h, PackPanelsDescriptor.h). The readers share one
// schema check (lib/Contract/DataKernelSidecar.h), so the runtime checks
// every embedded data-movement kernel the same way before first use.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_DATAKERNELDESCRIPTOR_H
#define MXGEMM_CONTRACT_DATAKERNELDESCRIPTOR_H

#include <cstdint>
#include <string>

namespace mxgemm::contract {

struct DataKernelDescriptor {
  std::string kernel;
  /// The code object's target triple and processor
  /// ("amdgcn-amd-amdhsa--gfx950") and the processor alone ("gfx950").
  std::string target, chip;
  int64_t workgroupSize = 0;
  int64_t vgprCount = 0, sgprCount = 0, vgprSpillCount = 0, scratchBytes = 0;
  int64_t kernargSegmentBytes = 0;
  std::string codeObjectSha256;
};

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_DATAKERNELDESCRIPTOR_H
