//===- Formats.h - element formats and scale kinds, one spelling each ----===//
//
// The names every layer uses for the operand formats of a GEMM: the kernel
// descriptor, the tuning database, the tools' flags and the Python package
// spell a format exactly as `formatName` does, and parse it with
// `parseElementType`. The enum values equal the runtime C API's
// `mxgemm_dtype` / `mxgemm_scale_granularity` encodings, so the runtime
// converts by value (it static_asserts the equality). MLIR types
// (f8E4M3FN, ...) are the IR's spelling and are mapped in the dialect only.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_FORMATS_H
#define MXGEMM_CONTRACT_FORMATS_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace mxgemm::contract {

/// Element type of an operand or the output (docs/Design.md section 1).
enum class ElementType : uint8_t {
  E4M3 = 0,
  E5M2 = 1,
  BF16 = 2,
  F16 = 3,
  F32 = 4
};

/// Granularity of the E8M0 weight scales: one scale per weight row and 32
/// K-elements (OCP MX, [N, K/32]) or one per 32x32 block ([ceil(N/32),
/// K/32], DeepSeek-V4-style checkpoints).
enum class ScaleGranularity : uint8_t { Block32x32 = 0, PerRow = 1 };

/// "e4m3", "e5m2", "bf16", "f16", "f32".
std::string_view elementTypeName(ElementType type);
std::optional<ElementType> parseElementType(std::string_view name);
/// "block32x32", "per_row".
std::string_view scaleGranularityName(ScaleGranularity granularity);
std::optional<ScaleGranularity> parseScaleGranularity(std::string_view name);

/// True for the FP8 formats an MX operand may have.
constexpr bool isFP8(ElementType type) {
  return type == ElementType::E4M3 || type == ElementType::E5M2;
}
/// Bytes of one element (FP8 operands and E8M0 scales are one byte).
constexpr int64_t elementBytes(ElementType type) {
  switch (type) {
  case ElementType::E4M3:
  case ElementType::E5M2:
    return 1;
  case ElementType::BF16:
  case ElementType::F16:
    return 2;
  case ElementType::F32:
    return 4;
  }
  return 0;
}

/// K elements that share one E8M0 scale (the MX block).
constexpr int64_t kScaleBlock = 32;

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_FORMATS_H
