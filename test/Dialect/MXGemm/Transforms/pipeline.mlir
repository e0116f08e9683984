// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline --canonicalize --split-input-file | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline=stages=2 --canonicalize --split-input-file | FileCheck %s --check-prefix=TWO

// Three stages, 4 waves, 128x128 X (async) and W (async) tiles: every wave
// issues 4 + 4 global_load_lds per K tile, so while one tile is still
// ahead a wave may leave 8 loads in flight (vmcnt(8)), at the last tile 0.
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
// CHECK: %[[AFTER:.+]] = arith.subi %{{.+}}, %[[T]]
// CHECK: %[[ONE_AHEAD:.+]] = arith.cmpi uge, %[[AFTER]], %c1
// CHECK: scf.if %[[ONE_AHEAD]] {
// CHECK-NEXT: mxgemm.wait_copies {pending = 8 : i64}
// CHECK-NEXT: } else {
// CHECK-NEXT: mxgemm.wait_copies {pending = 0 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[AHEAD_K:.+]] = arith.addi %[[K0]], %c256
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[AHEAD_K]], %c512
// CHECK: scf.if %[[IN]] {
// CHECK: %[[AT:.+]] = arith.addi %[[T]], %c2
// CHECK: %[[AS:.+]] = arith.remui %[[AT]], %c3
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR]][%[[AS]], %{{.+}}, %[[AHEAD_K]], %{{.+}}]
// CHECK: mxgemm.copy_to_lds
// CHECK: }
// CHECK: mxgemm.wave_mma
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield

// TWO-LABEL: gpu.func @three_stages
// TWO: scf.for
// TWO-NOT: scf.if
// TWO: mxgemm.wait_copies {pending = 0 : i64}
// TWO-NEXT: gpu.barrier
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
