//===- Reference.cpp - CPU reference for block-scaled MXFP8 GEMMs ---------===//
//
// Splits the requested outputs into 32x32 tasks whose columns never cross a
// 32-column boundary (so a 32x32 weight-scale block is one shared scale row,
// i.e. scale stride 0 in mxMfmaTile) and hands them to worker threads through
// an atomic counter. Each task walks K one MFMA step at a time with
// mxMfmaTile, which is bit-identical to calling mxStepAccumulate per element.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/Reference.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <limits>
#include <thread>

using namespace mxgemm::numerics;

namespace {

constexpr int64_t kTileRows = 32;
constexpr int64_t kTileCols = 32;

struct Task {
  int64_t row0, row1, col0, col1;
  // Where Y[row0, col0] goes and the leading dimension of the destination.
  int64_t outOffset;
  int64_t ldOut;
};

unsigned resolveThreads(unsigned requested, size_t tasks) {
  unsigned n = requested ? requested : std::thread::hardware_concurrency();
  n = std::max(1u, n);
  return unsigned(std::min<size_t>(n, std::max<size_t>(tasks, 1)));
}

// Runs body(i) for i in [0, count) on `threads` workers.
template <typename Body>
void parallelFor(size_t count, unsigned threads, const Body &body) {
  threads = resolveThreads(threads, count);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++)
      body(i);
  };
  if (threads == 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
}

// Appends the tasks covering `region`, whose element (r, c) is stored at
// outBase + (r - rowBegin) * ldOut + (c - colBegin).
void appendTasks(const OutputRegion &region, int64_t outBase, int64_t ldOut,
                 std::vector<Task> &tasks) {
  for (int64_t r = region.rowBegin; r < region.rowEnd; r += kTileRows) {
    int64_t r1 = std::min(region.rowEnd, r + kTileRows);
    for (int64_t c = region.colBegin; c < region.colEnd;) {
      int64_t c1 = std::min(region.colEnd, (c / kTileCols + 1) * kTileCols);
      tasks.push_back(
          {r, r1, c, c1,
           outBase + (r - region.rowBegin) * ldOut + (c - region.colBegin),
           ldOut});
      c = c1;
    }
  }
}

void checkOperands(const MXGemmOperands &ops, const ReferenceOptions &opts) {
  assert(ops.k % kMXBlockSize == 0 && "K must be a multiple of 32");
  assert(opts.kStep > 0 && opts.kStep % kMXBlockSize == 0 &&
         "kStep must be a positive multiple of 32");
  assert((opts.kSegments.empty() ||
          (opts.kSegments.size() >= 2 && opts.kSegments.front() == 0 &&
           opts.kSegments.back() == ops.k &&
           std::is_sorted(opts.kSegments.begin(), opts.kSegments.end()))) &&
         "kSegments must run from 0 to K in ascending order");
  (void)ops;
  (void)opts;
}

void runTask(const MXGemmOperands &ops, const Task &task,
             const ReferenceOptions &opts, OutputType outputType, void *out) {
  const int kStep = opts.kStep;
  const int64_t kBlocks = ops.k / kMXBlockSize;
  const int rows = int(task.row1 - task.row0);
  const int cols = int(task.col1 - task.col0);
  float acc[kTileRows * kTileCols] = {};
  const uint8_t *wScaleRow;
  int64_t ldWScale;
  if (ops.wScaleGranularity == ScaleGranularity::PerRow) {
    wScaleRow = ops.wScales + task.col0 * kBlocks;
    ldWScale = kBlocks;
  } else {
    // The task's columns lie in one 32-row weight block.
    wScaleRow = ops.wScales + (task.col0 / 32) * kBlocks;
    ldWScale = 0;
  }
  // One segment [0, K] unless the options split K here (runTasks cut the
  // tasks at the regions' edges, so a task is inside one or outside all).
  const int64_t oneSegment[2] = {0, ops.k};
  const int64_t *bounds = oneSegment;
  size_t numBounds = 2;
  auto segmented = [&] {
    if (opts.kSegmentRegions.empty())
      return true;
    for (const OutputRegion &r : opts.kSegmentRegions)
      if (task.row0 >= r.rowBegin && task.row0 < r.rowEnd &&
          task.col0 >= r.colBegin && task.col0 < r.colEnd)
        return true;
    return false;
  };
  if (!opts.kSegments.empty() && segmented()) {
    bounds = opts.kSegments.data();
    numBounds = opts.kSegments.size();
  }
  float partial[kTileRows * kTileCols];
  for (size_t s = 0; s + 1 < numBounds; ++s) {
    // Segments after the first accumulate from +0 on their own, then are
    // added to the running sum in FP32.
    float *segAcc = s == 0 ? acc : partial;
    if (s > 0)
      std::fill(std::begin(partial), std::end(partial), 0.0f);
    const int64_t segEnd = bounds[s + 1];
    for (int64_t k0 = bounds[s]; k0 < segEnd; k0 += kStep) {
      int numBlocks = int(std::min<int64_t>(kStep, segEnd - k0) / kMXBlockSize);
      int64_t blk0 = k0 / kMXBlockSize;
      mxMfmaTile(segAcc, kTileCols, rows, cols, ops.x + task.row0 * ops.k + k0,
                 ops.k, ops.xFormat, ops.w + task.col0 * ops.k + k0, ops.k,
                 ops.wFormat, ops.xScales + task.row0 * kBlocks + blk0, kBlocks,
                 wScaleRow + blk0, ldWScale, numBlocks);
    }
    if (s > 0)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
          acc[r * kTileCols + c] += partial[r * kTileCols + c];
  }
  for (int r = 0; r < rows; ++r) {
    int64_t dst = task.outOffset + r * task.ldOut;
    const float *src = acc + r * kTileCols;
    if (outputType == OutputType::F32) {
      std::copy(src, src + cols, static_cast<float *>(out) + dst);
    } else {
      uint16_t *o = static_cast<uint16_t *>(out) + dst;
      for (int c = 0; c < cols; ++c)
        o[c] = fp32ToBf16(src[c]);
    }
  }
}

/// `tasks` cut at the edges of `regions`, so that each lies inside one
/// region or outside all.
std::vector<Task> cutAtRegions(const std::vector<Task> &tasks,
                               const std::vector<OutputRegion> &regions) {
  std::vector<Task> out;
  for (const Task &t : tasks) {
    std::vector<int64_t> rows{t.row0, t.row1}, cols{t.col0, t.col1};
    for (const OutputRegion &r : regions) {
      for (int64_t e : {r.rowBegin, r.rowEnd})
        if (e > t.row0 && e < t.row1)
          rows.push_back(e);
      for (int64_t e : {r.colBegin, r.colEnd})
        if (e > t.col0 && e < t.col1)
          cols.push_back(e);
    }
    for (std::vector<int64_t> *cuts : {&rows, &cols}) {
      std::sort(cuts->begin(), cuts->end());
      cuts->erase(std::unique(cuts->begin(), cuts->end()), cuts->end());
    }
    for (size_t i = 0; i + 1 < rows.size(); ++i)
      for (size_t j = 0; j + 1 < cols.size(); ++j)
        out.push_back(
            {rows[i], rows[i + 1], cols[j], cols[j + 1],
             t.outOffset + (rows[i] - t.row0) * t.ldOut + (cols[j] - t.col0),
             t.ldOut});
  }
  return out;
}

void runTasks(const MXGemmOperands &ops, const std::vector<Task> &given,
              OutputType outputType, void *out, const ReferenceOptions &opts) {
  checkOperands(ops, opts);
  std::vector<Task> cut;
  if (!opts.kSegmentRegions.empty())
    cut = cutAtRegions(given, opts.kSegmentRegions);
  const std::vector<Task> &tasks = opts.kSegmentRegions.empty() ? given : cut;
  parallelFor(tasks.size(), opts.numThreads,
              [&](size_t i) { runTask(ops, tasks[i], opts, outputType, out); });
}

} // namespace

void mxgemm::numerics::referenceGemm(const MXGemmOperands &ops,
                                     OutputType outputType, void *y,
                                     const ReferenceOptions &options) {
  referenceGemmRegion(ops, {0, ops.m, 0, ops.n}, outputType, y, ops.n, options);
}

void mxgemm::numerics::referenceGemmRegion(const MXGemmOperands &ops,
                                           const OutputRegion &region,
                                           OutputType outputType, void *out,
                                           int64_t ldOut,
                                           const ReferenceOptions &options) {
  std::vector<Task> tasks;
  appendTasks(region, 0, ldOut, tasks);
  runTasks(ops, tasks, outputType, out, options);
}

void mxgemm::numerics::referenceGemmTiles(
    const MXGemmOperands &ops, const std::vector<OutputRegion> &tiles,
    OutputType outputType, void *y, const ReferenceOptions &options) {
  std::vector<Task> tasks;
  for (const OutputRegion &tile : tiles)
    appendTasks(tile, tile.rowBegin * ops.n + tile.colBegin, ops.n, tasks);
  runTasks(ops, tasks, outputType, y, options);
}

void mxgemm::numerics::referenceGemmFP64(const MXGemmOperands &ops,
                                         const OutputRegion &region,
                                         double *out, int64_t ldOut,
                                         double *absSum, unsigned numThreads) {
  assert(ops.k % kMXBlockSize == 0 && "K must be a multiple of 32");
  double xTable[256], wTable[256], scaleTable[256];
  for (int i = 0; i < 256; ++i) {
    xTable[i] = decodeFP8(uint8_t(i), ops.xFormat);
    wTable[i] = decodeFP8(uint8_t(i), ops.wFormat);
    scaleTable[i] = decodeE8M0(uint8_t(i));
  }
  const int64_t kBlocks = ops.k / kMXBlockSize;
  const int64_t rows = region.rowEnd - region.rowBegin;
  parallelFor(size_t(rows), numThreads, [&](size_t i) {
    int64_t m = region.rowBegin + int64_t(i);
    const uint8_t *xRow = ops.x + m * ops.k;
    const uint8_t *xsRow = ops.xScales + m * kBlocks;
    for (int64_t n = region.colBegin; n < region.colEnd; ++n) {
      const uint8_t *wRow = ops.w + n * ops.k;
      int64_t scaleRow =
          ops.wScaleGranularity == ScaleGranularity::PerRow ? n : n / 32;
      const uint8_t *wsRow = ops.wScales + scaleRow * kBlocks;
      double sum = 0, abs = 0;
      for (int64_t k = 0; k < ops.k; ++k) {
        double p = scaleTable[xsRow[k / 32]] * xTable[xRow[k]] *
                   (scaleTable[wsRow[k / 32]] * wTable[wRow[k]]);
        sum += p;
        abs += std::fabs(p);
      }
      int64_t dst = int64_t(i) * ldOut + (n - region.colBegin);
      out[dst] = sum;
      if (absSum)
        absSum[dst] = abs;
    }
  });
}

namespace {

double relativeError(double got, double ref, double denom) {
  if (std::isnan(got) || std::isnan(ref))
    return std::isnan(got) && std::isnan(ref)
               ? 0.0
               : std::numeric_limits<double>::infinity();
  if (std::isinf(got) || std::isinf(ref))
    return got == ref ? 0.0 : std::numeric_limits<double>::infinity();
  return std::fabs(got - ref) / denom;
}

} // namespace

double mxgemm::numerics::maxRelativeError(const float *got, const double *ref,
                                          size_t count, double absFloor) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i)
    worst =
        std::max(worst, relativeError(got[i], ref[i],
                                      std::max(std::fabs(ref[i]), absFloor)));
  return worst;
}

double mxgemm::numerics::maxRelativeErrorBf16(const uint16_t *got,
                                              const double *ref, size_t count,
                                              double absFloor) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i)
    worst =
        std::max(worst, relativeError(bf16ToFp32(got[i]), ref[i],
                                      std::max(std::fabs(ref[i]), absFloor)));
  return worst;
}

double mxgemm::numerics::maxNormalizedError(const float *got, const double *ref,
                                            const double *scale, size_t count,
                                            double absFloor) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i)
    worst = std::max(
        worst, relativeError(got[i], ref[i], std::max(scale[i], absFloor)));
  return worst;
}
