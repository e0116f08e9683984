// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline=stages=2 -verify-diagnostics

// The pass's stages option overrides the config's: a tail split (whose
// split tiles run a K segment, a trip count chosen at run time) with two
// slots is refused, since the two-slot ring clamps its X copies, two K
// tiles ahead, to a constant last K tile.
func.func @two_slots_with_a_runtime_trip_count(%x: memref<?x512xf8E4M3FN>,
                                               %xs: memref<?x16xf8E8M0FNU>,
                                               %w: memref<256x512xf8E4M3FN>,
                                               %ws: memref<8x16xf8E8M0FNU>,
                                               %y: memref<?x256xbf16>) {
  // expected-error @+1 {{two-slot ping-pong needs a constant K trip count}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 256, tile_n = 256, tile_k = 64,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, lds_layout = xor,
                               schedule = pingpong, k_splits = 2,
                               tail_split = true>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>,
        memref<256x512xf8E4M3FN>, memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}
