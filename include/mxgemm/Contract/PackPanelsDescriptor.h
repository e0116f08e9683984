//===- PackPanelsDescriptor.h - the sidecar of a packing kernel -*- C++ -*-===//
//
// The JSON that mxgemm-compile writes beside a code object compiled from
// mxgemm.pack_panels ("kind": "mxgemm-pack-panels", version 1;
// lib/Compiler/PackPanelsCompiler.cpp). Beside the common fields
// (DataKernelDescriptor.h) it names the MFMA shape whose panels the kernel
// writes (WeightPanels.h). The version-1 ABI: arguments w, packed (8-byte
// pointers at 0, 8), N and K (i32 at 16, 20); 256 work-items per
// workgroup, one 2048-byte panel per 64-lane wave, so a grid of
// ceil(panels / 4) workgroups. No MLIR or LLVM: the runtime links it.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_PACKPANELSDESCRIPTOR_H
#define MXGEMM_CONTRACT_PACKPANELSDESCRIPTOR_H

#include "mxgemm/Contract/DataKernelDescriptor.h"
#include "mxgemm/Contract/KernelConfig.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace mxgemm::contract {

struct PackPanelsDescriptor : DataKernelDescriptor {
  /// The kernel ABI of version 1 (offsets in the kernarg segment).
  static constexpr uint32_t kWOffset = 0, kPackedOffset = 8, kNOffset = 16,
                            kKOffset = 20, kArgumentBytes = 24;
  static constexpr int64_t kWorkgroupSize = 256, kPanelsPerWorkgroup = 4;

  /// "m32n32k64" (nonK 32, kStep 64) or "m16n16k128" (16, 128).
  std::string mfma;
  int64_t nonK = 0, kStep = 0, panelsPerWorkgroup = 0;

  /// Parses and checks `text`: the common schema and rules, a known MFMA
  /// shape whose non_k and k_step are the contract's, 4 panels per
  /// workgroup.
  static ErrorMessage parse(std::string_view text, PackPanelsDescriptor &out);
};

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_PACKPANELSDESCRIPTOR_H
