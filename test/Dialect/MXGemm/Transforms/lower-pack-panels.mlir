// RUN: mxgemm-opt %s --mxgemm-lower-pack-panels --cse | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-quantize-to-gfx950 | FileCheck %s --check-prefix=ROCDL

// Each function becomes a 256-thread kernel with the flat-pointer ABI
// (w, packed, N, K): a wave per panel (panel = 4 * block + tid / 64, and
// only panels < N / nonK * K / kStep), lane l's two 16-byte runs at
// W[nb nonK + l % nonK][ks kStep + 16 (l / nonK)] and kStep / 2 further,
// one 32-byte store at panel * 2048 + 32 l (WeightPanels.h).

// CHECK-NOT: func.func
// CHECK: gpu.module @mxgemm_kernels
// CHECK-LABEL: gpu.func @pack_panels_32(
// CHECK-SAME: %[[W:.*]]: memref<1099511627776xi8>, %[[P:.*]]: memref<1099511627776xi8>, %[[N:.*]]: i32, %[[K:.*]]: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: rocdl.flat_work_group_size = "256,256"
// CHECK: %[[NI:.*]] = arith.index_castui %[[N]] : i32 to index
// CHECK: %[[KI:.*]] = arith.index_castui %[[K]] : i32 to index
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[STEPS:.*]] = arith.divui %[[KI]], %[[C64]]
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[BLOCKS_N:.*]] = arith.divui %[[NI]], %[[C32]]
// CHECK: %[[PANELS:.*]] = arith.muli %[[BLOCKS_N]], %[[STEPS]]
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WAVE:.*]] = arith.divui %[[TID]], %[[C64]]
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[FIRST:.*]] = arith.muli %[[BID]], %[[C4]]
// CHECK: %[[PANEL:.*]] = arith.addi %[[FIRST]], %[[WAVE]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[PANEL]], %[[PANELS]]
// CHECK: scf.if %[[IN]] {
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %[[C64]]
// CHECK: %[[NB:.*]] = arith.divui %[[PANEL]], %[[STEPS]]
// CHECK: %[[KS:.*]] = arith.remui %[[PANEL]], %[[STEPS]]
// CHECK: %[[R:.*]] = arith.remui %[[LANE]], %[[C32]]
// CHECK: %[[ROW0:.*]] = arith.muli %[[NB]], %[[C32]]
// CHECK: %[[ROW:.*]] = arith.addi %[[ROW0]], %[[R]]
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[G:.*]] = arith.divui %[[LANE]], %[[C32]]
// CHECK: %[[GOFF:.*]] = arith.muli %[[G]], %[[C16]]
// CHECK: %[[KOFF:.*]] = arith.muli %[[KS]], %[[C64]]
// CHECK: %[[COL:.*]] = arith.addi %[[KOFF]], %[[GOFF]]
// CHECK: %[[ROWOFF:.*]] = arith.muli %[[ROW]], %[[KI]]
// CHECK: %[[SRC:.*]] = arith.addi %[[ROWOFF]], %[[COL]]
// CHECK: %[[LO:.*]] = vector.load %[[W]][%[[SRC]]] : memref<1099511627776xi8>, vector<16xi8>
// CHECK: %[[SRC1:.*]] = arith.addi %[[SRC]], %[[C32]]
// CHECK: %[[HI:.*]] = vector.load %[[W]][%[[SRC1]]] : memref<1099511627776xi8>, vector<16xi8>
// CHECK: %[[BYTES:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK: %[[LOFF:.*]] = arith.muli %[[LANE]], %[[C32]]
// CHECK: %[[C2048:.*]] = arith.constant 2048 : index
// CHECK: %[[POFF:.*]] = arith.muli %[[PANEL]], %[[C2048]]
// CHECK: %[[DST:.*]] = arith.addi %[[POFF]], %[[LOFF]]
// CHECK: vector.store %[[BYTES]], %[[P]][%[[DST]]] : memref<1099511627776xi8>, vector<32xi8>
// CHECK: gpu.return

// m16n16k128: kStep 128, nonK 16, the second run 64 bytes further.
// CHECK-LABEL: gpu.func @pack_panels_16(
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: arith.divui %{{.*}}, %[[C128]]
// CHECK: %[[C16B:.*]] = arith.constant 16 : index
// CHECK: arith.divui %{{.*}}, %[[C16B]]
// CHECK: %[[C64B:.*]] = arith.constant 64 : index
// CHECK: vector.load %{{.*}}[%[[SRC16:.*]]] : memref<1099511627776xi8>, vector<16xi8>
// CHECK-NEXT: %[[HI16:.*]] = arith.addi %[[SRC16]], %[[C64B]]
// CHECK-NEXT: vector.load %{{.*}}[%[[HI16]]]

// ROCDL: gpu.module @mxgemm_kernels [#rocdl.target<{{.*}}chip = "gfx950"
// ROCDL: llvm.func @pack_panels_32(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32) attributes {{{.*}}rocdl.kernel
// ROCDL: llvm.func @pack_panels_16(
// ROCDL-NOT: mxgemm.

func.func @pack_panels_32(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<?x?xi8> into memref<?xi8>
  return
}

func.func @pack_panels_16(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  mxgemm.pack_panels %w into %p {non_k = 16} : memref<?x?xi8> into memref<?xi8>
  return
}
