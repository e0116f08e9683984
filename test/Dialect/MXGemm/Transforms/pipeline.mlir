// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline --canonicalize --split-input-file | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline=stages=2 --canonicalize --split-input-file | FileCheck %s --check-prefix=TWO

// Three stages, 4 waves, 128x128 X (async) and W (async) tiles: every wave
// issues 4 + 4 global_load_lds per K tile and every iteration refills a
// whole tile (clamped to the last K tile at the end), so one tile is always
// ahead of the current one: each wait leaves 8 loads in flight (vmcnt(8)).
// CHECK-LABEL: gpu.func @three_stages
// Prologue: tiles 0 and 1 into slots 0 and 1.
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR:[a-z0-9]+]][%[[S0:.+]], %{{.+}}, %[[S0]], %{{.+}}]
// CHECK: mxgemm.copy_to_lds
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR]][%[[S1:.+]], %{{.+}}, %[[K128:.+]], %{{.+}}]
// CHECK: mxgemm.copy_to_lds
// CHECK: scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[T:.+]] = arith.divui %[[K0]], %c128
// CHECK: %[[SLOT:.+]] = arith.remui %[[T]], %c3
// CHECK: memref.subview %[[XR]][%[[SLOT]]
// CHECK-NOT: scf.if
// CHECK: mxgemm.wait_copies {pending = 8 : i64}
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: %[[AHEAD:.+]] = arith.addi %[[K0]], %c256
// CHECK-NEXT: %[[AHEAD_K:.+]] = arith.minui %[[AHEAD]], %c384
// CHECK-NEXT: %[[AT:.+]] = arith.addi %[[T]], %c2
// CHECK-NEXT: %[[AS:.+]] = arith.remui %[[AT]], %c3
// CHECK-NEXT: mxgemm.copy_to_lds %{{.+}}, %[[XR]][%[[AS]], %{{.+}}, %[[AHEAD_K]], %{{.+}}]
// CHECK-NEXT: mxgemm.copy_to_lds
// CHECK-NEXT: mxgemm.wave_mma
// CHECK-NOT: mxgemm.ring_barrier
// CHECK: scf.yield

// TWO-LABEL: gpu.func @three_stages
// TWO: scf.for
// TWO-NOT: scf.if
// TWO: mxgemm.wait_copies {pending = 0 : i64}
// TWO-NEXT: mxgemm.ring_barrier
// TWO: arith.addi %{{.+}}, %c128
func.func @three_stages(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                        %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                        %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async, stage_w = lds_async,
                               stages = 3>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Split K (k_splits = 2, K = 1024): each workgroup's K loop runs over its
// segment's 512 columns from the origin block_id.y * 512. The prologue copies
// and every refill add that origin to the loop's K offset; the clamp stays
// inside the segment (its last K tile, 384).
// CHECK-LABEL: gpu.func @split_segments
// CHECK: %[[SEG:.+]] = gpu.block_id  y
// CHECK: scf.if
// CHECK: %[[ORIGIN:.+]] = arith.muli %[[SEG]], %c512
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR:[a-z0-9]+]][%c0, %{{.+}}, %[[ORIGIN]], %{{.+}}]
// CHECK: mxgemm.copy_to_lds
// CHECK: %[[SECOND:.+]] = arith.addi %[[ORIGIN]], %c128
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR]][%c1, %{{.+}}, %[[SECOND]], %{{.+}}]
// CHECK: mxgemm.copy_to_lds
// CHECK: scf.for %[[K0:.+]] = %c0 to %c512 step %c128
// CHECK: %[[MMA_K:.+]] = arith.addi %[[ORIGIN]], %[[K0]]
// CHECK: mxgemm.wait_copies {pending = 8 : i64}
// CHECK: %[[AHEAD:.+]] = arith.addi %[[K0]], %c256
// CHECK-NEXT: %[[CLAMPED:.+]] = arith.minui %[[AHEAD]], %c384
// CHECK-NEXT: %[[AHEAD_K:.+]] = arith.addi %[[ORIGIN]], %[[CLAMPED]]
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR]][%{{.+}}, %{{.+}}, %[[AHEAD_K]], %{{.+}}]
// CHECK: mxgemm.wave_mma %{{.+}}[%{{.+}}, %{{.+}}, %[[MMA_K]], %{{.+}}]
func.func @split_segments(%x: memref<?x1024xf8E4M3FN>, %xs: memref<?x32xf8E8M0FNU>,
                          %w: memref<128x1024xf8E4M3FN>, %ws: memref<4x32xf8E8M0FNU>,
                          %y: memref<?x128xf32>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async, stage_w = lds_async,
                               stages = 3, k_splits = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1024xf8E4M3FN>, memref<?x32xf8E8M0FNU>, memref<128x1024xf8E4M3FN>,
        memref<4x32xf8E8M0FNU> into memref<?x128xf32>
  return
}

// -----

// Tail split (k_splits = 2, tail_split = true, K = 1024): the tiles past the
// last whole round of 256 (the target's CUs) run one segment each, the others
// all of K. mxgemm-tile builds a K loop for each, with constant trip counts,
// so each is pipelined with its own prologue into the same ring: the
// segment's from its K origin, clamped to its last K tile (origin + 384),
// the whole tile's to K - 128.
// CHECK-LABEL: gpu.func @tail_split
// CHECK: %[[TAIL:.+]] = arith.remui %{{.+}}, %c256
// CHECK: scf.if
// CHECK: %[[ORIGIN:.+]] = arith.muli %{{.+}}, %c512
// CHECK: mxgemm.copy_to_lds %{{.+}}[%c0, %{{.+}}, %[[ORIGIN]], %{{.+}}]
// CHECK: scf.for %[[SK:.+]] = %c0 to %c512 step %c128
// CHECK: %[[SAHEAD:.+]] = arith.addi %[[SK]], %c256
// CHECK-NEXT: %[[SCLAMPED:.+]] = arith.minui %[[SAHEAD]], %c384
// CHECK-NEXT: arith.addi %[[ORIGIN]], %[[SCLAMPED]]
// CHECK: mxgemm.store_tile
// CHECK-SAME: n = 128 : i64
// CHECK: } else {
// CHECK: mxgemm.copy_to_lds %{{.+}}[%c0, %{{.+}}, %c0, %{{.+}}]
// CHECK: scf.for %[[K0:.+]] = %c0 to %c1024 step %c128
// CHECK: %[[AHEAD:.+]] = arith.addi %[[K0]], %c256
// CHECK-NEXT: arith.minui %[[AHEAD]], %c896
// CHECK: mxgemm.store_tile
// CHECK-SAME: n = 128 : i64
func.func @tail_split(%x: memref<?x1024xf8E4M3FN>, %xs: memref<?x32xf8E8M0FNU>,
                      %w: memref<128x1024xf8E4M3FN>, %ws: memref<4x32xf8E8M0FNU>,
                      %y: memref<?x128xf32>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async, stage_w = lds_async,
                               stages = 3, k_splits = 2, tail_split = true>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1024xf8E4M3FN>, memref<?x32xf8E8M0FNU>, memref<128x1024xf8E4M3FN>,
        memref<4x32xf8E8M0FNU> into memref<?x128xf32>
  return
}
