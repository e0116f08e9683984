// Instructions that LLVM emits for mxgemm-compile kernels beyond the basic
// families: 64-bit shift-add, the three-input truth table, and SDWA
// sub-dword selects (byte/word sources, sign extension, dst_unused modes),
// the high half of a signed 24-bit multiply.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel ops --block 64 --buf o=4096 --arg buf:o --print o:u32:10 | FileCheck %s

// v_lshl_add_u64: (0x1_00000003 << 2) + 0xfffffff8 = 0x5_00000004.
// v_bitop3_b32 0xc8 = src1 & (src0 | src2): 0xff00ff00 & 0xf0f0ffff.
// SDWA: 0x5678 | 0xabcd0000; (0x78 | 0x80) into WORD_1 keeping 0x2222;
// WORD_1 0x0085 into BYTE_0 with UNUSED_SEXT; sext(BYTE_0 = 0x80).
// v_alignbit_b32 (gfx950 op_sel form): {0x00850000, 0x80} >> 20.
// s_bitset1_b32 / s_bitset0_b32 on 0x100: 0x10000.
// v_mul_hi_i32_i24 (LLVM emits it for 24-bit index products): bits 63:32
// of -2^23 * (2^23 - 1), arithmetic: 0xffffc000.
// CHECK: o: 4 5 4026597120 2882360952 16261666 4294967173 4294967168 1342177280 65536 4294950912{{$}}

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.globl ops
.p2align 8
ops:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 6, v0
  v_mov_b32 v4, 3
  v_mov_b32 v5, 1
  v_mov_b32 v6, 0xfffffff8
  v_mov_b32 v7, 0
  v_lshl_add_u64 v[2:3], v[4:5], 2, v[6:7]
  s_mov_b32 s10, 0xf0f0f0f0
  v_mov_b32 v9, 0xff00ff00
  v_mov_b32 v10, 0x0000ffff
  v_bitop3_b32 v4, s10, v9, v10 bitop3:0xc8
  v_mov_b32 v10, 0x12345678
  s_mov_b32 s11, 0xabcd0000
  v_or_b32_sdwa v5, v10, s11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
  v_mov_b32 v6, 0x11112222
  v_mov_b32 v12, 0x8000
  v_or_b32_sdwa v6, sext(v10), v12 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:BYTE_1
  v_mov_b32 v14, 0x00850000
  v_mov_b32_sdwa v7, v14 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:WORD_1
  v_mov_b32 v16, 0x80
  v_mov_b32_sdwa v8, sext(v16) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0
  v_alignbit_b32 v9, v14, v16, 20
  s_mov_b32 s12, 0x100
  s_bitset1_b32 s12, 16               // 0x10100
  s_bitset0_b32 s12, 8                // 0x10000
  v_mov_b32 v10, s12
  v_mov_b32 v11, 0xab800000          // bits 31:24 ignored: -2^23
  v_mov_b32 v13, 0x7fffff            // 2^23 - 1
  v_mul_hi_i32_i24 v11, v11, v13
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[2:5], s[4:5]
  global_store_dwordx4 v20, v[6:9], s[4:5] offset:16
  global_store_dwordx2 v20, v[10:11], s[4:5] offset:32
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
