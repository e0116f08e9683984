//===- CodeObjectMetadata.h - kernel resources of a code object ----*- C++
//-*-===//
//
// Reads the AMDHSA metadata note (msgpack) of a linked code object so that
// tools record what the backend really allocated, not what we hoped for.
// Depends on LLVM only.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_CODEOBJECTMETADATA_H
#define MXGEMM_TARGET_CODEOBJECTMETADATA_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm {

struct KernelResources {
  std::string name;
  std::string symbol;
  int64_t vgprCount = 0, agprCount = 0, sgprCount = 0;
  int64_t vgprSpillCount = 0, sgprSpillCount = 0;
  int64_t privateSegmentFixedSize = 0; // scratch bytes per lane
  int64_t groupSegmentFixedSize = 0;   // LDS bytes
  int64_t kernargSegmentSize = 0;
  int64_t maxFlatWorkgroupSize = 0;
  int64_t wavefrontSize = 0;
};

struct CodeObjectInfo {
  std::string target; // amdhsa.target, e.g. amdgcn-amd-amdhsa--gfx950
  std::vector<KernelResources> kernels;
};

/// Parses the NT_AMDGPU_METADATA note of an AMDGPU ELF code object.
llvm::Expected<CodeObjectInfo> readCodeObjectInfo(llvm::StringRef elf);

} // namespace mxgemm

#endif // MXGEMM_TARGET_CODEOBJECTMETADATA_H
