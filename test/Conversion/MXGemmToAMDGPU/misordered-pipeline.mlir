// RUN: mxgemm-opt %s --mxgemm-tile --convert-mxgemm-to-amdgpu --verify-diagnostics

// mxgemm-group-tiles did not run: the kernel still maps its program id with
// mxgemm.program_tile, which only that pass expands. The conversion fails
// and says so instead of leaving the op for the ROCDL conversion.
func.func @misordered(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                      %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                      %y: memref<?x128xbf16>) {
  // expected-error @+1 {{'mxgemm.program_tile' op is not lowered by convert-mxgemm-to-amdgpu, which leaves no mxgemm op behind; run mxgemm-group-tiles first}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 2, waves_n = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}
