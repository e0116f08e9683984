//===- GemmRun.h - one GEMM through the runtime's C API -------*- C++ -*-===//
//
// What mxgemm-run does between its command line and its report, as a
// library over the public C API of libmxgemm_runtime.so (so it runs the
// shim exactly as an engine does): the plan of the embedded kernel or of a
// loaded one, random MX operands with a different scale per block, W packed
// into MFMA panels when the kernel reads them, a launch of the first, the
// last and random workgroups (MXGEMM_EMU_WORKGROUPS on the emulator's
// facade), and Y checked bit for bit against the CPU reference by
// numerics::checkGemmOutput on the sampled tiles, with nothing written
// outside them. A row split's two launches are sampled and checked each
// against its own kernel's reference. The emulator's counterpart is
// Emulator/GemmRun.h.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_RUNTIMERUN_GEMMRUN_H
#define MXGEMM_RUNTIMERUN_GEMMRUN_H

#include "mxgemm/Numerics/GemmCheck.h"
#include "mxgemm/Numerics/Quantize.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <string>
#include <vector>

namespace mxgemm::runtime {

struct RunOptions {
  /// A kernel loaded with mxgemm_kernel_load and its descriptor (JSON);
  /// null: the embedded dispatch.
  mxgemm_loaded_kernel *kernel = nullptr;
  std::string kernelDescriptor;
  /// The directory loaded with mxgemm_context_load_library, if any: a plan
  /// of kind MXGEMM_PLAN_KIND_LIBRARY finds its descriptor there.
  std::string libraryDir;
  uint64_t seed = 1;
  /// Workgroups checked (and, on the facade, run): the first, the last and
  /// random others up to `sample`; 0 = all.
  uint64_t sample = 4;
  /// HIP is the emulator's facade: only the sampled workgroups run, and
  /// every output outside their tiles must stay unwritten.
  bool facade = false;
  /// The problem's w_layout and scale layouts follow the kernel's (as an
  /// engine that packs W and its scales at load time does); otherwise the
  /// problem is passed as given.
  bool autoWeightLayout = true;
  /// Likewise for the scale layouts alone (false when the caller chose
  /// them).
  bool autoScaleLayouts = true;
};

struct RunResult {
  /// OK, or the status of the call named by `failedCall`.
  mxgemm_status status = MXGEMM_STATUS_OK;
  std::string failedCall, message;
  /// The problem as launched (w_layout may follow the kernel) and the plan
  /// (a NOT_ELIGIBLE plan says why).
  mxgemm_problem problem{};
  mxgemm_plan plan{};
  /// The descriptor (JSON) of the kernel that ran.
  std::string descriptor;
  /// A row split (mxgemm_query_row_split): rows from `firstRows` on ran as
  /// a second launch planned by `tailPlan`, whose descriptor is
  /// `tailDescriptor`; 0 for one launch.
  int64_t firstRows = 0;
  mxgemm_plan tailPlan{};
  std::string tailDescriptor;
  /// The tiles of the second launch that were checked.
  std::vector<uint32_t> tailWorkgroups;
  /// Bytes of W packed into MFMA panels (0 if W was passed row-major).
  size_t packedBytes = 0;
  std::vector<uint32_t> workgroups;
  numerics::GemmCheckResult check;
  /// Outputs of the sampled tiles (the check must compare all of them).
  uint64_t expected = 0;
  /// The host data: operands, Y as read back (untouched outputs are
  /// 0xff bytes) and the mask of the sampled tiles ([M, N] bytes).
  numerics::MXMatrix x, w;
  std::vector<uint8_t> y, mask;

  /// Launched and verified: no mismatch, no stray write, every sampled
  /// output written.
  bool verified() const {
    return status == MXGEMM_STATUS_OK && check.mismatches == 0 &&
           check.stray == 0 && check.compared == expected;
  }
};

/// Plans, runs and checks `problem` on `context`.
RunResult runGemm(mxgemm_context *context, const mxgemm_problem &problem,
                  const RunOptions &options);

/// Writes x.npy xs.npy w.npy ws.npy (uint8), y.npy (uint16 BF16 bits or
/// float32), mask.npy (bool) and meta.json ({"kernel", "config" (the
/// descriptor's config object), "k_step", "k_segments": [0, K]}) of a run
/// that launched into `dir`, creating it. Returns an error message, or ""
/// on success.
std::string writeDump(const std::string &dir, const RunResult &result);

/// The report lines of a run, as mxgemm-run prints them: "plan: ..." (the
/// kernel, grid, config and note, or the status, reason and message) with
/// `source` as the entry ("" for the plan's), then "weights: ..." if W was
/// packed, then the failed call, or the first mismatches and "verify: ...".
std::string describeRun(const RunResult &result, const std::string &source);

/// The HIP library a tool loads when none is named: $MXGEMM_HIP_LIBRARY,
/// else libamdhip64.so if it loads, else the emulator's facade beside the
/// executable (../lib/libmxgemm_hip_emu.so).
std::string defaultHipLibrary();

} // namespace mxgemm::runtime

#endif // MXGEMM_RUNTIMERUN_GEMMRUN_H
