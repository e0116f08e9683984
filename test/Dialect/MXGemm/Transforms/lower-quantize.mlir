// RUN: mxgemm-opt %s --mxgemm-lower-quantize | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-quantize-to-gfx950 | FileCheck %s --check-prefix=ROCDL

// The function becomes a 256-thread kernel with the flat-pointer ABI
// (input, codes, scales, M, K); each lane loads its whole 32-block, writes
// one scale byte and 32 code bytes, and nothing else is left on the host.

// CHECK-NOT: func.func
// CHECK: gpu.module @mxgemm_kernels
// CHECK: gpu.func @quantize_bf16_e4m3(%[[IN:.*]]: memref<1099511627776xbf16>, %[[CODES:.*]]: memref<1099511627776xi8>, %[[SCALES:.*]]: memref<1099511627776xi8>, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: scf.if
// CHECK: vector.load %[[IN]]{{.*}} : memref<1099511627776xbf16>, vector<32xbf16>
// CHECK: vector.reduction <maxui>
// CHECK: memref.store %{{.*}}, %[[SCALES]]
// A block with a NaN/inf or a tiny exponent takes the general path (with
// the normalising leading-zero count), the others the short one (rounding
// by an FP32 add of 2^23).
// CHECK: %[[BYTES:.*]] = scf.if %{{.*}} -> (vector<32xi8>)
// CHECK: llvm.intr.ctlz
// CHECK: } else {
// CHECK-NOT: llvm.intr.ctlz
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: }
// CHECK: vector.store %[[BYTES]], %[[CODES]]{{.*}} : memref<1099511627776xi8>, vector<32xi8>

// ROCDL: gpu.module @mxgemm_kernels [#rocdl.target<{{.*}}chip = "gfx950"
// ROCDL: llvm.func @quantize_bf16_e4m3(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32) attributes {{{.*}}rocdl.kernel
// ROCDL-NOT: mxgemm.

func.func @quantize_bf16_e4m3(%x: memref<?x?xbf16>,
    %codes: memref<?x?xf8E4M3FN>, %scales: memref<?x?xf8E8M0FNU>) {
  mxgemm.quantize %x into %codes, %scales
      : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
  return
}
