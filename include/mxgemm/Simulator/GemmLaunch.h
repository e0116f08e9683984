//===- GemmLaunch.h - GEMM launches for the timing simulator ----*- C++ -*-===//
//
// What the simulator needs to launch one of mxgemm's GEMM kernels: the
// kernel descriptor (the JSON sidecar, read by contract::KernelDescriptor,
// the one parser of its schema) and the device buffers of a problem of M
// rows.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SIMULATOR_GEMMLAUNCH_H
#define MXGEMM_SIMULATOR_GEMMLAUNCH_H

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Simulator/Simulator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mxgemm::sim {

/// Reads and checks `<kernel>.hsaco.json` through
/// contract::KernelDescriptor::parse.
llvm::Expected<contract::KernelDescriptor>
readGemmSidecar(llvm::StringRef path);

/// Allocates X, Xs, W, Ws and Y for M rows in `memory` (contents zero: the
/// kernels' addresses do not depend on the data) and fills the launch: the
/// grid from the descriptor's TileGrid, the arguments at the descriptor's
/// offsets. A split-K kernel (descriptor k_segments) runs twice: `phase`
/// 0 computes the partials into its workspace (allocated here too), phase 1
/// adds them; its time is the sum of both launches.
llvm::Expected<Launch> prepareGemmLaunch(const contract::KernelDescriptor &d,
                                         int64_t m, emu::DeviceMemory &memory,
                                         uint32_t phase = 0);

/// The second launch of a split-K kernel (one with a `phase` argument):
/// phase 1, adding the partials of M rows, simulated on buffers of its own;
/// std::nullopt for a kernel of one launch. Callers fold it into the first
/// launch's prediction with appendLaunch.
llvm::Expected<std::optional<Prediction>> simulateSplitKReduction(
    const emu::CodeObject &object, const emu::KernelInfo &kernel,
    const contract::KernelDescriptor &d, int64_t m,
    const target::TargetModel &target, const SimOptions &options);

/// The roofline sides and the latency floor of a GEMM problem at one clock,
/// in seconds (docs/Simulator.md, "Bounds and the latency floor"). Only the
/// floor is a bound of the simulator itself: it does not wait for Y's
/// write-back, so a kernel may be predicted below the memory side where Y
/// is a large share of the bytes.
struct GemmBounds {
  /// X, Xs, W, Ws and Y bytes at the HBM rate: the roofline's memory side.
  double memorySeconds = 0;
  /// 2 M N K at the chip's dense MXFP8 MFMA rate at this clock.
  double computeSeconds = 0;
  /// The latency floor, by the simulator's own rules. A workgroup launches
  /// and reads its kernel arguments before it knows an address
  /// (workgroupLaunchCycles, smemLatencyCycles); its first operand bytes
  /// come back an HBM latency later (l2HitCycles + hbmExtraNs, less the
  /// isolated access's fixed cycles, which the model counts apart); from
  /// then on the read bytes arrive at most at the HBM rate while the MFMAs,
  /// which need them, run at most at the MFMA rate; the last result is
  /// stored after that, and the kernel ends when the store reaches the L2
  /// (l2HitCycles less the same fixed cycles). It leaves out every other
  /// instruction and the epilogue, so every prediction of the simulator for
  /// the problem lies above it (test/Simulator/tuned-small-m.test checks the
  /// tuned kernels).
  double latencyFloorSeconds = 0;
  /// The roofline bound: the larger of the memory and compute sides.
  double roofline() const { return std::max(memorySeconds, computeSeconds); }
};

/// The bounds of `m` rows of a problem with static N and K at `clockHz`.
llvm::Expected<GemmBounds> gemmBounds(const contract::GemmProblem &problem,
                                      int64_t m,
                                      const target::TargetModel &target,
                                      double clockHz);

} // namespace mxgemm::sim

#endif // MXGEMM_SIMULATOR_GEMMLAUNCH_H
