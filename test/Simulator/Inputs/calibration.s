// Calibration microbenchmarks of mxgemm-sim (docs/Simulator.md,
// "Calibration"). Each kernel repeats one pattern s_load'ed N times (the
// first kernel argument); the tests time two values of N and divide the
// difference by the extra work, which cancels the launch and the loop's
// fixed cost. Register contents do not matter: the simulator does not
// compute MFMA results and the addresses do not depend on loaded data.
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

// kernarg: N (i32) at 0, a buffer pointer at 8. s4 = N, s[6:7] = buffer,
// s2 = workgroup id, v0 = lane id within the workgroup.
.macro prologue
  s_load_dword s4, s[0:1], 0x0
  s_load_dwordx2 s[6:7], s[0:1], 0x8
  s_waitcnt lgkmcnt(0)
.endm

.macro kd name, lds
.rodata
.p2align 6
.amdhsa_kernel \name
  .amdhsa_next_free_vgpr 256
  .amdhsa_next_free_sgpr 32
  .amdhsa_accum_offset 128
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 16
  .amdhsa_group_segment_fixed_size \lds
.end_amdhsa_kernel
.text
.endm

// Four independent 32x32x64 FP8 accumulations per iteration: the matrix
// pipe's issue rate (64 cycles per MFMA per SIMD; 8192 FLOP/clk per CU with
// one wave on each of the four SIMDs).
.globl mfma_independent
.p2align 8
mfma_independent:
  prologue
1:
  v_mfma_scale_f32_32x32x64_f8f6f4 v[128:143], v[0:7], v[8:15], v[128:143], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[144:159], v[0:7], v[8:15], v[144:159], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[160:175], v[0:7], v[8:15], v[160:175], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[176:191], v[0:7], v[8:15], v[176:191], v16, v17
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_endpgm
kd mfma_independent, 0

// The same with 16x16x128 (32 cycles per MFMA).
.globl mfma_independent_16
.p2align 8
mfma_independent_16:
  prologue
1:
  v_mfma_scale_f32_16x16x128_f8f6f4 v[128:131], v[0:7], v[8:15], v[128:131], v16, v17
  v_mfma_scale_f32_16x16x128_f8f6f4 v[132:135], v[0:7], v[8:15], v[132:135], v16, v17
  v_mfma_scale_f32_16x16x128_f8f6f4 v[136:139], v[0:7], v[8:15], v[136:139], v16, v17
  v_mfma_scale_f32_16x16x128_f8f6f4 v[140:143], v[0:7], v[8:15], v[140:143], v16, v17
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_endpgm
kd mfma_independent_16, 0

// A dependent chain through SrcC (each MFMA accumulates into the previous
// one's destination): back to back, no wait states (ISA 7.6).
.globl mfma_chain_srcc
.p2align 8
mfma_chain_srcc:
  prologue
1:
  v_mfma_scale_f32_32x32x64_f8f6f4 v[128:143], v[0:7], v[8:15], v[128:143], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[128:143], v[0:7], v[8:15], v[128:143], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[128:143], v[0:7], v[8:15], v[128:143], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[128:143], v[0:7], v[8:15], v[128:143], v16, v17
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_endpgm
kd mfma_chain_srcc, 0

// A dependent chain through SrcA: the next MFMA reads the previous one's
// result as its A operand, after the 19 wait states (16 passes + 3) the ISA
// requires, written as s_nops.
.globl mfma_chain_srca
.p2align 8
mfma_chain_srca:
  prologue
1:
  .rept 8
  v_mfma_scale_f32_32x32x64_f8f6f4 v[128:143], v[144:151], v[8:15], v[160:175], v16, v17
  s_nop 7
  s_nop 7
  s_nop 2
  v_mfma_scale_f32_32x32x64_f8f6f4 v[144:159], v[128:135], v[8:15], v[160:175], v16, v17
  s_nop 7
  s_nop 7
  s_nop 2
  .endr
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_endpgm
kd mfma_chain_srca, 0

// Eight conflict-free ds_read_b128 per iteration (lane l reads 16 bytes at
// 16 l: each 16-lane phase covers all 64 banks once), with the previous
// iteration's eight waited for, so reads stream: the LDS throughput (one per
// 16 cycles per SIMD with all four SIMDs reading, 256 B/clk per CU).
.macro lds_reads stride
  v_mul_u32_u24 v1, \stride, v0
  v_and_b32 v1, 0x3ff0, v1
1:
  ds_read_b128 v[4:7], v1
  ds_read_b128 v[8:11], v1 offset:1024
  ds_read_b128 v[12:15], v1 offset:2048
  ds_read_b128 v[16:19], v1 offset:3072
  ds_read_b128 v[20:23], v1 offset:4096
  ds_read_b128 v[24:27], v1 offset:5120
  ds_read_b128 v[28:31], v1 offset:6144
  ds_read_b128 v[32:35], v1 offset:7168
  s_waitcnt lgkmcnt(8)
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_waitcnt lgkmcnt(0)
  s_endpgm
.endm

.globl lds_read_b128
.p2align 8
lds_read_b128:
  prologue
  lds_reads 16
kd lds_read_b128, 32768

// Lane l reads at 32 l: two lanes of each phase hit every second bank,
// a two-way bank conflict (twice the service time).
.globl lds_read_b128_conflict
.p2align 8
lds_read_b128_conflict:
  prologue
  lds_reads 32
kd lds_read_b128_conflict, 32768

// The same 32 l layout with the 16-byte chunk XOR-swizzled by the lane's
// half-phase (address ^= ((l / 8) & 1) * 16): lanes 8-15 of a phase move to
// the odd bank groups, conflict-free again.
.globl lds_read_b128_swizzled
.p2align 8
lds_read_b128_swizzled:
  prologue
  v_lshlrev_b32 v1, 5, v0          // 32 l
  v_lshrrev_b32 v2, 3, v0
  v_and_b32 v2, 1, v2
  v_lshlrev_b32 v2, 4, v2          // ((l / 8) & 1) * 16
  v_xor_b32 v1, v1, v2
  v_and_b32 v1, 0x3ff0, v1
1:
  ds_read_b128 v[4:7], v1
  ds_read_b128 v[8:11], v1 offset:1024
  ds_read_b128 v[12:15], v1 offset:2048
  ds_read_b128 v[16:19], v1 offset:3072
  ds_read_b128 v[20:23], v1 offset:4096
  ds_read_b128 v[24:27], v1 offset:5120
  ds_read_b128 v[28:31], v1 offset:6144
  ds_read_b128 v[32:35], v1 offset:7168
  s_waitcnt lgkmcnt(8)
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_waitcnt lgkmcnt(0)
  s_endpgm
kd lds_read_b128_swizzled, 32768

// One ds_read_b128 waited for before the next, sixteen per iteration: the
// LDS latency (plus the s_waitcnt's own issue).
.globl lds_latency
.p2align 8
lds_latency:
  prologue
  v_lshlrev_b32 v1, 4, v0
1:
  .rept 16
  ds_read_b128 v[4:7], v1
  s_waitcnt lgkmcnt(0)
  .endr
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_endpgm
kd lds_latency, 1024

// One load of lines nobody has touched, waited for before the next, four
// per iteration; each load is 64 KB further into the buffer (N * 256 KB).
// global_latency: global_load_dwordx4 and vmcnt(0), the latency of a load
// served by HBM. dma_wait_*: global_load_lds_dwordx4 (LDS-DMA into 1 KB of
// LDS) and the wait named by the kernel (lds-dma-counters.test): vmcnt(0)
// waits for the memory latency, lgkmcnt(0) does not (the DMA counts in
// vmcnt only).
.macro latency_loop name, lds, wait, load:vararg
.globl \name
.p2align 8
\name:
  prologue
  s_mov_b32 m0, 0
  s_mov_b32 s10, 0x10000
  s_mov_b32 s11, 0
  v_lshlrev_b32 v40, 4, v0
  v_mov_b32 v41, 0
  v_lshl_add_u64 v[2:3], s[6:7], 0, v[40:41]
1:
  .rept 4
  \load
  s_waitcnt \wait
  v_lshl_add_u64 v[2:3], v[2:3], 0, s[10:11]
  .endr
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_waitcnt vmcnt(0)
  s_endpgm
kd \name, \lds
.endm
latency_loop global_latency, 0, vmcnt(0), global_load_dwordx4 v[4:7], v[2:3], off
latency_loop dma_wait_vmcnt, 1024, vmcnt(0), global_load_lds_dwordx4 v[2:3], off
latency_loop dma_wait_lgkmcnt, 1024, lgkmcnt(0), global_load_lds_dwordx4 v[2:3], off

// Every CU streams 16 KB per iteration (4 KB per wave) from its own region
// with up to 12 loads in flight per wave: the per-CU share of HBM bandwidth
// when all 256 CUs do the same. Workgroup g reads [g N 16 KB, (g+1) N 16 KB).
.globl hbm_stream
.p2align 8
hbm_stream:
  prologue
  s_mul_i32 s8, s2, s4
  s_lshl_b32 s8, s8, 14
  s_mov_b32 s9, 0
  s_movk_i32 s10, 0x1000
  s_mov_b32 s11, 0
  s_mov_b32 s12, 0x4000
  s_mov_b32 s13, 0
  v_lshlrev_b32 v40, 4, v0
  v_mov_b32 v41, 0
  v_lshl_add_u64 v[2:3], s[6:7], 0, v[40:41]
  v_lshl_add_u64 v[2:3], v[2:3], 0, s[8:9]
1:
  v_lshl_add_u64 v[20:21], v[2:3], 0, s[10:11]
  v_lshl_add_u64 v[22:23], v[20:21], 0, s[10:11]
  v_lshl_add_u64 v[24:25], v[22:23], 0, s[10:11]
  global_load_dwordx4 v[4:7], v[2:3], off
  global_load_dwordx4 v[8:11], v[20:21], off
  global_load_dwordx4 v[12:15], v[22:23], off
  global_load_dwordx4 v[16:19], v[24:25], off
  s_waitcnt vmcnt(12)
  v_lshl_add_u64 v[2:3], v[2:3], 0, s[12:13]
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_waitcnt vmcnt(0)
  s_endpgm
kd hbm_stream, 0
