//===- GemmCheck.cpp - checking a kernel's Y against the reference --------===//

#include "mxgemm/Numerics/GemmCheck.h"

#include <algorithm>
#include <cstring>
#include <memory>

using namespace mxgemm::numerics;

GemmCheckResult
mxgemm::numerics::checkGemmOutput(const MXGemmOperands &ops, const void *yData,
                                  OutputType outputType,
                                  const GemmCheckOptions &options) {
  const auto *y = static_cast<const uint8_t *>(yData);
  const size_t es = outputType == OutputType::F32 ? 4 : 2;
  const int64_t m = ops.m, n = ops.n;
  auto written = [&](int64_t r, int64_t c) {
    const uint8_t *e = y + (size_t(r) * size_t(n) + size_t(c)) * es;
    for (size_t b = 0; b < es; ++b)
      if (e[b] != options.sentinel)
        return true;
    return false;
  };
  auto inExpected = [&](int64_t r, int64_t c) {
    if (options.expected.empty())
      return true;
    for (const OutputRegion &g : options.expected)
      if (r >= g.rowBegin && r < g.rowEnd && c >= g.colBegin && c < g.colEnd)
        return true;
    return false;
  };

  // The reference only on the 32x32 blocks that hold written outputs.
  std::vector<OutputRegion> blocks;
  for (int64_t r0 = 0; r0 < m; r0 += 32)
    for (int64_t c0 = 0; c0 < n; c0 += 32) {
      const int64_t r1 = std::min(m, r0 + 32), c1 = std::min(n, c0 + 32);
      bool any = false;
      for (int64_t r = r0; r < r1 && !any; ++r)
        for (int64_t c = c0; c < c1 && !any; ++c)
          any = written(r, c);
      if (any)
        blocks.push_back({r0, r1, c0, c1});
    }
  // Only the blocks' pages of this buffer are ever touched.
  std::unique_ptr<uint8_t[]> ref(new uint8_t[size_t(m) * size_t(n) * es]);
  referenceGemmTiles(ops, blocks, outputType, ref.get(), options.reference);

  GemmCheckResult result;
  for (const OutputRegion &b : blocks)
    for (int64_t r = b.rowBegin; r < b.rowEnd; ++r)
      for (int64_t c = b.colBegin; c < b.colEnd; ++c) {
        if (!written(r, c))
          continue;
        ++result.compared;
        result.stray += !inExpected(r, c);
        const size_t at = (size_t(r) * size_t(n) + size_t(c)) * es;
        if (std::memcmp(y + at, ref.get() + at, es) == 0)
          continue;
        if (result.first.size() < options.maxReported) {
          GemmMismatch mm{r, c, 0, 0};
          std::memcpy(&mm.got, y + at, es);
          std::memcpy(&mm.expected, ref.get() + at, es);
          result.first.push_back(mm);
        }
        ++result.mismatches;
      }
  result.unwritten = uint64_t(m) * uint64_t(n) - result.compared;
  for (int64_t c = 0; c < n && !result.lastRowWritten && m > 0; ++c)
    result.lastRowWritten = written(m - 1, c);
  // Found block by block; sorted so that reports read in row-major order.
  std::sort(result.first.begin(), result.first.end(),
            [](const GemmMismatch &a, const GemmMismatch &b) {
              return a.row != b.row ? a.row < b.row : a.col < b.col;
            });
  return result;
}
