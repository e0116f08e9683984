// RUN: mxgemm-opt %s -split-input-file -verify-diagnostics

// One case per rule of mxgemm.quantize's types and verifier.

func.func @k_not_multiple(%x: memref<4x48xbf16>, %c: memref<4x48xf8E4M3FN>,
                          %s: memref<4x1xf8E8M0FNU>) {
  // expected-error @+1 {{K must be a positive multiple of 32, got 48}}
  mxgemm.quantize %x into %c, %s
      : memref<4x48xbf16> into memref<4x48xf8E4M3FN>, memref<4x1xf8E8M0FNU>
  return
}

// -----

func.func @codes_shape(%x: memref<4x64xbf16>, %c: memref<4x32xf8E4M3FN>,
                       %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @+1 {{codes must have the input's shape [M, K]}}
  mxgemm.quantize %x into %c, %s
      : memref<4x64xbf16> into memref<4x32xf8E4M3FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @scales_shape(%x: memref<4x64xbf16>, %c: memref<4x64xf8E4M3FN>,
                        %s: memref<4x64xf8E8M0FNU>) {
  // expected-error @+1 {{scales must be [M, K/32]}}
  mxgemm.quantize %x into %c, %s
      : memref<4x64xbf16> into memref<4x64xf8E4M3FN>, memref<4x64xf8E8M0FNU>
  return
}

// -----

func.func @scales_rows(%x: memref<?x64xbf16>, %c: memref<5x64xf8E4M3FN>,
                       %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @+1 {{scales must be [M, K/32]}}
  mxgemm.quantize %x into %c, %s
      : memref<?x64xbf16> into memref<5x64xf8E4M3FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @input_type(%x: memref<4x64xf64>, %c: memref<4x64xf8E4M3FN>,
                      %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @+1 {{operand #0 must be 2D memref of bfloat16 type or 16-bit float or 32-bit float values}}
  mxgemm.quantize %x into %c, %s
      : memref<4x64xf64> into memref<4x64xf8E4M3FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @code_type(%x: memref<4x64xbf16>, %c: memref<4x64xi8>,
                     %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @+1 {{operand #1 must be 2D memref of f8E4M3FN type or f8E5M2 type values}}
  mxgemm.quantize %x into %c, %s
      : memref<4x64xbf16> into memref<4x64xi8>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @strided(%x: memref<4x64xbf16, strided<[128, 1]>>,
                   %c: memref<4x64xf8E4M3FN>, %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @+1 {{input must be contiguous row-major}}
  mxgemm.quantize %x into %c, %s
      : memref<4x64xbf16, strided<[128, 1]>> into memref<4x64xf8E4M3FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

func.func @native_rank(%x: memref<4x64xbf16>, %c: memref<4x64xf8E4M3FN>,
                       %s: memref<4x2xf8E8M0FNU>) {
  // expected-error @+1 {{scales in mfma_16x16x128 must be a flat byte tensor (rank 1), got 'memref<4x2xf8E8M0FNU>'}}
  mxgemm.quantize %x into %c, %s
      {scale_layout = #mxgemm.scale_layout<mfma_16x16x128>}
      : memref<4x64xbf16> into memref<4x64xf8E4M3FN>, memref<4x2xf8E8M0FNU>
  return
}

// -----

// 4 rows of K = 64: one row group of 16 and one chunk, 256 bytes.
func.func @native_size(%x: memref<4x64xbf16>, %c: memref<4x64xf8E4M3FN>,
                       %s: memref<8xf8E8M0FNU>) {
  // expected-error @+1 {{scales in mfma_16x16x128 must hold 256 bytes for 'memref<4x64xbf16>', got 'memref<8xf8E8M0FNU>'}}
  mxgemm.quantize %x into %c, %s
      {scale_layout = #mxgemm.scale_layout<mfma_16x16x128>}
      : memref<4x64xbf16> into memref<4x64xf8E4M3FN>, memref<8xf8E8M0FNU>
  return
}

// -----

func.func @row_major_flat(%x: memref<4x64xbf16>, %c: memref<4x64xf8E4M3FN>,
                          %s: memref<8xf8E8M0FNU>) {
  // expected-error @+1 {{row-major scales must be [M, K/32], got 'memref<8xf8E8M0FNU>'}}
  mxgemm.quantize %x into %c, %s
      : memref<4x64xbf16> into memref<4x64xf8E4M3FN>, memref<8xf8E8M0FNU>
  return
}
