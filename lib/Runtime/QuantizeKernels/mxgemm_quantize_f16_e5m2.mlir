// The runtime's f16 -> e5m2 quantize kernel (mxgemm_quantize; built by
// mxgemm-compile and embedded by cmake/MXGemmQuantizeKernels.cmake). M and K
// are run-time arguments: one kernel serves every shape.
func.func @mxgemm_quantize_f16_e5m2(%x: memref<?x?xf16>,
    %codes: memref<?x?xf8E5M2>, %scales: memref<?x?xf8E8M0FNU>) {
  mxgemm.quantize %x into %codes, %scales
      : memref<?x?xf16> into memref<?x?xf8E5M2>, memref<?x?xf8E8M0FNU>
  return
}
