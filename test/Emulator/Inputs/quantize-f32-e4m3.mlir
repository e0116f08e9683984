func.func @quantize_f32_e4m3(%x: memref<?x?xf32>,
    %codes: memref<?x?xf8E4M3FN>, %scales: memref<?x?xf8E8M0FNU>) {
  mxgemm.quantize %x into %codes, %scales
      : memref<?x?xf32> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
  return
}
