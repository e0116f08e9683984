//===- QuantizeDescriptor.h - the sidecar of a quantize kernel --*- C++ -*-===//
//
// The JSON that mxgemm-compile writes beside a code object compiled from
// mxgemm.quantize ("kind": "mxgemm-quantize", version 1;
// lib/Compiler/QuantizeCompiler.cpp). The reader checks the schema and the
// one kernel ABI this version has, so that a consumer (the runtime) can
// pack the arguments from it without re-deriving anything: arguments
// input, codes, scales (8-byte pointers at 0, 8, 16), M and K (i32 at 24,
// 28), 256 work-items per workgroup, one 32-element block per work-item.
// No MLIR or LLVM: the runtime links it.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_QUANTIZEDESCRIPTOR_H
#define MXGEMM_CONTRACT_QUANTIZEDESCRIPTOR_H

#include "mxgemm/Contract/DataKernelDescriptor.h"
#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/ScaleLayout.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace mxgemm::contract {

struct QuantizeDescriptor : DataKernelDescriptor {
  /// The kernel ABI of version 1 (offsets in the kernarg segment).
  static constexpr uint32_t kInputOffset = 0, kCodesOffset = 8,
                            kScalesOffset = 16, kMOffset = 24, kKOffset = 28,
                            kArgumentBytes = 32;
  static constexpr int64_t kWorkgroupSize = 256, kBlocksPerWorkgroup = 256;

  /// "bf16", "f16" or "f32"; "e4m3" or "e5m2".
  std::string inType, format;
  /// The layout the kernel writes the scales in (ScaleLayout.h).
  ScaleLayout scaleLayout = ScaleLayout::RowMajor;
  int64_t blocksPerWorkgroup = 0;

  /// Parses and checks `text`: every field present and of its type, no
  /// unknown field, the version-1 ABI (argument names in order, workgroup
  /// size, blocks per workgroup, a kernarg segment that holds the
  /// arguments), a known input type and format, a SHA-256 hex digest.
  static ErrorMessage parse(std::string_view text, QuantizeDescriptor &out);
};

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_QUANTIZEDESCRIPTOR_H
