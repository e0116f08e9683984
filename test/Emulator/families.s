// SALU, VALU, LDS and buffer instruction families on known inputs, and the
// gfx9 buffer range check that compilers use to mask edge tiles.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --kernel alu --block 64 --buf o=4096 --arg buf:o --print o:u32:16 | FileCheck %s --check-prefix=ALU
// RUN: mxgemm-emu run %t.hsaco --kernel lds --block 128 --buf o=512 --arg buf:o --print o:u32:4 --stats | FileCheck %s --check-prefix=LDS
// RUN: mxgemm-emu run %t.hsaco --kernel buf --block 64 --buf i=256:iota32 --buf o=256:fill=7 --arg buf:i --arg buf:o --print o:u32:12 | FileCheck %s --check-prefix=BUF
// RUN: mxgemm-emu run %t.hsaco --kernel bf16 --block 64 --buf o=512 --arg buf:o --print o:bf16:4 | FileCheck %s --check-prefix=BF16
// RUN: mxgemm-emu run %t.hsaco --kernel alu16 --block 64 --buf o=4096 --arg buf:o --print o:u32:13 | FileCheck %s --check-prefix=ALU16

// Lane 0: s_add/s_lshl/s_bfe/s_cselect results and VALU on the lane id;
// the last three words are v_mad_i64_i32 (-3 * 5, then -3 * 5 + 100).
// ALU: o: 7 1 12 40 9 3 4 4294967295 5 4 0 77 1 4294967281 4294967295 85
// LDS: o: 64 65 66 67
// LDS: LDS bank conflict cycles: 0
// Words 0..9 are in range (num_records = 40 bytes), the rest read as 0 and
// the store of words >= 8 is dropped (7 stays).
// BUF: o: 0 1 2 3 4 5 6 7 7 7 7 7
// BF16: o: 1 1 1.00781 1
// 16-bit VALU (gfx9: e32/e64 forms zero bits [31:16] of the destination;
// the sources' high halves are garbage and ignored): add, sub, mul_lo,
// mul_lo_e64 (0xffff * 3), lshlrev (shift 20 & 15 = 4), lshrrev, cmp_gt_u16
// (true on the low halves only), cmp_gt_u16_e64 (false), SDWA cmp_lt_u16
// (WORD_1 0x1234 < WORD_1 0xbeef), SDWA mul_lo_u16 (0x1234 * 7 into WORD_1,
// WORD_0 preserved), add_u16_e64 (wraps to 1), SDWA mul_lo_u16 (0x1234 *
// 0xff, WORD_0, UNUSED_PAD), v_mad_legacy_u16 (gfx9 name of VI v_mad_u16).
// ALU16: o: 12 65534 35 65533 65520 15 1 0 1 2137793058 1 8652 2{{$}}

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.macro kd name, lds
.rodata
.p2align 6
.amdhsa_kernel \name
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
  .amdhsa_group_segment_fixed_size \lds
.end_amdhsa_kernel
.text
.endm

// Writes 16 words per lane at o + lane * 64.
.globl alu
.p2align 8
alu:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v20, 6, v0
  s_mov_b32 s6, 3
  s_add_u32 s7, s6, 4                 // 7
  s_lshl_b32 s8, 1, 0                 // 1
  s_movk_i32 s11, 0xc00
  s_bfe_u32 s9, s11, 0x40008          // (0xc00 >> 8) & 0xf = 12
  s_cmp_lt_u32 s6, 4
  s_cselect_b32 s10, 40, 50           // 40
  v_mov_b32 v2, s7
  v_mov_b32 v3, s8
  v_mov_b32 v4, s9
  v_mov_b32 v5, s10
  v_mad_u32_u24 v6, 2, 3, v4          // 18 - 9 below
  v_sub_u32 v6, v6, 9                 // 9
  v_lshl_add_u32 v7, 1, 1, 1          // 3
  v_add3_u32 v8, 1, 1, 2              // 4
  v_cmp_eq_u32 vcc, 0, v0
  v_cndmask_b32 v9, 0, -1, vcc        // lane 0: -1
  v_mov_b32 v10, 0x50
  v_bfe_u32 v10, v10, 4, 4            // 5
  v_mov_b32 v11, 0x06050403
  v_mov_b32 v12, 0x02010000
  v_perm_b32 v11, v11, v12, 5         // byte 5 of {v11:v12} = byte 1 of v11 = 4
  v_mad_u64_u32 v[22:23], s[12:13], 0, 0, 0
  v_mov_b32 v12, v22                  // 0
  v_mov_b32 v21, 0x4d
  v_accvgpr_write_b32 a0, v21
  v_accvgpr_read_b32 v13, a0          // 77
  v_add_co_u32 v14, vcc, -1, 2        // 1, carry
  v_mov_b32 v24, -3                   // signed 32 x 32 -> 64 plus a 64-bit addend:
  v_mad_i64_i32 v[26:27], s[12:13], v24, 5, 0   // -15: 4294967281 4294967295
  v_mov_b32 v15, v26
  v_mov_b32 v16, v27
  v_mov_b32 v30, 100
  v_mov_b32 v31, 0
  v_mad_i64_i32 v[28:29], s[12:13], v24, 5, v[30:31] // 85
  v_mov_b32 v17, v28
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v20, v[2:5], s[4:5]
  global_store_dwordx4 v20, v[6:9], s[4:5] offset:16
  global_store_dwordx4 v20, v[10:13], s[4:5] offset:32
  global_store_dwordx4 v20, v[14:17], s[4:5] offset:48
  s_endpgm
kd alu, 0

// Two waves: each writes its lane ids to LDS, barrier, wave 0 reads the
// other wave's words back (ds_write_b32 / s_barrier / ds_read_b128).
.globl lds
.p2align 8
lds:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  ds_write_b32 v1, v0
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_lshlrev_b32 v2, 4, v0
  v_add_u32 v2, 256, v2
  v_cmp_gt_u32 vcc, 16, v0
  s_and_saveexec_b64 s[6:7], vcc
  ds_read_b128 v[4:7], v2
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v2, v[4:7], s[4:5] offset:-256
  s_endpgm
kd lds, 512

// buffer_load/store with a 40-byte descriptor range.
.globl buf
.p2align 8
buf:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s4
  s_and_b32 s9, s5, 0xffff
  s_mov_b32 s10, 40
  s_mov_b32 s11, 0x00027000
  buffer_load_dword v2, v1, s[8:11], 0 offen
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, 32
  s_waitcnt vmcnt(0)
  buffer_store_dword v2, v1, s[8:11], 0 offen
  s_endpgm
kd buf, 0

// v_cvt_pk_bf16_f32 rounds to nearest even: 1 + 2^-8 is a tie (-> 1),
// 1 + 3*2^-9 rounds up to 1 + 2^-7.
.globl bf16
.p2align 8
bf16:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_mov_b32 v2, 0x3f800000
  v_mov_b32 v3, 0x3f808000
  v_mov_b32 v4, 0x3f80c000
  v_cvt_pk_bf16_f32 v6, v2, v3
  v_cvt_pk_bf16_f32 v7, v4, v2
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v1, v[6:7], s[4:5]
  s_endpgm
kd bf16, 0

// 16-bit integer VALU forms LLVM emits for LDS-padding address arithmetic.
.globl alu16
.p2align 8
alu16:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v30, 6, v0
  v_mov_b32 v21, 0xdead0005
  v_mov_b32 v22, 0xbeef0007
  v_mov_b32 v23, 0x1234ffff
  v_add_u16 v2, v21, v22              // 12
  v_sub_u16 v3, v21, v22              // 0xfffe
  v_mul_lo_u16 v4, v21, v22           // 35
  v_mul_lo_u16_e64 v5, v23, 3         // 0xfffd
  v_lshlrev_b16 v6, 20, v23           // 0xfff0
  v_lshrrev_b16 v7, 12, v23           // 15
  v_cmp_gt_u16 vcc, v22, v21
  v_cndmask_b32 v8, 0, 1, vcc         // 1
  v_cmp_gt_u16_e64 s[6:7], v21, v23
  v_cndmask_b32 v9, 0, 1, s[6:7]     // 0
  v_cmp_lt_u16_sdwa vcc, v23, v22 src0_sel:WORD_1 src1_sel:WORD_1
  v_cndmask_b32 v10, 0, 1, vcc        // 1
  v_mov_b32 v11, 0x11112222
  v_mul_lo_u16_sdwa v11, v23, v22 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
  v_add_u16_e64 v12, v23, 2           // 1
  v_mov_b32 v13, -1
  v_mul_lo_u16_sdwa v13, v23, v23 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v30, v[2:5], s[4:5]
  global_store_dwordx4 v30, v[6:9], s[4:5] offset:16
  v_mad_legacy_u16 v14, v23, 3, v21   // 0xffff * 3 + 5 = 0x30002 -> 2
  v_mov_b32 v15, 0
  v_mov_b32 v16, 0
  v_mov_b32 v17, 0
  global_store_dwordx4 v30, v[10:13], s[4:5] offset:32
  global_store_dwordx4 v30, v[14:17], s[4:5] offset:48
  s_endpgm
kd alu16, 0
