//===- CAPI.cpp - C API of the MX numerics library ------------------------===//
//
// mxgemm_numerics.h over the C++ numerics: arguments are checked here (sizes
// with the contract's limits, so no byte count overflows), then the same
// functions the emulator tools use run. Exceptions never cross the C
// boundary.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/mxgemm_numerics.h"

#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Numerics/GemmCheck.h"
#include "mxgemm/Numerics/Quantize.h"

#include <cstring>
#include <exception>
#include <string>

namespace nx = mxgemm::numerics;
namespace contract = mxgemm::contract;

namespace {
thread_local std::string lastError;

int fail(const std::string &message) {
  lastError = message;
  return 2;
}

bool validFormat(int f) { return f == 0 || f == 1; }
bool validGranularity(int g) { return g == 0 || g == 1; }
nx::FP8Format toFormat(int f) { return static_cast<nx::FP8Format>(f); }
nx::ScaleGranularity toGranularity(int g) {
  return static_cast<nx::ScaleGranularity>(g);
}

/// rows in 1..2^31-1, cols in 32..2^24 and a multiple of 32.
bool checkShape(int64_t rows, int64_t cols, std::string &why) {
  if (rows < 1 || rows > contract::kMaxM || cols < 1 ||
      cols > contract::kMaxProblemExtent || cols % 32) {
    why = "shape [" + std::to_string(rows) + ", " + std::to_string(cols) +
          "] must have 1 <= rows <= 2^31-1 and 32 <= cols <= 2^24 with cols "
          "a multiple of 32";
    return false;
  }
  return true;
}

template <typename Body> int guarded(Body &&body) {
  try {
    lastError.clear();
    return body();
  } catch (const std::exception &e) {
    return fail(std::string("internal error: ") + e.what());
  } catch (...) {
    return fail("internal error");
  }
}

int checkOperands(const mxgemm_numerics_operands *ops) {
  std::string why;
  if (!ops || !ops->x || !ops->xs || !ops->w || !ops->ws)
    return fail("null operands");
  if (!checkShape(ops->m, ops->k, why) || !checkShape(ops->n, ops->k, why))
    return fail(why);
  if (!validFormat(ops->x_format) || !validFormat(ops->w_format) ||
      !validGranularity(ops->w_granularity))
    return fail("format must be 0 (e4m3) or 1 (e5m2), granularity 0 "
                "(block32x32) or 1 (per_row)");
  return 0;
}

nx::MXGemmOperands toOperands(const mxgemm_numerics_operands &c) {
  nx::MXGemmOperands ops;
  ops.m = c.m;
  ops.n = c.n;
  ops.k = c.k;
  ops.x = c.x;
  ops.xScales = c.xs;
  ops.xFormat = toFormat(c.x_format);
  ops.w = c.w;
  ops.wScales = c.ws;
  ops.wFormat = toFormat(c.w_format);
  ops.wScaleGranularity = toGranularity(c.w_granularity);
  return ops;
}

bool outputType(int t, nx::OutputType &out) {
  if (t == 2)
    out = nx::OutputType::BF16;
  else if (t == 4)
    out = nx::OutputType::F32;
  else
    return false;
  return true;
}

/// The layout named `name` and the size of [rows, kBlocks] scales in it;
/// nothing (after fail()) for an unknown name or extents without a size.
std::optional<std::pair<contract::ScaleLayout, uint64_t>>
namedScaleLayout(const char *name, int64_t rows, int64_t kBlocks) {
  std::optional<contract::ScaleLayout> l = contract::parseScaleLayout(name);
  if (!l) {
    fail("unknown scale layout '" + std::string(name) + "' (expected " +
         contract::scaleLayoutNames() + ")");
    return std::nullopt;
  }
  std::optional<uint64_t> size = contract::scaleTensorBytes(*l, rows, kBlocks);
  if (!size || *size > SIZE_MAX) {
    fail("scales [" + std::to_string(rows) + ", " + std::to_string(kBlocks) +
         "] have no size in layout " + name);
    return std::nullopt;
  }
  return std::pair(*l, *size);
}

} // namespace

extern "C" {

const char *mxgemm_numerics_last_error(void) { return lastError.c_str(); }

int64_t mxgemm_scale_rows(int64_t rows, int granularity) {
  if (rows < 1 || rows > contract::kMaxM || !validGranularity(granularity))
    return -1;
  return toGranularity(granularity) == nx::ScaleGranularity::PerRow
             ? rows
             : (rows + 31) / 32;
}

int mxgemm_random_mx(uint64_t seed, int64_t rows, int64_t cols, int format,
                     int granularity, uint8_t *data, uint8_t *scales) {
  return guarded([&] {
    std::string why;
    if (!data || !scales)
      return fail("null output buffer");
    if (!checkShape(rows, cols, why))
      return fail(why);
    if (!validFormat(format) || !validGranularity(granularity))
      return fail("format must be 0 or 1, granularity 0 or 1");
    nx::MXMatrix m = nx::randomMXMatrix(seed, rows, cols, toFormat(format),
                                        toGranularity(granularity));
    std::memcpy(data, m.data.data(), m.data.size());
    std::memcpy(scales, m.scales.data(), m.scales.size());
    return 0;
  });
}

int mxgemm_quantize_mx(const float *values, int64_t rows, int64_t k, int format,
                       int granularity, uint8_t *codes, uint8_t *scales) {
  return guarded([&] {
    std::string why;
    if (!values || !codes || !scales)
      return fail("null buffer");
    if (!checkShape(rows, k, why))
      return fail(why);
    if (!validFormat(format) || !validGranularity(granularity))
      return fail("format must be 0 or 1, granularity 0 or 1");
    nx::MXMatrix m = nx::quantizeMX(values, rows, k, toFormat(format),
                                    toGranularity(granularity));
    std::memcpy(codes, m.data.data(), m.data.size());
    std::memcpy(scales, m.scales.data(), m.scales.size());
    return 0;
  });
}

int mxgemm_dequantize_mx(const uint8_t *codes, const uint8_t *scales,
                         int64_t rows, int64_t k, int format, int granularity,
                         float *values) {
  return guarded([&] {
    std::string why;
    if (!values || !codes || !scales)
      return fail("null buffer");
    if (!checkShape(rows, k, why))
      return fail(why);
    if (!validFormat(format) || !validGranularity(granularity))
      return fail("format must be 0 or 1, granularity 0 or 1");
    nx::MXMatrix m;
    m.rows = rows;
    m.cols = k;
    m.format = toFormat(format);
    m.granularity = toGranularity(granularity);
    m.data.assign(codes, codes + rows * k);
    m.scales.assign(scales, scales + m.scaleRows() * m.scaleCols());
    std::vector<float> v = nx::dequantizeMX(m);
    std::memcpy(values, v.data(), v.size() * sizeof(float));
    return 0;
  });
}

int mxgemm_reference_gemm(const mxgemm_numerics_operands *ops, int64_t row0,
                          int64_t row1, int64_t col0, int64_t col1, int k_step,
                          int out_type, void *out, int64_t ld_out) {
  return guarded([&] {
    if (int e = checkOperands(ops))
      return e;
    nx::OutputType type;
    if (!out || !outputType(out_type, type))
      return fail("out must be non-null and out_type 2 (bf16) or 4 (f32)");
    if (row0 < 0 || row0 >= row1 || row1 > ops->m || col0 < 0 || col0 >= col1 ||
        col1 > ops->n || ld_out < col1 - col0)
      return fail("region outside [M, N] or ld_out smaller than its width");
    if (k_step <= 0 || k_step % 32)
      return fail("k_step must be a positive multiple of 32");
    nx::ReferenceOptions ro;
    ro.kStep = k_step;
    nx::referenceGemmRegion(toOperands(*ops), {row0, row1, col0, col1}, type,
                            out, ld_out, ro);
    return 0;
  });
}

int mxgemm_check_gemm(const mxgemm_numerics_operands *ops, const void *y,
                      int out_type, int k_step, uint8_t sentinel,
                      const int64_t *regions, size_t num_regions,
                      mxgemm_check_result *result) {
  return mxgemm_check_gemm_split(ops, y, out_type, k_step, 1, sentinel, regions,
                                 num_regions, result);
}

int mxgemm_check_gemm_split(const mxgemm_numerics_operands *ops, const void *y,
                            int out_type, int k_step, int k_splits,
                            uint8_t sentinel, const int64_t *regions,
                            size_t num_regions, mxgemm_check_result *result) {
  return guarded([&] {
    if (int e = checkOperands(ops))
      return e;
    nx::OutputType type;
    if (!y || !result || !outputType(out_type, type))
      return fail("y and result must be non-null and out_type 2 or 4");
    if (k_step <= 0 || k_step % 32)
      return fail("k_step must be a positive multiple of 32");
    if (k_splits < 1 || k_splits > contract::kMaxKSplits)
      return fail("k_splits must be in 1.." +
                  std::to_string(contract::kMaxKSplits));
    // The segment rule needs boundaries on whole steps.
    if (ops->k % k_splits || (ops->k / k_splits) % k_step)
      return fail("K / k_splits must be a whole number of k_step");
    if (num_regions && !regions)
      return fail("null regions");
    nx::GemmCheckOptions options;
    options.sentinel = sentinel;
    options.maxReported = 1;
    options.reference.kStep = k_step;
    if (k_splits > 1)
      options.reference.kSegments =
          contract::kSegmentBoundaries(ops->k, k_splits);
    for (size_t i = 0; i < num_regions; ++i)
      options.expected.push_back({regions[4 * i], regions[4 * i + 1],
                                  regions[4 * i + 2], regions[4 * i + 3]});
    nx::GemmCheckResult r =
        nx::checkGemmOutput(toOperands(*ops), y, type, options);
    *result = mxgemm_check_result{};
    result->compared = r.compared;
    result->mismatches = r.mismatches;
    result->unwritten = r.unwritten;
    result->stray = r.stray;
    result->last_row_written = r.lastRowWritten;
    if (!r.first.empty()) {
      result->first_row = r.first[0].row;
      result->first_col = r.first[0].col;
      result->first_got = r.first[0].got;
      result->first_expected = r.first[0].expected;
    }
    return 0;
  });
}

int mxgemm_pack_weight_panels(const uint8_t *w, uint8_t *packed, int64_t n,
                              int64_t k, int64_t non_k) {
  return guarded([&] {
    if (!w || !packed)
      return fail("null buffer");
    if (n < 1 || n > contract::kMaxProblemExtent || k < 1 ||
        k > contract::kMaxProblemExtent ||
        !contract::canPackWeightPanels(n, k, non_k))
      return fail("W [" + std::to_string(n) + ", " + std::to_string(k) +
                  "] cannot be packed into MFMA panels of " +
                  std::to_string(non_k) + " rows");
    contract::packWeightPanels(w, packed, n, k, non_k);
    return 0;
  });
}

int mxgemm_unshuffle_scales(const char *layout, const uint8_t *src,
                            size_t src_bytes, int64_t rows, int64_t k_blocks,
                            uint8_t *dst, size_t dst_bytes) {
  return guarded([&] {
    if (!layout || !src || !dst)
      return fail("null layout name or buffer");
    auto named = namedScaleLayout(layout, rows, k_blocks);
    if (!named)
      return 1;
    // Extents with a size in a layout have one row-major (at most it).
    const uint64_t rowMajor = uint64_t(rows) * uint64_t(k_blocks);
    if (src_bytes < named->second)
      return fail("source holds " + std::to_string(src_bytes) +
                  " bytes; the layout needs " + std::to_string(named->second));
    if (dst_bytes < rowMajor)
      return fail("destination holds " + std::to_string(dst_bytes) +
                  " bytes; row-major scales need " + std::to_string(rowMajor));
    if (!contract::unshuffleScales(named->first, src, src_bytes, rows, k_blocks,
                                   dst, dst_bytes))
      return fail("scales do not fit the buffers");
    return 0;
  });
}

int mxgemm_preshuffle_scales(const char *layout, const uint8_t *src,
                             int64_t rows, int64_t k_blocks, int64_t ld,
                             uint8_t *dst, size_t dst_bytes, size_t *bytes) {
  return guarded([&] {
    if (!layout || !bytes)
      return fail("null layout name or size pointer");
    auto named = namedScaleLayout(layout, rows, k_blocks);
    if (!named)
      return 1;
    const auto [l, size] = *named;
    *bytes = size_t(size);
    if (!dst)
      return 0;
    if (!src)
      return fail("null source buffer");
    const int64_t stride = ld ? ld : k_blocks;
    if (stride < k_blocks)
      return fail("row stride " + std::to_string(ld) +
                  " is shorter than a row of " + std::to_string(k_blocks));
    if (dst_bytes < *bytes)
      return fail("destination holds " + std::to_string(dst_bytes) +
                  " bytes; the layout needs " + std::to_string(*bytes));
    contract::preshuffleScales(l, src, rows, k_blocks, stride, dst, dst_bytes);
    return 0;
  });
}

} // extern "C"
