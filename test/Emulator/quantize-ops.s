// The VALU instructions LLVM 22 selects for mxgemm.quantize kernels, with
// expected values from the CDNA4 ISA definitions (not from the emulator):
// V_FFBH_U32 counts leading zeros and gives 0xffffffff for 0; V_MAX3/MIN3
// take the max/min of three (unsigned / signed); V_CVT_F32_F16 widens
// exactly (subnormal 0x0001 = 2^-24 = 0x33800000), keeps inf, quiets NaN
// (0x7c01 -> 0x7fc02000); SDWA WORD_1 converts the high half (0xc000 = -2).
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel ops --block 64 --buf o=4096 --arg buf:o --print o:u32:12 | FileCheck %s
// CHECK: o: 4294967295 31 0 8 4294967291 1065353216 864026624 4286578688 2143297536 3221225472 5 4294967295{{$}}

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.globl ops
.p2align 8
ops:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 6, v0
  v_mov_b32 v10, 0
  v_ffbh_u32 v2, v10                  // 0xffffffff
  v_mov_b32 v10, 1
  v_ffbh_u32 v3, v10                  // 31
  v_mov_b32 v10, 0x80000000
  v_ffbh_u32 v4, v10                  // 0
  v_mov_b32 v11, 3
  v_mov_b32 v12, 8
  v_mov_b32 v13, 0xfffffffb           // -5
  v_max3_i32 v5, v11, v12, v13        // 8
  v_min3_i32 v6, v11, v12, v13        // -5
  v_mov_b32 v14, 0x3c00
  v_cvt_f32_f16 v7, v14               // 1.0
  v_mov_b32 v14, 1
  v_cvt_f32_f16 v8, v14               // 2^-24
  v_mov_b32 v14, 0xfc00
  v_cvt_f32_f16 v9, v14               // -inf
  v_mov_b32 v14, 0x7c01
  v_cvt_f32_f16 v10, v14              // quiet NaN
  v_mov_b32 v14, 0xc0001234
  v_cvt_f32_f16_sdwa v11, v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_max3_u32 v12, v11, v12, v13       // 0xfffffffb vs -2.0 bits 0xc0000000
  v_min3_u32 v12, v12, v13, 5         // 5
  v_max3_u32 v13, v13, 0, -1          // 0xffffffff
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[2:5], s[4:5]
  global_store_dwordx4 v20, v[6:9], s[4:5] offset:16
  global_store_dwordx4 v20, v[10:13], s[4:5] offset:32
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
