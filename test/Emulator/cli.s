// mxgemm-emu's command line: --help and --version succeed, and the exit
// status says what went wrong (Support/Tool.h): 1 a checker finding or a
// mismatch, 2 usage, 3 a file that cannot be read, written or loaded.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: mxgemm-emu --help | FileCheck %s --check-prefix=HELP
// RUN: mxgemm-emu run --help | FileCheck %s --check-prefix=RUNHELP
// RUN: mxgemm-emu gemm --help | FileCheck %s --check-prefix=GEMMHELP
// RUN: mxgemm-emu --version | FileCheck %s --check-prefix=VERSION
// RUN: %expect-exit 0 mxgemm-emu run %t.hsaco --buf o=512 --arg buf:o
// RUN: %expect-exit 2 mxgemm-emu 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %expect-exit 2 mxgemm-emu run %t.hsaco --bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: %expect-exit 2 mxgemm-emu run %t.hsaco --block 64 --buf o=512 --arg buf:o 2>&1 | FileCheck %s --check-prefix=REQD
// RUN: %expect-exit 2 mxgemm-emu gemm %t.hsaco --m 0 --sidecar %t.json 2>&1 | FileCheck %s --check-prefix=MZERO
// RUN: %expect-exit 2 mxgemm-emu %t.hsaco --m 4 2>&1 | FileCheck %s --check-prefix=NOSIDECAR
// RUN: %expect-exit 3 mxgemm-emu %t.hsaco --m 4 --sidecar %t.missing.json 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: %expect-exit 3 mxgemm-emu dump %t.missing.hsaco 2>&1 | FileCheck %s --check-prefix=NOHSACO
// RUN: %expect-exit 3 mxgemm-emu dump %s 2>&1 | FileCheck %s --check-prefix=NOTELF
// RUN: %expect-exit 3 mxgemm-emu run %t.hsaco --buf o=512 --arg buf:o --stats-json %t.missing-dir/s.json 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: %expect-exit 1 mxgemm-emu run %t.hsaco --buf o=256 --arg buf:o 2>&1 | FileCheck %s --check-prefix=FINDING

// HELP: SUBCOMMANDS:
// HELP: gemm - run a compiled mxgemm kernel
// HELP: run - launch any kernel
// RUNHELP: --buf=<NAME=BYTES[:zero|iota|iota32|fill=V|rand=SEED]> - device buffer
// GEMMHELP: --sidecar=<K.hsaco.json> - the kernel descriptor
// VERSION: mxgemm {{[0-9.]+}} (git {{.+}})
// VERSION-NEXT: LLVM 22
// NONE: error: no code object given
// UNKNOWN: Unknown command line argument '--bogus'
// REQD: error: kernel 'ids': workgroup 64x1x1 is not its .reqd_workgroup_size 128x1x1
// MZERO: error: --m must be at least 1
// NOSIDECAR: error: gemm needs --sidecar
// NOFILE: error: cannot read {{.*}}missing.json
// NOHSACO: error: {{.*}}missing.hsaco
// NOTELF: error:
// WRITE: error: cannot write {{.*}}s.json
// FINDING: error: out-of-bounds in kernel 'ids'

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
