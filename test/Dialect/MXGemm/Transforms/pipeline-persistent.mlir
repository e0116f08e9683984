// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline --split-input-file | FileCheck %s

// persistent = 1: the workgroup walks tiles id, id + grid, ... with grid =
// min(tiles, 1 x 256 CUs), counting walked tiles in an iteration argument;
// the walk counts in i32 (no ordered 64-bit scalar compare on gfx950).
// The ring runs across the walk: the prologue (K tiles 0 and 1 of the first
// tile) is issued once before it; inside, the slot counter starts at
// (tiles walked) x 4 K tiles, and a refill past the last K tile (K offset
// 128 + 128 = 256 or 320, equalities for the same reason) copies the next
// tile's first K tiles from that tile's bases, or the last K tile again
// (192) when there is no next tile.
// CHECK-LABEL: gpu.func @persistent
// CHECK: %[[TILES:.+]] = arith.muli %{{.+}}, %{{.+}} : index
// CHECK: %[[GRID:.+]] = arith.minui %[[TILES]], %{{.+}} : index
// CHECK: %[[GRID32:.+]] = arith.index_castui %[[GRID]] : index to i32
// CHECK: %[[TILES32:.+]] = arith.index_castui %[[TILES]] : index to i32
// CHECK-COUNT-4: mxgemm.copy_to_lds
// CHECK: %{{.+}} = scf.for %[[T:.+]] = %{{.+}} to %[[TILES32]] step %[[GRID32]] iter_args(%[[WALKED:.+]] = %{{.+}}) -> (index) : i32 {
// CHECK-NOT: mxgemm.copy_to_lds
// CHECK: %[[NEXT:.+]] = arith.addi %[[T]], %[[GRID32]] : i32
// CHECK: %[[HAS_NEXT:.+]] = arith.cmpi ult, %[[NEXT]], %[[TILES32]] : i32
// CHECK: %[[NEXT_INDEX:.+]] = arith.index_castui %[[NEXT]] : i32 to index
// CHECK: mxgemm.program_tile %[[NEXT_INDEX]]
// CHECK: %[[NEXT_X:.+]] = arith.select %[[HAS_NEXT]], %{{.+}}, %[[X_BASE:.+]] : index
// CHECK: %[[RING0:.+]] = arith.muli %[[WALKED]], %[[C4:.+]] : index
// CHECK: %[[OFFSET:.+]] = arith.remui %[[RING0]], %{{.+}} : index
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[KT:.+]] = arith.divui %[[K]], %{{.+}} : index
// CHECK: arith.addi %[[KT]], %[[OFFSET]] : index
// CHECK: mxgemm.wait_copies {pending = 4 : i64}
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK: %[[AHEAD:.+]] = arith.addi %[[K]], %{{.+}} : index
// CHECK: %[[AT_END:.+]] = arith.cmpi eq, %[[AHEAD]], %c256{{.*}} : index
// CHECK: %[[PAST_END:.+]] = arith.cmpi eq, %[[AHEAD]], %c320{{.*}} : index
// CHECK: %[[ROLLED:.+]] = arith.ori %[[AT_END]], %[[PAST_END]] : i1
// CHECK: %[[WRAPPED:.+]] = arith.subi %[[AHEAD]], %{{.+}} : index
// CHECK: %[[NEXT_K:.+]] = arith.select %[[HAS_NEXT]], %[[WRAPPED]], %{{.+}} : index
// CHECK: %[[ROW:.+]] = arith.select %[[ROLLED]], %[[NEXT_X]], %[[X_BASE]] : index
// CHECK: %[[AHEAD_K:.+]] = arith.select %[[ROLLED]], %[[NEXT_K]], %[[AHEAD]] : index
// CHECK: mxgemm.copy_to_lds %{{.+}}, %{{.+}}[%{{.+}}, %[[ROW]], %[[AHEAD_K]], %{{.+}}]
// CHECK: mxgemm.wave_mma
// CHECK: mxgemm.store_tile
// CHECK: arith.addi %[[WALKED]], %{{.+}} : index
// CHECK: } {mxgemm.tile_walk}
func.func @persistent(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                      %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                      %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64,
                               waves_m = 2, waves_n = 2,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, persistent = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Ping-pong across the walk: one wait and B's lead barrier before it, A's
// trailing barrier after it, so that the stagger of the two groups runs
// from tile to tile; each tile still waits for its first K tile.
// CHECK-LABEL: gpu.func @persistent_pingpong
// CHECK-COUNT-4: mxgemm.copy_to_lds
// CHECK: mxgemm.wait_copies {pending = 2 : i64}
// CHECK: %[[GROUP_B:.+]] = arith.cmpi uge
// CHECK: scf.if %[[GROUP_B]] {
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK-NOT: mxgemm.ring_barrier
// CHECK: mxgemm.wait_copies {pending = 2 : i64}
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: mxgemm.wave_mma {{.+}} {{.*}}pingpong_pending = 2 : i64
// CHECK: mxgemm.store_tile
// CHECK: } {mxgemm.tile_walk}
// CHECK: %[[GROUP_A:.+]] = arith.xori %[[GROUP_B]], %{{.+}} : i1
// CHECK-NEXT: scf.if %[[GROUP_A]] {
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: }
func.func @persistent_pingpong(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                               %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                               %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64,
                               waves_m = 2, waves_n = 4,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, schedule = pingpong, persistent = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// One K tile, fewer than stages - 1 = 2: the ring cannot run a whole tile
// ahead, so each tile has its own prologue behind a barrier (every wave has
// left the previous tile's slots).
// CHECK-LABEL: gpu.func @persistent_short_k
// CHECK: scf.for
// CHECK-NOT: mxgemm.copy_to_lds
// CHECK: mxgemm.ring_barrier
// CHECK-NOT: mxgemm.ring_barrier
// CHECK: mxgemm.copy_to_lds
// CHECK: scf.for
// CHECK: } {mxgemm.tile_walk}
func.func @persistent_short_k(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                              %w: memref<128x64xf8E4M3FN>, %ws: memref<4x2xf8E8M0FNU>,
                              %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64,
                               waves_m = 2, waves_n = 2,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, persistent = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<128x64xf8E4M3FN>,
        memref<4x2xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Two-slot ping-pong (stages = 2) across the walk: the W copies run one K
// tile ahead, the X copies two (in the MMA's second turn), so both roll
// into the next tile: W at its last K tile (384 + 128 = 512), X at the
// last two (384 + 256 = 640, 256 + 256 = 512), each from the next tile's
// bases.
// CHECK-LABEL: gpu.func @persistent_two_slots
// CHECK: scf.for %[[T:.+]] = {{.+}} : i32 {
// CHECK: %[[HAS_NEXT:.+]] = arith.cmpi ult
// CHECK: %[[NEXT_X:.+]] = arith.select %[[HAS_NEXT]], %{{.+}}, %[[X_BASE:.+]] : index
// CHECK: %[[NEXT_W:.+]] = arith.select %[[HAS_NEXT]], %{{.+}}, %[[W_BASE:.+]] : index
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: mxgemm.ring_barrier
// CHECK: %[[AHEAD1:.+]] = arith.addi %[[K]], %c128{{.*}} : index
// CHECK: %[[ROLLED1:.+]] = arith.cmpi eq, %[[AHEAD1]], %c512{{.*}} : index
// CHECK: %[[W_ROW:.+]] = arith.select %[[ROLLED1]], %[[NEXT_W]], %[[W_BASE]] : index
// CHECK: %[[AHEAD2:.+]] = arith.addi %[[K]], %c256{{.*}} : index
// CHECK: %[[AT_END:.+]] = arith.cmpi eq, %[[AHEAD2]], %c512{{.*}} : index
// CHECK: %[[PAST_END:.+]] = arith.cmpi eq, %[[AHEAD2]], %c640{{.*}} : index
// CHECK: %[[ROLLED2:.+]] = arith.ori %[[AT_END]], %[[PAST_END]] : i1
// CHECK: %[[X_ROW:.+]] = arith.select %[[ROLLED2]], %[[NEXT_X]], %[[X_BASE]] : index
// CHECK: mxgemm.copy_to_lds %arg2, %{{.+}}[%{{.+}}, %[[W_ROW]],
// CHECK-NEXT: mxgemm.wave_mma {{.+}} {{.*}}pingpong_refills
// CHECK-NEXT: mxgemm.copy_to_lds %arg0, %{{.+}}[%{{.+}}, %[[X_ROW]],
// CHECK: } {mxgemm.tile_walk}
func.func @persistent_two_slots(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                                %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                                %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, lds_layout = xor,
                               schedule = pingpong, persistent = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}
