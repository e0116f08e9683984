func.func @split_16x16(%x: memref<?x4096xf8E5M2>, %xs: memref<?x128xf8E8M0FNU>,
                       %w: memref<512x4096xf8E4M3FN>, %ws: memref<512x128xf8E8M0FNU>,
                       %y: memref<?x512xf32>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 256,
                               waves_m = 2, waves_n = 4, split = 2,
                               mfma = m16n16k128, waves_per_eu = 2>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x4096xf8E5M2>, memref<?x128xf8E8M0FNU>,
        memref<512x4096xf8E4M3FN>, memref<512x128xf8E8M0FNU>
        into memref<?x512xf32>
  return
}
