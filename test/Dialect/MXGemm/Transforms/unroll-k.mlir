// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline --mxgemm-unroll-k --split-input-file | FileCheck %s

// unroll_k = 4 in a ping-pong loop with 16x16x128 MFMAs: K = 1024 is 8 K
// tiles of 128, two unrolled iterations of 4. Each iteration's four MMAs
// read K tiles 0..3 of words holding 16 scale bytes (4 K tiles x 4
// blocks) per row: the first iteration's loaded before the loop, the
// next one's after the copies of the last K tile (K offset + 512, clamped
// to the last iteration's 512), carried by the loop. The wave tile is
// 64x32: 4 MFMA block rows of X scales and 2 block columns of W scales
// that share one 32x32-block scale row, so 4 vector loads per lane and a
// scalar one (the W words, the same in every lane), which the last K
// tile's turn leaves in flight with its copies: pending 4 + 4.
// CHECK-LABEL: gpu.func @shared
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[XW0:.+]], %[[WW0:.+]] = mxgemm.load_wave_scales %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %[[C0]], %{{.+}}] {{{.*}}span = 4 : i64{{.*}}} : {{.+}} -> vector<16xi32>, vector<8xi32>
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}, %[[XW:.+]] = %[[XW0]], %[[WW:.+]] = %[[WW0]])
// CHECK: mxgemm.wave_mma {{.+}}[%{{.+}}, %{{.+}}, %[[K]], %{{.+}}] {{.*}}x_scale_words(%[[XW]] : vector<16xi32>) w_scale_words(%[[WW]] : vector<8xi32>) {{{.*}}pingpong_pending = 4 : i64, scale_words_tile = 0 : i64
// CHECK: mxgemm.wave_mma {{.+}}x_scale_words(%[[XW]] : {{.+}}) w_scale_words(%[[WW]] : {{.+}}) {{{.*}}pingpong_pending = 4 : i64, scale_words_tile = 1 : i64
// CHECK: mxgemm.wave_mma {{.+}}x_scale_words(%[[XW]] : {{.+}}) w_scale_words(%[[WW]] : {{.+}}) {{{.*}}pingpong_pending = 4 : i64, scale_words_tile = 2 : i64
// CHECK: %[[LAST:.+]] = arith.subi %[[C1024:.+]], %[[C512:.+]] : index
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[K]], %[[C512]] : index
// CHECK-NEXT: %[[CLAMPED:.+]] = arith.minui %[[NEXT]], %[[LAST]] : index
// CHECK: %[[XN:.+]], %[[WN:.+]] = mxgemm.load_wave_scales %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %[[CLAMPED]], %{{.+}}]
// CHECK-NEXT: %[[ACC:.+]] = mxgemm.wave_mma {{.+}}x_scale_words(%[[XW]] : {{.+}}) w_scale_words(%[[WW]] : {{.+}}) {{{.*}}pingpong_pending = 8 : i64, scale_words_tile = 3 : i64
// CHECK-NEXT: scf.yield %[[ACC]], %[[XN]], %[[WN]] :
// CHECK-NOT: mxgemm.wave_mma
// CHECK: mxgemm.store_tile
func.func @shared(%x: memref<?x1024xf8E4M3FN>, %xs: memref<?x32xf8E8M0FNU>,
                  %w: memref<128x1024xf8E4M3FN>, %ws: memref<4x32xf8E8M0FNU>,
                  %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 2, waves_n = 4, mfma = m16n16k128,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, schedule = pingpong,
                               unroll_k = 4>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1024xf8E4M3FN>, memref<?x32xf8E8M0FNU>, memref<128x1024xf8E4M3FN>,
        memref<4x32xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// No ping-pong, and K = 1408 is 11 K tiles (K / 32 = 44 blocks per row,
// not a multiple of the 16 bytes of a shared load): the loop is only
// unrolled (two iterations of 4) and the remaining 3 K tiles follow it
// fully unrolled; every MMA loads its own scales.
// CHECK-LABEL: gpu.func @unaligned
// CHECK-NOT: mxgemm.load_wave_scales
// CHECK: scf.for
// CHECK-COUNT-4: mxgemm.wave_mma
// CHECK-NOT: mxgemm.wave_mma
// CHECK: scf.yield
// CHECK-COUNT-3: mxgemm.wave_mma
// CHECK-NOT: mxgemm.wave_mma
// CHECK-NOT: scale_words
// CHECK: mxgemm.store_tile
func.func @unaligned(%x: memref<?x1408xf8E4M3FN>, %xs: memref<?x44xf8E8M0FNU>,
                     %w: memref<64x1408xf8E4M3FN>, %ws: memref<64x44xf8E8M0FNU>,
                     %y: memref<?x64xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 64, tile_n = 64, tile_k = 128,
                               waves_m = 2, waves_n = 2, mfma = m16n16k128,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, unroll_k = 4>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x1408xf8E4M3FN>, memref<?x44xf8E8M0FNU>, memref<64x1408xf8E4M3FN>,
        memref<64x44xf8E8M0FNU> into memref<?x64xbf16>
  return
}

// -----

// 32x32x64 MFMAs in ping-pong, tile_k = 64, unroll_k = 2: 2 K tiles x 2
// blocks = one dword per row; 2 X block rows and 1 W block column, 2
// vector loads and a scalar one (pending 2 + 2).
// CHECK-LABEL: gpu.func @dword
// CHECK: mxgemm.load_wave_scales {{.+}} {{{.*}}span = 2 : i64, tile_k = 64 : i64{{.*}}w_scale = #mxgemm.w_scale<block32x32>{{.*}}} : {{.+}} -> vector<2xi32>, vector<1xi32>
// CHECK: scf.for
// CHECK: mxgemm.wave_mma {{.+}}pingpong_pending = 2 : i64, scale_words_tile = 0 : i64
// CHECK: mxgemm.load_wave_scales
// CHECK-NEXT: mxgemm.wave_mma {{.+}}pingpong_pending = 4 : i64, scale_words_tile = 1 : i64
// CHECK-NOT: mxgemm.wave_mma
// CHECK: scf.yield
func.func @dword(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                 %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                 %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 64,
                               waves_m = 2, waves_n = 4,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 3, schedule = pingpong, unroll_k = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Two slots (stages = 2) without unroll_k: the MMA takes each K tile in two
// turns, and its scales come one K tile ahead. The wave tile is 32x64
// with 32x32x64 MFMAs, one block row and two block columns: one X-scale
// dword (the K tile's 4 blocks) per lane and, under 32x32-block W scales,
// one W dword per block column (scalar loads when lowered), loaded for K
// tile 0 before the loop and for the next K tile (clamped to the last,
// 384) after the X copies that follow the MMA (its second turn issues
// both), carried by the loop. The second turn leaves the X-scale load in
// flight with the two X copies: pending 2 + 1 (the scalar W loads are not
// vector loads). The first K tile is then peeled, a loop of one trip whose
// MMA accumulates into the zero initial value (C = 0 in its MFMAs), the
// rest running from K = 128 on what it yields; both clamp to the real
// last K tile.
// CHECK-LABEL: gpu.func @two_slot_x_scales
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[XW0:.+]], %[[WW0:.+]] = mxgemm.load_wave_scales %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %[[C0]], %{{.+}}] {{{.*}}span = 1 : i64{{.*}}} : {{.+}} -> vector<1xi32>, vector<2xi32>{{$}}
// CHECK: %[[FIRST:.+]]:3 = scf.for %{{.+}} = %[[C0]] to %[[C128:.+]] step %{{.+}} iter_args(%{{.+}} = %[[ZERO]], %{{.+}} = %[[XW0]], %{{.+}} = %[[WW0]])
// CHECK: mxgemm.wave_mma
// CHECK: scf.for %[[K:.+]] = %[[C128]] to %{{.+}} step %[[STEP:.+]] iter_args(%{{.+}} = %[[FIRST]]#0, %[[XW:.+]] = %[[FIRST]]#1, %[[WW:.+]] = %[[FIRST]]#2)
// CHECK: %[[LAST:.+]] = arith.subi %{{.+}}, %[[STEP]] : index
// CHECK-NEXT: %[[NEXT:.+]] = arith.addi %[[K]], %[[STEP]] : index
// CHECK-NEXT: %[[CLAMPED:.+]] = arith.minui %[[NEXT]], %[[LAST]] : index
// CHECK-NEXT: %[[ACC:.+]] = mxgemm.wave_mma {{.+}}[%{{.+}}, %{{.+}}, %[[K]], %{{.+}}] {{.*}}x_scale_words(%[[XW]] : vector<1xi32>) w_scale_words(%[[WW]] : vector<2xi32>) {{{.*}}pingpong_pending = 3 : i64, pingpong_refills = 2 : i64, scale_words_tile = 0 : i64
// CHECK-NEXT: mxgemm.copy_to_lds
// CHECK-NEXT: %[[XN:.+]], %[[WN:.+]] = mxgemm.load_wave_scales %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %[[CLAMPED]], %{{.+}}] {{{.*}}span = 1 : i64{{.*}}} : {{.+}} -> vector<1xi32>, vector<2xi32>{{$}}
// CHECK-NEXT: scf.yield %[[ACC]], %[[XN]], %[[WN]] :
func.func @two_slot_x_scales(%x: memref<?x512xf8E4M3FN>,
                             %xs: memref<?x16xf8E8M0FNU>,
                             %w: memref<128x512xf8E4M3FN>,
                             %ws: memref<4x16xf8E8M0FNU>,
                             %y: memref<?x128xbf16>) {
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

// -----

// A split-K segment (k_splits = 2, K = 1024: two segments of 4 K tiles)
// reads its K tiles from a loop-invariant origin (segment x 512): its
// scales come ahead too, the first K tile's at the origin before the loop,
// the next one's at the origin plus the K offset clamped to the segment's
// last K tile (384). (The segments of a tail split likewise.)
// CHECK-LABEL: gpu.func @two_slot_segment_scales
// CHECK: %[[ORIGIN:.+]] = arith.muli %block_id_y, %c512
// CHECK: %[[K0:.+]] = arith.addi %[[ORIGIN]], %c0 : index
// CHECK-NEXT: mxgemm.load_wave_scales %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %[[K0]], %{{.+}}] {{{.*}}span = 1 : i64
// CHECK: scf.for
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK: %[[MMA_K:.+]] = arith.addi %[[ORIGIN]], %[[K]]
// CHECK: %[[NEXT:.+]] = arith.minui %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK-NEXT: %[[NEXT_K:.+]] = arith.addi %[[ORIGIN]], %[[NEXT]]
// CHECK-NEXT: mxgemm.wave_mma {{.+}}[%{{.+}}, %{{.+}}, %[[MMA_K]], %{{.+}}] {{.*}}x_scale_words(
// CHECK: mxgemm.load_wave_scales %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %[[NEXT_K]], %{{.+}}]
func.func @two_slot_segment_scales(%x: memref<?x1024xf8E4M3FN>,
                                   %xs: memref<?x32xf8E8M0FNU>,
                                   %w: memref<128x1024xf8E4M3FN>,
                                   %ws: memref<4x32xf8E8M0FNU>,
                                   %y: memref<?x128xf32>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, schedule = pingpong, k_splits = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1024xf8E4M3FN>, memref<?x32xf8E8M0FNU>,
        memref<128x1024xf8E4M3FN>, memref<4x32xf8E8M0FNU> into memref<?x128xf32>
  return
}

// -----

// Per-row W scales differ from lane to lane (vector loads): they stay in
// the MMA, only the X scales come ahead.
// CHECK-LABEL: gpu.func @two_slot_per_row_w_scales
// CHECK: mxgemm.load_wave_scales {{.+}} -> vector<1xi32>{{$}}
// CHECK: mxgemm.wave_mma {{.+}}x_scale_words(%{{.+}} : vector<1xi32>) {{{.*}}pingpong_pending = 3 : i64
// CHECK-NOT: w_scale_words
// CHECK: mxgemm.load_wave_scales {{.+}} -> vector<1xi32>{{$}}
func.func @two_slot_per_row_w_scales(%x: memref<?x512xf8E4M3FN>,
                                     %xs: memref<?x16xf8E8M0FNU>,
                                     %w: memref<128x512xf8E4M3FN>,
                                     %ws: memref<128x16xf8E8M0FNU>,
                                     %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, schedule = pingpong>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>,
        memref<128x512xf8E4M3FN>, memref<128x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// MFMA-native X scales are one cache line per load already: the two-slot
// MMA loads them itself.
// CHECK-LABEL: gpu.func @two_slot_native_x_scales
// CHECK-NOT: mxgemm.load_wave_scales
// CHECK: mxgemm.wave_mma {{.+}}pingpong_pending = 2 : i64, pingpong_refills = 2 : i64
// CHECK-NOT: mxgemm.load_wave_scales
// CHECK: mxgemm.store_tile
func.func @two_slot_native_x_scales(%x: memref<?x512xf8E4M3FN>,
                                    %xs: memref<?x16xf8E8M0FNU>,
                                    %w: memref<128x512xf8E4M3FN>,
                                    %ws: memref<128x16xf8E8M0FNU>,
                                    %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 4, waves_n = 2, mfma = m32n32k64,
                               stage_x = lds_async, stage_w = lds_async,
                               stages = 2, schedule = pingpong,
                               x_scale_layout = mfma_32x32x64>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>,
        memref<128x512xf8E4M3FN>, memref<128x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}
