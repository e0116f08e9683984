//===- ScaleLayout.h - how an E8M0 scale tensor is laid out -----*- C++ -*-===//
//
// Row-major scales ([rows, K/32], one byte per 32 K-elements) are what
// quantizers produce and what every kernel reads by default. There a wave's
// scale load for one MFMA step reads one byte from each of 16 or 32 rows:
// 16 or 32 cache lines per load. The MFMA-native layouts order the bytes the
// way the lanes of a gfx950 scaled MFMA consume them (docs/Design.md,
// "MFMA-native scale layouts"), so that the same load reads one contiguous
// 256-byte run (two 128-byte lines), and each lane's dword holds its scales
// of four consecutive MFMA steps, the bytes `op_sel` selects.
//
// Layout with R rows per MFMA operand block and G = 64 / R E8M0 blocks per
// MFMA step (R = 16, G = 4 for 16x16x128; R = 32, G = 2 for 32x32x64):
// rows are grouped by R, blocks in chunks of 4 steps (4G blocks); each
// (row group, chunk) is 256 bytes, the 64 lanes' dwords in lane order
// (lane `l = g * R + r` for row `r` of the group and block `g` of the step),
// byte `s` of a dword the lane's block of step `s` of the chunk:
//
//   offset(row, block) = ((row / R) * chunks + block / (4G)) * 256
//                        + ((block % G) * R + row % R) * 4 + (block / G) % 4
//
// with chunks = ceil(K/32 / (4G)). Rows are padded to a multiple of R and
// blocks to a multiple of 4G; padding bytes are never read by a kernel
// (preshuffleScales fills them with 127, the E8M0 encoding of 1.0, unless
// told otherwise).
// No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_SCALELAYOUT_H
#define MXGEMM_CONTRACT_SCALELAYOUT_H

#include "mxgemm/Target/TargetModel.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxgemm::contract {

/// How a scale tensor is laid out in memory.
enum class ScaleLayout : uint8_t {
  /// [rows, K/32], row stride K/32 bytes (or a caller's leading dimension).
  RowMajor = 0,
  /// MFMA-native for v_mfma_scale_f32_16x16x128_f8f6f4 (R = 16, G = 4).
  Mfma16x16x128 = 1,
  /// MFMA-native for v_mfma_scale_f32_32x32x64_f8f6f4 (R = 32, G = 2).
  Mfma32x32x64 = 2,
};
/// "row_major", "mfma_16x16x128", "mfma_32x32x64".
std::string_view scaleLayoutName(ScaleLayout layout);
std::optional<ScaleLayout> parseScaleLayout(std::string_view name);
/// Every layout name, comma separated (for messages).
std::string scaleLayoutNames();

/// The MFMA-native layout of an MFMA shape.
ScaleLayout mfmaScaleLayout(target::MfmaShape shape);
/// The MFMA shape an MFMA-native layout is made for; nothing for row-major.
std::optional<target::MfmaShape> scaleLayoutMfma(ScaleLayout layout);

/// Rows per group (R) and E8M0 blocks per MFMA step (G) of an MFMA-native
/// layout; both 0 for row-major.
int64_t scaleLayoutRowGroup(ScaleLayout layout);
int64_t scaleLayoutBlocksPerStep(ScaleLayout layout);

/// Bytes of one (row group, chunk) of an MFMA-native layout: the 64 lanes'
/// dwords of four MFMA steps.
inline constexpr int64_t kScaleChunkBytes = 256;
/// Chunks per row group of an MFMA-native layout for `kBlocks` E8M0 blocks
/// per row (ceil(kBlocks / 4G)); 0 for row-major.
int64_t scaleLayoutChunks(ScaleLayout layout, int64_t kBlocks);

/// Bytes of a scale tensor of `rows` rows and `kBlocks` E8M0 blocks per row
/// in `layout` (row-major: rows * kBlocks; MFMA-native: padded as above).
/// Nothing if an extent is below 1 or the count overflows.
std::optional<uint64_t> scaleTensorBytes(ScaleLayout layout, int64_t rows,
                                         int64_t kBlocks);

/// Byte offset of (row, block) in a tensor of `kBlocks` blocks per row; the
/// caller keeps row and block in range (scaleTensorBytes bounds them).
uint64_t scaleByteOffset(ScaleLayout layout, int64_t kBlocks, int64_t row,
                         int64_t block);

/// Rewrites row-major scales (`rows` x `kBlocks`, row stride `ldSrc` bytes)
/// into `layout`, the padding set to `padding` (1.0 by default; the
/// emulator passes the E8M0 NaN to catch a read of it). `dst` holds
/// `dstBytes`, which must be at least scaleTensorBytes(layout, rows,
/// kBlocks); false (and `dst` untouched) otherwise or if ldSrc < kBlocks.
bool preshuffleScales(ScaleLayout layout, const uint8_t *src, int64_t rows,
                      int64_t kBlocks, int64_t ldSrc, uint8_t *dst,
                      size_t dstBytes, uint8_t padding = 127);

/// The inverse: `layout` back to row-major [rows, kBlocks] (contiguous) in
/// `dst` of `dstBytes` (at least rows * kBlocks). False and `dst` untouched
/// if a size does not fit.
bool unshuffleScales(ScaleLayout layout, const uint8_t *src, size_t srcBytes,
                     int64_t rows, int64_t kBlocks, uint8_t *dst,
                     size_t dstBytes);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_SCALELAYOUT_H
