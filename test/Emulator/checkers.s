// Each checker fires on a kernel written to trip it, and stays quiet on the
// corrected version.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: not mxgemm-emu run %t.hsaco --kernel unwaited --block 64 --buf b=256 --arg buf:b 2>&1 | FileCheck %s --check-prefix=UNWAITED
// RUN: not mxgemm-emu run %t.hsaco --kernel race --block 128 --buf b=256 --arg buf:b 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: mxgemm-emu run %t.hsaco --kernel race_fixed --block 128 --buf b=256 --arg buf:b 2>&1 | count 0
// RUN: not mxgemm-emu run %t.hsaco --kernel oob --block 64 --buf b=256 --arg buf:b 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not mxgemm-emu run %t.hsaco --kernel uninit --block 64 --buf b=256 --arg buf:b 2>&1 | FileCheck %s --check-prefix=UNINIT
// RUN: not mxgemm-emu run %t.hsaco --kernel lds_pending --block 64 --buf b=1024 --arg buf:b 2>&1 | FileCheck %s --check-prefix=LDSPEND
// RUN: mxgemm-emu run %t.hsaco --kernel dma_lgkm_zero --block 64 --buf b=1024 --arg buf:b 2>&1 | count 0
// RUN: not mxgemm-emu run %t.hsaco --kernel dma_lgkm --block 64 --buf b=1024 --arg buf:b 2>&1 | FileCheck %s --check-prefix=DMALGKM

// UNWAITED: error: unwaited-read in kernel 'unwaited' at pc .text+0x{{[0-9a-f]+}} (v_add_u32_e32 v2, 1, v1), workgroup (0,0,0), wave 0
// UNWAITED-SAME: reads v1 before the load that writes it was waited for (needs s_waitcnt vmcnt)
// RACE: error: lds-race in kernel 'race' {{.*}} (ds_read_b32 v2, v3){{.*}} wave 1, lane 0, address 0x0: read after write by wave 0 with no s_barrier in between
// OOB: error: out-of-bounds in kernel 'oob' {{.*}} (global_store_dword v1, v0, s[4:5] offset:256){{.*}} lane 0, address 0x{{[0-9a-f]+}}: global store of 4 bytes outside every allocation
// UNINIT: error: uninitialised-store in kernel 'uninit' {{.*}}: stores data derived from never-written register v7
// global_load_lds counts in vmcnt only, as on the hardware (LLVM PR 179305):
// lgkmcnt(1) after ds_read, global_load_lds (what LLVM 22 emits, counting
// the DMA in lgkmcnt too) does not wait for the ds_read; lgkmcnt(0) does.
// DMALGKM: error: unwaited-read in kernel 'dma_lgkm' {{.*}}(v_add_u32_e32 v3, 1, v2){{.*}}reads v2 before the load that writes it was waited for (needs s_waitcnt lgkmcnt)
// LDSPEND: error: unwaited-read in kernel 'lds_pending' {{.*}} (ds_read_b32 v2, v1){{.*}}has not been waited for with s_waitcnt vmcnt

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text

.macro prologue
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
.endm

.macro kd name, lds
.rodata
.p2align 6
.amdhsa_kernel \name
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 8
  .amdhsa_group_segment_fixed_size \lds
.end_amdhsa_kernel
.text
.endm

.globl unwaited
.p2align 8
unwaited:
  prologue
  global_load_dword v1, v1, s[4:5]
  v_add_u32 v2, 1, v1              // missing s_waitcnt vmcnt(0)
  s_endpgm
kd unwaited, 0

// Wave 0 writes LDS word 0, wave 1 reads it without a barrier.
.globl race
.p2align 8
race:
  v_mov_b32 v3, 0
  v_cmp_gt_u32 vcc, 64, v0
  s_and_saveexec_b64 s[6:7], vcc
  ds_write_b32 v3, v0
  s_or_b64 exec, exec, s[6:7]
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v2, v3
  s_waitcnt lgkmcnt(0)
  s_endpgm
kd race, 256

.globl race_fixed
.p2align 8
race_fixed:
  v_mov_b32 v3, 0
  v_cmp_gt_u32 vcc, 64, v0
  s_and_saveexec_b64 s[6:7], vcc
  ds_write_b32 v3, v0
  s_or_b64 exec, exec, s[6:7]
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v2, v3
  s_waitcnt lgkmcnt(0)
  s_endpgm
kd race_fixed, 256

.globl oob
.p2align 8
oob:
  prologue
  global_store_dword v1, v0, s[4:5] offset:256   // one past a 256-byte buffer
  s_endpgm
kd oob, 0

.globl uninit
.p2align 8
uninit:
  prologue
  global_store_dword v1, v7, s[4:5]              // v7 was never written
  s_endpgm
kd uninit, 0

// global_load_lds lands in LDS only at the covering vmcnt wait.
.globl lds_pending
.p2align 8
lds_pending:
  prologue
  s_mov_b32 m0, 0
  global_load_lds_dwordx4 v1, s[4:5]
  ds_read_b32 v2, v1                             // missing s_waitcnt vmcnt(0)
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
kd lds_pending, 1024

.macro dma_after_read name, lgkm
\name:
  prologue
  s_mov_b32 m0, 0
  ds_write_b32 v1, v0
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v2, v1
  s_mov_b32 m0, 512
  global_load_lds_dword v1, s[4:5]
  s_waitcnt lgkmcnt(\lgkm)
  v_add_u32_e32 v3, 1, v2
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
kd \name, 1024
.endm
dma_after_read dma_lgkm_zero, 0
dma_after_read dma_lgkm, 1
