// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu | FileCheck %s

// X scales in the MFMA-native layout of 16x16x128 (Contract/ScaleLayout.h).
// K = 1024: 32 E8M0 blocks per row, 16 per 256-byte chunk (four steps of
// four), so a group of 16 rows is 512 bytes. Each lane's base is its row
// group's first chunk plus its dword (lane g * 16 + r, 4 bytes each); step
// s = k / 128 reads byte s % 4 of chunk s / 4: one byte load per step and
// block row, no wide load (the row-major W scales of the same MMA still
// share one 8-byte load for the two steps).
// CHECK-LABEL: func.func @native_x_scales_16x16
// CHECK-SAME: (%{{.+}}: memref<32768xf8E4M3FN>, %[[XS:.+]]: memref<1024xf8E8M0FNU>, %{{.+}}: memref<16384xf8E4M3FN>, %[[WS:.+]]: memref<512xf8E8M0FNU>, %{{.+}}: vector<4xf32>, %[[ROW0:.+]]: index, %{{.+}}: index, %[[K0:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c64
// CHECK: %[[R:.+]] = arith.remui %[[LANE]], %c16
// CHECK: %[[G:.+]] = arith.divui %[[LANE]], %c16
// CHECK: %[[LAST:.+]] = arith.subi %[[M]], %c1
// CHECK: %[[ROWR:.+]] = arith.addi %[[ROW0]], %[[R]]
// Clamped in 32 bits (v_min_u32, not a 64-bit compare and two selects).
// CHECK: %[[ROWR32:.+]] = arith.index_castui %[[ROWR]] : index to i32
// CHECK: %[[LAST32:.+]] = arith.index_castui %[[LAST]] : index to i32
// CHECK: %[[ROWMIN:.+]] = arith.minui %[[ROWR32]], %[[LAST32]] : i32
// CHECK: %[[ROW:.+]] = arith.index_castui %[[ROWMIN]] : i32 to index
// CHECK: %[[GROUP:.+]] = arith.divui %[[ROW]], %c16
// CHECK: %[[INGROUP:.+]] = arith.remui %[[ROW]], %c16
// CHECK: %[[G16:.+]] = arith.muli %[[G]], %c16
// CHECK: %[[LANEPOS:.+]] = arith.addi %[[G16]], %[[INGROUP]]
// CHECK: %[[DWORD:.+]] = arith.muli %[[LANEPOS]], %c4
// CHECK: %[[GROUPBASE:.+]] = arith.muli %[[GROUP]], %c512
// CHECK: %[[BASE:.+]] = arith.addi %[[GROUPBASE]], %[[DWORD]]
// CHECK: %[[STEP:.+]] = arith.divui %[[K0]], %c128
// CHECK: %[[CHUNK:.+]] = arith.divui %[[STEP]], %c4
// CHECK: %[[BYTE:.+]] = arith.remui %[[STEP]], %c4
// CHECK: %[[CHUNKOFF:.+]] = arith.muli %[[CHUNK]], %c256
// CHECK: %[[OFF:.+]] = arith.addi %[[CHUNKOFF]], %[[BYTE]]
// CHECK: %[[AT:.+]] = arith.addi %[[BASE]], %[[OFF]]
// CHECK: memref.load %[[XS]][%[[AT]]] : memref<1024xf8E8M0FNU>
// CHECK: vector.load %[[WS]][%{{.+}}] {alignment = 8 : i64} : memref<512xf8E8M0FNU>, vector<8xf8E8M0FNU>
// CHECK: amdgpu.scaled_mfma 16x16x128
// CHECK: %[[K1:.+]] = arith.addi %[[K0]], %c128
// CHECK: %[[STEP1:.+]] = arith.divui %[[K1]], %c128
// CHECK: %[[AT1:.+]] = arith.addi %[[BASE]], %{{.+}}
// CHECK: memref.load %[[XS]][%[[AT1]]] : memref<1024xf8E8M0FNU>
// CHECK-NOT: vector.load %[[XS]]
// CHECK: amdgpu.scaled_mfma 16x16x128
func.func @native_x_scales_16x16(%x: memref<32768xf8E4M3FN>, %xs: memref<1024xf8E8M0FNU>,
                                 %w: memref<16384xf8E4M3FN>, %ws: memref<512xf8E8M0FNU>,
                                 %acc: vector<4xf32>, %row0: index, %col0: index,
                                 %k0: index, %m: index) -> vector<4xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 16 : i64, wave_n = 16 : i64,
       tile_k = 256 : i64, k = 1024 : i64, x_scales_native,
       w_scale = #mxgemm.w_scale<per_row>}
      : memref<32768xf8E4M3FN>, memref<1024xf8E8M0FNU>, memref<16384xf8E4M3FN>,
        memref<512xf8E8M0FNU>, vector<4xf32>
  return %r : vector<4xf32>
}
