// V_FMAC_F32 (D = S0 * S1 + D, one rounding; LLVM's reciprocal refinement
// of an integer division by a run-time divisor, e.g. a tail split's count of
// tail tiles). Expected values from the definition: 2.0 * 3.0 + 1.0 = 7.0
// (0x40e00000); 0 * v + 5.0 = 5.0 (0x40a00000); the fused form keeps the
// product exact: (1 + 2^-23) * (1 - 2^-24) + -1.0 = 2^-24 - 2^-47
// (0x337ffffe), which a separate multiply would round to 0.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel ops --block 64 --buf o=4096 --arg buf:o --print o:u32:4 | FileCheck %s
// CHECK: o: 1088421888 1084227584 864026622 0{{$}}

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.globl ops
.p2align 8
ops:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 4, v0
  v_mov_b32 v2, 1.0
  v_mov_b32 v10, 2.0
  v_mov_b32 v11, 3.0
  v_fmac_f32_e32 v2, v10, v11                     // 7.0
  v_mov_b32 v3, 5.0
  v_fmac_f32_e32 v3, 0, v11                       // 5.0
  v_mov_b32 v4, -1.0
  v_mov_b32 v12, 0x3f800001                       // 1 + 2^-23
  v_mov_b32 v13, 0x3f7fffff                       // 1 - 2^-24
  v_fmac_f32_e64 v4, v12, v13
  v_mov_b32 v5, 0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[2:5], s[4:5]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel ops
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
.end_amdhsa_kernel
