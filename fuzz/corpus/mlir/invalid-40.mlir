func.func @n_huge(%x: memref<?x128xf8E4M3FN>, %xs: memref<?x4xf8E8M0FNU>,
                  %w: memref<33554432x128xf8E4M3FN>, %ws: memref<33554432x4xf8E8M0FNU>,
                  %y: memref<?x33554432xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x128xf8E4M3FN>, memref<?x4xf8E8M0FNU>, memref<33554432x128xf8E4M3FN>,
        memref<33554432x4xf8E8M0FNU> into memref<?x33554432xbf16>
  return
}
