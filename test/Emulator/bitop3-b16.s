// v_bitop3_b16 (LLVM emits it for 16-bit index arithmetic on gfx950): the
// truth table acts on the low 16 bits of each source and writes bits
// [15:0]; bits [31:16] of the destination are kept (LLVM's model, see
// VectorOps.cpp). op_sel is not modelled and fails the run.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel low --block 64 --buf o=256 --arg buf:o --print o:u32:2 | FileCheck %s --check-prefix=LOW
// RUN: mxgemm-emu run %t.hsaco --kernel high --block 64 --buf o=256 --arg buf:o --print o:u32:2 | FileCheck %s --check-prefix=HIGH
// RUN: not mxgemm-emu run %t.hsaco --kernel opsel --block 64 --buf o=256 --arg buf:o 2>&1 | FileCheck %s --check-prefix=OPSEL

// 0xf8 = S0 | (S1 & S2): 0x40 | (0xff56 & 63) = 0x56; the source's high
// half (0xabcd) is ignored, the destination's stays: 0 in `low`, 0x1 in
// `high` (0x10056 = 65622).
// LOW: o: 86 86{{$}}
// HIGH: o: 65622 65622{{$}}
// OPSEL: op_sel/modifiers on v_bitop3_b16 are not modelled

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.globl low
.p2align 8
low:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 2, v0
  v_mov_b32 v3, 0x40
  v_mov_b32 v1, 0xabcdff56
  v_bitop3_b16 v3, v3, v1, 63 bitop3:0xf8
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v3, s[4:5]
  s_endpgm

.globl high
.p2align 8
high:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 2, v0
  v_mov_b32 v3, 0x10040
  v_mov_b32 v1, 0xabcdff56
  v_bitop3_b16 v3, v3, v1, 63 bitop3:0xf8
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v3, s[4:5]
  s_endpgm

.globl opsel
.p2align 8
opsel:
  v_bitop3_b16 v3, v3, v1, 63 bitop3:0xf8 op_sel:[0,0,0,1]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel low
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 24
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 24
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel
.amdhsa_kernel opsel
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 24
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 24
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel
.amdhsa_kernel high
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 24
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 24
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel
