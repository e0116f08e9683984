//===- GemmRun.h - a GEMM kernel run on the emulator, checked ---*- C++ -*-===//
//
// Runs a compiled mxgemm kernel the way its kernel descriptor says (grid,
// workgroup size, argument offsets, W layout) on random MX operands with a
// different scale per block, optionally on a sample of workgroups that
// always includes the partial last tile row, and checks every written
// output bit for bit with the CPU reference (Numerics/GemmCheck.h). The
// library behind `mxgemm-emu gemm`; tests and tools call it directly.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_GEMMRUN_H
#define MXGEMM_EMULATOR_GEMMRUN_H

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Numerics/GemmCheck.h"

#include <optional>

namespace mxgemm::emu {

struct GemmRunOptions {
  int64_t m = 0;
  /// N and K of the call, for a generic kernel (its descriptor's N or K is
  /// "?"); 0 takes the descriptor's. A static extent given here must equal
  /// the kernel's.
  int64_t n = 0, k = 0;
  /// Leading dimensions of X (elements), its scales (bytes) and Y
  /// (elements), for a kernel that takes row strides (a generic kernel);
  /// 0 is the row length. The gaps past each row are filled with poison
  /// (X, Xs) or the sentinel (Y); a Y gap byte the kernel writes is
  /// counted in GemmRunResult::yGapBytesWritten.
  int64_t ldX = 0, ldXs = 0, ldY = 0;
  uint64_t seed = 1;
  /// Workgroups to run: all (0), or about `sample` spread evenly plus every
  /// workgroup of the last tile row's first, middle and last column.
  uint64_t sample = 0;
  /// Explicit workgroups (overrides `sample`).
  std::vector<uint64_t> workgroups;
  /// Generate W scales with another granularity than the kernel's (tests
  /// that a wrong layout is caught).
  std::optional<numerics::ScaleGranularity> dataWScale;
  /// Threads, checks, statistics, ... (grid, workgroup size and kernel
  /// arguments are set from the descriptor).
  LaunchConfig launch;
};

struct GemmRunResult {
  /// The launch; for a split-K kernel the first (phase 0), with the
  /// second launch's checker findings appended.
  LaunchResult launch;
  /// A split-K kernel's second launch (phase 1: the partials added).
  std::optional<LaunchResult> reductionLaunch;
  numerics::GemmCheckResult check;
  uint64_t gridSize = 0;
  /// True if only some workgroups ran.
  bool sampled = false;
  /// True if W was packed into MFMA panels for the kernel.
  bool packedWeights = false;
  /// The row strides passed (the row lengths when contiguous), and the
  /// bytes of Y between rows that the kernel wrote (must be 0).
  int64_t ldX = 0, ldXs = 0, ldY = 0;
  uint64_t yGapBytesWritten = 0;
};

/// Runs kernel `descriptor.kernel` of `object` for `options.m` rows.
llvm::Expected<GemmRunResult>
runGemm(const CodeObject &object, const contract::KernelDescriptor &descriptor,
        const GemmRunOptions &options);

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_GEMMRUN_H
