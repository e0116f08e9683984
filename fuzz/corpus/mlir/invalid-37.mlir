func.func @panels_and_lds(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                          %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                          %acc: vector<16xf32>, %i: index,
                          %wt: memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>) -> vector<16xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      w_tile(%wt : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64, w_panels,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}
