// RUN: mxgemm-opt %s --mxgemm-lower-quantize | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-quantize-to-gfx950 | FileCheck %s --check-prefix=ROCDL

// The function becomes a 256-thread kernel with the flat-pointer ABI
// (input, codes, scales, M, K) and nothing is left on the host. A block is
// spread over a quad of lanes, 8 values (16 bytes) each, and every lane
// does four such pieces: its four loads first, then per piece the block
// amax across the quad (DPP), one of the paths, an 8-byte code store and
// the scale byte.

// CHECK-NOT: func.func
// CHECK: gpu.module @mxgemm_kernels
// CHECK: gpu.func @quantize_bf16_e4m3(%[[IN:.*]]: memref<1099511627776xbf16>, %[[CODES:.*]]: memref<1099511627776xi8>, %[[SCALES:.*]]: memref<1099511627776xi8>, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: scf.if
// CHECK-COUNT-4: vector.load %[[IN]]{{.*}} : memref<1099511627776xbf16>, vector<8xbf16>
// CHECK-NOT: vector.load
// CHECK: vector.reduction <maxui>, %{{.*}} : vector<8xi16> into i16
// CHECK: rocdl.update.dpp %{{.*}}, %{{.*}} with 177, 15, 15, true : i32
// CHECK: rocdl.update.dpp %{{.*}}, %{{.*}} with 78, 15, 15, true : i32
// A block with a NaN/inf or a tiny exponent takes the general path (with
// the normalising leading-zero count); the others the 16-bit one (a byte
// permutation packs its codes), or, where an element is below the FP8
// normals, the FP32 short one (rounding by an FP32 add of 2^23).
// CHECK: scf.if %{{.*}} -> (vector<2xi32>)
// CHECK: llvm.intr.ctlz
// CHECK: } else {
// CHECK-NOT: llvm.intr.ctlz
// CHECK: vector.reduction <minui>, %{{.*}} : vector<8xi16> into i16
// CHECK: scf.if %{{.*}} -> (vector<2xi32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: llvm.call_intrinsic "llvm.amdgcn.perm"
// CHECK: vector.store %{{.*}}, %[[CODES]]{{.*}} : memref<1099511627776xi8>, vector<8xi8>
// CHECK: memref.store %{{.*}}, %[[SCALES]]

// ROCDL: gpu.module @mxgemm_kernels [#rocdl.target<{{.*}}chip = "gfx950"
// ROCDL: llvm.func @quantize_bf16_e4m3(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32) attributes {{{.*}}rocdl.kernel
// ROCDL-NOT: mxgemm.

func.func @quantize_bf16_e4m3(%x: memref<?x?xbf16>,
    %codes: memref<?x?xf8E4M3FN>, %scales: memref<?x?xf8E8M0FNU>) {
  mxgemm.quantize %x into %codes, %scales
      : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
  return
}
