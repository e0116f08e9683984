// V_PK_ADD_F32 (VOP3P, the quantize kernels' round-to-integer step): two
// FP32 adds, D[31:0] = S0' + S1', D[63:32] = S0'' + S1''. Per source,
// op_sel picks the dword feeding the low result (0: low, 1: high) and
// op_sel_hi the one feeding the high result (default 1: high); neg and
// neg_hi negate them. Expected values from those definitions: 1.5 + 2^23
// rounds to nearest even (0x4b000002), 2.5 + 2^23 too (0x4b000002).
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel ops --block 64 --buf o=4096 --arg buf:o --print o:u32:8 | FileCheck %s
// 0x40400000 (3.0), 0x40e00000 (7.0); 0x4b000002, 0x4b000002; 0x4b000002,
// 0x4b000002; 0x40000000 (-1.0 + 3.0), 0x3f800000 (4.0 - 3.0).
// CHECK: o: 1077936128 1088421888 1258291202 1258291202 1258291202 1258291202 1073741824 1065353216{{$}}

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.globl ops
.p2align 8
ops:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 5, v0
  v_mov_b32 v10, 1.0
  v_mov_b32 v11, 4.0
  v_mov_b32 v12, 2.0
  v_mov_b32 v13, 3.0
  v_pk_add_f32 v[2:3], v[10:11], v[12:13]               // 3.0, 7.0
  v_mov_b32 v14, 1.5
  v_mov_b32 v15, 2.5
  s_mov_b32 s8, 0x4b000000
  s_mov_b32 s9, 0
  v_pk_add_f32 v[4:5], v[14:15], s[8:9] op_sel_hi:[1,0] // s8 to both halves
  v_pk_add_f32 v[6:7], v[14:15], s[8:9] op_sel:[1,0] op_sel_hi:[0,0] // 2.5 + 2^23 twice
  v_pk_add_f32 v[8:9], v[10:11], v[12:13] op_sel:[0,1] neg_lo:[1,0] neg_hi:[0,1] // -v10 + v13, v11 - v13
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[2:5], s[4:5]
  global_store_dwordx4 v20, v[6:9], s[4:5] offset:16
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
