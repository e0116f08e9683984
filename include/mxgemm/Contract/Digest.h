//===- Digest.h - the SHA-256 of code objects -------------------*- C++ -*-===//
//
// The one SHA-256 of the project: the compiler writes it into a kernel
// descriptor's `code_object_sha256`, and the runtime checks a code object
// against it before loading it. Computed by libmd (Debian's libmd-dev, the
// BSD <sha2.h> digests), so that the runtime, which links neither LLVM nor
// MLIR, and the compiler share one implementation.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_DIGEST_H
#define MXGEMM_CONTRACT_DIGEST_H

#include <cstddef>
#include <string>
#include <string_view>

namespace mxgemm::contract {

/// The SHA-256 of `size` bytes at `data` as 64 lower-case hex digits.
/// `data` may be null when `size` is 0.
std::string sha256Hex(const void *data, size_t size);

/// True if `text` is what sha256Hex writes: 64 lower-case hex digits.
bool isSha256Hex(std::string_view text);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_DIGEST_H
