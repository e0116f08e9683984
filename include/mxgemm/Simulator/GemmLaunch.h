//===- GemmLaunch.h - GEMM launches for the timing simulator ----*- C++ -*-===//
//
// What the simulator needs to launch one of mxgemm's GEMM kernels: the
// launch description read from the kernel's JSON sidecar (the one function
// that knows the sidecar's schema, so that it can switch to the typed v2
// descriptor in one place) and the device buffers of a problem of M rows.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SIMULATOR_GEMMLAUNCH_H
#define MXGEMM_SIMULATOR_GEMMLAUNCH_H

#include "mxgemm/Simulator/Simulator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mxgemm::sim {

/// The launch-relevant facts of a GEMM kernel.
struct GemmKernelDescription {
  std::string kernel;
  int64_t n = 0, k = 0;
  /// Grid: ceil(M / programTileM) * numTilesN workgroups of workgroupSize.
  int64_t programTileM = 0, tileN = 0, numTilesN = 0, workgroupSize = 0;
  /// Byte offsets of the kernel arguments X, Xs, W, Ws, Y (pointers) and M
  /// (i32).
  uint32_t offX = 0, offXs = 8, offW = 16, offWs = 24, offY = 32, offM = 40;
  /// W pre-packed in MFMA panels (stage_w = packed_registers): same size,
  /// different layout.
  bool wPacked = false;
  /// K elements per MFMA (64 for m32n32k64, 128 for m16n16k128).
  int64_t mfmaKStep = 64;
  bool wScalePerRow = false;
  unsigned outBytes = 2;
};

/// Reads today's `<kernel>.hsaco.json` sidecar (mxgemm-compile). This is
/// the only code that knows its schema.
llvm::Expected<GemmKernelDescription> readGemmSidecar(llvm::StringRef path);

/// Allocates X, Xs, W, Ws and Y for M rows in `memory` (contents zero: the
/// kernels' addresses do not depend on the data) and fills the launch.
llvm::Expected<Launch> prepareGemmLaunch(const GemmKernelDescription &d,
                                         int64_t m, emu::DeviceMemory &memory);

} // namespace mxgemm::sim

#endif // MXGEMM_SIMULATOR_GEMMLAUNCH_H
