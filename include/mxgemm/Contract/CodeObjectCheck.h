//===- CodeObjectCheck.h - is this the code object a descriptor names? ---===//
//
// What a consumer checks before it hands a code object to HIP: the bytes
// are the ones the kernel descriptor was written for (its
// `code_object_sha256`), and they are an AMDGPU HSA ELF for the
// descriptor's chip that defines the descriptor's kernel. The ELF walk is
// bounded by the buffer: every offset, count and string is checked against
// `size` before it is read, so a truncated or corrupted image is a
// message, never a read past the end. It is deliberately shallow (header,
// section headers, dynamic symbols); hipModuleLoadData validates the rest.
// No MLIR or LLVM dependency: the runtime uses it.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_CODEOBJECTCHECK_H
#define MXGEMM_CONTRACT_CODEOBJECTCHECK_H

#include "mxgemm/Contract/KernelConfig.h"

#include <cstddef>
#include <string_view>

namespace mxgemm::contract {

struct KernelDescriptor;

/// Checks that `data` (`size` bytes) is a 64-bit little-endian AMDGPU HSA
/// ELF shared object for `chip` whose dynamic symbol table defines the
/// kernel `kernel` (a function) and its kernel descriptor `kernel.kd` (a
/// 64-byte object).
ErrorMessage checkKernelCodeObject(const void *data, size_t size,
                                   std::string_view chip,
                                   std::string_view kernel);

/// The SHA-256 of the bytes equals `descriptor.codeObjectSha256`, then
/// checkKernelCodeObject for the descriptor's chip and kernel.
ErrorMessage checkCodeObjectAgainst(const KernelDescriptor &descriptor,
                                    const void *data, size_t size);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_CODEOBJECTCHECK_H
