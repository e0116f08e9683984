// mxgemm.scaled_matmul_tensor: round trip, verifier (shared with the memref
// op), and one-shot bufferization into mxgemm.scaled_matmul.
// RUN: mxgemm-opt %s -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mxgemm-opt %s -split-input-file -mlir-print-op-generic | mxgemm-opt -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mxgemm-opt %s -split-input-file -verify-diagnostics \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s --check-prefix=BUF

// ROUNDTRIP-LABEL: func.func @dps_arg(
// ROUNDTRIP: %[[Y:.*]] = mxgemm.scaled_matmul_tensor %arg0, %arg1, %arg2, %arg3 into %arg4 {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64, waves_m = 1, waves_n = 1, mfma = m32n32k64>, w_scale = #mxgemm.w_scale<block32x32>} : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>, tensor<96x64xf8E5M2>, tensor<3x2xf8E8M0FNU> into tensor<?x96xbf16>
// ROUNDTRIP: return %[[Y]]
// The destination is the caller's buffer: written in place, no copy.
// BUF-LABEL: func.func @dps_arg(
// BUF-SAME: %[[X:[^:]*]]: memref<?x64xf8E4M3FN>, %[[XS:[^:]*]]: memref<?x2xf8E8M0FNU>, %[[W:[^:]*]]: memref<96x64xf8E5M2>, %[[WS:[^:]*]]: memref<3x2xf8E8M0FNU>, %[[Y:[^:]*]]: memref<?x96xbf16>)
// BUF-NEXT: mxgemm.scaled_matmul %[[X]], %[[XS]], %[[W]], %[[WS]] into %[[Y]] {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64, waves_m = 1, waves_n = 1, mfma = m32n32k64>, w_scale = #mxgemm.w_scale<block32x32>} : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<96x64xf8E5M2>, memref<3x2xf8E8M0FNU> into memref<?x96xbf16>
// BUF-NEXT: return %[[Y]]
func.func @dps_arg(%x: tensor<?x64xf8E4M3FN>, %xs: tensor<?x2xf8E8M0FNU>,
                   %w: tensor<96x64xf8E5M2>, %ws: tensor<3x2xf8E8M0FNU>,
                   %y: tensor<?x96xbf16>) -> tensor<?x96xbf16> {
  %r = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64,
                               waves_m = 1, waves_n = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>, tensor<96x64xf8E5M2>,
        tensor<3x2xf8E8M0FNU> into tensor<?x96xbf16>
  return %r : tensor<?x96xbf16>
}

// -----

// A tensor.empty destination becomes an allocation; init is never read, so
// nothing is copied into it.
// BUF-LABEL: func.func @empty_init(
// BUF: %[[A:.*]] = memref.alloc() {{.*}}: memref<4x128xf32>
// BUF-NOT: memref.copy
// BUF: mxgemm.scaled_matmul %{{.*}} into %[[A]]
// BUF-NOT: memref.copy
// BUF: return %[[A]]
func.func @empty_init(%x: tensor<4x128xf8E4M3FN>, %xs: tensor<4x4xf8E8M0FNU>,
                      %w: tensor<128x128xf8E4M3FN>, %ws: tensor<128x4xf8E8M0FNU>) -> tensor<4x128xf32> {
  %e = tensor.empty() : tensor<4x128xf32>
  %r = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %e
      {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<per_row>}
      : tensor<4x128xf8E4M3FN>, tensor<4x4xf8E8M0FNU>, tensor<128x128xf8E4M3FN>,
        tensor<128x4xf8E8M0FNU> into tensor<4x128xf32>
  return %r : tensor<4x128xf32>
}
