//===- Problem.h - a GEMM problem family and its limits --------*- C++ -*-===//
//
// Y[M, N] = X[M, K] . W[N, K]^T with E8M0 scales (docs/Design.md section 1),
// everything but M, which every kernel takes at run time. One validation of
// a problem, shared by mxgemm-compile, the compiler's C API, the op verifier
// and the tuning database, with the limits that keep every byte count and
// every offset a kernel computes inside int64 (see docs/Design.md section 4).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_PROBLEM_H
#define MXGEMM_CONTRACT_PROBLEM_H

#include "mxgemm/Contract/KernelConfig.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mxgemm::contract {

/// Largest N and K of a problem (2^24). With M below 2^31 every operand's
/// byte count stays below 2^57, so no size or offset overflows int64.
constexpr int64_t kMaxProblemExtent = int64_t(1) << 24;

/// Largest M a kernel takes: M is an i32 kernel argument.
constexpr int64_t kMaxM = 2147483647;

/// N or K of a generic kernel: the kernel takes it at run time (the `N` and
/// `K` i32 arguments after M) instead of compiling it in. Written "?" in
/// descriptors, as MLIR writes a dynamic dimension.
constexpr int64_t kDynamicExtent = -1;

/// A GEMM problem family: shapes and formats, M excluded.
struct GemmProblem {
  int64_t n = 0, k = 0;
  ElementType xType = ElementType::E4M3, wType = ElementType::E4M3;
  ScaleGranularity wScale = ScaleGranularity::Block32x32;
  ElementType outType = ElementType::BF16;

  bool operator==(const GemmProblem &o) const {
    return n == o.n && k == o.k && xType == o.xType && wType == o.wType &&
           wScale == o.wScale && outType == o.outType;
  }
  bool operator!=(const GemmProblem &o) const { return !(*this == o); }
  bool dynamicN() const { return n == kDynamicExtent; }
  bool dynamicK() const { return k == kDynamicExtent; }
  /// A generic kernel's problem: N or K is a run-time argument.
  bool isGeneric() const { return dynamicN() || dynamicK(); }
  /// This problem with the run-time extents of a call filled in (the
  /// static ones kept).
  GemmProblem withExtents(int64_t callN, int64_t callK) const {
    GemmProblem p = *this;
    if (dynamicN())
      p.n = callN;
    if (dynamicK())
      p.k = callK;
    return p;
  }
  /// E8M0 scale columns: one per 32 K elements.
  int64_t scaleColumns() const { return k / kScaleBlock; }
  /// Rows of Ws: N per row, ceil(N / 32) per 32x32 block.
  int64_t weightScaleRows() const {
    return wScale == ScaleGranularity::PerRow
               ? n
               : (n + kScaleBlock - 1) / kScaleBlock;
  }
};

/// N in 1..2^24, K in 32..2^24 and a multiple of 32 (with `allowDynamic`,
/// either may be kDynamicExtent: a generic kernel's), FP8 operands, a BF16
/// or F32 output. Everything that describes a call or a tuned key passes
/// false: only kernels are generic.
ErrorMessage validateProblem(const GemmProblem &problem,
                             bool allowDynamic = false);

/// The rules that tie a config to a problem: K a multiple of tile_k unless
/// both operands are loaded directly (a K tail is masked there); N a
/// multiple of tile_n only for packed W panels (other kernels mask a
/// partial last tile column). A split-K config needs K to divide into
/// k_splits segments of whole K tiles. A dynamic N or K needs direct loads
/// of both operands (the only structure that masks any edge), no split-K
/// and the row-major tile order (group_m = 1, group_n = 0, no XCD remap).
ErrorMessage verifyProblemConfig(const GemmProblem &problem,
                                 const KernelConfig &config);

/// The K segment boundaries [0, K / S, 2K / S, ..., K] of a verified
/// problem and config (S = k_splits; [0, K] without a split): multiples of
/// tile_k, hence of the K-step (docs/Design.md, "Split K: the segment
/// rule").
std::vector<int64_t> kSegmentBoundaries(const GemmProblem &problem,
                                        const KernelConfig &config);

/// The same boundaries for K split into `kSplits` segments (1 or more), for
/// callers that know the count but no config (the numerics check).
std::vector<int64_t> kSegmentBoundaries(int64_t k, int64_t kSplits);

/// The bytes of a call's operands: what a kernel reads (X, Xs, W, Ws) and
/// writes (Y). The simulator sizes a launch's buffers and the roofline's
/// memory side from them.
struct OperandBytes {
  uint64_t x = 0, xScales = 0, w = 0, wScales = 0, y = 0;
  uint64_t read() const { return x + xScales + w + wScales; }
  uint64_t total() const { return read() + y; }
};

/// The operand bytes of a problem with static N and K for `m` rows;
/// nothing for m outside 1..kMaxM, N or K outside validateProblem's range
/// or a generic problem. Within those limits every count is below 2^57 and
/// the sums below 2^60. The scale tensors are counted in the layouts a
/// kernel reads (MFMA-native ones are padded, Contract/ScaleLayout.h).
std::optional<OperandBytes>
operandBytes(const GemmProblem &problem, int64_t m,
             ScaleLayout xScaleLayout = ScaleLayout::RowMajor,
             ScaleLayout wScaleLayout = ScaleLayout::RowMajor);

/// Bytes of the FP32 workspace a split-K kernel needs for `m` rows
/// (k_splits x M x N partials; with a tail split k_splits x tail tiles x
/// program_tile_m x tile_n, docs/Design.md "Tail split", on `target`'s
/// CUs); 0 without a split; nothing if the size overflows or m is outside
/// 1..kMaxM.
std::optional<uint64_t>
splitWorkspaceBytes(const GemmProblem &problem, const KernelConfig &config,
                    int64_t m,
                    const target::TargetModel &target = target::kGFX950);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_PROBLEM_H
