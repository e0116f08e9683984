// RUN: mxgemm-opt %s --mxgemm-tile --split-input-file | FileCheck %s

// The kernel ABI (docs/Design.md section 4): flat X, Xs, W, Ws, Y then M : i32;
// the host function is gone.
// CHECK-LABEL: gpu.module @mxgemm_kernels
// CHECK-NOT: func.func
// CHECK: gpu.func @wq_b(%[[X:.+]]: memref<1099511627776xf8E4M3FN>, %[[XS:.+]]: memref<1099511627776xf8E8M0FNU>, %[[W:.+]]: memref<20971520xf8E4M3FN>, %[[WS:.+]]: memref<20480xf8E8M0FNU>, %[[Y:.+]]: memref<1099511627776xbf16>, %[[M32:.+]]: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: mxgemm.config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2, mfma = m32n32k64>
// CHECK-SAME: mxgemm.problem = {k = 1280 : i64, n = 16384 : i64, out_type = "bf16", w_format = "e4m3", w_scale = "block32x32", x_format = "e4m3"}
// CHECK-SAME: rocdl.flat_work_group_size = "256,256"
// CHECK: %[[M:.+]] = arith.index_castui %[[M32]] : i32 to index
// CHECK: %[[TILES_M:.+]] = arith.ceildivui %[[M]], %{{.+}} : index
// CHECK: %[[PID:.+]] = gpu.block_id x
// CHECK: %[[TM:.+]], %[[TN:.+]] = mxgemm.program_tile %[[PID]], %[[TILES_M]] {group_m = 1 : i64, group_n = 0 : i64, num_tiles_n = 128 : i64, num_xcds = 8 : i64, xcd_remap = false}
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<64xf32>
// CHECK: %[[ACC:.+]] = scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %[[ZERO]]) -> (vector<64xf32>)
// CHECK: mxgemm.wave_mma %[[X]], %[[XS]], %[[W]], %[[WS]], %[[A]][%{{.+}}, %{{.+}}, %[[K0]], %[[M]]] {k = 1280 : i64, mfma = #mxgemm<mfma m32n32k64>, tile_k = 128 : i64, w_scale = #mxgemm.w_scale<block32x32>, wave_m = 64 : i64, wave_n = 64 : i64}
// CHECK: mxgemm.store_tile %[[ACC]], %[[Y]][%{{.+}}, %{{.+}}, %[[M]]] {mfma = #mxgemm<mfma m32n32k64>, n = 16384 : i64, wave_m = 64 : i64, wave_n = 64 : i64}
// CHECK: gpu.return
func.func @wq_b(%x: memref<?x1280xf8E4M3FN>, %xs: memref<?x40xf8E8M0FNU>,
                %w: memref<16384x1280xf8E4M3FN>, %ws: memref<512x40xf8E8M0FNU>,
                %y: memref<?x16384xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128,
                               waves_m = 2, waves_n = 2>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x1280xf8E4M3FN>, memref<?x40xf8E8M0FNU>,
        memref<16384x1280xf8E4M3FN>, memref<512x40xf8E8M0FNU>
        into memref<?x16384xbf16>
  return
}

// -----

// split = 2 halves the program tile; 16x16x128 wave tiles of 32x64 need
// 2x4 blocks of 4 accumulators; waves_per_eu becomes the ROCDL hint.
// CHECK-LABEL: gpu.func @split_16x16
// CHECK-SAME: memref<1099511627776xf8E5M2>
// CHECK-SAME: memref<65536xf8E8M0FNU>, %{{.+}}: memref<1099511627776xf32>, %{{.+}}: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: rocdl.waves_per_eu = 2 : i32
// CHECK: arith.ceildivui %{{.+}}, %c64 : index
// CHECK: mxgemm.program_tile {{.*}}num_tiles_n = 2 : i64
// CHECK: scf.for {{.*}} -> (vector<32xf32>)
// CHECK: mxgemm.wave_mma {{.*}}mfma = #mxgemm<mfma m16n16k128>, tile_k = 256 : i64, w_scale = #mxgemm.w_scale<per_row>, wave_m = 32 : i64, wave_n = 64 : i64
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

// -----

// A generic kernel (dynamic N and K): N and K are i32 arguments after M,
// then the row strides of X, its scales and Y; the tile columns, the K
// loop's bound and the MMA and store sizes are the run-time values, the
// MMA's X rows and the store's Y rows are the strides apart; W and its
// scales are runtime-sized like X.
// CHECK-LABEL: gpu.func @generic(
// CHECK-SAME: %[[W:[^:]+]]: memref<1099511627776xf8E4M3FN>, %[[WS:[^:]+]]: memref<1099511627776xf8E8M0FNU>, %[[Y:[^:]+]]: memref<1099511627776xbf16>, %[[M32:[^:]+]]: i32, %[[N32:[^:]+]]: i32, %[[K32:[^:]+]]: i32, %[[LDX32:[^:]+]]: i32, %[[LDXS32:[^:]+]]: i32, %[[LDY32:[^:]+]]: i32) kernel
// CHECK-SAME: mxgemm.problem = {k = "?", n = "?", out_type = "bf16", w_format = "e4m3", w_scale = "per_row", x_format = "e4m3"}
// CHECK: %[[M:.+]] = arith.index_castui %[[M32]] : i32 to index
// CHECK: %[[N:.+]] = arith.index_castui %[[N32]] : i32 to index
// CHECK: %[[K:.+]] = arith.index_castui %[[K32]] : i32 to index
// CHECK: %[[LDX:.+]] = arith.index_castui %[[LDX32]] : i32 to index
// CHECK: %[[LDXS:.+]] = arith.index_castui %[[LDXS32]] : i32 to index
// CHECK: %[[LDY:.+]] = arith.index_castui %[[LDY32]] : i32 to index
// CHECK: %[[TILES_N:.+]] = arith.ceildivui %[[N]], %{{.+}} : index
// CHECK: mxgemm.program_tile %{{.+}}, %{{.+}} num_tiles_n(%[[TILES_N]]) {group_m = 1 : i64, group_n = 0 : i64, num_xcds = 8 : i64, xcd_remap = false}
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[K]] step
// CHECK: mxgemm.wave_mma {{.+}} sizes(%[[N]], %[[K]]) row_strides(%[[LDX]], %[[LDXS]]) {mfma = #mxgemm<mfma m16n16k128>, tile_k = 256 : i64, w_scale = #mxgemm.w_scale<per_row>, wave_m = 16 : i64, wave_n = 16 : i64}
// CHECK: mxgemm.store_tile %{{.+}}, %[[Y]][%{{.+}}, %{{.+}}, %[[M]]] n(%[[N]]) row_stride(%[[LDY]]) {mfma = #mxgemm<mfma m16n16k128>, wave_m = 16 : i64, wave_n = 16 : i64}
func.func @generic(%x: memref<?x?xf8E4M3FN>, %xs: memref<?x?xf8E8M0FNU>,
                   %w: memref<?x?xf8E4M3FN>, %ws: memref<?x?xf8E8M0FNU>,
                   %y: memref<?x?xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 16, tile_n = 64, tile_k = 256, waves_m = 1, waves_n = 4, mfma = m16n16k128>,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>, memref<?x?xf8E4M3FN>,
        memref<?x?xf8E8M0FNU> into memref<?x?xbf16>
  return
}
