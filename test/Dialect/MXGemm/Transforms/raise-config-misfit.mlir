// A config that does not fit the problem is a remark, and the contraction
// stays: with stage_x = lds_async, K (192) must be a multiple of tile_k
// (128); a K tail is masked only on direct loads.
// RUN: mxgemm-opt %s -verify-diagnostics \
// RUN:   --mxgemm-raise-scaled-contractions="config={stage_x = lds_async}" \
// RUN:   | FileCheck %s

#bcast_row = affine_map<(r, k) -> (r, k floordiv 32)>
#bcast_blk = affine_map<(n, k) -> (n floordiv 32, k floordiv 32)>
#id2 = affine_map<(i, j) -> (i, j)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#bcast16 = affine_map<(r, k) -> (r, k floordiv 16)>

// CHECK-LABEL: func.func @config_does_not_fit(
// CHECK: linalg.matmul
func.func @config_does_not_fit(%x: tensor<64x192xf8E4M3FN>, %xs: tensor<64x6xf8E8M0FNU>,
                               %w: tensor<96x192xf8E4M3FN>, %ws: tensor<96x6xf8E8M0FNU>) -> tensor<64x96xf32> {
  %xe = tensor.empty() : tensor<64x192xf8E8M0FNU>
  %xsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<64x6xf8E8M0FNU>) outs(%xe : tensor<64x192xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<64x192xf8E8M0FNU>
  %we = tensor.empty() : tensor<96x192xf8E8M0FNU>
  %wsb = linalg.generic {indexing_maps = [#bcast_row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ws : tensor<96x6xf8E8M0FNU>) outs(%we : tensor<96x192xf8E8M0FNU>) {
  ^bb0(%s: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %s : f8E8M0FNU
  } -> tensor<96x192xf8E8M0FNU>
  %xf = arith.scaling_extf %x, %xsb : tensor<64x192xf8E4M3FN>, tensor<64x192xf8E8M0FNU> to tensor<64x192xf32>
  %wf = arith.scaling_extf %w, %wsb : tensor<96x192xf8E4M3FN>, tensor<96x192xf8E8M0FNU> to tensor<96x192xf32>
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<64x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ae : tensor<64x96xf32>) -> tensor<64x96xf32>
  // expected-remark-re @+1 {{not raised to mxgemm: the config does not fit the problem: {{.*}}tile_k{{.*}}}}
  %y = linalg.matmul indexing_maps = [#mA, #mB, #mC]
      ins(%xf, %wf : tensor<64x192xf32>, tensor<96x192xf32>) outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}

