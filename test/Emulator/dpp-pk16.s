// The quantize kernels' cross-lane and packed 16-bit instructions, with
// expected values worked out from the CDNA4 ISA definitions (not from the
// emulator). Lane l holds a = l ^ 5 (lanes 0-7: 5 4 7 6 1 0 3 2).
// DPP quad_perm:[s0,s1,s2,s3]: lane 4k+i reads src0 from lane 4k+s_i. A
// lane whose row (row_mask) or bank (bank_mask, 4 lanes) is off keeps
// vdst; a lane whose source lane is inactive gets 0 with bound_ctrl, else
// keeps vdst. Per lane 0-7, eight dwords: quad_perm:[3,2,1,0]; the quad
// max (two v_max_u32_dpp); lane 1 inactive with and without bound_ctrl;
// row_mask:0xe; bank_mask:0x2; a; 0.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel dpp --block 64 --buf o=4096 --arg buf:o --print o:u32:64 | FileCheck %s --check-prefix=DPP
// DPP: o: 6 7 0 100 100 100 5 0 7 7 100 100 100 100 4 0 4 7 6 6 100 100 7 0 5 7 7 7 100 100 6 0 2 3 0 0 100 0 1 0 3 3 1 1 100 1 0 0 0 3 2 2 100 2 3 0 1 3 3 3 100 3 2 0{{$}}

// Packed 16-bit ops, two halves each (op_sel picks the source half of the
// low result, op_sel_hi of the high one): with x = 0xfff00005 and
// y = 0x00240003, v_pk_add_u16 x, y wraps per half (0x00140008);
// v_pk_lshrrev_b16 y, x shifts each half of x by the low 4 bits of y's
// (0x0fff0000); v_pk_min_u16 gives 0x00240003; v_pk_max_u16 with
// op_sel:[1,0] op_sel_hi:[0,1] compares x.hi with y.lo and x.lo with y.hi
// (0x0024fff0).
// RUN: mxgemm-emu run %t.hsaco --kernel pk --block 64 --buf o=4096 --arg buf:o --print o:u32:4 | FileCheck %s --check-prefix=PK
// PK: o: 1310728 268369920 2359299 2424816{{$}}

// Other DPP controls are refused by name, not run wrongly.
// RUN: not mxgemm-emu run %t.hsaco --kernel shl --block 64 --buf o=4096 --arg buf:o 2>&1 | FileCheck %s --check-prefix=SHL
// SHL: DPP control 0x101 is not modelled

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.globl dpp
.p2align 8
dpp:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 5, v0
  v_xor_b32 v1, 5, v0
  v_mov_b32 v8, v1
  v_mov_b32 v9, 0
  v_mov_b32 v2, 0
  s_nop 1
  v_mov_b32_dpp v2, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
  v_mov_b32 v3, v1
  s_nop 1
  v_max_u32_dpp v3, v3, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_nop 1
  v_max_u32_dpp v3, v3, v3 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32 v4, 100
  v_mov_b32 v5, 100
  v_mov_b32 v6, 100
  v_mov_b32 v7, 100
  s_mov_b64 exec, -3
  s_nop 1
  v_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v5, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  s_mov_b64 exec, -1
  v_mov_b32_dpp v6, v1 quad_perm:[1,0,3,2] row_mask:0xe bank_mask:0xf
  v_mov_b32_dpp v7, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0x2
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[2:5], s[4:5]
  global_store_dwordx4 v20, v[6:9], s[4:5] offset:16
  s_endpgm

.globl pk
.p2align 8
pk:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 4, v0
  v_mov_b32 v10, 0xfff00005
  v_mov_b32 v11, 0x00240003
  v_pk_add_u16 v12, v10, v11
  v_pk_lshrrev_b16 v13, v11, v10
  v_pk_min_u16 v14, v10, v11
  v_pk_max_u16 v15, v10, v11 op_sel:[1,0] op_sel_hi:[0,1]
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[12:15], s[4:5]
  s_endpgm

.globl shl
.p2align 8
shl:
  v_mov_b32 v1, v0
  s_nop 1
  v_mov_b32_dpp v2, v1 row_shl:1 row_mask:0xf bank_mask:0xf
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel dpp
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
.end_amdhsa_kernel
.amdhsa_kernel pk
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
.end_amdhsa_kernel
.amdhsa_kernel shl
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
.end_amdhsa_kernel
