// `mxgemm-emu run` turns bad numbers and launches the kernel's metadata
// forbids into usage errors (exit 2), never a wrapped value, a truncated
// one, or an uncaught exception: each of these used to abort or run with
// the wrong configuration.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu run %t.hsaco --block 128 --buf o=512 --arg buf:o --print o:u32:2 | FileCheck %s --check-prefix=OK
// RUN: not mxgemm-emu run %t.hsaco --buf x=-1 2>&1 | FileCheck %s --check-prefix=NEGBUF
// RUN: not mxgemm-emu run %t.hsaco --grid -1 2>&1 | FileCheck %s --check-prefix=NEGGRID
// RUN: not mxgemm-emu run %t.hsaco --lds 4294967296 2>&1 | FileCheck %s --check-prefix=LDS32
// RUN: not mxgemm-emu run %t.hsaco --block 128 --lds 200000 --buf o=512 --arg buf:o 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not mxgemm-emu run %t.hsaco --grid 4294967295 --block 128 --buf o=512 --arg buf:o 2>&1 | FileCheck %s --check-prefix=AQL
// RUN: not mxgemm-emu run %t.hsaco --grid 33554431,4294967295,4294967295 --block 128 --buf o=512 --arg buf:o 2>&1 | FileCheck %s --check-prefix=GRID64
// RUN: not mxgemm-emu run %t.hsaco --block 64 --buf o=512 --arg buf:o 2>&1 | FileCheck %s --check-prefix=REQD
// RUN: not mxgemm-emu run %t.hsaco --block 128 --buf o=512 --arg buf:o --arg i64:1 2>&1 | FileCheck %s --check-prefix=KERNARG
// RUN: not mxgemm-emu run %t.hsaco --block 128 --arg i64:0x1234 2>&1 | FileCheck %s --check-prefix=POINTER
// RUN: not mxgemm-emu run %t.hsaco --block 128 --buf o=99999999999999999 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not mxgemm-emu run %t.hsaco --block 128 --buf o=512 --arg buf:o --print o:q32 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not mxgemm-emu run %t.hsaco --block 128 --arg i32:4294967296 2>&1 | FileCheck %s --check-prefix=I32

// OK: o: 0 1
// NEGBUF: error: invalid --buf size '-1'
// NEGGRID: error: invalid --grid '-1'
// LDS32: error: invalid --lds '4294967296'
// LDS: error: kernel 'ids': LDS request of 200000 bytes exceeds gfx950's 163840
// AQL: error: kernel 'ids': grid of 549755813760 work-items in dimension x exceeds 2^32 - 1
// GRID64: error: kernel 'ids': the grid's workgroup count overflows 64 bits
// REQD: error: kernel 'ids': workgroup 64x1x1 is not its .reqd_workgroup_size 128x1x1
// KERNARG: error: kernel 'ids': kernarg buffer of 16 bytes exceeds its 8-byte kernarg segment
// POINTER: error: kernel 'ids': argument 0 ('out') = 0x1234 is not inside a device allocation
// HUGE: error: cannot allocate 99999999999999999 bytes for buffer 'o'
// TYPE: error: --print: unknown type 'q32'
// I32: error: invalid --arg i32 '4294967296': not a 32-bit integer

// out[id] = id for the 128 work-items of one workgroup.
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl ids
.p2align 8
.type ids,@function
ids:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v0, s[4:5]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel ids
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 8
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: ids
    .symbol: ids.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 128
    .reqd_workgroup_size: [ 128, 1, 1 ]
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
...
.end_amdgpu_metadata
