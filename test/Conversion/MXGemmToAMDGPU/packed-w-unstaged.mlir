// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-group-tiles --convert-mxgemm-to-amdgpu --verify-diagnostics

// The kernel ABI takes W packed in MFMA panels, but mxgemm-stage-copies
// (which makes the MMA read panels) did not run: lowering would misread W.
func.func @packed_w_unstaged(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                             %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                             %y: memref<?x128xbf16>) {
  // expected-error @+1 {{kernel takes W packed in MFMA panels (stage_w = packed_registers) but this op reads row-major W; run mxgemm-stage-copies first}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_w = packed_registers>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}
