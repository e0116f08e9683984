//===- KernelDescriptor.h - what one compiled kernel is ---------*- C++ -*-===//
//
// The typed description of one compiled kernel: its problem, its config with
// every default filled, the MFMA it runs, its grid and tile mapping, its
// arguments, the layouts it reads, the resources the backend allocated and
// the hash of its code object. The compiler writes it beside every code
// object (the JSON "sidecar", `format_version: 2`); the runtime, the emulator
// tools, qualification, the benchmarks and Python read it, and none of them
// re-derives what it says. JSON is read and written with nlohmann/json,
// which stays inside lib/Contract.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_KERNELDESCRIPTOR_H
#define MXGEMM_CONTRACT_KERNELDESCRIPTOR_H

#include "mxgemm/Contract/KernelABI.h"
#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Contract/TileGrouping.h"

#include <string>
#include <string_view>
#include <vector>

namespace mxgemm::contract {

/// How W is laid out in memory: row-major [N, K], or the MFMA panels of
/// WeightPanels.h (kernels with stage_w = packed_registers).
enum class WeightLayout : uint8_t { RowMajor = 0, MfmaPanels = 1 };
std::string_view weightLayoutName(WeightLayout layout); // "row_major", ...
std::optional<WeightLayout> parseWeightLayout(std::string_view name);

/// The MFMA instruction of a kernel and its operand geometry.
struct MfmaGeometry {
  std::string instruction; // e.g. v_mfma_scale_f32_32x32x64_f8f6f4
  int64_t m = 0, n = 0;
  /// K elements per instruction: the step of the accumulation rule.
  int64_t kStep = 0;
  /// Rows (columns) of one MFMA block: 32 or 16.
  int64_t nonK = 0;
};

/// What the backend allocated, read back from the code object.
struct KernelResources {
  /// Registers of the unified gfx950 file: vgpr_count covers the AGPRs,
  /// which start at accum_offset (0 when the code object has no AGPRs).
  int64_t vgprCount = 0, agprCount = 0, accumOffset = 0, sgprCount = 0;
  int64_t vgprSpillCount = 0, sgprSpillCount = 0;
  int64_t ldsBytes = 0, scratchBytes = 0;
  int64_t kernargSegmentBytes = 0, maxFlatWorkgroupSize = 0;
  int64_t wavefrontSize = 0;
};

/// How K is split into segments (docs/Design.md section 1, segment rule).
/// "none": one segment [0, K].
inline constexpr std::string_view kNoKSegments = "none";

struct KernelDescriptor {
  static constexpr int kFormatVersion = 2;

  /// Kernel symbol in the code object.
  std::string kernel;
  /// Target chip and the code object's amdhsa.target.
  std::string chip, target;
  GemmProblem problem;
  KernelConfig config;
  /// Where the config came from, as ConfigChoice::sourceLabel says
  /// ("database:wq_b", "heuristic:packed", "default", "explicit"); optional
  /// (`config_source`, absent when empty), not checked against the config.
  std::string configSource;
  MfmaGeometry mfma;
  int64_t workgroupSize = 0;
  TileGrid grid;
  std::vector<KernelArgument> arguments;
  WeightLayout wLayout = WeightLayout::RowMajor;
  ScaleLayout xScaleLayout = ScaleLayout::RowMajor;
  ScaleLayout wScaleLayout = ScaleLayout::RowMajor;
  /// "none" (one segment, [0, K]), or a split-K kernel's segment
  /// boundaries "0,b1,...,K" (contract::kSegmentBoundaries): the launches
  /// are then phase 0 (partials into the workspace) and phase 1 (their
  /// ascending FP32 sum into Y), on the same grid.
  std::string kSegments = std::string(kNoKSegments);
  KernelResources resources;
  /// File name of the code object beside the descriptor ("" if none).
  std::string codeObject;
  /// Lower-case hex SHA-256 of the code object bytes.
  std::string codeObjectSha256;
  /// Versions of the compiler that built it (no git commit: an unrelated
  /// commit must not change every descriptor).
  std::string mxgemmVersion, llvmVersion;

  /// The descriptor fields that follow from the problem and config alone
  /// (MFMA geometry, grid, arguments, layouts); resources, hash and
  /// versions are left for the compiler to fill.
  static KernelDescriptor describe(std::string kernel,
                                   const GemmProblem &problem,
                                   const KernelConfig &config,
                                   const target::TargetModel &target);

  /// The JSON text (`format_version: 2`), fields in a fixed order.
  std::string toJson() const;
  /// Parses and checks a descriptor: the schema (unknown, missing or
  /// mistyped fields), the format version, a known chip, a verified config
  /// and problem, and derived fields that agree with the config (a
  /// descriptor edited by hand or for another build is refused).
  static ErrorMessage parse(std::string_view json, KernelDescriptor &out);

  /// The argument called `name`, or null.
  const KernelArgument *findArgument(std::string_view name) const;
};

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_KERNELDESCRIPTOR_H
