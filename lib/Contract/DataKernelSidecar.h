//===- DataKernelSidecar.h - the shared descriptor schema -------*- C++ -*-===//
//
// The schema every data-movement kernel's descriptor follows
// (DataKernelDescriptor.h): kind and version, kernel, arguments (names in
// ABI order), workgroup_size, target, resources, code_object_sha256,
// mxgemm_version and llvm_version, plus the kind's own fields. Internal to
// lib/Contract.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_CONTRACT_DATAKERNELSIDECAR_H
#define MXGEMM_LIB_CONTRACT_DATAKERNELSIDECAR_H

#include "mxgemm/Contract/DataKernelDescriptor.h"
#include "mxgemm/Contract/KernelConfig.h"

#include "Json.h"

#include <functional>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace mxgemm::contract {

/// The rules of one kind of data-movement kernel.
struct DataKernelRules {
  /// Prefix of every message ("quantize descriptor").
  std::string_view what;
  /// "kind" (version 1 is the only one).
  std::string_view kind;
  /// The argument names in ABI order.
  std::vector<std::string_view> arguments;
  int64_t workgroupSize = 0;
  /// The bytes of the explicit arguments (the kernarg segment holds them).
  int64_t argumentBytes = 0;
};

/// Parses `text` with `rules`: the common fields into `out`, the kind's
/// fields (`ownFields`) through `readOwn`; no other field is allowed. Checks
/// every common rule (kind and version, argument names, workgroup size, a
/// kernarg segment that holds the arguments and at most 256 bytes, no
/// spills or scratch, a SHA-256 digest, an amdgcn-amd-amdhsa target, from
/// which `out.chip` is taken). The kind's own values are the caller's to
/// check afterwards.
ErrorMessage parseDataKernelSidecar(
    std::string_view text, const DataKernelRules &rules,
    std::initializer_list<std::string_view> ownFields,
    DataKernelDescriptor &out,
    const std::function<void(json::ObjectReader &)> &readOwn);

} // namespace mxgemm::contract

#endif // MXGEMM_LIB_CONTRACT_DATAKERNELSIDECAR_H
