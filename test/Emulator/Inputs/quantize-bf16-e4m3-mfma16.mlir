func.func @quantize_bf16_e4m3_mfma16(%x: memref<?x?xbf16>,
    %codes: memref<?x?xf8E4M3FN>, %scales: memref<?xf8E8M0FNU>) {
  mxgemm.quantize %x into %codes, %scales
      {scale_layout = #mxgemm.scale_layout<mfma_16x16x128>}
      : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?xf8E8M0FNU>
  return
}
