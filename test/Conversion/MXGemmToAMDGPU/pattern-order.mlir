// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu --split-input-file | FileCheck %s
// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu=allow-pattern-rollback=false --split-input-file | FileCheck %s

// Where the MMA's global loads go must not depend on the order in which the
// driver lowers ops: the publishing barrier and the refill copies between it
// and the MMA are recognised lowered as well as unlowered. Each case is a
// pipelined K-loop body with its neighbours already lowered (or not); `%next`
// stands for the refill's address arithmetic right after the barrier.

!ring = memref<2x32x64xf8E4M3FN, #gpu.address_space<workgroup>>
!view = memref<32x64xf8E4M3FN, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>

// Lowered barrier, lowered async copy: the scale and W-panel loads go right
// after the barrier, ahead of the copy; the LDS operand reads stay after it.
// CHECK-LABEL: func.func @lowered_barrier_async_copy
// CHECK-SAME: (%{{[^:]+}}: memref<8192xf8E4M3FN>, %[[XS:[^:]+]]: memref<256xf8E8M0FNU>, %[[W:[^:]+]]: memref<8192xf8E4M3FN>, %[[WS:[^:]+]]: memref<256xf8E8M0FNU>
// CHECK: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("singlethread") acquire
// CHECK-NEXT: gpu.thread_id x
// CHECK: memref.load %[[XS]]
// CHECK: vector.load %[[W]]
// CHECK: vector.load %[[W]]
// CHECK: memref.load %[[WS]]
// CHECK: %[[NEXT:.+]] = arith.addi
// CHECK-NEXT: amdgpu.gather_to_lds %{{.+}}[%[[NEXT]]]
// CHECK-NOT: memref.load
// CHECK-NOT: vector.load %[[W]]
// CHECK: vector.load %{{.+}} {alignment = 16 : i64} : memref<32x64xf8E4M3FN, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: amdgpu.scaled_mfma
func.func @lowered_barrier_async_copy(
    %x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
    %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
    %acc: vector<16xf32>, %row0: index, %col0: index, %k0: index, %m: index,
    %ring: !ring, %view: !view, %i: index) -> vector<16xf32> {
  llvm.fence syncscope("singlethread") release
  rocdl.s.barrier
  llvm.fence syncscope("singlethread") acquire
  %next = arith.addi %k0, %i : index
  amdgpu.gather_to_lds %x[%next], %ring[%i, %i, %i] : vector<16xf8E4M3FN>, memref<8192xf8E4M3FN>, !ring
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m] x_tile(%view : !view)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>, w_panels}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

!ring = memref<2x32x64xf8E4M3FN, #gpu.address_space<workgroup>>
!view = memref<32x64xf8E4M3FN, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>

// Lowered barrier, lowered sync copy (an LDS store, here in the partial
// pass's branch): the loads are hoisted all the same.
// CHECK-LABEL: func.func @lowered_barrier_sync_copy
// CHECK-SAME: (%{{[^:]+}}: memref<8192xf8E4M3FN>, %[[XS:[^:]+]]: memref<256xf8E8M0FNU>
// CHECK: llvm.fence syncscope("singlethread") acquire
// CHECK: memref.load %[[XS]]
// CHECK: %[[NEXT:.+]] = arith.addi
// CHECK: scf.if
// CHECK: vector.store
// CHECK-NOT: memref.load
// CHECK: amdgpu.scaled_mfma
func.func @lowered_barrier_sync_copy(
    %x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
    %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
    %acc: vector<16xf32>, %row0: index, %col0: index, %k0: index, %m: index,
    %ring: !ring, %view: !view, %i: index, %partial: i1) -> vector<16xf32> {
  llvm.fence syncscope("singlethread") release
  rocdl.s.barrier
  llvm.fence syncscope("singlethread") acquire
  %next = arith.addi %k0, %i : index
  scf.if %partial {
    %data = vector.load %x[%next] : memref<8192xf8E4M3FN>, vector<16xf8E4M3FN>
    vector.store %data, %ring[%i, %i, %i] {alignment = 16 : i64} : !ring, vector<16xf8E4M3FN>
  }
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m] x_tile(%view : !view)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>, w_panels}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

!ring = memref<2x32x64xf8E4M3FN, #gpu.address_space<workgroup>>
!view = memref<32x64xf8E4M3FN, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>

// Unlowered barrier and copy, lowered in the same run: same placement.
// CHECK-LABEL: func.func @unlowered_barrier_and_copy
// CHECK-SAME: (%{{[^:]+}}: memref<8192xf8E4M3FN>, %[[XS:[^:]+]]: memref<256xf8E8M0FNU>
// CHECK: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("singlethread") acquire
// CHECK-NEXT: gpu.thread_id x
// CHECK: memref.load %[[XS]]
// CHECK: %[[NEXT:.+]] = arith.addi
// CHECK: amdgpu.gather_to_lds
// CHECK-NOT: memref.load
// CHECK: amdgpu.scaled_mfma
func.func @unlowered_barrier_and_copy(
    %x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
    %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
    %acc: vector<16xf32>, %row0: index, %col0: index, %k0: index, %m: index,
    %ring: !ring, %view: !view, %i: index) -> vector<16xf32> {
  mxgemm.ring_barrier
  %next = arith.addi %k0, %i : index
  mxgemm.copy_to_lds %x, %ring [%i, %row0, %next, %m]
      {rows = 32 : i64, tile_k = 64 : i64, k = 128 : i64,
       mode = #mxgemm<staging lds_async>, num_waves = 2 : i64}
      : memref<8192xf8E4M3FN>, !ring
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m] x_tile(%view : !view)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>, w_panels}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}

// -----

!view = memref<32x64xf8E4M3FN, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>

// No copy between the (lowered) barrier and the MMA, as in an unpipelined
// staged loop: nothing to get ahead of, the loads stay at the MMA.
// CHECK-LABEL: func.func @lowered_barrier_no_copy
// CHECK: llvm.fence syncscope("singlethread") acquire
// CHECK-NEXT: arith.addi
// CHECK-NEXT: gpu.thread_id x
// CHECK: memref.load
// CHECK: amdgpu.scaled_mfma
func.func @lowered_barrier_no_copy(
    %x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
    %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
    %acc: vector<16xf32>, %row0: index, %col0: index, %k0: index, %m: index,
    %view: !view, %i: index) -> (vector<16xf32>, index) {
  llvm.fence syncscope("singlethread") release
  rocdl.s.barrier
  llvm.fence syncscope("singlethread") acquire
  %next = arith.addi %k0, %i : index
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m] x_tile(%view : !view)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>, w_panels}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, vector<16xf32>
  return %r, %next : vector<16xf32>, index
}

// -----

!ring = memref<2x32x64xf8E4M3FN, #gpu.address_space<workgroup>>
!view = memref<32x64xf8E4M3FN, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>

// An s_barrier without the ring barrier's fences is not a ring barrier:
// no publishing barrier is found and the loads stay at the MMA, after the
// copy.
// CHECK-LABEL: func.func @bare_s_barrier
// CHECK: rocdl.s.barrier
// CHECK: amdgpu.gather_to_lds
// CHECK: memref.load
// CHECK: amdgpu.scaled_mfma
func.func @bare_s_barrier(
    %x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
    %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
    %acc: vector<16xf32>, %row0: index, %col0: index, %k0: index, %m: index,
    %ring: !ring, %view: !view, %i: index) -> vector<16xf32> {
  rocdl.s.barrier
  amdgpu.gather_to_lds %x[%i], %ring[%i, %i, %i] : vector<16xf8E4M3FN>, memref<8192xf8E4M3FN>, !ring
  %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m] x_tile(%view : !view)
      {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
       tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>, w_panels}
      : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, vector<16xf32>
  return %r : vector<16xf32>
}
