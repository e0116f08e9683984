// RUN: mxgemm-opt %s --mxgemm-pipeline --split-input-file -verify-diagnostics

// mxgemm-pipeline clamps its prologue and refills to the loop's last K tile,
// counted from K offset 0 with a constant step to a constant bound: a loop
// that starts elsewhere is refused (mxgemm-tile never builds one;
// hand-written IR can).
module attributes {gpu.container_module} {
  gpu.module @mxgemm_kernels {
    gpu.func @ring(%x: memref<1099511627776xf8E4M3FN>, %xs: memref<1099511627776xf8E8M0FNU>, %w: memref<32768xf8E4M3FN>, %ws: memref<32xf8E8M0FNU>, %y: memref<1099511627776xbf16>, %m32: i32) workgroup(%ring : memref<2x128x128xf8E4M3FN, #gpu.address_space<workgroup>>) kernel attributes {mxgemm.config = #mxgemm.config<stage_x = lds_async, stages = 2>} {
      %m = arith.index_castui %m32 : i32 to index
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %cst = arith.constant dense<0.000000e+00> : vector<64xf32>
      // expected-error @+1 {{pipelining needs a K loop from 0 to a constant bound with a constant step}}
      %acc = scf.for %k = %c128 to %c256 step %c128 iter_args(%a = %cst) -> (vector<64xf32>) {
        mxgemm.copy_to_lds %x, %ring[%c0, %c0, %k, %m] {k = 256 : i64, mode = #mxgemm<staging lds_async>, num_waves = 4 : i64, rows = 128 : i64, tile_k = 128 : i64} : memref<1099511627776xf8E4M3FN>, memref<2x128x128xf8E4M3FN, #gpu.address_space<workgroup>>
        %tile = memref.subview %ring[%c0, %c0, 0] [1, 64, 128] [1, 1, 1] : memref<2x128x128xf8E4M3FN, #gpu.address_space<workgroup>> to memref<64x128xf8E4M3FN, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        mxgemm.wait_copies {pending = 0 : i64}
        mxgemm.ring_barrier
        %next = mxgemm.wave_mma %x, %xs, %w, %ws, %a[%c0, %c0, %k, %m] x_tile(%tile : memref<64x128xf8E4M3FN, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) {k = 256 : i64, mfma = #mxgemm<mfma m32n32k64>, tile_k = 128 : i64, w_scale = #mxgemm.w_scale<block32x32>, wave_m = 64 : i64, wave_n = 64 : i64} : memref<1099511627776xf8E4M3FN>, memref<1099511627776xf8E8M0FNU>, memref<32768xf8E4M3FN>, memref<32xf8E8M0FNU>, vector<64xf32>
        mxgemm.ring_barrier
        scf.yield %next : vector<64xf32>
      }
      mxgemm.store_tile %acc, %y[%c0, %c0, %m] {mfma = #mxgemm<mfma m32n32k64>, n = 128 : i64, wave_m = 64 : i64, wave_n = 64 : i64} : vector<64xf32>, memref<1099511627776xbf16>
      gpu.return
    }
  }
}

// -----

// A run-time trip count is refused: mxgemm-tile builds one K loop per trip
// count (a tail split has two: its whole tiles' and its K segments').
module attributes {gpu.container_module} {
  gpu.module @mxgemm_kernels {
    gpu.func @ring_runtime_bound(%x: memref<1099511627776xf8E4M3FN>, %xs: memref<1099511627776xf8E8M0FNU>, %w: memref<32768xf8E4M3FN>, %ws: memref<32xf8E8M0FNU>, %y: memref<1099511627776xbf16>, %m32: i32) workgroup(%ring : memref<2x128x128xf8E4M3FN, #gpu.address_space<workgroup>>) kernel attributes {mxgemm.config = #mxgemm.config<stage_x = lds_async, stages = 2>} {
      %m = arith.index_castui %m32 : i32 to index
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %cst = arith.constant dense<0.000000e+00> : vector<64xf32>
      // expected-error @+1 {{pipelining needs a K loop from 0 to a constant bound with a constant step}}
      %acc = scf.for %k = %c0 to %m step %c128 iter_args(%a = %cst) -> (vector<64xf32>) {
        mxgemm.copy_to_lds %x, %ring[%c0, %c0, %k, %m] {k = 256 : i64, mode = #mxgemm<staging lds_async>, num_waves = 4 : i64, rows = 128 : i64, tile_k = 128 : i64} : memref<1099511627776xf8E4M3FN>, memref<2x128x128xf8E4M3FN, #gpu.address_space<workgroup>>
        %tile = memref.subview %ring[%c0, %c0, 0] [1, 64, 128] [1, 1, 1] : memref<2x128x128xf8E4M3FN, #gpu.address_space<workgroup>> to memref<64x128xf8E4M3FN, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        mxgemm.wait_copies {pending = 0 : i64}
        mxgemm.ring_barrier
        %next = mxgemm.wave_mma %x, %xs, %w, %ws, %a[%c0, %c0, %k, %m] x_tile(%tile : memref<64x128xf8E4M3FN, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) {k = 256 : i64, mfma = #mxgemm<mfma m32n32k64>, tile_k = 128 : i64, w_scale = #mxgemm.w_scale<block32x32>, wave_m = 64 : i64, wave_n = 64 : i64} : memref<1099511627776xf8E4M3FN>, memref<1099511627776xf8E8M0FNU>, memref<32768xf8E4M3FN>, memref<32xf8E8M0FNU>, vector<64xf32>
        mxgemm.ring_barrier
        scf.yield %next : vector<64xf32>
      }
      mxgemm.store_tile %acc, %y[%c0, %c0, %m] {mfma = #mxgemm<mfma m32n32k64>, n = 128 : i64, wave_m = 64 : i64, wave_n = 64 : i64} : vector<64xf32>, memref<1099511627776xbf16>
      gpu.return
    }
  }
}
