// Tensor-level upstream IR to a gfx950 kernel: raise, one-shot bufferize
// (identity layouts at the function boundary, as the kernel ABI needs), and
// the existing mxgemm-to-gfx950 pipeline.
// RUN: mxgemm-opt %s --mxgemm-raise-scaled-contractions \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s --check-prefix=BUF
// RUN: mxgemm-opt %s --mxgemm-raise-scaled-contractions \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --mxgemm-to-gfx950 | FileCheck %s --check-prefix=KERNEL

// BUF-LABEL: func.func @linear(
// BUF-SAME: %[[X:[^:]*]]: memref<?x256xf8E4M3FN>, %[[XS:[^:]*]]: memref<?x8xf8E8M0FNU>, %[[W:[^:]*]]: memref<128x256xf8E4M3FN>, %[[WS:[^:]*]]: memref<4x8xf8E8M0FNU>, %[[Y:[^:]*]]: memref<?x128xbf16>)
// BUF-NEXT: mxgemm.scaled_matmul %[[X]], %[[XS]], %[[W]], %[[WS]] into %[[Y]] {{.*}}w_scale = #mxgemm.w_scale<block32x32>
// BUF-NEXT: return %[[Y]]

// KERNEL: gpu.module @mxgemm_kernels [#rocdl.target<O = 3, chip = "gfx950", abi = "500">]
// KERNEL: llvm.func @linear(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32) attributes {gpu.kernel
// KERNEL-SAME: mxgemm.problem = {k = 256 : i64, n = 128 : i64, out_type = "bf16", w_format = "e4m3", w_scale = "block32x32", x_format = "e4m3"}
// KERNEL: rocdl.mfma.scale.f32.32x32x64.f8f6f4
// KERNEL-NOT: func.func @linear

#bcast_row = affine_map<(r, k) -> (r, k floordiv 32)>
#bcast_blk = affine_map<(n, k) -> (n floordiv 32, k floordiv 32)>
#id2 = affine_map<(i, j) -> (i, j)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @linear(%x: tensor<?x256xf8E4M3FN>, %xs: tensor<?x8xf8E8M0FNU>,
                  %w: tensor<128x256xf8E4M3FN>, %ws: tensor<4x8xf8E8M0FNU>,
                  %y: tensor<?x128xbf16>) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf8E4M3FN>
  %xe = tensor.empty(%m) : tensor<?x256xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<?x8xf8E8M0FNU>) outs(%xe : tensor<?x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<?x256xf8E8M0FNU>
  %we = tensor.empty() : tensor<128x256xf8E8M0FNU>
  %wsb = linalg.generic {indexing_maps = [#bcast_blk, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ws : tensor<4x8xf8E8M0FNU>) outs(%we : tensor<128x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<128x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<?x256xf8E4M3FN>, tensor<?x256xf8E8M0FNU> to tensor<?x256xf32>
  %wf = arith.scaling_extf %w, %wsb : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E8M0FNU> to tensor<128x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty(%m) : tensor<?x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %r = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<?x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<?x128xf32>) -> tensor<?x128xf32>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<?x128xf32>) outs(%y : tensor<?x128xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %v = arith.truncf %a : f32 to bf16
    linalg.yield %v : bf16
  } -> tensor<?x128xbf16>
  return %t : tensor<?x128xbf16>
}
