func.func @wq_b(%x: memref<?x1280xf8E4M3FN>, %xs: memref<?x40xf8E8M0FNU>,
                %w: memref<16384x1280xf8E4M3FN>, %ws: memref<512x40xf8E8M0FNU>,
                %y: memref<?x16384xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 2, waves_n = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1280xf8E4M3FN>, memref<?x40xf8E8M0FNU>,
        memref<16384x1280xf8E4M3FN>, memref<512x40xf8E8M0FNU>
        into memref<?x16384xbf16>
  return
}
