//===- TestUtil.h - assemble gfx950 kernels for emulator tests --*- C++ -*-===//
//
// Unit tests build their code objects from assembly text with the real
// toolchain (llvm-mc -mcpu=gfx950, ld.lld -shared), so what the emulator is
// tested on is byte for byte what the assembler produces.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_UNITTESTS_EMULATOR_TESTUTIL_H
#define MXGEMM_UNITTESTS_EMULATOR_TESTUTIL_H

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::emu::test {

/// Assemble and link `source`; returns the code object bytes (empty and a
/// gtest failure if the toolchain fails).
std::vector<uint8_t> assemble(const std::string &source);

/// `.amdhsa_kernel` block for a kernel with a kernarg pointer in s[0:1] and
/// workgroup id x in s2.
std::string kernelDescriptor(const std::string &name, unsigned kernargBytes,
                             unsigned ldsBytes = 0);

/// Kernels with a metadata note (so kernelParams are laid out from
/// `.args`): out[gid] = in[gid] + value with gid = workgroup * 64 + work-item
/// (`add`, launched with 64-wide blocks; its metadata allows up to 256) or
/// workgroup * 256 + work-item (`add256`, which requires 256x1x1); `oob`
/// stores one dword past `out` (a checker finding).
extern const char *const AddKernels;
/// AddKernels assembled once.
const std::vector<uint8_t> &addObject();

} // namespace mxgemm::emu::test

#endif // MXGEMM_UNITTESTS_EMULATOR_TESTUTIL_H
