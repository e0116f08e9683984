//===- GemmCheck.h - a kernel's Y against the reference ---------*- C++ -*-===//
//
// The one GEMM check of the project, shared by mxgemm-emu, mxgemm-run and
// qualification (through the C API of mxgemm_numerics.h): the caller fills Y
// with a sentinel, runs (some workgroups of) a kernel, and hands Y back;
// every output that is no longer the sentinel is compared bit for bit with
// the CPU reference (computed only on the 32x32 blocks that hold written
// outputs, because the case-table shapes are checked on sampled tiles), and
// every written output outside the expected regions is counted as stray.
// No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_NUMERICS_GEMMCHECK_H
#define MXGEMM_NUMERICS_GEMMCHECK_H

#include "mxgemm/Numerics/Reference.h"

#include <cstdint>
#include <vector>

namespace mxgemm::numerics {

/// One output that differs from the reference.
struct GemmMismatch {
  int64_t row = 0, col = 0;
  uint32_t got = 0, expected = 0; // BF16 or FP32 bits
};

struct GemmCheckResult {
  /// Written outputs compared with the reference, and how many differed.
  uint64_t compared = 0, mismatches = 0;
  /// Outputs still holding the sentinel (not written).
  uint64_t unwritten = 0;
  /// Written outputs outside `expected` (only when regions were given).
  uint64_t stray = 0;
  /// True if some output of the last row (M - 1) was written: a sampled run
  /// must cover the partial last tile row, where masking bugs live.
  bool lastRowWritten = false;
  /// Up to `maxReported` mismatches, sorted by position.
  std::vector<GemmMismatch> first;
};

struct GemmCheckOptions {
  /// The byte every element of Y was filled with before the launch.
  uint8_t sentinel = 0xff;
  /// Regions the kernel was expected to write; empty = anywhere.
  std::vector<OutputRegion> expected;
  /// Mismatches kept in GemmCheckResult::first.
  unsigned maxReported = 10;
  ReferenceOptions reference;
};

/// Checks `y` (row-major [M, N] of `outputType`, leading dimension N).
GemmCheckResult checkGemmOutput(const MXGemmOperands &ops, const void *y,
                                OutputType outputType,
                                const GemmCheckOptions &options);

} // namespace mxgemm::numerics

#endif // MXGEMM_NUMERICS_GEMMCHECK_H
