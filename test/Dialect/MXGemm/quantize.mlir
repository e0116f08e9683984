// RUN: mxgemm-opt %s | FileCheck %s
// RUN: mxgemm-opt %s | mxgemm-opt | FileCheck %s
// RUN: mxgemm-opt -mlir-print-op-generic %s | mxgemm-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK: mxgemm.quantize %{{.*}} into %{{.*}}, %{{.*}} : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
func.func @dynamic(%x: memref<?x?xbf16>, %c: memref<?x?xf8E4M3FN>,
                   %s: memref<?x?xf8E8M0FNU>) {
  mxgemm.quantize %x into %c, %s
      : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
  return
}

// CHECK-LABEL: func.func @static
// CHECK: mxgemm.quantize %{{.*}} into %{{.*}}, %{{.*}} : memref<3x96xf32> into memref<3x96xf8E5M2>, memref<3x3xf8E8M0FNU>
func.func @static(%x: memref<3x96xf32>, %c: memref<3x96xf8E5M2>,
                  %s: memref<3x3xf8E8M0FNU>) {
  mxgemm.quantize %x into %c, %s
      : memref<3x96xf32> into memref<3x96xf8E5M2>, memref<3x3xf8E8M0FNU>
  return
}

// CHECK-LABEL: func.func @half
// CHECK: mxgemm.quantize %{{.*}} : memref<?x64xf16> into memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>
func.func @half(%x: memref<?x64xf16>, %c: memref<?x64xf8E4M3FN>,
                %s: memref<?x2xf8E8M0FNU>) {
  mxgemm.quantize %x into %c, %s
      : memref<?x64xf16> into memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU>
  return
}
