/*===- mxgemm_numerics.h - C API of the MX numerics library ------*- C -*-===*
 *
 * The bit-exact MX numerics of mxgemm for bindings that are not C++ (the
 * Python package, qualification): deterministic random MX operands, OCP MX
 * quantization and dequantization, the CPU reference GEMM, the one GEMM
 * check (Y against the reference on every written output) and host-side
 * weight-panel packing. libmxgemm_numerics.so; no MLIR, LLVM or HIP.
 * Every function returns 0 on success and a non-zero code with a message
 * (mxgemm_numerics_last_error) on bad arguments; none aborts.
 *
 * Encodings: format 0 = E4M3, 1 = E5M2; granularity 0 = 32x32 blocks,
 * 1 = per row (the runtime's mxgemm_dtype / mxgemm_scale_granularity
 * values); out_type 2 = BF16 (uint16 bits), 4 = F32.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_NUMERICS_C_H
#define MXGEMM_NUMERICS_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define MXGEMM_NUMERICS_API __attribute__((visibility("default")))
#else
#define MXGEMM_NUMERICS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Message of the last failed call on this thread ("" if none). */
MXGEMM_NUMERICS_API const char *mxgemm_numerics_last_error(void);

/* Rows of the E8M0 scale tensor of a [rows, cols] operand: rows (per row)
   or ceil(rows / 32) (32x32 blocks); -1 for a bad argument. */
MXGEMM_NUMERICS_API int64_t mxgemm_scale_rows(int64_t rows, int granularity);

/* Random finite FP8 codes [rows, cols] (cols % 32 == 0) with a different
   random E8M0 scale per block, the same bytes for a seed on every
   platform. `data` holds rows*cols bytes, `scales` scale_rows*cols/32. */
MXGEMM_NUMERICS_API int mxgemm_random_mx(uint64_t seed, int64_t rows,
                                         int64_t cols, int format,
                                         int granularity, uint8_t *data,
                                         uint8_t *scales);

/* OCP MX v1.0 quantization of FP32 values [rows, k] into FP8 codes and
   E8M0 scales (docs/Numerics.md). */
MXGEMM_NUMERICS_API int mxgemm_quantize_mx(const float *values, int64_t rows,
                                           int64_t k, int format,
                                           int granularity, uint8_t *codes,
                                           uint8_t *scales);

/* codes * 2^(scale - 127), rounded to FP32. */
MXGEMM_NUMERICS_API int
mxgemm_dequantize_mx(const uint8_t *codes, const uint8_t *scales, int64_t rows,
                     int64_t k, int format, int granularity, float *values);

/* Row-major operands of one GEMM Y[M, N] = X[M, K] . W[N, K]^T. */
typedef struct mxgemm_numerics_operands {
  int64_t m, n, k;
  const uint8_t *x, *xs; /* X [M, K], Xs [M, K/32] */
  const uint8_t *w, *ws; /* W [N, K], Ws per `w_granularity` */
  int x_format, w_format, w_granularity;
} mxgemm_numerics_operands;

/* The bit-exact reference of rows [row0, row1) x cols [col0, col1) into
   `out` (element (row0, col0) first, `ld_out` elements per row), with the
   accumulation step `k_step` (64 or 128: the kernel's MFMA K). */
MXGEMM_NUMERICS_API int
mxgemm_reference_gemm(const mxgemm_numerics_operands *ops, int64_t row0,
                      int64_t row1, int64_t col0, int64_t col1, int k_step,
                      int out_type, void *out, int64_t ld_out);

/* Result of mxgemm_check_gemm. */
typedef struct mxgemm_check_result {
  uint64_t compared, mismatches, unwritten, stray;
  int last_row_written;
  /* The first mismatch (valid when mismatches > 0). */
  int64_t first_row, first_col;
  uint32_t first_got, first_expected;
} mxgemm_check_result;

/* Compares Y [M, N] (filled with `sentinel` bytes before the launch) with
   the reference on every written output; outputs written outside the
   `num_regions` regions (rows [r0, r1) x cols [c0, c1), 4 int64 each) count
   as stray (no regions: anywhere is expected). */
MXGEMM_NUMERICS_API int mxgemm_check_gemm(const mxgemm_numerics_operands *ops,
                                          const void *y, int out_type,
                                          int k_step, uint8_t sentinel,
                                          const int64_t *regions,
                                          size_t num_regions,
                                          mxgemm_check_result *result);

/* mxgemm_check_gemm for a kernel that splits K into `k_splits` segments
   (1: one segment, the same as mxgemm_check_gemm): the reference follows
   the segment rule with the contract's boundaries (K / k_splits * s, the
   last K; docs/Design.md, "Split K"). k_splits is 1..64 and K / k_splits
   a whole number of `k_step`s. */
MXGEMM_NUMERICS_API int
mxgemm_check_gemm_split(const mxgemm_numerics_operands *ops, const void *y,
                        int out_type, int k_step, int k_splits,
                        uint8_t sentinel, const int64_t *regions,
                        size_t num_regions, mxgemm_check_result *result);

/* Packs row-major W [N, K] into the MFMA panels of `non_k` rows (32 or 16;
   include/mxgemm/Contract/WeightPanels.h) on the host. */
MXGEMM_NUMERICS_API int mxgemm_pack_weight_panels(const uint8_t *w,
                                                  uint8_t *packed, int64_t n,
                                                  int64_t k, int64_t non_k);

/* Row-major E8M0 scales [rows, k_blocks] (row stride `ld` bytes, 0 means
   k_blocks) in `layout`: "row_major", "mfma_16x16x128" or "mfma_32x32x64",
   the MFMA-native layouts of include/mxgemm/Contract/ScaleLayout.h that
   kernels with x_scale_layout / w_scale_layout read (padding bytes are
   127, 1.0). `*bytes` receives the size of the laid-out tensor; with `dst`
   NULL nothing else happens (a size query), else `dst` must hold
   `dst_bytes` >= that size. Nonzero, `dst` untouched, on a bad layout
   name, extents below 1, a size that overflows or a short buffer. */
MXGEMM_NUMERICS_API int
mxgemm_preshuffle_scales(const char *layout, const uint8_t *src, int64_t rows,
                         int64_t k_blocks, int64_t ld, uint8_t *dst,
                         size_t dst_bytes, size_t *bytes);

/* The inverse of mxgemm_preshuffle_scales: `src` (`src_bytes`, at least
   the size of [rows, k_blocks] in `layout`) back to row-major [rows,
   k_blocks] in `dst` (`dst_bytes` >= rows * k_blocks, contiguous). Nonzero,
   `dst` untouched, on a bad layout name, extents below 1, a size that
   overflows or a short buffer. */
MXGEMM_NUMERICS_API int mxgemm_unshuffle_scales(const char *layout,
                                                const uint8_t *src,
                                                size_t src_bytes, int64_t rows,
                                                int64_t k_blocks, uint8_t *dst,
                                                size_t dst_bytes);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_NUMERICS_C_H */
