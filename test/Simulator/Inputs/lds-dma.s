// LDS-DMA counter microbenchmarks of mxgemm-sim (lds-dma-counters.test):
// four global_load_lds_dwordx4 of untouched lines per iteration, each
// followed by one s_waitcnt, N iterations (the first kernel argument).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.macro dma_loop name, wait
.globl \name
.p2align 8
\name:
  s_load_dword s4, s[0:1], 0x0
  s_load_dwordx2 s[6:7], s[0:1], 0x8
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0
  s_mov_b32 s10, 0x10000
  s_mov_b32 s11, 0
  v_lshlrev_b32 v40, 4, v0
  v_mov_b32 v41, 0
  v_lshl_add_u64 v[2:3], s[6:7], 0, v[40:41]
1:
  .rept 4
  global_load_lds_dwordx4 v[2:3], off
  s_waitcnt \wait
  v_lshl_add_u64 v[2:3], v[2:3], 0, s[10:11]
  .endr
  s_sub_u32 s4, s4, 1
  s_cmp_lg_u32 s4, 0
  s_cbranch_scc1 1b
  s_waitcnt vmcnt(0)
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel \name
  .amdhsa_next_free_vgpr 64
  .amdhsa_next_free_sgpr 32
  .amdhsa_accum_offset 64
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
  .amdhsa_group_segment_fixed_size 1024
.end_amdhsa_kernel
.text
.endm

dma_loop dma_wait_vmcnt, vmcnt(0)
dma_loop dma_wait_lgkmcnt, lgkmcnt(0)
