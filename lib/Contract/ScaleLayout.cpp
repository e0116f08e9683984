//===- ScaleLayout.cpp - row-major and MFMA-native scale layouts ----------===//
//
// The one implementation of the layout formula of ScaleLayout.h; the
// compiler's scale loads (MfmaEmitter) compute the same offsets in IR, and
// the emulator tests compare the two through results.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ScaleLayout.h"

#include <array>
#include <cstring>

using namespace mxgemm;
using namespace mxgemm::contract;

namespace {
constexpr std::array<std::string_view, 3> kNames = {
    "row_major", "mfma_16x16x128", "mfma_32x32x64"};
/// MFMA steps per lane dword.
constexpr int64_t kStepsPerDword = 4;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

int64_t contract::scaleLayoutChunks(ScaleLayout layout, int64_t kBlocks) {
  const int64_t blocksPerChunk =
      kStepsPerDword * scaleLayoutBlocksPerStep(layout);
  return blocksPerChunk ? ceilDiv(kBlocks, blocksPerChunk) : 0;
}

std::string_view contract::scaleLayoutName(ScaleLayout layout) {
  size_t i = size_t(layout);
  return i < kNames.size() ? kNames[i] : std::string_view("?");
}

std::optional<ScaleLayout> contract::parseScaleLayout(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name)
      return ScaleLayout(i);
  return std::nullopt;
}

std::string contract::scaleLayoutNames() {
  std::string out;
  for (std::string_view n : kNames)
    out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

ScaleLayout contract::mfmaScaleLayout(target::MfmaShape shape) {
  return shape == target::MfmaShape::M16N16K128 ? ScaleLayout::Mfma16x16x128
                                                : ScaleLayout::Mfma32x32x64;
}

std::optional<target::MfmaShape> contract::scaleLayoutMfma(ScaleLayout layout) {
  switch (layout) {
  case ScaleLayout::Mfma16x16x128:
    return target::MfmaShape::M16N16K128;
  case ScaleLayout::Mfma32x32x64:
    return target::MfmaShape::M32N32K64;
  case ScaleLayout::RowMajor:
    break;
  }
  return std::nullopt;
}

int64_t contract::scaleLayoutRowGroup(ScaleLayout layout) {
  switch (layout) {
  case ScaleLayout::Mfma16x16x128:
    return 16;
  case ScaleLayout::Mfma32x32x64:
    return 32;
  case ScaleLayout::RowMajor:
    break;
  }
  return 0;
}

int64_t contract::scaleLayoutBlocksPerStep(ScaleLayout layout) {
  const int64_t rows = scaleLayoutRowGroup(layout);
  return rows ? 64 / rows : 0;
}

std::optional<uint64_t>
contract::scaleTensorBytes(ScaleLayout layout, int64_t rows, int64_t kBlocks) {
  if (rows < 1 || kBlocks < 1)
    return std::nullopt;
  uint64_t bytes;
  if (layout == ScaleLayout::RowMajor) {
    if (__builtin_mul_overflow(uint64_t(rows), uint64_t(kBlocks), &bytes))
      return std::nullopt;
    return bytes;
  }
  const uint64_t groups = uint64_t(ceilDiv(rows, scaleLayoutRowGroup(layout)));
  const uint64_t chunks = uint64_t(scaleLayoutChunks(layout, kBlocks));
  if (__builtin_mul_overflow(groups, chunks, &bytes) ||
      __builtin_mul_overflow(bytes, uint64_t(kScaleChunkBytes), &bytes))
    return std::nullopt;
  return bytes;
}

uint64_t contract::scaleByteOffset(ScaleLayout layout, int64_t kBlocks,
                                   int64_t row, int64_t block) {
  if (layout == ScaleLayout::RowMajor)
    return uint64_t(row) * uint64_t(kBlocks) + uint64_t(block);
  const int64_t r = scaleLayoutRowGroup(layout);
  const int64_t g = scaleLayoutBlocksPerStep(layout);
  const int64_t chunks = scaleLayoutChunks(layout, kBlocks);
  const uint64_t chunk =
      uint64_t(row / r) * uint64_t(chunks) + uint64_t(block / (4 * g));
  const uint64_t lane = uint64_t((block % g) * r + row % r);
  return chunk * kScaleChunkBytes + lane * 4 + uint64_t((block / g) % 4);
}

bool contract::preshuffleScales(ScaleLayout layout, const uint8_t *src,
                                int64_t rows, int64_t kBlocks, int64_t ldSrc,
                                uint8_t *dst, size_t dstBytes,
                                uint8_t padding) {
  std::optional<uint64_t> bytes = scaleTensorBytes(layout, rows, kBlocks);
  if (!bytes || *bytes > dstBytes || ldSrc < kBlocks || !src || !dst)
    return false;
  std::memset(dst, padding, size_t(*bytes));
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t block = 0; block < kBlocks; ++block)
      dst[scaleByteOffset(layout, kBlocks, row, block)] =
          src[uint64_t(row) * uint64_t(ldSrc) + uint64_t(block)];
  return true;
}

bool contract::unshuffleScales(ScaleLayout layout, const uint8_t *src,
                               size_t srcBytes, int64_t rows, int64_t kBlocks,
                               uint8_t *dst, size_t dstBytes) {
  std::optional<uint64_t> bytes = scaleTensorBytes(layout, rows, kBlocks);
  std::optional<uint64_t> out =
      scaleTensorBytes(ScaleLayout::RowMajor, rows, kBlocks);
  if (!bytes || !out || *bytes > srcBytes || *out > dstBytes || !src || !dst)
    return false;
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t block = 0; block < kBlocks; ++block)
      dst[uint64_t(row) * uint64_t(kBlocks) + uint64_t(block)] =
          src[scaleByteOffset(layout, kBlocks, row, block)];
  return true;
}
