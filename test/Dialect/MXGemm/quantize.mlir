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

// Scales written in an MFMA-native layout are a flat byte tensor; the
// attribute is printed only when it is not the default row_major.
// CHECK-LABEL: func.func @native
// CHECK: mxgemm.quantize %{{.*}} into %{{.*}}, %{{.*}} {scale_layout = #mxgemm.scale_layout<mfma_16x16x128>} : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?xf8E8M0FNU>
func.func @native(%x: memref<?x?xbf16>, %c: memref<?x?xf8E4M3FN>,
                  %s: memref<?xf8E8M0FNU>) {
  mxgemm.quantize %x into %c, %s
      {scale_layout = #mxgemm.scale_layout<mfma_16x16x128>}
      : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?xf8E8M0FNU>
  return
}

// 33 rows of K = 1024 in mfma_32x32x64: 2 row groups x 4 chunks x 256.
// CHECK-LABEL: func.func @native_static
// CHECK: scale_layout = #mxgemm.scale_layout<mfma_32x32x64>
// CHECK-SAME: memref<2048xf8E8M0FNU>
func.func @native_static(%x: memref<33x1024xf32>, %c: memref<33x1024xf8E5M2>,
                         %s: memref<2048xf8E8M0FNU>) {
  mxgemm.quantize %x into %c, %s
      {scale_layout = #mxgemm.scale_layout<mfma_32x32x64>}
      : memref<33x1024xf32> into memref<33x1024xf8E5M2>, memref<2048xf8E8M0FNU>
  return
}

// CHECK-LABEL: func.func @row_major_spelled
// CHECK-NOT: scale_layout
// CHECK: return
func.func @row_major_spelled(%x: memref<?x?xbf16>, %c: memref<?x?xf8E4M3FN>,
                             %s: memref<?x?xf8E8M0FNU>) {
  mxgemm.quantize %x into %c, %s {scale_layout = #mxgemm.scale_layout<row_major>}
      : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
  return
}
