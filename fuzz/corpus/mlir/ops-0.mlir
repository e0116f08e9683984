func.func @wq_b(%x: memref<?x1280xf8E4M3FN>, %xs: memref<?x40xf8E8M0FNU>,
                %w: memref<16384x1280xf8E4M3FN>, %ws: memref<512x40xf8E8M0FNU>,
                %y: memref<?x16384xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<split = 2, stages = 2, stage_w = packed_registers,
                               stage_x = lds_async, tile_n = 256, waves_m = 1,
                               waves_n = 4, group_m = 1, schedule = default>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1280xf8E4M3FN>, memref<?x40xf8E8M0FNU>,
        memref<16384x1280xf8E4M3FN>, memref<512x40xf8E8M0FNU>
        into memref<?x16384xbf16>
  return
}

func.func @per_row_e5m2_f32_out(%x: memref<?x512xf8E5M2>, %xs: memref<?x16xf8E8M0FNU>,
                                %w: memref<256x512xf8E4M3FN>, %ws: memref<256x16xf8E8M0FNU>,
                                %y: memref<?x256xf32>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 256,
                               mfma = m16n16k128, group_m = 4, group_n = 8,
                               xcd_remap = true, lds_layout = xor,
                               waves_per_eu = 2, schedule = interleave>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x512xf8E5M2>, memref<?x16xf8E8M0FNU>,
        memref<256x512xf8E4M3FN>, memref<256x16xf8E8M0FNU>
        into memref<?x256xf32>
  return
}

func.func @static_m(%x: memref<8x64xf8E4M3FN>, %xs: memref<8x2xf8E8M0FNU>,
                    %w: memref<96x64xf8E4M3FN>, %ws: memref<3x2xf8E8M0FNU>,
                    %y: memref<8x96xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64,
                               waves_m = 1, waves_n = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8x64xf8E4M3FN>, memref<8x2xf8E8M0FNU>, memref<96x64xf8E4M3FN>,
        memref<3x2xf8E8M0FNU> into memref<8x96xbf16>
  return
}
