// RUN: mxgemm-opt %s -split-input-file -verify-diagnostics
// RUN: mxgemm-opt %s -split-input-file -verify-diagnostics --one-shot-bufferize="bufferize-function-boundaries"

// The tensor form shares the memref form's verifier.
func.func @bad_scales(%x: tensor<?x64xf8E4M3FN>, %xs: tensor<?x3xf8E8M0FNU>,
                      %w: tensor<32x64xf8E4M3FN>, %ws: tensor<1x2xf8E8M0FNU>,
                      %y: tensor<?x32xbf16>) -> tensor<?x32xbf16> {
  // expected-error @+1 {{X scales must have shape [M, K/32] = [?, 2], got 'tensor<?x3xf8E8M0FNU>'}}
  %r = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64, waves_m = 1, waves_n = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : tensor<?x64xf8E4M3FN>, tensor<?x3xf8E8M0FNU>, tensor<32x64xf8E4M3FN>,
        tensor<1x2xf8E8M0FNU> into tensor<?x32xbf16>
  return %r : tensor<?x32xbf16>
}

// -----

func.func @config_misfit(%x: tensor<?x64xf8E4M3FN>, %xs: tensor<?x2xf8E8M0FNU>,
                         %w: tensor<32x64xf8E4M3FN>, %ws: tensor<1x2xf8E8M0FNU>,
                         %y: tensor<?x32xbf16>) -> tensor<?x32xbf16> {
  // expected-error-re @+1 {{{{.*}}tile_k{{.*}}}}
  %r = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<stage_x = lds_async>, w_scale = #mxgemm.w_scale<block32x32>}
      : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>,
        tensor<1x2xf8E8M0FNU> into tensor<?x32xbf16>
  return %r : tensor<?x32xbf16>
}
