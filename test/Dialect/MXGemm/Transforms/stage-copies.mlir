// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-stage-copies --split-input-file --verify-diagnostics | FileCheck %s

// X through global_load_lds (lds_async), W through VGPRs (lds_sync), 16-byte
// row padding: one ring of `stages` slots per operand, copies of the K tile
// into slot 0, wait + barrier, MMA from the wave's rows, barrier.
// CHECK-LABEL: gpu.func @staged
// CHECK-SAME: workgroup(%[[XR:.+]] : memref<3x128x144xf8E4M3FN, #gpu.address_space<workgroup>>, %[[WR:.+]] : memref<3x128x144xf8E4M3FN, #gpu.address_space<workgroup>>)
// CHECK: %[[ROW0:.+]] = arith.addi
// CHECK: %[[XIN:.+]] = arith.remui %[[ROW0]], %c128
// CHECK: %[[XBASE:.+]] = arith.subi %[[ROW0]], %[[XIN]]
// CHECK: scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[SLOT:.+]] = arith.constant 0 : index
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR]][%[[SLOT]], %[[XBASE]], %[[K0]], %{{.+}}] {k = 512 : i64, mode = #mxgemm<staging lds_async>, num_waves = 4 : i64, rows = 128 : i64, tile_k = 128 : i64}
// CHECK: %[[XV:.+]] = memref.subview %[[XR]][%[[SLOT]], %[[XIN]], 0] [1, 64, 128] [1, 1, 1] {{.*}} to memref<64x128xf8E4M3FN, strided<[144, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[WR]][%[[SLOT]], {{.*}}mode = #mxgemm<staging lds_sync>
// CHECK: %[[WV:.+]] = memref.subview %[[WR]]
// CHECK: mxgemm.wait_copies {pending = 0 : i64}
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: mxgemm.wave_mma {{.*}} x_tile(%[[XV]] : {{.*}}) w_tile(%[[WV]] : {{.*}})
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: scf.yield
func.func @staged(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                  %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                  %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 2, waves_n = 2, stage_x = lds_async,
                               stage_w = lds_sync, stages = 3,
                               lds_layout = padded>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Only W staged: X keeps its direct loads, no X ring.
// CHECK-LABEL: gpu.func @w_only
// CHECK-SAME: workgroup(%[[WR:.+]] : memref<1x128x128xf8E4M3FN, #gpu.address_space<workgroup>>)
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[WR]]
// CHECK-NOT: mxgemm.copy_to_lds
// CHECK: mxgemm.wave_mma
// CHECK-NOT: x_tile
// CHECK-SAME: w_tile
func.func @w_only(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                  %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                  %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_w = lds_async>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Direct configs are left alone.
// CHECK-LABEL: gpu.func @direct
// CHECK-NOT: workgroup(
// CHECK-NOT: mxgemm.copy_to_lds
func.func @direct(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                  %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                  %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// lds_layout = xor: unpadded rows; copies and MMA carry the swizzle.
// CHECK-LABEL: gpu.func @xor_layout
// CHECK-SAME: workgroup(%{{.+}} : memref<1x128x128xf8E4M3FN, #gpu.address_space<workgroup>>, %{{.+}} : memref<1x128x128xf8E4M3FN, #gpu.address_space<workgroup>>)
// CHECK: mxgemm.copy_to_lds {{.*}}xor_swizzle
// CHECK: mxgemm.copy_to_lds {{.*}}xor_swizzle
// CHECK: mxgemm.wave_mma {{.*}}xor_swizzle
func.func @xor_layout(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                      %w: memref<128x512xf8E4M3FN>, %ws: memref<4x16xf8E8M0FNU>,
                      %y: memref<?x128xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async, stage_w = lds_sync,
                               lds_layout = xor>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<128x512xf8E4M3FN>,
        memref<4x16xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// 192-byte rows have 12 chunks: XOR would leave the row.
func.func @xor_needs_power_of_two(%x: memref<?x576xf8E4M3FN>, %xs: memref<?x18xf8E8M0FNU>,
                                  %w: memref<128x576xf8E4M3FN>, %ws: memref<4x18xf8E8M0FNU>,
                                  %y: memref<?x128xbf16>) {
  // expected-error @+1 {{lds_layout = xor needs tile_k / 16 to be a power of two, got tile_k = 192}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_k = 192, stage_x = lds_async,
                               lds_layout = xor>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x576xf8E4M3FN>, memref<?x18xf8E8M0FNU>, memref<128x576xf8E4M3FN>,
        memref<4x18xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// stage_w = packed_registers: W gets no ring and no copies; the MMA reads
// it from MFMA panels in global memory (w_panels), X is staged as usual.
// CHECK-LABEL: gpu.func @packed_w
// CHECK-SAME: workgroup(%[[XR:.+]] : memref<2x64x144xf8E4M3FN, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.for
// CHECK: mxgemm.copy_to_lds %{{.+}}, %[[XR]]
// CHECK-NOT: mxgemm.copy_to_lds
// CHECK: mxgemm.wait_copies {pending = 0 : i64}
// CHECK-NEXT: mxgemm.ring_barrier
// CHECK-NEXT: mxgemm.wave_mma {{.*}} x_tile(%{{.+}}) {{{.*}}w_panels{{.*}}}
// CHECK-NOT: w_tile
func.func @packed_w(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                    %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                    %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128,
                               waves_m = 1, waves_n = 4, stage_x = lds_async,
                               stage_w = packed_registers, stages = 2,
                               lds_layout = padded, split = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}
