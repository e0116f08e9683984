// Function boundaries bufferized with the default (fully dynamic) layout
// give strided buffers, which the kernel ABI cannot take: a clear error
// that names the option to use.
// RUN: mxgemm-opt %s -verify-diagnostics --one-shot-bufferize="bufferize-function-boundaries"

func.func @strided(%x: tensor<?x64xf8E4M3FN>, %xs: tensor<?x2xf8E8M0FNU>,
                   %w: tensor<32x64xf8E4M3FN>, %ws: tensor<1x2xf8E8M0FNU>,
                   %y: tensor<?x32xbf16>) -> tensor<?x32xbf16> {
  // expected-error @+2 {{failed to bufferize op}}
  // expected-error @+1 {{needs identity-layout (contiguous row-major) buffers, got 'memref<?x64xf8E4M3FN, strided<[?, ?], offset: ?>>'; bufferize function boundaries with function-boundary-type-conversion=identity-layout-map}}
  %r = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 32, tile_n = 32, tile_k = 64, waves_m = 1, waves_n = 1>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>,
        tensor<1x2xf8E8M0FNU> into tensor<?x32xbf16>
  return %r : tensor<?x32xbf16>
}
