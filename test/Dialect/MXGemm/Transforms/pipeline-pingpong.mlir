// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline --split-input-file | FileCheck %s

// schedule = pingpong: 8 waves (2x4, two per SIMD), both operands through a
// 3-stage async ring. Every wave issues 1 + 1 global_load_lds per K tile
// (128 rows x 4 chunks of X and of W over 512 lanes), so the wait for tile
// t+1 leaves one tile of copies in flight: pending = 2. Tile 0 is waited
// for before the loop; group B (waves 4..7, one per SIMD) passes one
// barrier there and group A one after the loop, so that each group's turn
// (inside the MMA) meets the other's publishing barrier.
// CHECK-LABEL: gpu.func @pingpong
// CHECK-COUNT-4: mxgemm.copy_to_lds
// CHECK: mxgemm.wait_copies {pending = 2 : i64}
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[WAVE:.+]] = arith.divui %[[TID]], %[[C64:.+]] :
// CHECK: %[[GROUP_B:.+]] = arith.cmpi uge, %[[WAVE]], %[[C4:.+]] :
// CHECK: scf.if %[[GROUP_B]] {
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK-NOT: mxgemm.wait_copies
// CHECK: mxgemm.ring_barrier
// CHECK: mxgemm.copy_to_lds
// CHECK-NEXT: mxgemm.copy_to_lds
// CHECK-NEXT: mxgemm.wave_mma {{.+}} {{.*}}pingpong_pending = 2 : i64
// CHECK-NOT: mxgemm.ring_barrier
// CHECK: scf.yield
// CHECK: %[[GROUP_A:.+]] = arith.xori %[[GROUP_B]], %{{.+}} : i1
// CHECK-NEXT: scf.if %[[GROUP_A]] {
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: }
// CHECK: mxgemm.store_tile
func.func @pingpong(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                    %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                    %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64,
                               waves_m = 2, waves_n = 4,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, schedule = pingpong>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Two slots (stages = 2): the refill of tile t+1 goes into the slot of tile
// t-1, which the other group reads until this iteration's publishing
// barrier. The MMA then takes two turns per K tile, over the halves of the
// wave's W block columns: the W copies of tile t+1 (2 global_load_lds per
// wave) go out before it, in its first turn, and stay in flight there
// (pingpong_refills); the X copies run two tiles ahead, after the MMA (its
// second turn issues them), into the slot of tile t itself, clamped to the
// last K tile (384), and stay in flight at the second turn
// (pingpong_pending). The prologue copies X and W of tile 0 and X of tile
// 1, and waits for all but the last.
// CHECK-LABEL: gpu.func @pingpong_two_slots
// CHECK: mxgemm.copy_to_lds %arg0, %arg6[%[[C0:.+]], %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-NEXT: mxgemm.copy_to_lds %arg2, %arg7[%[[C0]],
// CHECK: mxgemm.copy_to_lds %arg0, %arg6[%c1,
// CHECK-NEXT: mxgemm.wait_copies {pending = 2 : i64}
// CHECK: scf.if
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK: scf.for %[[IV:.+]] = %{{.+}} iter_args
// CHECK: %[[SLOT:.+]] = arith.remui
// CHECK: mxgemm.ring_barrier
// CHECK: arith.remui
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 256
// CHECK-NEXT: %[[AHEAD2:.+]] = arith.addi %[[IV]], %[[TWO]]
// CHECK-NEXT: %[[LAST:.+]] = arith.constant 384
// CHECK-NEXT: %[[K2:.+]] = arith.minui %[[AHEAD2]], %[[LAST]]
// CHECK-NEXT: mxgemm.copy_to_lds %arg2, %arg7[
// CHECK-NEXT: mxgemm.wave_mma {{.+}} {{.*}}pingpong_pending = 2 : i64, pingpong_refills = 2 : i64
// CHECK-NEXT: mxgemm.copy_to_lds %arg0, %arg6[%[[SLOT]], %{{.+}}, %[[K2]],
// CHECK-NEXT: scf.yield
func.func @pingpong_two_slots(%x: memref<?x512xf8E4M3FN>,
                              %xs: memref<?x16xf8E8M0FNU>,
                              %w: memref<128x512xf8E4M3FN>,
                              %ws: memref<4x16xf8E8M0FNU>,
                              %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, schedule = pingpong>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>,
        memref<128x512xf8E4M3FN>, memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}
