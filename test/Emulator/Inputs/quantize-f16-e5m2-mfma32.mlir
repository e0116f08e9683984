func.func @quantize_f16_e5m2_mfma32(%x: memref<?x?xf16>,
    %codes: memref<?x?xf8E5M2>, %scales: memref<?xf8E8M0FNU>) {
  mxgemm.quantize %x into %codes, %scales
      {scale_layout = #mxgemm.scale_layout<mfma_32x32x64>}
      : memref<?x?xf16> into memref<?x?xf8E5M2>, memref<?xf8E8M0FNU>
  return
}
