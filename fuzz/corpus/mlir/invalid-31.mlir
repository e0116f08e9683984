func.func @w_scales_block(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                          %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                          %y: memref<?x64xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}
