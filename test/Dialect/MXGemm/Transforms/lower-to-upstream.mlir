// mxgemm-lower-to-upstream on both forms of the op (the CPU run is
// lower-to-upstream-cpu.test).
// RUN: mxgemm-opt %s -split-input-file --mxgemm-lower-to-upstream | FileCheck %s

// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[XSMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2 floordiv 32)>
// CHECK-DAG: #[[WMAP:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[WSMAP:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2 floordiv 32)>
// CHECK-DAG: #[[YMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @memref_bf16(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x64xf8E4M3FN>, %[[XS:[^:]*]]: memref<?x2xf8E8M0FNU>, %[[W:[^:]*]]: memref<96x64xf8E5M2>, %[[WS:[^:]*]]: memref<3x2xf8E8M0FNU>, %[[Y:[^:]*]]: memref<?x96xbf16>)
// CHECK: %[[M:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK: %[[ACC:.*]] = memref.alloc(%[[M]]) : memref<?x96xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[ACC]] : memref<?x96xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], #[[XSMAP]], #[[WMAP]], #[[WSMAP]], #[[YMAP]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[XS]], %[[W]], %[[WS]] : {{.*}}) outs(%[[ACC]] : memref<?x96xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f8E4M3FN, %[[AS:.*]]: f8E8M0FNU, %[[B:.*]]: f8E5M2, %[[BS:.*]]: f8E8M0FNU, %[[C:.*]]: f32):
// CHECK-NEXT: %[[AF:.*]] = arith.scaling_extf %[[A]], %[[AS]] : f8E4M3FN, f8E8M0FNU to f32
// CHECK-NEXT: %[[BF:.*]] = arith.scaling_extf %[[B]], %[[BS]] : f8E5M2, f8E8M0FNU to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<?x96xf32>) outs(%[[Y]] : memref<?x96xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.dealloc %[[ACC]]
// CHECK-NOT: mxgemm.
func.func @memref_bf16(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                       %w: memref<96x64xf8E5M2>, %ws: memref<3x2xf8E8M0FNU>,
                       %y: memref<?x96xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64,
                               waves_m = 1, waves_n = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<96x64xf8E5M2>,
        memref<3x2xf8E8M0FNU> into memref<?x96xbf16>
  return
}

// -----

// f32 output on tensors: the accumulator is the destination itself.
// CHECK-DAG: #[[WSROW:.*]] = affine_map<(d0, d1, d2) -> (d1, d2 floordiv 32)>
// CHECK-LABEL: func.func @tensor_f32(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x128xf8E4M3FN>, %[[XS:[^:]*]]: tensor<4x4xf8E8M0FNU>, %[[W:[^:]*]]: tensor<128x128xf8E4M3FN>, %[[WS:[^:]*]]: tensor<128x4xf8E8M0FNU>, %[[Y0:[^:]*]]: tensor<4x128xf32>)
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[Y0]] : tensor<4x128xf32>) -> tensor<4x128xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [{{.*}}, #[[WSROW]], {{.*}}]{{.*}} outs(%[[F]] : tensor<4x128xf32>)
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
func.func @tensor_f32(%x: tensor<4x128xf8E4M3FN>, %xs: tensor<4x4xf8E8M0FNU>,
                      %w: tensor<128x128xf8E4M3FN>, %ws: tensor<128x4xf8E8M0FNU>,
                      %y0: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %r = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %y0
      {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<per_row>}
      : tensor<4x128xf8E4M3FN>, tensor<4x4xf8E8M0FNU>, tensor<128x128xf8E4M3FN>,
        tensor<128x4xf8E8M0FNU> into tensor<4x128xf32>
  return %r : tensor<4x128xf32>
}
