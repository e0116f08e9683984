// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --mxgemm-stage-stores --split-input-file | FileCheck %s

// 1x4 waves of 128x64 with BF16 out: each wave stages a 32-row block row of
// 64 columns (128 bytes), after the X ring.
// CHECK-LABEL: gpu.func @bf16_rows
// CHECK-SAME: workgroup(%[[RING:.+]] : memref<2x128x144xf8E4M3FN, #gpu.address_space<workgroup>>, %[[BUF:.+]] : memref<4x32x64xbf16, #gpu.address_space<workgroup>>)
// CHECK: mxgemm.store_tile {{.*}} staging(%[[BUF]] : memref<4x32x64xbf16, #gpu.address_space<workgroup>>)
func.func @bf16_rows(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                     %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                     %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128,
                               waves_m = 1, waves_n = 4, stage_x = lds_async,
                               stage_w = packed_registers, stages = 2,
                               lds_layout = padded>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}

// -----

// FP32 out, no ring (the naive kernel): 128 bytes are 32 columns.
// CHECK-LABEL: gpu.func @f32_rows
// CHECK-SAME: workgroup(%[[BUF:.+]] : memref<4x32x32xf32, #gpu.address_space<workgroup>>)
// CHECK: mxgemm.store_tile {{.*}} staging(%[[BUF]] :
func.func @f32_rows(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                    %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                    %y: memref<?x256xf32>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 2, waves_n = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xf32>
  return
}

// -----

// 256x256 tiles, 8 waves, both operands in XOR-swizzled rings (128 KiB):
// 128-byte staging for 8 waves (32 KiB) just fits the 160 KiB of LDS.
// CHECK-LABEL: gpu.func @full_rows
// CHECK-SAME: %{{.+}} : memref<8x32x64xbf16, #gpu.address_space<workgroup>>)
func.func @full_rows(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                     %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                     %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 256, tile_n = 256, tile_k = 128,
                               waves_m = 2, waves_n = 4, stage_x = lds_async,
                               stage_w = lds_async, stages = 2,
                               lds_layout = xor>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}

// -----

// The same with padded rings (144 KiB): 128-byte staging would pass the
// limit, 64-byte staging (32 columns, 16 KiB) fits.
// CHECK-LABEL: gpu.func @narrow_rows
// CHECK-SAME: %{{.+}} : memref<8x32x32xbf16, #gpu.address_space<workgroup>>)
func.func @narrow_rows(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                       %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                       %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 256, tile_n = 256, tile_k = 128,
                               waves_m = 2, waves_n = 4, stage_x = lds_async,
                               stage_w = lds_async, stages = 2,
                               lds_layout = padded>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}

// -----

// 16 waves of 64x64 over padded rings (144 KiB): neither 32 KiB nor 64 KiB
// of staging fits, so the stores stay direct.
// CHECK-LABEL: gpu.func @no_room
// CHECK-NOT: staging(
// CHECK: gpu.return
func.func @no_room(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                   %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                   %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 256, tile_n = 256, tile_k = 128,
                               waves_m = 4, waves_n = 4, stage_x = lds_async,
                               stage_w = lds_async, stages = 2,
                               lds_layout = padded>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}
