// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu --split-input-file | FileCheck %s
// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu=allow-pattern-rollback=false --split-input-file | FileCheck %s

// One 32x32x64 block, one K-step, per-row weight scales: the operand and
// scale addressing of docs/Design.md section 9.
// CHECK-LABEL: func.func @one_block_32x32
// CHECK-SAME: (%[[X:.+]]: memref<4096xf8E4M3FN>, %[[XS:.+]]: memref<128xf8E8M0FNU>, %[[W:.+]]: memref<4096xf8E5M2>, %[[WS:.+]]: memref<128xf8E8M0FNU>, %[[ACC:.+]]: vector<16xf32>, %[[ROW0:.+]]: index, %[[COL0:.+]]: index, %[[K0:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[LANE:.+]] = arith.remui %[[TID]], %c64
// CHECK: %[[R:.+]] = arith.remui %[[LANE]], %c32
// CHECK: %[[G:.+]] = arith.divui %[[LANE]], %c32
// CHECK: %[[LAST:.+]] = arith.subi %[[M]], %c1
// CHECK: %[[ROWR:.+]] = arith.addi %[[ROW0]], %[[R]]
// Clamped in 32 bits (v_min_u32, not a 64-bit compare and two selects).
// CHECK: %[[ROWR32:.+]] = arith.index_castui %[[ROWR]] : index to i32
// CHECK: %[[LAST32:.+]] = arith.index_castui %[[LAST]] : index to i32
// CHECK: %[[ROWMIN:.+]] = arith.minui %[[ROWR32]], %[[LAST32]] : i32
// CHECK: %[[ROW:.+]] = arith.index_castui %[[ROWMIN]] : i32 to index
// CHECK: %[[XROW:.+]] = arith.muli %[[ROW]], %c128
// CHECK: %[[XSROW:.+]] = arith.muli %[[ROW]], %c4
// CHECK: %[[COL:.+]] = arith.addi %[[COL0]], %[[R]]
// CHECK: %[[WROW:.+]] = arith.muli %[[COL]], %c128
// CHECK: %[[WSROW:.+]] = arith.muli %[[COL]], %c4
// CHECK: %[[KB:.+]] = arith.divui %[[K0]], %c32
// CHECK: %[[G16:.+]] = arith.muli %[[G]], %c16
// CHECK: %[[XK:.+]] = arith.addi %[[XROW]], %[[K0]]
// CHECK: %[[XLO:.+]] = arith.addi %[[XK]], %[[G16]]
// CHECK: %[[A0:.+]] = vector.load %[[X]][%[[XLO]]] : memref<4096xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: %[[XHI:.+]] = arith.addi %[[XLO]], %c32
// CHECK: %[[A1:.+]] = vector.load %[[X]][%[[XHI]]]
// CHECK: %[[A:.+]] = vector.shuffle %[[A0]], %[[A1]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK: %[[XSB:.+]] = arith.addi %[[XSROW]], %[[KB]]
// CHECK: %[[XSI:.+]] = arith.addi %[[XSB]], %[[G]]
// CHECK: %[[SA:.+]] = memref.load %[[XS]][%[[XSI]]]
// The scale byte, zero-extended into the 32-bit scale operand (op_sel 0
// reads byte 0 only).
// CHECK: %[[SAI:.+]] = arith.bitcast %[[SA]] : f8E8M0FNU to i8
// CHECK: %[[SAW:.+]] = arith.extui %[[SAI]] : i8 to i32
// CHECK: %[[SAB:.+]] = vector.broadcast %[[SAW]] : i32 to vector<1xi32>
// CHECK: %[[SAV:.+]] = vector.bitcast %[[SAB]] : vector<1xi32> to vector<4xf8E8M0FNU>
// CHECK: vector.load %[[W]]
// CHECK: vector.load %[[W]]
// CHECK: %[[B:.+]] = vector.shuffle
// CHECK: %[[WSB:.+]] = arith.addi %[[WSROW]], %[[KB]]
// CHECK: %[[WSI:.+]] = arith.addi %[[WSB]], %[[G]]
// CHECK: %[[SB:.+]] = memref.load %[[WS]][%[[WSI]]]
// CHECK: arith.bitcast %[[SB]]
// CHECK: %[[SBV:.+]] = vector.bitcast
// CHECK: %[[C:.+]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// W is the MFMA's A operand and X its B (the block is computed transposed,
// for the stores of @store_32x32).
// CHECK: %[[D:.+]] = amdgpu.scaled_mfma 32x32x64 (%[[SBV]][0] * %[[B]]) * (%[[SAV]][0] * %[[A]]) + %[[C]] : vector<4xf8E8M0FNU>, vector<32xf8E5M2>, vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<16xf32>
// CHECK: %[[NEW:.+]] = vector.shuffle %[[ACC]], %[[D]] [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK: return %[[NEW]]
func.func @one_block_32x32(%x: memref<4096xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                           %w: memref<4096xf8E5M2>, %ws: memref<128xf8E8M0FNU>,
                           %acc: vector<16xf32>, %row0: index, %col0: index,
                           %k0: index, %m: index) -> vector<16xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>}
      : memref<4096xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<4096xf8E5M2>,
        memref<128xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// Two K-steps of a 32x32x64 tile read the scale blocks k0/32 .. k0/32 + 3 of
// a row: one aligned 4-byte load per row, shifted right by 8 * g so that
// lane group g finds its block of step s at byte 2s (the MFMA's byte
// select), instead of one byte load per row and step.
// CHECK-LABEL: func.func @wide_scales_32x32
// CHECK-SAME: (%[[X:.+]]: memref<8192xf8E4M3FN>, %[[XS:.+]]: memref<256xf8E8M0FNU>, %[[W:.+]]: memref<8192xf8E4M3FN>, %[[WS:.+]]: memref<256xf8E8M0FNU>
// CHECK: %[[G:.+]] = arith.divui %{{.+}}, %c32
// CHECK-NOT: memref.load
// CHECK: %[[XSW:.+]] = vector.load %[[XS]][%{{.+}}] {alignment = 4 : i64} : memref<256xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK: %[[XSI:.+]] = vector.bitcast %[[XSW]] : vector<4xf8E8M0FNU> to vector<1xi32>
// CHECK: %[[XS32:.+]] = vector.extract %[[XSI]][0]
// CHECK: %[[G8:.+]] = arith.muli %[[G]], %c8
// CHECK: %[[SH:.+]] = arith.index_castui %[[G8]] : index to i32
// CHECK: arith.shrui %[[XS32]], %[[SH]] : i32
// CHECK: vector.load %[[WS]][%{{.+}}] {alignment = 4 : i64}
// CHECK: amdgpu.scaled_mfma 32x32x64 (%{{.+}}[0] * %{{.+}}) * (%{{.+}}[0] * %{{.+}})
// CHECK: amdgpu.scaled_mfma 32x32x64 (%{{.+}}[2] * %{{.+}}) * (%{{.+}}[2] * %{{.+}})
// CHECK-NOT: memref.load
// CHECK-NOT: amdgpu.scaled_mfma
func.func @wide_scales_32x32(%x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
                             %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
                             %acc: vector<16xf32>, %row0: index, %col0: index,
                             %k0: index, %m: index) -> vector<16xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 128 : i64, k = 256 : i64, w_scale = #mxgemm.w_scale<per_row>}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<256xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// 16x16x128: lanes hold K-groups of 16 (l / 16), the second half starts 64
// elements later, 32x32 weight-scale blocks index row col / 32; a 2x1 wave
// tile over two K-steps issues 4 MFMAs in K order.
// CHECK-LABEL: func.func @blocks_16x16
// CHECK-SAME: %[[COL0:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index) -> vector<8xf32>
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c64
// CHECK: %[[R:.+]] = arith.remui %[[LANE]], %c16
// CHECK: arith.divui %[[LANE]], %c16
// CHECK: %[[COL:.+]] = arith.addi %[[COL0]], %[[R]]
// CHECK: arith.divui %[[COL]], %c32
// CHECK: %[[A0:.+]] = vector.load %{{.+}}[%[[LO:.+]]] : memref<8192xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: arith.addi %[[LO]], %c64
// CHECK-COUNT-4: amdgpu.scaled_mfma 16x16x128
// CHECK-NOT: amdgpu.scaled_mfma
func.func @blocks_16x16(%x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
                        %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                        %acc: vector<8xf32>, %row0: index, %col0: index,
                        %k0: index, %m: index) -> vector<8xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 32 : i64, wave_n = 16 : i64,
       tile_k = 256 : i64, k = 256 : i64, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<8xf32>
  return %r : vector<8xf32>
}

// -----

// W packed in MFMA panels (w_panels): lane l's 32 operand bytes of block
// column col0 / 32 and K step k0 / 64 are contiguous at
// (col0 / 32) * (K / 64) * 2048 + 32 * l + 32 * k0 (= k0 / 64 panels of
// 2048 bytes), read as two 16-byte halves; X keeps its row-major gather.
// CHECK-LABEL: func.func @panels_32x32
// CHECK-SAME: %[[COL0:[a-z0-9]+]]: index, %[[K0:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index) -> vector<16xf32>
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c64
// CHECK: %[[BLOCK:.+]] = arith.divui %[[COL0]], %c32
// CHECK: %[[SLOT:.+]] = arith.muli %[[LANE]], %c32
// CHECK: %[[BASE:.+]] = arith.muli %[[BLOCK]], %c8192
// CHECK: %[[PANEL:.+]] = arith.addi %[[BASE]], %[[SLOT]]
// CHECK: %[[KOFF:.+]] = arith.muli %[[K0]], %c32
// CHECK: %[[FIRST:.+]] = arith.addi %[[PANEL]], %[[KOFF]]
// CHECK: %[[SECOND:.+]] = arith.addi %[[FIRST]], %c16
// CHECK: %[[B0:.+]] = vector.load %{{.+}}[%[[FIRST]]] {alignment = 16 : i64} : memref<8192xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: %[[B1:.+]] = vector.load %{{.+}}[%[[SECOND]]] {alignment = 16 : i64} : memref<8192xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: %[[B:.+]] = vector.shuffle %[[B0]], %[[B1]]
// CHECK: amdgpu.scaled_mfma 32x32x64 ({{.+}}) * ({{.+}}) + {{.+}} : vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<4xf8E8M0FNU>, vector<32xf8E4M3FN>, vector<16xf32>
// CHECK-COUNT-3: amdgpu.scaled_mfma 32x32x64
// CHECK-NOT: amdgpu.scaled_mfma
func.func @panels_32x32(%x: memref<8192xf8E4M3FN>, %xs: memref<128xf8E8M0FNU>,
                        %w: memref<8192xf8E4M3FN>, %ws: memref<8xf8E8M0FNU>,
                        %acc: vector<16xf32>, %row0: index, %col0: index,
                        %k0: index, %m: index) -> vector<16xf32> {
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 256 : i64, k = 256 : i64, w_panels,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<8192xf8E4M3FN>, memref<128xf8E8M0FNU>, memref<8192xf8E4M3FN>,
        memref<8xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----
// Transposed D layout (W . X^T per block): lane l holds output row l%32 and,
// in registers 4u..4u+3, columns 8u + 4*(l/32) + 0..3; each four convert to
// BF16 together and go out in one 8-byte store. A wave tile wholly inside M
// (row0 + wave_m <= M: every tile but the last tile row) stores without a
// guard; otherwise each lane's row is guarded once by row < M.
// CHECK-LABEL: func.func @store_32x32
// CHECK-SAME: %[[ACC:.+]]: vector<16xf32>, %[[Y:.+]]: memref<65536xbf16>, %[[ROW0:.+]]: index, %[[COL0:.+]]: index, %[[M:.+]]: index
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c64
// CHECK: %[[R:.+]] = arith.remui %[[LANE]], %c32
// CHECK: %[[G:.+]] = arith.divui %[[LANE]], %c32
// CHECK: %[[G4:.+]] = arith.muli %[[G]], %c4
// CHECK: %[[COLG:.+]] = arith.addi %[[COL0]], %[[G4]]
// CHECK: %[[END:.+]] = arith.addi %[[ROW0]], %c32
// CHECK: %[[WHOLE:.+]] = arith.cmpi ule, %[[END]], %[[M]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK: %[[ROW:.+]] = arith.addi %[[ROW0]], %[[R]]
// CHECK-NOT: scf.if
// CHECK: %[[OFF:.+]] = arith.muli %[[ROW]], %c256
// CHECK: %[[START:.+]] = arith.addi %[[OFF]], %[[COLG]]
// CHECK: %[[Q0:.+]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, 3]
// CHECK: %[[B0:.+]] = arith.truncf %[[Q0]] : vector<4xf32> to vector<4xbf16>
// CHECK: vector.store %[[B0]], %[[Y]][%[[START]]] {alignment = 8 : i64}
// Registers 4..7 are columns 8 + 4g ..
// CHECK: vector.shuffle %[[ACC]], %[[ACC]] [4, 5, 6, 7]
// CHECK: %[[I8:.+]] = arith.addi %[[START]], %c8
// CHECK: vector.store %{{.+}}, %[[Y]][%[[I8]]]
// CHECK-COUNT-2: vector.store
// CHECK: } else {
// CHECK: %[[GROW:.+]] = arith.addi %[[ROW0]], %[[R]]
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[GROW]], %[[M]]
// CHECK: scf.if %[[IN]] {
// CHECK-COUNT-4: vector.store
// CHECK-NOT: vector.store
// CHECK-NOT: memref.store
func.func @store_32x32(%acc: vector<16xf32>, %y: memref<65536xbf16>,
                       %row0: index, %col0: index, %m: index) {
  mxgemm.store_tile %acc, %y [%row0, %col0, %m]
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       n = 256 : i64} : vector<16xf32>, memref<65536xbf16>
  return
}

// -----

// Accumulators out of a K loop of one trip (K = tile_k), which folds away:
// on the guarded path of the last tile row each quad first goes through an
// empty asm with side effects, so that LLVM cannot sink the MFMAs that make
// it into the per-lane row guard (test/Emulator/single-k-tile.test); whole
// tiles store as before. A loop result with more trips, or a block argument
// as above, is stored as it is.
// CHECK-LABEL: func.func @store_one_trip
// CHECK: %[[ACC:.+]] = scf.for
// CHECK: scf.if
// CHECK-NOT: llvm.inline_asm
// CHECK: } else {
// CHECK: %[[Q:.+]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, 3]
// CHECK: %[[PIN:.+]] = llvm.inline_asm has_side_effects "", "=v,0" %[[Q]] : (vector<4xf32>) -> vector<4xf32>
// CHECK: scf.if
// CHECK: arith.truncf %[[PIN]]
// CHECK-LABEL: func.func @store_two_trips
// CHECK-NOT: llvm.inline_asm
// CHECK: return
func.func @store_one_trip(%init: vector<4xf32>, %y: memref<4096xbf16>,
                          %row0: index, %col0: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %init)
      -> vector<4xf32> {
    scf.yield %a : vector<4xf32>
  }
  mxgemm.store_tile %acc, %y [%row0, %col0, %m]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 16 : i64, wave_n = 16 : i64,
       n = 256 : i64} : vector<4xf32>, memref<4096xbf16>
  return
}
func.func @store_two_trips(%init: vector<4xf32>, %y: memref<4096xbf16>,
                           %row0: index, %col0: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %acc = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %init)
      -> vector<4xf32> {
    scf.yield %a : vector<4xf32>
  }
  mxgemm.store_tile %acc, %y [%row0, %col0, %m]
      {mfma = #mxgemm<mfma m16n16k128>, wave_m = 16 : i64, wave_n = 16 : i64,
       n = 256 : i64} : vector<4xf32>, memref<4096xbf16>
  return
}

// -----

// Staged epilogue: a 32x64 wave tile, one chunk of 64 BF16 columns (128-byte
// slice rows, 8 chunks of 16 bytes). Each lane writes its quads at logical
// column 4 * (l / 32) + 32j + 8u of slice row l % 32, then reads 16 bytes
// at logical column 8 * (l % 8) of slice row l / 8 + 8p (pass p of 4) and
// stores them to row row0 + l / 8 + 8p, column col0 + 8 * (l % 8): 8 lanes
// per 128-byte output row. Slice columns permute 16-byte chunks by XOR with
// (row / 2) % 8.
// CHECK-LABEL: func.func @store_staged
// CHECK-SAME: %[[ACC:.+]]: vector<32xf32>, %[[Y:.+]]: memref<65536xbf16>, %[[ROW0:.+]]: index, %[[COL0:.+]]: index, %[[M:.+]]: index, %[[BUF:.+]]: memref<4x32x64xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c64
// CHECK: %[[R:.+]] = arith.remui %[[LANE]], %c32
// CHECK: scf.if
// CHECK: %[[WAVE:.+]] = arith.divui %{{.+}}, %c64
// CHECK: %[[LROW:.+]] = arith.divui %[[LANE]], %c8
// CHECK: %[[LCOLI:.+]] = arith.remui %[[LANE]], %c8
// CHECK: %[[LCOL:.+]] = arith.muli %[[LCOLI]], %c8
// CHECK: %[[Q:.+]] = arith.truncf %{{.+}} : vector<4xf32> to vector<4xbf16>
// CHECK: %[[WCHUNK:.+]] = arith.divui %[[QCOL:.+]], %c8
// CHECK: %[[WIN:.+]] = arith.remui %[[QCOL]], %c8
// CHECK: %[[WPH:.+]] = arith.divui %[[R]], %c2
// CHECK: %[[WKEY:.+]] = arith.remui %[[WPH]], %c8
// CHECK: %[[WX:.+]] = arith.xori %[[WCHUNK]], %[[WKEY]]
// CHECK: %[[WX8:.+]] = arith.muli %[[WX]], %c8
// CHECK: %[[WCOL:.+]] = arith.addi %[[WX8]], %[[WIN]]
// CHECK: vector.store %[[Q]], %[[BUF]][%[[WAVE]], %[[R]], %[[WCOL]]] {alignment = 8 : i64}
// CHECK-COUNT-7: vector.store %{{.+}}, %[[BUF]]
// CHECK: %[[RCHUNK:.+]] = arith.divui %[[LCOL]], %c8
// CHECK: %[[RPH:.+]] = arith.divui %[[LROW]], %c2
// CHECK: %[[RKEY:.+]] = arith.remui %[[RPH]], %c8
// CHECK: %[[RX:.+]] = arith.xori %[[RCHUNK]], %[[RKEY]]
// CHECK: %[[V:.+]] = vector.load %[[BUF]][%[[WAVE]], %[[LROW]], %{{.+}}] {alignment = 16 : i64} : memref<4x32x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: %[[ROW:.+]] = arith.addi %[[ROW0]], %[[LROW]]
// CHECK: %[[COL:.+]] = arith.addi %[[COL0]], %[[LCOL]]
// CHECK: %[[OFF:.+]] = arith.muli %[[ROW]], %c256
// CHECK: %[[IDX:.+]] = arith.addi %[[OFF]], %[[COL]]
// CHECK: vector.store %[[V]], %[[Y]][%[[IDX]]] {alignment = 16 : i64}
// CHECK: %[[LROW8:.+]] = arith.addi %[[LROW]], %c8
// CHECK: vector.load %[[BUF]][%[[WAVE]], %[[LROW8]], %{{.+}}]
// CHECK-COUNT-2: vector.load %[[BUF]]
// CHECK: } else {
// CHECK-COUNT-8: vector.store %{{.+}}, %[[BUF]]
// CHECK: vector.load %[[BUF]]
// CHECK: arith.cmpi ult, %{{.+}}, %[[M]]
// CHECK: scf.if
// CHECK: vector.store %{{.+}}, %[[Y]]
func.func @store_staged(%acc: vector<32xf32>, %y: memref<65536xbf16>,
                        %row0: index, %col0: index, %m: index,
                        %buf: memref<4x32x64xbf16, #gpu.address_space<workgroup>>) {
  mxgemm.store_tile %acc, %y [%row0, %col0, %m]
      staging(%buf : memref<4x32x64xbf16, #gpu.address_space<workgroup>>)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 64 : i64,
       n = 256 : i64} : vector<32xf32>, memref<65536xbf16>
  return
}
