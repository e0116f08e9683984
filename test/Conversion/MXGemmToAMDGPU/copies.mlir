// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu --cse --split-input-file | FileCheck %s
// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu=allow-pattern-rollback=false --cse --split-input-file | FileCheck %s

// lds_async: each lane loads the 16 global bytes that belong at its place in
// the wave's 1024 contiguous LDS bytes (global_load_lds_dwordx4). A ring row
// is 5 chunks (64 data bytes + 16 padding): lanes that land in the padding
// load the row's first chunk. 64 rows x 5 chunks = 320 chunks, 128 per pass
// of the 2 waves: the third pass is for wave 0 only.
// CHECK-LABEL: func.func @copy_async_padded
// CHECK-SAME: (%[[SRC:.+]]: memref<8192xf8E4M3FN>, %[[RING:.+]]: memref<2x64x80xf8E4M3FN, #gpu.address_space<workgroup>>, %[[STAGE:.+]]: index, %[[ROW0:.+]]: index, %[[K0:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[LANE64:.+]] = arith.remui %[[TID]], %c64
// CHECK: %[[LANE:.+]] = arith.remui %[[LANE64]], %c64
// CHECK: %[[WAVE:.+]] = arith.divui %[[TID]], %c64
// CHECK: %[[LAST:.+]] = arith.subi %[[M]], %c1
// CHECK: %[[WCHUNK:.+]] = arith.muli %[[WAVE]], %c64
// CHECK: %[[CHUNK:.+]] = arith.addi %[[WCHUNK]], %[[LANE]]
// CHECK: %[[ROW:.+]] = arith.divui %[[CHUNK]], %c5
// CHECK: %[[COL:.+]] = arith.remui %[[CHUNK]], %c5
// CHECK: %[[ISDATA:.+]] = arith.cmpi ult, %[[COL]], %c4
// CHECK: %[[DCOL:.+]] = arith.select %[[ISDATA]], %[[COL]], %c0
// CHECK: %[[SROW:.+]] = arith.addi %[[ROW0]], %[[ROW]]
// Clamped in 32 bits (v_min_u32, not a 64-bit compare and two selects).
// CHECK: %[[SROW32:.+]] = arith.index_castui %[[SROW]] : index to i32
// CHECK: %[[LAST32:.+]] = arith.index_castui %[[LAST]] : index to i32
// CHECK: %[[CROWMIN:.+]] = arith.minui %[[SROW32]], %[[LAST32]] : i32
// CHECK: %[[CROW:.+]] = arith.index_castui %[[CROWMIN]] : i32 to index
// CHECK: %[[SRK:.+]] = arith.muli %[[CROW]], %c128
// The lane's part first (it does not change along K), then the K offset.
// CHECK: %[[SOFF:.+]] = arith.muli %[[DCOL]], %c16
// CHECK: %[[LIDX:.+]] = arith.addi %[[SRK]], %[[SOFF]]
// CHECK: %[[SIDX:.+]] = arith.addi %[[LIDX]], %[[K0]]
// CHECK: %[[BYTE:.+]] = arith.muli %[[WCHUNK]], %c16
// CHECK: %[[DROW:.+]] = arith.divui %[[BYTE]], %c80
// CHECK: %[[DBYTE:.+]] = arith.remui %[[BYTE]], %c80
// CHECK: amdgpu.gather_to_lds %[[SRC]][%[[SIDX]]], %[[RING]][%[[STAGE]], %[[DROW]], %[[DBYTE]]] : vector<16xf8E4M3FN>
// CHECK: %[[BASE1:.+]] = arith.addi %[[WCHUNK]], %c128
// CHECK-NOT: scf.if
// CHECK: amdgpu.gather_to_lds
// CHECK: %[[BASE2:.+]] = arith.addi %[[WCHUNK]], %c256
// CHECK: %[[PART:.+]] = arith.cmpi ult, %[[BASE2]], %c320
// CHECK: scf.if %[[PART]] {
// CHECK: amdgpu.gather_to_lds
// CHECK: }
// CHECK-NOT: amdgpu.gather_to_lds
// CHECK-NOT: mxgemm.
// CHECK: return
func.func @copy_async_padded(%src: memref<8192xf8E4M3FN>,
    %ring: memref<2x64x80xf8E4M3FN, #gpu.address_space<workgroup>>,
    %stage: index, %row0: index, %k0: index, %m: index) {
  mxgemm.copy_to_lds %src, %ring [%stage, %row0, %k0, %m]
      {rows = 64 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_async>, num_waves = 2 : i64}
      : memref<8192xf8E4M3FN>, memref<2x64x80xf8E4M3FN, #gpu.address_space<workgroup>>
  return
}

// -----

// lds_sync: thread t loads data chunk t (row t / 4, bytes 16 * (t % 4)) into
// VGPRs and stores it at the same place of the ring with a 16-byte LDS
// store; 16 rows x 4 chunks is one pass of the 64 threads, so no guard.
// CHECK-LABEL: func.func @copy_sync
// CHECK-SAME: (%[[SRC:.+]]: memref<8192xf8E4M3FN>, %[[RING:.+]]: memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>, %[[STAGE:.+]]: index, %[[ROW0:.+]]: index, %[[K0:.+]]: index, %[[M:.+]]: index)
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[LAST:.+]] = arith.subi %[[M]], %c1
// CHECK: %[[ROW:.+]] = arith.divui %[[TID]], %c4
// CHECK: %[[CHUNK:.+]] = arith.remui %[[TID]], %c4
// CHECK: %[[COL:.+]] = arith.muli %[[CHUNK]], %c16
// CHECK: %[[SROW:.+]] = arith.addi %[[ROW0]], %[[ROW]]
// Clamped in 32 bits (v_min_u32, not a 64-bit compare and two selects).
// CHECK: %[[SROW32:.+]] = arith.index_castui %[[SROW]] : index to i32
// CHECK: %[[LAST32:.+]] = arith.index_castui %[[LAST]] : index to i32
// CHECK: %[[CROWMIN:.+]] = arith.minui %[[SROW32]], %[[LAST32]] : i32
// CHECK: %[[CROW:.+]] = arith.index_castui %[[CROWMIN]] : i32 to index
// CHECK: %[[SRK:.+]] = arith.muli %[[CROW]], %c128
// CHECK: %[[SK:.+]] = arith.addi %[[SRK]], %[[K0]]
// CHECK: %[[SIDX:.+]] = arith.addi %[[SK]], %[[COL]]
// CHECK: %[[DATA:.+]] = vector.load %[[SRC]][%[[SIDX]]] : memref<8192xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: vector.store %[[DATA]], %[[RING]][%[[STAGE]], %[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK-NOT: scf.if
// CHECK-NOT: mxgemm.
// CHECK: return
func.func @copy_sync(%src: memref<8192xf8E4M3FN>,
    %ring: memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>,
    %stage: index, %row0: index, %k0: index, %m: index) {
  mxgemm.copy_to_lds %src, %ring [%stage, %row0, %k0, %m]
      {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_sync>, num_waves = 1 : i64}
      : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
  return
}

// -----

// lds_sync with xor_swizzle: the global load reads the logical chunk, the
// LDS store writes it at chunk (c ^ (row / 4) % 4) of its 64-byte row (4
// rows per 256-byte bank sweep).
// CHECK-LABEL: func.func @copy_sync_xor
// CHECK-SAME: (%[[SRC:.+]]: memref<8192xf8E4M3FN>, %[[RING:.+]]: memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>, %[[STAGE:[^:]+]]: index
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[ROW:.+]] = arith.divui %[[TID]], %c4
// CHECK: %[[CHUNK:.+]] = arith.remui %[[TID]], %c4
// CHECK: %[[COL:.+]] = arith.muli %[[CHUNK]], %c16
// CHECK: %[[SWEEP:.+]] = arith.divui %[[ROW]], %c4
// CHECK: %[[KEY:.+]] = arith.remui %[[SWEEP]], %c4
// CHECK: %[[LCHUNK:.+]] = arith.divui %[[COL]], %c16
// CHECK: %[[PCHUNK:.+]] = arith.xori %[[LCHUNK]], %[[KEY]]
// CHECK: %[[DCOL:.+]] = arith.muli %[[PCHUNK]], %c16
// CHECK: %[[SIDX:.+]] = arith.addi %{{.+}}, %[[COL]]
// CHECK: %[[DATA:.+]] = vector.load %[[SRC]][%[[SIDX]]]
// CHECK: vector.store %[[DATA]], %[[RING]][%[[STAGE]], %[[ROW]], %[[DCOL]]] {alignment = 16 : i64}
func.func @copy_sync_xor(%src: memref<8192xf8E4M3FN>,
    %ring: memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>,
    %stage: index, %row0: index, %k0: index, %m: index) {
  mxgemm.copy_to_lds %src, %ring [%stage, %row0, %k0, %m]
      {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_sync>, num_waves = 1 : i64, xor_swizzle}
      : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
  return
}

// -----

// A group of lds_async copies ends with a scheduling barrier that only ALU
// work and MFMAs may cross (mask 0x40F; none between its copies, none for
// lds_sync): LLVM 22 counts an LDS-DMA in lgkmcnt, the hardware does not,
// so no LDS read may be scheduled above the group.
// CHECK-LABEL: func.func @async_group_fenced
// CHECK: amdgpu.gather_to_lds
// CHECK-NOT: rocdl.sched.barrier
// CHECK: amdgpu.gather_to_lds
// CHECK-NEXT: rocdl.sched.barrier 1039
// CHECK-NOT: rocdl.sched.barrier
// CHECK: vector.store
// CHECK-NOT: rocdl.sched.barrier
// CHECK: return
func.func @async_group_fenced(%src: memref<8192xf8E4M3FN>,
    %ring: memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>,
    %stage: index, %row0: index, %k0: index, %m: index) {
  mxgemm.copy_to_lds %src, %ring [%stage, %row0, %k0, %m]
      {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_async>, num_waves = 1 : i64}
      : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
  mxgemm.copy_to_lds %src, %ring [%stage, %row0, %k0, %m]
      {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_async>, num_waves = 1 : i64}
      : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
  mxgemm.copy_to_lds %src, %ring [%stage, %row0, %k0, %m]
      {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_sync>, num_waves = 1 : i64}
      : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
  return
}

// -----

// In a kernel the lds_async copies take the wave index from one
// v_readfirstlane at the kernel's entry, shared by every copy, so that the
// LDS-DMA destination (M0) is computed in SGPRs inside the loop.
// CHECK-LABEL: gpu.func @uniform_wave_index
// CHECK-NEXT: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[WAVE:.+]] = arith.divui %[[TID]], %c64
// CHECK-NEXT: %[[W32:.+]] = arith.index_castui %[[WAVE]] : index to i32
// CHECK-NEXT: %[[U32:.+]] = rocdl.readfirstlane %[[W32]] : i32
// CHECK-NEXT: %[[U:.+]] = arith.index_castui %[[U32]] {mxgemm.uniform_wave} : i32 to index
// CHECK-NOT: rocdl.readfirstlane
// CHECK: scf.for
// CHECK: arith.muli %[[U]], %c64
// CHECK: amdgpu.gather_to_lds
// CHECK-NOT: rocdl.readfirstlane
// CHECK: amdgpu.gather_to_lds
// CHECK-NOT: rocdl.readfirstlane
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @uniform_wave_index(%src: memref<8192xf8E4M3FN>,
      %ring: memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>,
      %row0: index, %m: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    scf.for %t = %c0 to %c2 step %c1 {
      %k0 = arith.muli %t, %c64 : index
      mxgemm.copy_to_lds %src, %ring [%t, %row0, %k0, %m]
          {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
           mode = #mxgemm<staging lds_async>, num_waves = 1 : i64}
          : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
      mxgemm.copy_to_lds %src, %ring [%t, %row0, %k0, %m]
          {rows = 16 : i64, tile_k = 64 : i64, k = 128 : i64,
           mode = #mxgemm<staging lds_async>, num_waves = 1 : i64}
          : memref<8192xf8E4M3FN>, memref<2x16x64xf8E4M3FN, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}
