// `mxgemm-emu loops` counts what each loop issues per iteration: the
// instructions from a backward branch's target to the last branch back to
// it, by class, with the waits (vmcnt(0) among them), barriers and nops. The
// expected counts are counted by hand from the assembly below.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu loops %t.hsaco | FileCheck %s
// RUN: mxgemm-emu loops %t.hsaco --json | FileCheck %s --check-prefix=JSON

// The outer loop (outer: .. s_cbranch_scc1 outer) holds the inner one and is
// not innermost; the inner loop has two back edges and is one loop.
// CHECK: nested loop .text+0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}}: 20 instructions, 2 mfma : 18 other (3 valu, 5 salu, 0 smem, 2 vmem, 1 lds, 7 control); 2 s_waitcnt (1 vmcnt(0)), 1 s_barrier, 1 s_nop
// CHECK-NEXT: nested loop .text+0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}} (innermost): 11 instructions, 2 mfma : 9 other (2 valu, 2 salu, 0 smem, 1 vmem, 1 lds, 3 control); 0 s_waitcnt (0 vmcnt(0)), 0 s_barrier, 1 s_nop
// CHECK-NOT: loop
// JSON: "loops": [
// JSON: "innermost": false,
// JSON-NEXT: "instructions": 20,
// JSON-NEXT: "kernel": "nested",
// JSON-NEXT: "mfma": 2,
// JSON-NEXT: "nops": 1,
// JSON-NEXT: "other": 18,
// JSON-NEXT: "vmcnt0_waits": 1,
// JSON-NEXT: "waits": 2

// A kernel without a backward branch has no loops.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj -defsym=STRAIGHT=1 %s -o %t2.o
// RUN: ld.lld -shared %t2.o -o %t2.hsaco
// RUN: mxgemm-emu loops %t2.hsaco | FileCheck %s --check-prefix=NONE
// NONE: no loops

.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl nested
.p2align 8
nested:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_mov_b32 s6, 4
  s_waitcnt lgkmcnt(0)
.ifndef STRAIGHT
outer:                                   // outer loop: 20 instructions
  s_mov_b32 s7, 2                        // salu
  global_load_dwordx4 v[8:11], v0, s[4:5]  // vmem
  s_waitcnt vmcnt(0)                     // control, vmcnt(0)
inner:                                   // inner loop: 11 instructions
  v_mfma_f32_16x16x128_f8f6f4 v[16:19], v[8:15], v[20:27], v[16:19]  // mfma
  global_load_dword v1, v0, s[4:5]       // vmem
  ds_read_b32 v2, v0                     // lds
  v_add_u32 v3, 1, v3                    // valu
  s_sub_u32 s7, s7, 1                    // salu
  s_cmp_eq_u32 s7, 1                     // salu
  s_cbranch_scc1 inner                   // control: first back edge
  s_nop 0                                // control, nop
  v_mfma_f32_16x16x128_f8f6f4 v[16:19], v[8:15], v[20:27], v[16:19]  // mfma
  v_add_u32 v4, 1, v4                    // valu
  s_cbranch_scc0 inner                   // control: second back edge
  s_waitcnt vmcnt(1) lgkmcnt(0)          // control
  s_barrier                              // control
  v_add_u32 v5, 1, v5                    // valu
  s_sub_u32 s6, s6, 1                    // salu
  s_cmp_lg_u32 s6, 0                     // salu
  s_cbranch_scc1 outer                   // control: outer back edge
.endif
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel nested
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 32
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel
