//===- QuantizeRun.h - run a quantize kernel and check it -------*- C++ -*-===//
//
// Runs a kernel built from mxgemm.quantize (arguments input, codes, scales,
// M : i32, K : i32; 256-thread workgroups, one lane per 32-block) on the
// emulator over generated data that covers the rule's corners (zero, NaN,
// inf, FP32 subnormal, rounding-tie and saturating blocks) and compares
// codes and scales byte for byte with numerics::quantizeMX.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_QUANTIZERUN_H
#define MXGEMM_EMULATOR_QUANTIZERUN_H

#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include <string>
#include <vector>

namespace mxgemm::emu {

enum class QuantizeInput { BF16, F16, F32 };

/// "bf16", "f16", "f32" and back.
llvm::StringRef quantizeInputName(QuantizeInput type);
std::optional<QuantizeInput> parseQuantizeInput(llvm::StringRef name);

/// Threads per workgroup of the kernel mxgemm-lower-quantize builds.
constexpr unsigned kQuantizeWorkgroupSize = 256;

struct QuantizeRunOptions {
  int64_t m = 0, k = 0; // k % 32 == 0
  QuantizeInput input = QuantizeInput::BF16;
  numerics::FP8Format format = numerics::FP8Format::E4M3;
  uint64_t seed = 1;
  /// The layout the kernel writes the scales in; an MFMA-native one is
  /// checked byte for byte, its padding (127) included.
  contract::ScaleLayout scaleLayout = contract::ScaleLayout::RowMajor;
  /// Threads, checks, ... (grid, workgroup and arguments are set here).
  LaunchConfig launch;
};

struct QuantizeRunResult {
  LaunchResult launch;
  uint64_t comparedCodes = 0, comparedScales = 0;
  uint64_t codeMismatches = 0, scaleMismatches = 0;
  /// The first few mismatches, one line each.
  std::vector<std::string> firstMismatches;
};

/// The input data runQuantize uses, as FP32 values (BF16/FP16 values are
/// exactly representable) and as the bytes the kernel reads.
void generateQuantizeInput(const QuantizeRunOptions &options,
                           std::vector<float> &values,
                           std::vector<uint8_t> &bytes);

llvm::Expected<QuantizeRunResult>
runQuantize(const CodeObject &object, const KernelInfo &kernel,
            const QuantizeRunOptions &options);

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_QUANTIZERUN_H
