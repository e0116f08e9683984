// The upstream spellings of an MX GEMM that mxgemm-raise-scaled-contractions
// takes (first half) and the variants it leaves alone with a remark (second
// half). N = 128, K = 256 (8 scale columns) fit the default config.
// RUN: mxgemm-opt %s -split-input-file -verify-diagnostics \
// RUN:   --mxgemm-raise-scaled-contractions | FileCheck %s
// With require-opt-in, only contractions carrying mxgemm.accept_mx_rounding:
// RUN: mxgemm-opt %s -split-input-file \
// RUN:   --mxgemm-raise-scaled-contractions="require-opt-in" 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=OPTIN
// RUN: mxgemm-opt %s -split-input-file \
// RUN:   --mxgemm-raise-scaled-contractions="require-opt-in" 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=OPTIN-REMARK

#bcast_row = affine_map<(r, k) -> (r, k floordiv 32)>
#bcast_blk = affine_map<(n, k) -> (n floordiv 32, k floordiv 32)>
#id2 = affine_map<(i, j) -> (i, j)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>

// 1. linalg.generic, per-row weight scales, dynamic M, arith.truncf to bf16.
// CHECK-LABEL: func.func @generic_per_row_bf16(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x256xf8E4M3FN>, %[[XS:[^:]*]]: tensor<?x8xf8E8M0FNU>, %[[W:[^:]*]]: tensor<128x256xf8E4M3FN>, %[[WS:[^:]*]]: tensor<128x8xf8E8M0FNU>)
// CHECK: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x256xf8E4M3FN>
// CHECK: %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x128xbf16>
// CHECK: %[[Y:.*]] = mxgemm.scaled_matmul_tensor %[[X]], %[[XS]], %[[W]], %[[WS]] into %[[E]] {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2, mfma = m32n32k64>, w_scale = #mxgemm.w_scale<per_row>} : tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>, tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU> into tensor<?x128xbf16>
// CHECK-NEXT: return %[[Y]]
// OPTIN-LABEL: func.func @generic_per_row_bf16(
// OPTIN: mxgemm.scaled_matmul_tensor
func.func @generic_per_row_bf16(%x: tensor<?x256xf8E4M3FN>, %xs: tensor<?x8xf8E8M0FNU>,
                                %w: tensor<128x256xf8E4M3FN>, %ws: tensor<128x8xf8E8M0FNU>) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf8E4M3FN>
  %xe = tensor.empty(%m) : tensor<?x256xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<?x8xf8E8M0FNU>) outs(%xe : tensor<?x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<?x256xf8E8M0FNU>
  %we = tensor.empty() : tensor<128x256xf8E8M0FNU>
  %wsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ws : tensor<128x8xf8E8M0FNU>) outs(%we : tensor<128x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<128x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<?x256xf8E4M3FN>, tensor<?x256xf8E8M0FNU> to tensor<?x256xf32>
  %wf = arith.scaling_extf %w, %wsb : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E8M0FNU> to tensor<128x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty(%m) : tensor<?x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %y = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xf, %wf : tensor<?x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<?x128xf32>)
      attrs = {mxgemm.accept_mx_rounding} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %r = arith.truncf %y : tensor<?x128xf32> to tensor<?x128xbf16>
  return %r : tensor<?x128xbf16>
}

// -----

#bcast_row = affine_map<(r, k) -> (r, k floordiv 32)>
#bcast_blk = affine_map<(n, k) -> (n floordiv 32, k floordiv 32)>
#id2 = affine_map<(i, j) -> (i, j)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>

// 2. linalg.matmul with indexing_maps (B transposed), 32x32-block weight
// scales, E5M2 activations, f32 result into the fill's destination.
// CHECK-LABEL: func.func @matmul_block_f32(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x256xf8E5M2>, %[[XS:[^:]*]]: tensor<64x8xf8E8M0FNU>, %[[W:[^:]*]]: tensor<128x256xf8E4M3FN>, %[[WS:[^:]*]]: tensor<4x8xf8E8M0FNU>, %[[Y0:[^:]*]]: tensor<64x128xf32>)
// CHECK-NEXT: %[[Y:.*]] = mxgemm.scaled_matmul_tensor %[[X]], %[[XS]], %[[W]], %[[WS]] into %[[Y0]] {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2, mfma = m32n32k64>, w_scale = #mxgemm.w_scale<block32x32>} : tensor<64x256xf8E5M2>, tensor<64x8xf8E8M0FNU>, tensor<128x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU> into tensor<64x128xf32>
// CHECK-NEXT: return %[[Y]]
// Not opted in: unchanged.
// OPTIN-LABEL: func.func @matmul_block_f32(
// OPTIN-NOT: mxgemm.scaled_matmul_tensor
// OPTIN: linalg.matmul
func.func @matmul_block_f32(%x: tensor<64x256xf8E5M2>, %xs: tensor<64x8xf8E8M0FNU>,
                            %w: tensor<128x256xf8E4M3FN>, %ws: tensor<4x8xf8E8M0FNU>,
                            %y0: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %xe = tensor.empty() : tensor<64x256xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<64x8xf8E8M0FNU>) outs(%xe : tensor<64x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<64x256xf8E8M0FNU>
  %we = tensor.empty() : tensor<128x256xf8E8M0FNU>
  %wsb = linalg.generic {indexing_maps = [#bcast_blk, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ws : tensor<4x8xf8E8M0FNU>) outs(%we : tensor<128x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<128x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E5M2>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  %wf = arith.scaling_extf %w, %wsb : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E8M0FNU> to tensor<128x256xf32>
  %zero = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%zero : f32) outs(%y0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  // OPTIN-REMARK: :[[@LINE+1]]:8: remark: not raised to mxgemm: matches, but require-opt-in is set and the contraction has no mxgemm.accept_mx_rounding attribute (raising changes the rounding)
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(i, j) -> (i, j)>

// 3. linalg.contract, scales as linalg.broadcast + tensor.collapse_shape,
// bf16 through an elementwise linalg.generic into the caller's tensor.
// CHECK-LABEL: func.func @contract_broadcast_bf16(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x256xf8E4M3FN>, %[[XS:[^:]*]]: tensor<?x8xf8E8M0FNU>, %[[W:[^:]*]]: tensor<128x256xf8E5M2>, %[[WS:[^:]*]]: tensor<128x8xf8E8M0FNU>, %[[OUT:[^:]*]]: tensor<?x128xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[Y:.*]] = mxgemm.scaled_matmul_tensor %[[X]], %[[XS]], %[[W]], %[[WS]] into %[[OUT]] {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128, waves_m = 2, waves_n = 2, mfma = m32n32k64>, w_scale = #mxgemm.w_scale<per_row>}
// CHECK-NOT: linalg.
// CHECK: return %[[Y]]
func.func @contract_broadcast_bf16(%x: tensor<?x256xf8E4M3FN>, %xs: tensor<?x8xf8E8M0FNU>,
                                   %w: tensor<128x256xf8E5M2>, %ws: tensor<128x8xf8E8M0FNU>,
                                   %out: tensor<?x128xbf16>) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x256xf8E4M3FN>
  %xe = tensor.empty(%m) : tensor<?x8x32xf8E8M0FNU>
  %xb = linalg.broadcast ins(%xs : tensor<?x8xf8E8M0FNU>) outs(%xe : tensor<?x8x32xf8E8M0FNU>) dimensions = [2]
  %xsb = tensor.collapse_shape %xb [[0], [1, 2]] : tensor<?x8x32xf8E8M0FNU> into tensor<?x256xf8E8M0FNU>
  %we = tensor.empty() : tensor<128x8x32xf8E8M0FNU>
  %wb = linalg.broadcast ins(%ws : tensor<128x8xf8E8M0FNU>) outs(%we : tensor<128x8x32xf8E8M0FNU>) dimensions = [2]
  %wsb = tensor.collapse_shape %wb [[0], [1, 2]] : tensor<128x8x32xf8E8M0FNU> into tensor<128x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<?x256xf8E4M3FN>, tensor<?x256xf8E8M0FNU> to tensor<?x256xf32>
  %wf = arith.scaling_extf %w, %wsb : tensor<128x256xf8E5M2>, tensor<128x256xf8E8M0FNU> to tensor<128x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty(%m) : tensor<?x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x128xf32>) -> tensor<?x128xf32>
  %y = linalg.contract indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<?x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<?x128xf32>)
      {mxgemm.accept_mx_rounding} -> tensor<?x128xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x128xf32>) outs(%out : tensor<?x128xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x128xbf16>
  return %r : tensor<?x128xbf16>
}

// -----

// Not raised: the remark names the first rule broken.

#bcast16 = affine_map<(r, k) -> (r, k floordiv 16)>
#bcast_row = affine_map<(r, k) -> (r, k floordiv 32)>
#bcast_blk = affine_map<(n, k) -> (n floordiv 32, k floordiv 32)>
#id2 = affine_map<(i, j) -> (i, j)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>

// 4. Scales in blocks of 16 along K (NVFP4-style), not 32.
// CHECK-LABEL: func.func @block16(
// CHECK: linalg.matmul
// CHECK-NOT: mxgemm.scaled_matmul_tensor
func.func @block16(%x: tensor<64x256xf8E4M3FN>, %xs: tensor<64x16xf8E8M0FNU>,
                   %wf: tensor<128x256xf32>) -> tensor<64x128xf32> {
  %xe = tensor.empty() : tensor<64x256xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast16, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<64x16xf8E8M0FNU>) outs(%xe : tensor<64x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<64x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+1 {{not raised to mxgemm: X scales are broadcast in blocks of 16 along K; the MX format has one scale per 32 K elements}}
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// 5. B not transposed: linalg.matmul's default maps take W as [K, N].
// CHECK-LABEL: func.func @b_not_transposed(
// CHECK: linalg.matmul ins
func.func @b_not_transposed(%xf0: tensor<64x256xf8E4M3FN>, %xsb: tensor<64x256xf8E8M0FNU>,
                            %wf: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %xf = arith.scaling_extf %xf0, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+1 {{not raised to mxgemm: indexing maps are not (m, k), (n, k) -> (m, n): the weights must be [N, K] (B transposed, K contiguous)}}
  %y = linalg.matmul ins(%xf, %wf : tensor<64x256xf32>, tensor<256x128xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// 6. f16 accumulation.
// CHECK-LABEL: func.func @f16_accumulation(
// CHECK: linalg.generic
func.func @f16_accumulation(%x: tensor<64x256xf8E4M3FN>, %xsb: tensor<64x256xf8E8M0FNU>,
                            %wf: tensor<128x256xf16>) -> tensor<64x128xf16> {
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf16>
  %zero = arith.constant 0.0 : f16
  %ae = tensor.empty() : tensor<64x128xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%ae : tensor<64x128xf16>) -> tensor<64x128xf16>
  // expected-remark @+1 {{not raised to mxgemm: accumulates in f16; the MX contract accumulates in f32}}
  %y = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xf, %wf : tensor<64x256xf16>, tensor<128x256xf16>) outs(%acc : tensor<64x128xf16>) {
  ^bb0(%a: f16, %b: f16, %c: f16):
    %p = arith.mulf %a, %b : f16
    %s = arith.addf %c, %p : f16
    linalg.yield %s : f16
  } -> tensor<64x128xf16>
  return %y : tensor<64x128xf16>
}

// 7. The accumulator starts from a bias, not from +0.0.
// CHECK-LABEL: func.func @nonzero_init(
// CHECK: linalg.matmul
func.func @nonzero_init(%x: tensor<64x256xf8E4M3FN>, %xsb: tensor<64x256xf8E8M0FNU>,
                        %wf: tensor<128x256xf32>, %bias: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  // expected-remark @+1 {{not raised to mxgemm: the accumulator does not start from a linalg.fill of +0.0}}
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x256xf32>, tensor<128x256xf32>) outs(%bias : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// 8. Activation scales that are not broadcast (a [M, K] tensor of scales).
// CHECK-LABEL: func.func @scales_not_broadcast(
// CHECK: linalg.matmul
func.func @scales_not_broadcast(%x: tensor<64x256xf8E4M3FN>, %xsb: tensor<64x256xf8E8M0FNU>,
                                %wf: tensor<128x256xf32>) -> tensor<64x128xf32> {
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+1 {{not raised to mxgemm: X scales are not a broadcast of an E8M0 tensor along K (a block argument)}}
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// 9. Activation scales shared by 32x32 blocks (only weights may be).
// CHECK-LABEL: func.func @x_block_scales(
// CHECK: linalg.matmul
func.func @x_block_scales(%x: tensor<64x256xf8E4M3FN>, %xs: tensor<2x8xf8E8M0FNU>,
                          %wf: tensor<128x256xf32>) -> tensor<64x128xf32> {
  %xe = tensor.empty() : tensor<64x256xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast_blk, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<2x8xf8E8M0FNU>) outs(%xe : tensor<64x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<64x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+1 {{not raised to mxgemm: X scales are shared by blocks of rows; the MX contract has one activation scale per row}}
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// 10. Weights not scaled at all (operand B a plain f32 tensor).
// CHECK-LABEL: func.func @w_not_scaled(
// CHECK: linalg.matmul
func.func @w_not_scaled(%x: tensor<64x256xf8E4M3FN>, %xs: tensor<64x8xf8E8M0FNU>,
                        %wf: tensor<128x256xf32>) -> tensor<64x128xf32> {
  %xe = tensor.empty() : tensor<64x256xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<64x8xf8E8M0FNU>) outs(%xe : tensor<64x256xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<64x256xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E8M0FNU> to tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x128xf32>) -> tensor<64x128xf32>
  // expected-remark @+1 {{not raised to mxgemm: operand B is not an arith.scaling_extf}}
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// A contraction without scaling_extf operands is not looked at (no remark).
// CHECK-LABEL: func.func @plain_matmul(
// CHECK: linalg.matmul
func.func @plain_matmul(%a: tensor<64x256xf32>, %b: tensor<128x256xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%a, %b : tensor<64x256xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
