// RUN: mxgemm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of #mxgemm.config and mxgemm.scaled_matmul.

// expected-error @+1 {{unknown config field 'tile_q'}}
#c = #mxgemm.config<tile_q = 4>

// -----

// expected-error @+1 {{config field 'stages' given twice}}
#c = #mxgemm.config<stages = 1, stages = 2>

// -----

// expected-error @+1 {{invalid value 'm8n8k8' for config field 'mfma'}}
#c = #mxgemm.config<mfma = m8n8k8>

// -----

// expected-error @+1 {{invalid value 'lds' for config field 'stage_x'}}
#c = #mxgemm.config<stage_x = lds>

// -----

// expected-error @+1 {{config field 'xcd_remap' expects true or false, got 'yes'}}
#c = #mxgemm.config<xcd_remap = yes>

// -----

// expected-error @+1 {{tile sizes must be in 1..4096, got tile_m = 0, tile_n = 128, tile_k = 128}}
#c = #mxgemm.config<tile_m = 0>

// -----

// expected-error @+1 {{waves_m and waves_n must be in 1..16, got 0 x 2}}
#c = #mxgemm.config<waves_m = 0>

// -----

// Products of huge fields must not wrap (waves_m * waves_n would be 0 and
// the next check would divide by it).
// expected-error @+1 {{waves_m and waves_n must be in 1..16, got 4611686018427387904 x 4}}
#c = #mxgemm.config<waves_m = 4611686018427387904, waves_n = 4>

// -----

// expected-error @+1 {{tile sizes must be in 1..4096, got tile_m = 128, tile_n = 9223372036854775807, tile_k = 128}}
#c = #mxgemm.config<tile_n = 9223372036854775807>

// -----

// A group this large would make the kernel's band size wrap: rejected.
// expected-error @+1 {{group_m must be in 1..65536 and group_n in 0..65536, got 4611686018427387904 x 2}}
#c = #mxgemm.config<group_m = 4611686018427387904, group_n = 2>

// -----

// expected-error @+1 {{group_m must be in 1..65536 and group_n in 0..65536, got 9223372036854775807 x 9223372036854775807}}
#c = #mxgemm.config<group_m = 9223372036854775807, group_n = 9223372036854775807>

// -----

// expected-error @+1 {{waves_m * waves_n = 32 exceeds the 16 waves (1024 threads) of a gfx950 workgroup}}
#c = #mxgemm.config<tile_m = 256, tile_n = 256, waves_m = 4, waves_n = 8>

// -----

// expected-error @+1 {{split (3) must be positive and divide tile_m (128)}}
#c = #mxgemm.config<split = 3>

// -----

// expected-error @+1 {{tile_m / split (64) must be a multiple of waves_m * MFMA M (4 * 32)}}
#c = #mxgemm.config<waves_m = 4, split = 2>

// -----

// expected-error @+1 {{tile_n (96) must be a multiple of waves_n * MFMA N (2 * 32)}}
#c = #mxgemm.config<tile_n = 96>

// -----

// expected-error @+1 {{tile_k (64) must be a multiple of the MFMA K (128)}}
#c = #mxgemm.config<tile_k = 64, mfma = m16n16k128>

// -----

// expected-error @+1 {{group_m must be in 1..65536 and group_n in 0..65536, got 0 x 0}}
#c = #mxgemm.config<group_m = 0>

// -----

// expected-error @+1 {{stage_x = packed_registers is not supported: X changes with every call}}
#c = #mxgemm.config<stage_x = packed_registers>

// -----

// expected-error @+1 {{stages must be in 1..4, got 5}}
#c = #mxgemm.config<stages = 5, stage_x = lds_async>

// -----

// expected-error @+1 {{schedule = pingpong needs 8 waves (two per SIMD) and split = 1, got 2 x 2 waves and split = 1}}
#c = #mxgemm.config<stage_x = lds_async, stage_w = lds_async, stages = 3, schedule = pingpong>

// -----

// expected-error @+1 {{schedule = pingpong needs stage_x = stage_w = lds_async and stages >= 2, got stages = 1}}
#c = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64, waves_m = 2, waves_n = 4, stage_x = lds_async, stage_w = lds_async, stages = 1, schedule = pingpong>

// -----

// expected-error @+1 {{schedule = pingpong with stages = 2 computes each K tile in two turns: it needs an even number of MFMA block columns per wave (tile_n / waves_n / MFMA N = 1) and unroll_k = 1}}
#c = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 4, mfma = m32n32k64, stage_x = lds_async, stage_w = lds_async, stages = 2, schedule = pingpong>

// -----

// expected-error @+1 {{schedule = pingpong with stages = 2 computes each K tile in two turns: it needs an even number of MFMA block columns per wave (tile_n / waves_n / MFMA N = 2) and unroll_k = 1}}
#c = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 4, waves_n = 2, mfma = m32n32k64, stage_x = lds_async, stage_w = lds_async, stages = 2, schedule = pingpong, unroll_k = 2>

// -----

// expected-error @+1 {{schedule = pingpong needs stage_x = stage_w = lds_async}}
#c = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64, waves_m = 2, waves_n = 4, stage_x = lds_async, stage_w = packed_registers, stages = 3, schedule = pingpong>

// -----

// expected-error @+1 {{k_splits must be in 1..64, got 65}}
#c = #mxgemm.config<k_splits = 65>

// -----

// expected-error @+1 {{persistent must be in 0..8 (workgroups per CU), got 9}}
#c = #mxgemm.config<persistent = 9>

// -----

// expected-error @+1 {{persistent must be in 0..8 (workgroups per CU), got -1}}
#c = #mxgemm.config<persistent = -1>

// -----

// expected-error @+1 {{persistent = 1 cannot be combined with k_splits = 2}}
#c = #mxgemm.config<persistent = 1, k_splits = 2>

// -----

// expected-error @+1 {{unroll_k must be in 1..4, got 5}}
#c = #mxgemm.config<unroll_k = 5>

// -----

// expected-error @+1 {{unroll_k = 2 needs a pipelined LDS ring (stage_x or stage_w through LDS and stages >= 2)}}
#c = #mxgemm.config<stage_x = lds_async, unroll_k = 2>

// -----

// expected-error @+1 {{unroll_k = 2 needs a pipelined LDS ring (stage_x or stage_w through LDS and stages >= 2)}}
#c = #mxgemm.config<stages = 2, unroll_k = 2>

// -----

// expected-error @+1 {{tail_split needs k_splits > 1, a pipelined LDS ring (stage_x or stage_w through LDS, stages >= 2), persistent = 0 and unroll_k = 1}}
#c = #mxgemm.config<stage_x = lds_async, stages = 2, tail_split = true>

// -----

// expected-error @+1 {{tail_split needs k_splits > 1, a pipelined LDS ring (stage_x or stage_w through LDS, stages >= 2), persistent = 0 and unroll_k = 1}}
#c = #mxgemm.config<k_splits = 2, tail_split = true>

// -----

// expected-error @+1 {{config field 'tail_split' expects true or false, got 'on'}}
#c = #mxgemm.config<tail_split = on>

// -----

// expected-error @+1 {{waves_per_eu must be in 0..8, got 9}}
#c = #mxgemm.config<waves_per_eu = 9>

// -----

// expected-error @+1 {{each wave's accumulator tile needs 512 registers per lane; more than half of the 512 gfx950 VGPRs+AGPRs would spill}}
#c = #mxgemm.config<tile_m = 256, tile_n = 256, waves_m = 1, waves_n = 2>

// -----

// expected-error @+1 {{config needs 196608 bytes of LDS, more than the 163840 a gfx950 workgroup can allocate}}
#c = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 256, stage_x = lds_async, stage_w = lds_async, stages = 2, waves_n = 4>

// -----

func.func @x_element_type(%x: memref<?x64xi8>, %xs: memref<?x2xf8E8M0FNU>,
                          %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                          %y: memref<?x64xbf16>) {
  // expected-error @+1 {{operand #0 must be 2D memref of f8E4M3FN type or f8E5M2 type values}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xi8>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @scale_element_type(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xi8>,
                              %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                              %y: memref<?x64xbf16>) {
  // expected-error @+1 {{operand #1 must be 2D memref of f8E8M0FNU type values}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xi8>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @out_element_type(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                            %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                            %y: memref<?x64xf16>) {
  // expected-error @+1 {{operand #4 must be 2D memref of bfloat16 type or 32-bit float values}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xf16>
  return
}

// -----

// Dynamic N and K (generic kernels) need direct loads of both operands,
// no split-K and the row-major tile order; the shapes derived from them
// follow W's `?`s.
func.func @dynamic_n_packed_w(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                              %w: memref<?x64xf8E4M3FN>, %ws: memref<?x2xf8E8M0FNU>,
                              %y: memref<?x?xbf16>) {
  // expected-error @+1 {{a dynamic N or K needs stage_x = stage_w = direct (only direct loads mask every N and K edge)}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 64, tile_k = 64, waves_m = 1, stage_w = packed_registers>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<?x64xf8E4M3FN>,
        memref<?x2xf8E8M0FNU> into memref<?x?xbf16>
  return
}

// -----

func.func @dynamic_k_lds(%x: memref<?x?xf8E4M3FN>, %xs: memref<?x?xf8E8M0FNU>,
                         %w: memref<64x?xf8E4M3FN>, %ws: memref<64x?xf8E8M0FNU>,
                         %y: memref<?x64xbf16>) {
  // expected-error @+1 {{a dynamic N or K needs stage_x = stage_w = direct (only direct loads mask every N and K edge)}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64, stage_x = lds_async, stages = 2>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>, memref<64x?xf8E4M3FN>,
        memref<64x?xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @dynamic_k_split(%x: memref<?x?xf8E4M3FN>, %xs: memref<?x?xf8E8M0FNU>,
                           %w: memref<64x?xf8E4M3FN>, %ws: memref<64x?xf8E8M0FNU>,
                           %y: memref<?x64xbf16>) {
  // expected-error @+1 {{a dynamic N or K cannot be split (k_splits = 1)}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64, k_splits = 2>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>, memref<64x?xf8E4M3FN>,
        memref<64x?xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @dynamic_n_grouped(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                             %w: memref<?x64xf8E4M3FN>, %ws: memref<?x2xf8E8M0FNU>,
                             %y: memref<?x?xbf16>) {
  // expected-error @+1 {{a dynamic N needs the row-major tile order (group_m = 1, group_n = 0, xcd_remap = false)}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64, group_m = 8>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<?x64xf8E4M3FN>,
        memref<?x2xf8E8M0FNU> into memref<?x?xbf16>
  return
}

// -----

func.func @dynamic_n_static_y(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                              %w: memref<?x64xf8E4M3FN>, %ws: memref<?x2xf8E8M0FNU>,
                              %y: memref<?x64xbf16>) {
  // expected-error @+1 {{Y must have shape [M, N] = [?, ?], got 'memref<?x64xbf16>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<?x64xf8E4M3FN>,
        memref<?x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @dynamic_k_static_scales(%x: memref<?x?xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                                   %w: memref<64x?xf8E4M3FN>, %ws: memref<64x?xf8E8M0FNU>,
                                   %y: memref<?x64xbf16>) {
  // expected-error @+1 {{X scales must have shape [M, K/32] = [?, ?], got 'memref<?x2xf8E8M0FNU>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x?xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x?xf8E4M3FN>,
        memref<64x?xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @k_mismatch(%x: memref<?x128xf8E4M3FN>, %xs: memref<?x4xf8E8M0FNU>,
                      %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                      %y: memref<?x64xbf16>) {
  // expected-error @+1 {{X has K = 128 but W has K = 64}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x128xf8E4M3FN>, memref<?x4xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @k_not_block_multiple(%x: memref<?x48xf8E4M3FN>, %xs: memref<?x1xf8E8M0FNU>,
                                %w: memref<64x48xf8E4M3FN>, %ws: memref<64x1xf8E8M0FNU>,
                                %y: memref<?x64xbf16>) {
  // expected-error @+1 {{K must be a multiple of 32 (one E8M0 scale per 32 elements), got 48}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x48xf8E4M3FN>, memref<?x1xf8E8M0FNU>, memref<64x48xf8E4M3FN>,
        memref<64x1xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @x_scales_shape(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x4xf8E8M0FNU>,
                          %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                          %y: memref<?x64xbf16>) {
  // expected-error @+1 {{X scales must have shape [M, K/32] = [?, 2], got 'memref<?x4xf8E8M0FNU>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x4xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @w_scales_per_row(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                            %w: memref<64x64xf8E4M3FN>, %ws: memref<2x2xf8E8M0FNU>,
                            %y: memref<?x64xbf16>) {
  // expected-error @+1 {{W scales with granularity per_row must have shape [64, 2], got 'memref<2x2xf8E8M0FNU>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<2x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @w_scales_block(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                          %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                          %y: memref<?x64xbf16>) {
  // expected-error @+1 {{W scales with granularity block32x32 must have shape [2, 2], got 'memref<64x2xf8E8M0FNU>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @y_shape(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                   %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                   %y: memref<?x32xbf16>) {
  // expected-error @+1 {{Y must have shape [M, N] = [?, 64], got 'memref<?x32xbf16>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x32xbf16>
  return
}

// -----

func.func @m_mismatch(%x: memref<8x64xf8E4M3FN>, %xs: memref<8x2xf8E8M0FNU>,
                      %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                      %y: memref<4x64xbf16>) {
  // expected-error @+1 {{Y must have shape [M, N] = [8, 64], got 'memref<4x64xbf16>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<8x64xf8E4M3FN>, memref<8x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<4x64xbf16>
  return
}

// -----

func.func @strided(%x: memref<?x64xf8E4M3FN, strided<[128, 1]>>, %xs: memref<?x2xf8E8M0FNU>,
                   %w: memref<64x64xf8E4M3FN>, %ws: memref<64x2xf8E8M0FNU>,
                   %y: memref<?x64xbf16>) {
  // expected-error @+1 {{X must be contiguous row-major (identity layout), got 'memref<?x64xf8E4M3FN, strided<[128, 1]>>'}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN, strided<[128, 1]>>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<64x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @n_not_tile_multiple(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                               %w: memref<96x64xf8E4M3FN>, %ws: memref<3x2xf8E8M0FNU>,
                               %y: memref<?x96xbf16>) {
  // A partial last tile column is masked, but MFMA panels tile N whole.
  // expected-error @+1 {{N (96) must be a multiple of tile_n (64) for stage_w = packed_registers}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64, stage_w = packed_registers>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<96x64xf8E4M3FN>,
        memref<3x2xf8E8M0FNU> into memref<?x96xbf16>
  return
}

// -----

func.func @k_not_tile_multiple(%x: memref<?x192xf8E4M3FN>, %xs: memref<?x6xf8E8M0FNU>,
                               %w: memref<64x192xf8E4M3FN>, %ws: memref<64x6xf8E8M0FNU>,
                               %y: memref<?x64xbf16>) {
  // A K tail is masked only on direct loads: LDS copies move whole K tiles.
  // expected-error @+1 {{K (192) must be a multiple of tile_k (128) unless stage_x = stage_w = direct}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 128, stage_x = lds_async>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x192xf8E4M3FN>, memref<?x6xf8E8M0FNU>, memref<64x192xf8E4M3FN>,
        memref<64x6xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @panels_and_lds(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                          %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                          %acc: vector<16xf32>, %i: index,
                          %wt: memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>) -> vector<16xf32> {
  // expected-error @+1 {{W comes either from MFMA panels (w_panels) or from an LDS tile (w_tile), not both}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      w_tile(%wt : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64, w_panels,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @n_zero(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                  %w: memref<0x64xf8E4M3FN>, %ws: memref<0x2xf8E8M0FNU>,
                  %y: memref<?x0xbf16>) {
  // expected-error @+1 {{N and K must be in 1..16777216 (or dynamic), got N = 0, K = 64}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<0x64xf8E4M3FN>,
        memref<0x2xf8E8M0FNU> into memref<?x0xbf16>
  return
}

// -----

func.func @k_zero(%x: memref<?x0xf8E4M3FN>, %xs: memref<?x0xf8E8M0FNU>,
                  %w: memref<64x0xf8E4M3FN>, %ws: memref<64x0xf8E8M0FNU>,
                  %y: memref<?x64xbf16>) {
  // expected-error @+1 {{N and K must be in 1..16777216 (or dynamic), got N = 64, K = 0}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x0xf8E4M3FN>, memref<?x0xf8E8M0FNU>, memref<64x0xf8E4M3FN>,
        memref<64x0xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

// N past the limit: the byte count of W (N * K) must stay far from int64.
func.func @n_huge(%x: memref<?x128xf8E4M3FN>, %xs: memref<?x4xf8E8M0FNU>,
                  %w: memref<33554432x128xf8E4M3FN>, %ws: memref<33554432x4xf8E8M0FNU>,
                  %y: memref<?x33554432xbf16>) {
  // expected-error @+1 {{N and K must be in 1..16777216 (or dynamic), got N = 33554432, K = 128}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x128xf8E4M3FN>, memref<?x4xf8E8M0FNU>, memref<33554432x128xf8E4M3FN>,
        memref<33554432x4xf8E8M0FNU> into memref<?x33554432xbf16>
  return
}

// -----

// mxgemm.store_tile's staging buffer (mxgemm-stage-stores builds it).
func.func @staging_not_lds(%acc: vector<16xf32>, %y: memref<65536xbf16>,
                           %buf: memref<1x32x64xbf16>, %i: index) {
  // expected-error @+1 {{staging buffer must be in workgroup (LDS) memory}}
  mxgemm.store_tile %acc, %y [%i, %i, %i] staging(%buf : memref<1x32x64xbf16>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

func.func @staging_type(%acc: vector<16xf32>, %y: memref<65536xbf16>,
    %buf: memref<1x32x32xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{staging buffer and output element types differ}}
  mxgemm.store_tile %acc, %y [%i, %i, %i]
      staging(%buf : memref<1x32x32xf32, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

func.func @staging_rows(%acc: vector<16xf32>, %y: memref<65536xbf16>,
    %buf: memref<1x16x32xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{staging buffer holds 16 rows per wave, an MFMA block row is 32}}
  mxgemm.store_tile %acc, %y [%i, %i, %i]
      staging(%buf : memref<1x16x32xbf16, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

// 64 staged columns do not divide a 32-column wave tile.
func.func @staging_columns(%acc: vector<16xf32>, %y: memref<65536xbf16>,
    %buf: memref<1x32x64xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{staging rows of 64 elements must be 64 or 128 bytes of whole MFMA blocks that divide the wave tile's 32 columns}}
  mxgemm.store_tile %acc, %y [%i, %i, %i]
      staging(%buf : memref<1x32x64xbf16, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

// Rows of 48 bytes.
func.func @staging_row_bytes(%acc: vector<16xf32>, %y: memref<65536xbf16>,
    %buf: memref<1x32x24xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{staging rows of 24 elements must be 64 or 128 bytes of whole MFMA blocks that divide the wave tile's 32 columns}}
  mxgemm.store_tile %acc, %y [%i, %i, %i]
      staging(%buf : memref<1x32x24xbf16, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

func.func @staging_dynamic(%acc: vector<16xf32>, %y: memref<65536xbf16>,
    %buf: memref<?x32x64xbf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{staging buffer must have a static shape}}
  mxgemm.store_tile %acc, %y [%i, %i, %i]
      staging(%buf : memref<?x32x64xbf16, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

func.func @k_not_split_multiple(%x: memref<?x384xf8E4M3FN>, %xs: memref<?x12xf8E8M0FNU>,
                                %w: memref<64x384xf8E4M3FN>, %ws: memref<64x12xf8E8M0FNU>,
                                %y: memref<?x64xbf16>) {
  // Split-K segments are equal whole K tiles: 384 is 3 tiles of 128, not 2 x 2.
  // expected-error @+1 {{K (384) must be a multiple of k_splits * tile_k (2 * 128) for split-K}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 128, k_splits = 2>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x384xf8E4M3FN>, memref<?x12xf8E8M0FNU>, memref<64x384xf8E4M3FN>,
        memref<64x12xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

// Generic-kernel sizes on the kernel-level ops: one of the static attribute
// and the run-time operand, and only where every edge is masked.
func.func @mma_k_twice(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                       %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                       %acc: vector<16xf32>, %i: index) -> vector<16xf32> {
  // expected-error @+1 {{needs exactly one of the k attribute (static N and K) and sizes(N, K) (a generic kernel)}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i] sizes(%i, %i)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @mma_sizes_panels(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                            %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                            %acc: vector<16xf32>, %i: index) -> vector<16xf32> {
  // expected-error @+1 {{run-time sizes need both operands loaded directly (only there are N and K edges masked)}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i] sizes(%i, %i)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, w_panels, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// Row strides (views of X, its scales and Y) are for generic kernels only.
func.func @mma_strides_static(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                              %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                              %acc: vector<16xf32>, %i: index) -> vector<16xf32> {
  // expected-error @+1 {{row strides are for generic kernels (sizes(N, K))}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i] row_strides(%i, %i)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @store_stride_static(%acc: vector<16xf32>, %y: memref<1024xbf16>, %i: index) {
  // expected-error @+1 {{a row stride is for generic kernels (the n operand)}}
  mxgemm.store_tile %acc, %y [%i, %i, %i] row_stride(%i)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 32 : i64}
      : vector<16xf32>, memref<1024xbf16>
  return
}

// -----

func.func @store_no_n(%acc: vector<16xf32>, %y: memref<1024xbf16>, %i: index) {
  // expected-error @+1 {{needs exactly one of the n attribute (static N) and the n operand (dynamic N)}}
  mxgemm.store_tile %acc, %y [%i, %i, %i]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64}
      : vector<16xf32>, memref<1024xbf16>
  return
}

// -----

func.func @program_tile_grouped(%i: index) -> (index, index) {
  // expected-error @+1 {{a run-time num_tiles_n needs the row-major order (group_m = 1, group_n = 0, xcd_remap = false)}}
  %tm, %tn = mxgemm.program_tile %i, %i num_tiles_n(%i)
      {group_m = 8 : i64, group_n = 0 : i64, xcd_remap = false, num_xcds = 8 : i64}
  return %tm, %tn : index, index
}

// -----

// mxgemm.pack_panels: one case per verifier rule.

func.func @pack_non_k(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  // expected-error @+1 {{'mxgemm.pack_panels' op non_k must be 32 (m32n32k64) or 16 (m16n16k128), got 8}}
  mxgemm.pack_panels %w into %p {non_k = 8} : memref<?x?xi8> into memref<?xi8>
  return
}

// -----

func.func @pack_strided(%w: memref<32x64xi8, strided<[128, 1]>>, %p: memref<?xi8>) {
  // expected-error @+1 {{'mxgemm.pack_panels' op w must be contiguous (identity layout), got 'memref<32x64xi8, strided<[128, 1]>>'}}
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<32x64xi8, strided<[128, 1]>> into memref<?xi8>
  return
}

// -----

func.func @pack_n(%w: memref<48x64xi8>, %p: memref<?xi8>) {
  // expected-error @+1 {{'mxgemm.pack_panels' op N must be a positive multiple of non_k = 32, got 48}}
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<48x64xi8> into memref<?xi8>
  return
}

// -----

func.func @pack_k(%w: memref<?x64xi8>, %p: memref<?xi8>) {
  // expected-error @+1 {{'mxgemm.pack_panels' op K must be a positive multiple of 128 for non_k = 16, got 64}}
  mxgemm.pack_panels %w into %p {non_k = 16} : memref<?x64xi8> into memref<?xi8>
  return
}

// -----

func.func @pack_size(%w: memref<32x64xi8>, %p: memref<1024xi8>) {
  // expected-error @+1 {{'mxgemm.pack_panels' op packed must hold N * K bytes (N = 32, K = 64), got 'memref<1024xi8>'}}
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<32x64xi8> into memref<1024xi8>
  return
}

// -----

func.func @pack_type(%w: memref<32x64xf8E4M3FN>, %p: memref<?xi8>) {
  // expected-error @+1 {{'mxgemm.pack_panels' op operand #0 must be 2D memref of 8-bit signless integer values}}
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<32x64xf8E4M3FN> into memref<?xi8>
  return
}

// -----

// Shared scale loads: the load's width is 4, 8 or 16 bytes per row, and
// every row's run must be aligned to it.
func.func @scales_width(%xs: memref<128xf8E8M0FNU>, %ws: memref<8xf8E8M0FNU>,
                        %i: index) {
  // expected-error @+1 {{span * tile_k / 32 (3 * 128 / 32) must be 4, 8 or 16 scale bytes per row}}
  %a, %b = mxgemm.load_wave_scales %xs, %ws [%i, %i, %i, %i]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 1536 : i64, n = 32 : i64, span = 3 : i64,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<128xf8E8M0FNU>, memref<8xf8E8M0FNU> -> vector<6xi32>, vector<6xi32>
  return
}

// -----

func.func @scales_unaligned(%xs: memref<128xf8E8M0FNU>, %ws: memref<8xf8E8M0FNU>,
                            %i: index) {
  // expected-error @+1 {{k (1408) must be a multiple of 512 so that every row's 16 scale bytes are aligned}}
  %a, %b = mxgemm.load_wave_scales %xs, %ws [%i, %i, %i, %i]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 1408 : i64, n = 32 : i64, span = 4 : i64,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<128xf8E8M0FNU>, memref<8xf8E8M0FNU> -> vector<8xi32>, vector<8xi32>
  return
}

// -----

func.func @scales_shape(%xs: memref<128xf8E8M0FNU>, %ws: memref<8xf8E8M0FNU>,
                        %i: index) {
  // expected-error @+1 {{w_words must hold 4 dwords (2 MFMA blocks x 2), got 'vector<2xi32>'}}
  %a, %b = mxgemm.load_wave_scales %xs, %ws [%i, %i, %i, %i]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 1024 : i64, n = 32 : i64, span = 2 : i64,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<128xf8E8M0FNU>, memref<8xf8E8M0FNU> -> vector<4xi32>, vector<2xi32>
  return
}

// -----

func.func @mma_words_tile(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                          %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                          %acc: vector<16xf32>, %i: index,
                          %words: vector<1xi32>) -> vector<16xf32> {
  // expected-error @+1 {{scale_words_tile 2 is past the 4 scale bytes per row the words hold}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_scale_words(%words : vector<1xi32>) w_scale_words(%words : vector<1xi32>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 256 : i64, scale_words_tile = 2 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// W scale words come only with X scale words (an MMA may take X words and
// load its W scales itself, not the other way round).
func.func @mma_w_words_only(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                            %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                            %acc: vector<16xf32>, %i: index,
                            %words: vector<1xi32>) -> vector<16xf32> {
  // expected-error @+1 {{w_scale_words needs x_scale_words}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      w_scale_words(%words : vector<1xi32>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 256 : i64, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @mma_words_alone(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                           %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                           %acc: vector<16xf32>, %i: index,
                           %words: vector<1xi32>) -> vector<16xf32> {
  // expected-error @+1 {{scale_words and scale_words_tile come together}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_scale_words(%words : vector<1xi32>) w_scale_words(%words : vector<1xi32>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 256 : i64, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @mma_words_shape(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                           %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                           %acc: vector<16xf32>, %i: index,
                           %xw: vector<1xi32>, %ww: vector<2xi32>) -> vector<16xf32> {
  // expected-error @+1 {{scale words must hold the same number of dwords for each of the 1 X and 1 W MFMA blocks, got 1 and 2}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_scale_words(%xw : vector<1xi32>) w_scale_words(%ww : vector<2xi32>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 256 : i64, scale_words_tile = 1 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @mma_words_k_tail(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                            %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                            %acc: vector<16xf32>, %i: index,
                            %words: vector<1xi32>) -> vector<16xf32> {
  // expected-error @+1 {{scale_words need a static K that is a multiple of tile_k (no K tail)}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_scale_words(%words : vector<1xi32>) w_scale_words(%words : vector<1xi32>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 224 : i64, scale_words_tile = 0 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @scales_wave_tile(%xs: memref<128xf8E8M0FNU>, %ws: memref<8xf8E8M0FNU>,
                            %i: index) {
  // expected-error @+1 {{wave tile 24x32 is not a multiple of the 16x16 MFMA block}}
  %a, %b = mxgemm.load_wave_scales %xs, %ws [%i, %i, %i, %i]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 24 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 1024 : i64, n = 32 : i64, span = 2 : i64,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<128xf8E8M0FNU>, memref<8xf8E8M0FNU> -> vector<2xi32>, vector<4xi32>
  return
}

// -----

// expected-error @+1 {{invalid value 'mfma' for config field 'x_scale_layout' (expected row_major, mfma_16x16x128, mfma_32x32x64)}}
#c = #mxgemm.config<x_scale_layout = mfma>

// -----

// An MFMA-native scale layout belongs to one MFMA shape.
// expected-error @+1 {{x_scale_layout = mfma_16x16x128 is the layout of m16n16k128; this config runs mfma = m32n32k64 (use mfma_32x32x64)}}
#c = #mxgemm.config<x_scale_layout = mfma_16x16x128>

// -----

// expected-error @+1 {{w_scale_layout = mfma_16x16x128 needs unroll_k = 1}}
#c = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128, waves_m = 2, waves_n = 4, mfma = m16n16k128, stage_x = lds_async, stage_w = lds_async, stages = 3, unroll_k = 2, w_scale_layout = mfma_16x16x128>

// -----

func.func @native_w_scales_block32(%x: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU>,
                                   %w: memref<64x64xf8E4M3FN>, %ws: memref<2x2xf8E8M0FNU>,
                                   %y: memref<?x64xbf16>) {
  // expected-error @+1 {{w_scale_layout = mfma_32x32x64 needs per-row weight scales (w_scale = per_row); block32x32 weight scales stay row-major}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 64, w_scale_layout = mfma_32x32x64>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>,
        memref<2x2xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @native_x_scales_k_tail(%x: memref<?x192xf8E4M3FN>, %xs: memref<?x6xf8E8M0FNU>,
                                  %w: memref<64x192xf8E4M3FN>, %ws: memref<64x6xf8E8M0FNU>,
                                  %y: memref<?x64xbf16>) {
  // expected-error @+1 {{an MFMA-native scale layout needs static N and K and K a multiple of tile_k (128)}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 128, x_scale_layout = mfma_32x32x64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x192xf8E4M3FN>, memref<?x6xf8E8M0FNU>, memref<64x192xf8E4M3FN>,
        memref<64x6xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

func.func @native_scales_with_k_tail(%x: memref<384xf8E4M3FN>, %xs: memref<12xf8E8M0FNU>,
                                     %w: memref<12288xf8E4M3FN>, %ws: memref<384xf8E8M0FNU>,
                                     %acc: vector<16xf32>, %i: index) -> vector<16xf32> {
  // expected-error @+1 {{MFMA-native scale layouts need a static K that is a multiple of tile_k and no scale_words}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 192 : i64, x_scales_native,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<384xf8E4M3FN>, memref<12xf8E8M0FNU>, memref<12288xf8E4M3FN>,
        memref<384xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @native_w_scales_block(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                                 %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                                 %acc: vector<16xf32>, %i: index) -> vector<16xf32> {
  // expected-error @+1 {{w_scales_native needs per-row weight scales}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64, w_scales_native,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @pingpong_refills_odd_columns(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                                      %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                                      %acc: vector<16xf32>, %i: index,
                                      %xt: memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>,
                                      %wt: memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>) -> vector<16xf32> {
  // expected-error @+1 {{pingpong_refills (a K tile in two turns) needs pingpong_pending and an even number of MFMA block columns per wave (wave_n / MFMA N = 1)}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_tile(%xt : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>)
      w_tile(%wt : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64, pingpong_pending = 0 : i64,
       pingpong_refills = 2 : i64, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @pingpong_refills_without_turn(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                                         %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                                         %acc: vector<32xf32>, %i: index,
                                         %xt: memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>,
                                         %wt: memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>) -> vector<32xf32> {
  // expected-error @+1 {{pingpong_refills (a K tile in two turns) needs pingpong_pending and an even number of MFMA block columns per wave (wave_n / MFMA N = 2)}}
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_tile(%xt : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>)
      w_tile(%wt : memref<64x128xf8E4M3FN, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 64 : i64,
       tile_k = 128 : i64, k = 256 : i64, pingpong_refills = 2 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<32xf32>
  return %r : vector<32xf32>
}
