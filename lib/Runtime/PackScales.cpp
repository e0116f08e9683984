//===- PackScales.cpp - mxgemm_scale_bytes and mxgemm_pack_scales ---------===//
//
// Scale tensors in the MFMA-native layouts that kernels compiled with
// x_scale_layout / w_scale_layout read (contract/ScaleLayout.h is the one
// definition). Packing is a one-time preparation of weight scales, so it
// goes through host memory; no device kernel rewrites scales yet.
//
//===----------------------------------------------------------------------===//

#include "DataKernels.h"

#include "mxgemm/Contract/ScaleLayout.h"

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

/// Bytes of `rows` x K/32 scales in `layout`, and the row-major size, or
/// INVALID_ARGUMENT with the reason in `why`.
mxgemm_status scaleSizes(mxgemm_scale_layout layout, int64_t rows, int64_t k,
                         size_t &bytes, size_t &rowMajorBytes,
                         std::string &why) {
  if (!validScaleLayout(layout)) {
    why = "unknown scale layout value " + std::to_string(int(layout));
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (rows <= 0 || k <= 0 || k % 32 != 0) {
    why = "rows and K must be positive and K a multiple of 32 (rows = " +
          std::to_string(rows) + ", K = " + std::to_string(k) + ")";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const std::optional<uint64_t> packed =
      contract::scaleTensorBytes(contract::ScaleLayout(layout), rows, k / 32);
  const std::optional<uint64_t> plain =
      contract::scaleTensorBytes(contract::ScaleLayout::RowMajor, rows, k / 32);
  if (!packed || !plain || *packed > uint64_t(SIZE_MAX / 2)) {
    why = "the size of " + std::to_string(rows) + " rows of " +
          std::to_string(k / 32) + " scale blocks overflows";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  bytes = size_t(*packed);
  rowMajorBytes = size_t(*plain);
  return MXGEMM_STATUS_OK;
}

} // namespace

extern "C" mxgemm_status mxgemm_scale_bytes(mxgemm_scale_layout layout,
                                            int64_t rows, int64_t k,
                                            size_t *bytes) {
  if (!bytes)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "mxgemm_scale_bytes: bytes is NULL");
  size_t packed, plain;
  std::string why;
  if (mxgemm_status s = scaleSizes(layout, rows, k, packed, plain, why))
    return fail(s, "mxgemm_scale_bytes: " + why);
  *bytes = packed;
  return MXGEMM_STATUS_OK;
}

extern "C" mxgemm_status mxgemm_pack_scales(mxgemm_context *context,
                                            mxgemm_scale_layout layout,
                                            const void *scales, int64_t rows,
                                            int64_t k, void *packed,
                                            void *stream) {
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  return guarded([&] {
    size_t bytes, plainBytes;
    std::string why;
    if (mxgemm_status s = scaleSizes(layout, rows, k, bytes, plainBytes, why))
      return fail(s, "mxgemm_pack_scales: " + why);
    if (!scales || !packed)
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "mxgemm_pack_scales: scales and packed must be non-NULL");
    mxgemm_reason reason;
    char message[kMessageBytes];
    MessageBuilder msg(message, sizeof(message));
    if (mxgemm_status s = checkDevice(*ctx, reason, msg))
      return fail(s, std::string("mxgemm_pack_scales: ") + message);
    if (ctx->options.dry_run)
      return MXGEMM_STATUS_OK;
    return rewriteThroughHost(
        *ctx, scales, plainBytes, packed, bytes, stream,
        "internal: the scales did not fit their computed size",
        [&](const uint8_t *rowMajor, uint8_t *native) {
          return contract::preshuffleScales(contract::ScaleLayout(layout),
                                            rowMajor, rows, k / 32, k / 32,
                                            native, bytes);
        });
  });
}
