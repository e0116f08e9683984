// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline=stages=1 -verify-diagnostics

// The pass's stages option overrides the config's: ping-pong with one
// stage (no ring slot to refill while the other group reads) is refused.
func.func @pingpong_one_stage(%x: memref<?x512xf8E4M3FN>,
                              %xs: memref<?x16xf8E8M0FNU>,
                              %w: memref<128x512xf8E4M3FN>,
                              %ws: memref<4x16xf8E8M0FNU>,
                              %y: memref<?x128xbf16>) {
  // expected-error @+1 {{schedule = pingpong needs at least 2 stages, got 1}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, schedule = pingpong>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>,
        memref<128x512xf8E4M3FN>, memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}
