// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-group-tiles --mxgemm-stage-copies --convert-mxgemm-to-amdgpu --mxgemm-prefetch-registers --mxgemm-schedule-mfma | FileCheck %s

// K = 1280 in 5 K tiles of 256; one 16x16 block per wave, 2 MFMA steps per
// K tile, 10 global load instructions per K tile (operand halves of X and
// W, one 8-byte scale load each). The prologue issues tile 0's loads; the
// pipelined loop (4 trips) is unrolled by 2: each copy loads the next tile,
// then runs this tile's 2 MFMAs, and the sched groups keep that order copy
// by copy; the last tile's MFMAs follow the loop.
// CHECK-LABEL: gpu.func @stages2
// CHECK-NOT: amdgpu.scaled_mfma
// CHECK-COUNT-10: vector.load
// CHECK-NOT: amdgpu.scaled_mfma
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c512
// CHECK-COUNT-2: amdgpu.scaled_mfma
// CHECK-COUNT-2: amdgpu.scaled_mfma
// CHECK-NEXT: rocdl.sched.group.barrier 32, 10, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 10, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 2, 0
// CHECK: scf.yield
// CHECK-NEXT: } {mxgemm.prefetched = 2 : i64}
// CHECK-NOT: vector.load %arg0
// CHECK-COUNT-2: amdgpu.scaled_mfma
// CHECK-NEXT: rocdl.sched.group.barrier 8, 2, 0
// CHECK-NOT: amdgpu.scaled_mfma
// CHECK: gpu.return
func.func @stages2(%x: memref<?x1280xf8E4M3FN>, %xs: memref<?x40xf8E8M0FNU>,
                   %w: memref<64x1280xf8E4M3FN>, %ws: memref<2x40xf8E8M0FNU>,
                   %y: memref<?x64xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 16, tile_n = 32, tile_k = 256,
                               waves_m = 1, waves_n = 2, mfma = m16n16k128,
                               stages = 2, schedule = loads_first>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1280xf8E4M3FN>, memref<?x40xf8E8M0FNU>, memref<64x1280xf8E4M3FN>,
        memref<2x40xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// Three stages over 5 K tiles: two tiles' loads in the prologue, a loop of
// 3 trips unrolled by 3 (one trip, folded away: straight-line copies), and
// two tiles' MFMAs after it. Without a loop the groups follow the last
// MFMA: the prologue's and the first copy's loads (30), then run by run,
// the last run with the three last tiles' MFMAs (6).
// CHECK-LABEL: gpu.func @stages3
// CHECK-NOT: scf.for
// CHECK-NOT: mxgemm.prefetched
// CHECK-COUNT-10: amdgpu.scaled_mfma
// CHECK-NEXT: rocdl.sched.group.barrier 32, 30, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 10, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 2, 0
// CHECK-NEXT: rocdl.sched.group.barrier 32, 10, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 6, 0
// CHECK: gpu.return
func.func @stages3(%x: memref<?x1280xf8E4M3FN>, %xs: memref<?x40xf8E8M0FNU>,
                   %w: memref<64x1280xf8E4M3FN>, %ws: memref<2x40xf8E8M0FNU>,
                   %y: memref<?x64xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 16, tile_n = 32, tile_k = 256,
                               waves_m = 1, waves_n = 2, mfma = m16n16k128,
                               stages = 3, schedule = loads_first>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1280xf8E4M3FN>, memref<?x40xf8E8M0FNU>, memref<64x1280xf8E4M3FN>,
        memref<2x40xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// Fewer K tiles (2) than stages (3): nothing to overlap, the loop and its
// loads_first order stay as they are.
// CHECK-LABEL: gpu.func @too_few_tiles
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK-COUNT-2: amdgpu.scaled_mfma
// CHECK: rocdl.sched.group.barrier 32, 10, 0
// CHECK-NEXT: rocdl.sched.group.barrier 8, 2, 0
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }{{$}}
// CHECK: gpu.return
func.func @too_few_tiles(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                         %w: memref<64x512xf8E4M3FN>, %ws: memref<2x16xf8E8M0FNU>,
                         %y: memref<?x64xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 16, tile_n = 32, tile_k = 256,
                               waves_m = 1, waves_n = 2, mfma = m16n16k128,
                               stages = 3, schedule = loads_first>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<64x512xf8E4M3FN>,
        memref<2x16xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// An LDS ring's stages are its depth (mxgemm-pipeline): not this pass's.
// CHECK-LABEL: gpu.func @lds_ring
// CHECK-NOT: mxgemm.prefetched
// CHECK: gpu.return
func.func @lds_ring(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                    %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                    %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async, stages = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}
