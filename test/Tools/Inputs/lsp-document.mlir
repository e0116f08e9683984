// An mxgemm op with a verifier error the server must report (only a server
// with the mxgemm dialect registered knows the rule).
func.func @bad(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x3xf8E8M0FNU>,
               %w: memref<32x64xf8E4M3FN>, %ws: memref<1x2xf8E8M0FNU>,
               %y: memref<?x32xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64,
                               waves_m = 1, waves_n = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x3xf8E8M0FNU>, memref<32x64xf8E4M3FN>,
        memref<1x2xf8E8M0FNU> into memref<?x32xbf16>
  return
}
