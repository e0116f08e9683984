// RUN: mxgemm-opt %s | FileCheck %s
// RUN: mxgemm-opt %s | mxgemm-opt | FileCheck %s
// RUN: mxgemm-opt -mlir-print-op-generic %s | mxgemm-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK: mxgemm.pack_panels %{{.*}} into %{{.*}} {non_k = 32 : i64} : memref<?x?xi8> into memref<?xi8>
func.func @dynamic(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<?x?xi8> into memref<?xi8>
  return
}

// CHECK-LABEL: func.func @static
// CHECK: mxgemm.pack_panels %{{.*}} into %{{.*}} {non_k = 16 : i64} : memref<32x256xi8> into memref<8192xi8>
func.func @static(%w: memref<32x256xi8>, %p: memref<8192xi8>) {
  mxgemm.pack_panels %w into %p {non_k = 16}
      : memref<32x256xi8> into memref<8192xi8>
  return
}
