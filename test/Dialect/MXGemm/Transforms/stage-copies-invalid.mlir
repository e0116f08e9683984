// RUN: mxgemm-opt %s --mxgemm-stage-copies -verify-diagnostics

// mxgemm-stage-copies stages the K loop of a kernel, or the two of a tail
// split (its whole tiles' and its segments'), into one set of rings: a
// kernel with a staged operand and no mxgemm.wave_mma (hand-written IR;
// mxgemm-tile always builds one or two) is refused.
module attributes {gpu.container_module} {
  gpu.module @mxgemm_kernels {
    // expected-error @+1 {{expected one or two mxgemm.wave_mma to stage, found 0}}
    gpu.func @no_mma(%x: memref<131072xf8E4M3FN>) kernel attributes {mxgemm.config = #mxgemm.config<stage_x = lds_async, stages = 2>, mxgemm.problem = {k = 1024 : i64, n = 128 : i64}} {
      gpu.return
    }
  }
}
