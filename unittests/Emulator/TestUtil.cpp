//===- TestUtil.cpp - assemble gfx950 kernels for tests -------------------===//
//
// Runs llvm-mc and ld.lld from the LLVM the project was configured with in a
// private temporary directory.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace llvm;

std::vector<uint8_t> mxgemm::emu::test::assemble(const std::string &source) {
  SmallString<128> dir;
  if (sys::fs::createUniqueDirectory("mxgemm-emu-test", dir)) {
    ADD_FAILURE() << "cannot create a temporary directory";
    return {};
  }
  std::string s = (dir + "/k.s").str(), o = (dir + "/k.o").str(),
              h = (dir + "/k.hsaco").str(), log = (dir + "/log").str();
  {
    std::error_code ec;
    raw_fd_ostream os(s, ec);
    os << source;
  }
  std::string tools = MXGEMM_LLVM_TOOLS_DIR;
  std::string cmd = tools +
                    "/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 "
                    "-filetype=obj " +
                    s + " -o " + o + " 2>" + log + " && " + tools +
                    "/ld.lld -shared " + o + " -o " + h + " 2>>" + log;
  std::vector<uint8_t> bytes;
  if (std::system(cmd.c_str()) != 0) {
    auto err = MemoryBuffer::getFile(log);
    ADD_FAILURE() << "assembling failed:\n"
                  << (err ? (*err)->getBuffer().str() : std::string());
  } else if (auto buf = MemoryBuffer::getFile(h)) {
    StringRef b = (*buf)->getBuffer();
    bytes.assign(b.begin(), b.end());
  }
  sys::fs::remove_directories(dir);
  return bytes;
}

std::string mxgemm::emu::test::kernelDescriptor(const std::string &name,
                                                unsigned kernargBytes,
                                                unsigned ldsBytes) {
  return ".rodata\n.p2align 6\n.amdhsa_kernel " + name +
         "\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 32\n"
         "  .amdhsa_accum_offset 64\n"
         "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
         "  .amdhsa_system_sgpr_workgroup_id_x 1\n"
         "  .amdhsa_kernarg_size " +
         std::to_string(kernargBytes) +
         "\n  .amdhsa_group_segment_fixed_size " + std::to_string(ldsBytes) +
         "\n.end_amdhsa_kernel\n.text\n";
}

const char *const mxgemm::emu::test::AddKernels = R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl add
.p2align 8
.type add,@function
add:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s8, s[0:1], 0x10
  s_lshl_b32 s9, s2, 6
  v_add_u32 v1, s9, v0
  v_lshlrev_b32 v1, 2, v1
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_u32 v2, s8, v2
  global_store_dword v1, v2, s[6:7]
  s_endpgm

.globl add256
.p2align 8
.type add256,@function
add256:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s8, s[0:1], 0x10
  s_lshl_b32 s9, s2, 8
  v_add_u32 v1, s9, v0
  v_lshlrev_b32 v1, 2, v1
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_u32 v2, s8, v2
  global_store_dword v1, v2, s[6:7]
  s_endpgm

.globl oob
.p2align 8
.type oob,@function
oob:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32 v1, 256
  v_mov_b32 v2, 0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel add
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 24
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel add256
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 24
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel oob
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: add
    .symbol: add.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: value, .offset: 16, .size: 4, .value_kind: by_value }
  - .name: add256
    .symbol: add256.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
    .reqd_workgroup_size: [ 256, 1, 1 ]
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: value, .offset: 16, .size: 4, .value_kind: by_value }
  - .name: oob
    .symbol: oob.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
)";

const std::vector<uint8_t> &mxgemm::emu::test::addObject() {
  static std::vector<uint8_t> bytes = assemble(AddKernels);
  return bytes;
}
