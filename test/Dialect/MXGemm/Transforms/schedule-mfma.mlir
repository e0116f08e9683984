// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-group-tiles --mxgemm-stage-copies --convert-mxgemm-to-amdgpu --mxgemm-schedule-mfma | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-group-tiles --convert-mxgemm-to-amdgpu --mxgemm-schedule-mfma=force | FileCheck %s --check-prefix=FORCE

// 8 MFMAs (2x2 blocks x 2 K-steps), 16 LDS reads (A and B halves), 8 scale
// loads from global memory: each MFMA is followed by 2 LDS reads and 1 global
// load; s_setprio 1/0 bracket the MFMA cluster.
// CHECK-LABEL: gpu.func @interleave
// CHECK: scf.for
// CHECK: rocdl.s.setprio 1
// CHECK-NEXT: amdgpu.scaled_mfma
// CHECK-COUNT-7: amdgpu.scaled_mfma
// CHECK: rocdl.s.setprio 0
// CHECK: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 1, 0
// CHECK-NOT: rocdl.sched.group.barrier
// CHECK: scf.yield
// CHECK-NOT: rocdl.sched.group.barrier

// Default schedule: left alone unless forced.
// FORCE-LABEL: gpu.func @interleave
// FORCE: rocdl.sched.group.barrier 8, 1, 0
// FORCE-LABEL: gpu.func @default
// FORCE: rocdl.s.setprio 1
// FORCE: rocdl.sched.group.barrier 8, 1, 0
// FORCE-NEXT: rocdl.sched.group.barrier 32, 3, 0
func.func @interleave(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                      %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                      %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async, stage_w = lds_async,
                               schedule = interleave>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// CHECK-LABEL: gpu.func @default
// CHECK-NOT: rocdl.s.setprio
// CHECK-NOT: rocdl.sched.group.barrier
// CHECK: gpu.return
func.func @default(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                   %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                   %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// schedule = loads_first: every global load of the K tile (16 operand
// loads of 16 bytes and 4 scale loads: 20 instructions) before the 8 MFMAs,
// one memory latency per K tile; no s_setprio, which would bound LLVM's
// scheduling region and keep the loads where the lowering put them.
// CHECK-LABEL: gpu.func @loads_first
// CHECK-NOT: rocdl.s.setprio
// CHECK: scf.for
// CHECK-COUNT-8: amdgpu.scaled_mfma
// CHECK: rocdl.sched.group.barrier 32, 20, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 8, 0
// CHECK-NEXT: scf.yield
func.func @loads_first(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                       %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                       %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<schedule = loads_first>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}
