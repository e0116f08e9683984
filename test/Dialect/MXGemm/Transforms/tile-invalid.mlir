// RUN: mxgemm-opt %s --mxgemm-tile --split-input-file --verify-diagnostics

func.func @not_alone(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                     %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                     %y: memref<?x128xbf16>) {
  // expected-error @+1 {{cannot be compiled into an mxgemm kernel: the function must contain only one mxgemm.scaled_matmul}}
  %c0 = arith.constant 0 : index
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}
