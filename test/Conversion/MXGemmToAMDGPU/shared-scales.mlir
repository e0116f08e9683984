// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu --split-input-file | FileCheck %s

// mxgemm.load_wave_scales: one aligned 16-byte load per MFMA block row
// (16x16x128, 4 K tiles of 128 = 16 scale bytes per row), row-clamped as
// the MMA clamps; W scales per 32x32 block: the two 16-column blocks of
// the 32-wide wave tile share one scale row and one load, the same in
// every lane: a scalar load (the constant address space) at the wave's
// column made uniform by readfirstlane, where the column is defined.
// K = 1024: rows 32 bytes apart.
// CHECK-LABEL: func.func @load_words
// CHECK-SAME: (%[[XS:.+]]: memref<4096xf8E8M0FNU>, %[[WS:.+]]: memref<128xf8E8M0FNU>, %[[ROW0:.+]]: index, %[[COL0:.+]]: index, %[[K0:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[COL32:.+]] = arith.index_castui %[[COL0]] : index to i32
// CHECK: %[[UCOL32:.+]] = rocdl.readfirstlane %[[COL32]] : i32
// CHECK: %[[UCOL:.+]] = arith.index_castui %[[UCOL32]] : i32 to index
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[LANE:.+]] = arith.remui %[[TID]], %c64
// CHECK: %[[R:.+]] = arith.remui %[[LANE]], %c16
// CHECK: %[[KB:.+]] = arith.divui %[[K0]], %c32
// CHECK: %[[LAST:.+]] = arith.subi %[[M]], %c1
// CHECK: %[[ROWR:.+]] = arith.addi %[[ROW0]], %[[R]]
// Clamped in 32 bits (v_min_u32, not a 64-bit compare and two selects).
// CHECK: %[[ROWR32:.+]] = arith.index_castui %[[ROWR]] : index to i32
// CHECK: %[[LAST32:.+]] = arith.index_castui %[[LAST]] : index to i32
// CHECK: %[[ROWMIN:.+]] = arith.minui %[[ROWR32]], %[[LAST32]] : i32
// CHECK: %[[ROW:.+]] = arith.index_castui %[[ROWMIN]] : i32 to index
// CHECK: %[[XSROW:.+]] = arith.muli %[[ROW]], %c32
// CHECK: %[[XI:.+]] = arith.addi %[[XSROW]], %[[KB]]
// CHECK: %[[X0:.+]] = vector.load %[[XS]][%[[XI]]] {alignment = 16 : i64} : memref<4096xf8E8M0FNU>, vector<16xf8E8M0FNU>
// CHECK: %[[X0W:.+]] = vector.bitcast %[[X0]] : vector<16xf8E8M0FNU> to vector<4xi32>
// CHECK: vector.load %[[XS]]
// CHECK: %[[X1W:.+]] = vector.bitcast
// CHECK: vector.shuffle %[[X0W]], %[[X1W]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi32>, vector<4xi32>
// CHECK: %[[WROW:.+]] = arith.divui %[[UCOL]], %c32
// CHECK: %[[WSROW:.+]] = arith.muli %[[WROW]], %c32
// CHECK: %[[WSC:.+]] = memref.memory_space_cast %[[WS]] : memref<128xf8E8M0FNU> to memref<128xf8E8M0FNU, 4>
// CHECK: %[[WI:.+]] = arith.addi %[[WSROW]], %[[KB]]
// CHECK: %[[W0:.+]] = vector.load %[[WSC]][%[[WI]]] {alignment = 16 : i64} : memref<128xf8E8M0FNU, 4>, vector<16xf8E8M0FNU>
// CHECK-NOT: vector.load
// CHECK: %[[W0W:.+]] = vector.bitcast %[[W0]]
// CHECK: %[[WW:.+]] = vector.shuffle %[[W0W]], %[[W0W]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi32>, vector<4xi32>
// CHECK: return %{{.+}}, %[[WW]]
func.func @load_words(%xs: memref<4096xf8E8M0FNU>, %ws: memref<128xf8E8M0FNU>,
                      %row0: index, %col0: index, %k0: index, %m: index)
    -> (vector<8xi32>, vector<8xi32>) {
  %x, %w = mxgemm.load_wave_scales %xs, %ws [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 1024 : i64, n = 128 : i64, span = 4 : i64,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<4096xf8E8M0FNU>, memref<128xf8E8M0FNU> -> vector<8xi32>, vector<8xi32>
  return %x, %w : vector<8xi32>, vector<8xi32>
}

// -----

// Per-row W scales differ from lane to lane: the W words are vector loads
// at each lane's column (clamped to N - 1 = 127 only in a partial tile
// column, not here), one per block column.
// CHECK-LABEL: func.func @load_words_per_row
// CHECK-SAME: (%{{[^:]+}}: memref<4096xf8E8M0FNU>, %[[WS:[^:]+]]: memref<4096xf8E8M0FNU>, %{{[^:]+}}: index, %[[COL0:[^:]+]]: index,
// CHECK-NOT: rocdl.readfirstlane
// CHECK-NOT: memref.memory_space_cast
// CHECK: %[[R:.+]] = arith.remui %{{.+}}, %c16
// CHECK: %[[KB:.+]] = arith.divui %{{[^,]+}}, %c32 :
// CHECK: %[[C0:.+]] = arith.addi %[[COL0]], %[[R]]
// CHECK: %[[R0:.+]] = arith.muli %[[C0]], %c32
// CHECK: %[[I0:.+]] = arith.addi %[[R0]], %[[KB]]
// CHECK: vector.load %[[WS]][%[[I0]]] {alignment = 16 : i64} : memref<4096xf8E8M0FNU>, vector<16xf8E8M0FNU>
// CHECK: %[[C1:.+]] = arith.addi %[[COL0]], %c16
// CHECK: %[[C1R:.+]] = arith.addi %[[C1]], %[[R]]
// CHECK: %[[R1:.+]] = arith.muli %[[C1R]], %c32
// CHECK: %[[I1:.+]] = arith.addi %[[R1]], %[[KB]]
// CHECK: vector.load %[[WS]][%[[I1]]] {alignment = 16 : i64}
// CHECK-NOT: vector.load
// CHECK: return
func.func @load_words_per_row(%xs: memref<4096xf8E8M0FNU>, %ws: memref<4096xf8E8M0FNU>,
                              %row0: index, %col0: index, %k0: index, %m: index)
    -> (vector<8xi32>, vector<8xi32>) {
  %x, %w = mxgemm.load_wave_scales %xs, %ws [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 1024 : i64, n = 128 : i64, span = 4 : i64,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<4096xf8E8M0FNU>, memref<4096xf8E8M0FNU> -> vector<8xi32>, vector<8xi32>
  return %x, %w : vector<8xi32>, vector<8xi32>
}

// -----

// An MMA of K tile 2 of the words (32x32x64, tile_k = 64, 2 blocks per K
// tile): no scale load; dword 1 of its block row, shifted right by the
// lane's K-group g (8 bits per block), byte 0 selected: blocks 4 + g. Not
// the first K tile of the words, so the bytes are extracted where the
// loads would be (before the operand loads).
// CHECK-LABEL: func.func @mma_words
// CHECK-SAME: %[[XW:[^:]+]]: vector<2xi32>, %[[WW:[^:]+]]: vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: %[[G:.+]] = arith.divui %{{.+}}, %c32
// CHECK: %[[XD:.+]] = vector.extract %[[XW]][1] : i32 from vector<2xi32>
// CHECK: %[[G8:.+]] = arith.muli %[[G]], %c8
// CHECK: %[[SH:.+]] = arith.index_castui %[[G8]] : index to i32
// CHECK: %[[XS:.+]] = arith.shrui %[[XD]], %[[SH]] : i32
// CHECK: %[[WD:.+]] = vector.extract %[[WW]][1] : i32 from vector<2xi32>
// CHECK: arith.shrui %[[WD]]
// CHECK-NOT: memref.load
// CHECK: amdgpu.scaled_mfma 32x32x64 (%{{.+}}[0] * %{{.+}}) * (%{{.+}}[0] * %{{.+}})
func.func @mma_words(%x: memref<4096xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                     %w: memref<4096xf8E4M3FN>, %ws: memref<128xf8E8M0FNU>,
                     %acc: vector<16xf32>, %i: index,
                     %xw: vector<2xi32>, %ww: vector<2xi32>) -> vector<16xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%i, %i, %i, %i]
      x_scale_words(%xw : vector<2xi32>) w_scale_words(%ww : vector<2xi32>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, scale_words_tile = 2 : i64,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<4096xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<4096xf8E4M3FN>,
        memref<128xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}
