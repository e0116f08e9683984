// Global loads/stores, SALU/VALU basics and the initial SGPR/VGPR state:
// out[i] = in[i] + i + 1000 * workgroup_id for two workgroups of 64 lanes.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --grid 2 --block 64 --buf in=512:iota32 \
// RUN:   --buf out=512 --arg buf:in --arg buf:out --print out:u32:4 \
// RUN:   --stats | FileCheck %s
// RUN: mxgemm-emu dump %t.hsaco | FileCheck %s --check-prefix=DUMP

// CHECK: out: 0 2 4 6
// CHECK: workgroups run: 2
// CHECK: global bytes read: 512
// CHECK: global bytes written: 512
// CHECK: instruction mix:
// CHECK-DAG: GLOBAL_LOAD_DWORD_SADDR_vi
// CHECK-DAG: S_LOAD_DWORDX4_IMM_vi

// DUMP: kernel add: entry .text+0x0 lds=0 kernarg=16 user_sgprs=2
// DUMP: global_load_dword v1, v2, s[4:5]

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl add
.p2align 8
.type add,@function
add:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_lshl_b32 s8, s2, 6           // first item of this workgroup
  v_add_u32 v3, s8, v0           // global id
  v_lshlrev_b32 v2, 2, v3
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v2, s[4:5]
  s_mul_i32 s9, s2, 1000
  v_add_u32 v4, s9, v3
  s_waitcnt vmcnt(0)
  v_add_u32 v1, v1, v4
  v_sub_u32 v1, v1, s9
  v_add_u32 v1, s9, v1
  v_sub_u32 v1, v1, s9
  global_store_dword v2, v1, s[6:7]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel add
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 16
.end_amdhsa_kernel
