//===- QuantizeTest.cpp - mxgemm_quantize on the emulator's HIP facade ----===//
//
// The embedded quantize kernels run through the C API on the facade and
// must equal numerics::quantizeMX byte for byte (codes and scales) on
// shapes with a partial last workgroup and one row, for every input type
// and format, on data made of the rule's corner blocks. Bad arguments are
// statuses with a message and launch nothing.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"

#include "mxgemm/Contract/ScaleLayout.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mxgemm;
using namespace mxgemm::testing;

namespace {

struct InputType {
  mxgemm_dtype dtype;
  unsigned expBits, mantBits, bytes;
  const char *name;
};

const InputType kBF16{MXGEMM_DTYPE_BF16, 8, 7, 2, "bf16"};
const InputType kF16{MXGEMM_DTYPE_F16, 5, 10, 2, "f16"};
const InputType kF32{MXGEMM_DTYPE_F32, 8, 23, 4, "f32"};

float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The exact FP32 value of an input bit pattern.
float toFloat(uint32_t bits, const InputType &t) {
  if (t.bytes == 4)
    return bitsToFloat(bits);
  if (t.expBits == 8)
    return bitsToFloat(bits << 16);
  const uint32_t sign = bits >> 15, exp = (bits >> 10) & 0x1f,
                 mant = bits & 0x3ff;
  float v = exp == 0x1f ? (mant ? NAN : INFINITY)
            : exp == 0  ? std::ldexp(float(mant), -24)
                        : std::ldexp(float(mant | 0x400), int(exp) - 25);
  return sign ? -v : v;
}

/// M x K values whose 32-blocks cycle through: all zero (either sign), one
/// NaN, one inf, subnormal inputs, an amax just below a power of two (it
/// rounds up and saturates), a single nonzero element (the others flush to
/// zero), then random values over a wide range of binades.
void makeInput(const InputType &t, int64_t m, int64_t k, uint64_t seed,
               std::vector<float> &values, std::vector<uint8_t> &bytes) {
  std::mt19937_64 rng(seed);
  const uint32_t maxExp = (1u << t.expBits) - 2,
                 mantMask = (1u << t.mantBits) - 1;
  const size_t count = size_t(m * k);
  values.resize(count);
  bytes.resize(count * t.bytes);
  for (size_t b = 0; b < count / 32; ++b) {
    const unsigned kind = unsigned(b % 8), special = unsigned(rng() % 32);
    const uint32_t base = 2 + uint32_t(rng() % (maxExp - 1));
    for (unsigned j = 0; j < 32; ++j) {
      uint32_t sign = rng() & 1, mant = uint32_t(rng()) & mantMask;
      uint32_t exp =
          base > 8 ? base - uint32_t(rng() % 9) : 1 + uint32_t(rng() % base);
      if (kind == 0)
        exp = mant = 0;
      else if (kind == 1 && j == special)
        exp = maxExp + 1, mant = 1u << (t.mantBits - 1);
      else if (kind == 2 && j == special)
        exp = maxExp + 1, mant = 0;
      else if (kind == 3)
        exp = 0, mant = mant ? mant : 1;
      else if (kind == 4)
        exp = j == special ? base : std::min(exp, base - 1),
        mant = j == special ? mantMask : mant;
      else if (kind == 5 && j != special)
        exp = mant = 0;
      const uint32_t bits =
          (sign << (t.expBits + t.mantBits)) | (exp << t.mantBits) | mant;
      const size_t i = b * 32 + j;
      values[i] = toFloat(bits, t);
      std::memcpy(bytes.data() + i * t.bytes, &bits, t.bytes);
    }
  }
}

/// Quantizes on the facade and compares with the reference; returns the
/// number of mismatching bytes.
size_t runAndCompare(mxgemm_context *ctx, const InputType &t,
                     mxgemm_dtype format, int64_t m, int64_t k, uint64_t seed,
                     mxgemm_scale_layout layout = MXGEMM_SCALES_ROW_MAJOR) {
  std::vector<float> values;
  std::vector<uint8_t> bytes;
  makeInput(t, m, k, seed, values, bytes);
  const nx::FP8Format fmt =
      format == MXGEMM_DTYPE_E4M3 ? nx::FP8Format::E4M3 : nx::FP8Format::E5M2;
  nx::MXMatrix want = nx::quantizeMX(values.data(), m, k, fmt);
  // An MFMA-native layout: the reference's scales rewritten by the contract,
  // padding 127 (the buffer starts as 0xa5).
  size_t scaleBytes = 0;
  EXPECT_EQ(mxgemm_scale_bytes(layout, m, k, &scaleBytes), MXGEMM_STATUS_OK);
  if (layout != MXGEMM_SCALES_ROW_MAJOR) {
    std::vector<uint8_t> native(scaleBytes);
    EXPECT_TRUE(contract::preshuffleScales(
        contract::ScaleLayout(layout), want.scales.data(), m, k / 32, k / 32,
        native.data(), native.size()));
    want.scales = std::move(native);
  }
  DeviceBuffer in(ctx, bytes), codes(ctx, size_t(m * k)),
      scales(ctx, scaleBytes);
  EXPECT_EQ(mxgemm_device_memset(ctx, codes.ptr, 0xa5, codes.bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_device_memset(ctx, scales.ptr, 0xa5, scales.bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(layout == MXGEMM_SCALES_ROW_MAJOR
                ? mxgemm_quantize(ctx, t.dtype, format, m, k, in.ptr, 0,
                                  codes.ptr, scales.ptr, nullptr)
                : mxgemm_quantize_to_layout(ctx, t.dtype, format, layout, m, k,
                                            in.ptr, 0, codes.ptr, scales.ptr,
                                            nullptr),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  EXPECT_EQ(mxgemm_synchronize(ctx, nullptr), MXGEMM_STATUS_OK);
  std::vector<uint8_t> gotCodes(codes.bytes), gotScales(scales.bytes);
  EXPECT_EQ(mxgemm_copy_to_host(ctx, gotCodes.data(), codes.ptr, codes.bytes),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(
      mxgemm_copy_to_host(ctx, gotScales.data(), scales.ptr, scales.bytes),
      MXGEMM_STATUS_OK);
  size_t mismatches = 0;
  for (size_t i = 0; i < gotCodes.size(); ++i)
    if (gotCodes[i] != want.data[i] && mismatches++ < 4)
      ADD_FAILURE() << t.name << " codes[" << i / k << "][" << i % k << "] = 0x"
                    << std::hex << int(gotCodes[i]) << ", want 0x"
                    << int(want.data[i]);
  for (size_t i = 0; i < gotScales.size(); ++i)
    if (gotScales[i] != want.scales[i] && mismatches++ < 4)
      ADD_FAILURE() << t.name << " scales[" << i << "] = 0x" << std::hex
                    << int(gotScales[i]) << ", want 0x" << int(want.scales[i]);
  return mismatches;
}

TEST(RuntimeQuantize, MatchesTheReferenceForEveryTypeFormatAndShape) {
  REQUIRE_FACADE();
  Context g;
  uint64_t seed = 1;
  // M = 333, K = 992: 10323 blocks, 41 workgroups with the last one partial.
  for (const InputType *t : {&kBF16, &kF16, &kF32})
    for (mxgemm_dtype format : {MXGEMM_DTYPE_E4M3, MXGEMM_DTYPE_E5M2})
      for (int64_t m : {1, 7, 333})
        for (int64_t k : {32, 992})
          EXPECT_EQ(runAndCompare(g.ctx, *t, format, m, k, seed++), 0u)
              << t->name << " -> " << format << " at M = " << m
              << ", K = " << k;
}

TEST(RuntimeQuantize, WritesMfmaNativeScaleLayouts) {
  REQUIRE_FACADE();
  Context g;
  uint64_t seed = 100;
  // Partial row groups (M = 7, 333) and chunks (K = 992: 31 blocks).
  for (mxgemm_scale_layout layout :
       {MXGEMM_SCALES_MFMA_16X16X128, MXGEMM_SCALES_MFMA_32X32X64})
    for (const InputType *t : {&kBF16, &kF32})
      for (int64_t m : {1, 7, 333})
        for (int64_t k : {32, 992})
          EXPECT_EQ(
              runAndCompare(g.ctx, *t, MXGEMM_DTYPE_E4M3, m, k, seed++, layout),
              0u)
              << t->name << " in layout " << int(layout) << " at M = " << m
              << ", K = " << k;
  // The row-major call and a bad layout value.
  DeviceBuffer in(g.ctx, 64 * 4), codes(g.ctx, 64), scales(g.ctx, 256);
  EXPECT_EQ(mxgemm_quantize_to_layout(g.ctx, MXGEMM_DTYPE_F32,
                                      MXGEMM_DTYPE_E4M3, mxgemm_scale_layout(3),
                                      1, 64, in.ptr, 0, codes.ptr, scales.ptr,
                                      nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mxgemm_last_error())
                .find("mxgemm_quantize_to_layout: scale_layout 3"),
            std::string::npos)
      << mxgemm_last_error();
}

TEST(RuntimeQuantize, TheCheckCanFail) {
  REQUIRE_FACADE();
  Context g;
  // FP16 bytes quantized as BF16: the comparison must see it.
  std::vector<float> values;
  std::vector<uint8_t> bytes;
  makeInput(kF16, 2, 64, 5, values, bytes);
  DeviceBuffer in(g.ctx, bytes), codes(g.ctx, 128), scales(g.ctx, 4);
  ASSERT_EQ(mxgemm_quantize(g.ctx, MXGEMM_DTYPE_BF16, MXGEMM_DTYPE_E4M3, 2, 64,
                            in.ptr, 0, codes.ptr, scales.ptr, nullptr),
            MXGEMM_STATUS_OK);
  std::vector<uint8_t> got(128);
  ASSERT_EQ(mxgemm_copy_to_host(g.ctx, got.data(), codes.ptr, 128),
            MXGEMM_STATUS_OK);
  EXPECT_NE(got,
            nx::quantizeMX(values.data(), 2, 64, nx::FP8Format::E4M3).data);
}

TEST(RuntimeQuantize, BadArgumentsLaunchNothing) {
  REQUIRE_FACADE();
  Context g;
  DeviceBuffer in(g.ctx, 4096), codes(g.ctx, 1024), scales(g.ctx, 64);
  ASSERT_EQ(mxgemm_device_memset(g.ctx, codes.ptr, 0x5a, 1024),
            MXGEMM_STATUS_OK);
  const auto bf16 = MXGEMM_DTYPE_BF16, e4m3 = MXGEMM_DTYPE_E4M3;
  struct Case {
    mxgemm_dtype in, format;
    int64_t m, k;
    const void *input;
    int64_t ld;
    void *codes, *scales;
    mxgemm_status want;
    const char *message;
  } cases[] = {
      {bf16, e4m3, 2, 48, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "not a multiple of 32"},
      {bf16, e4m3, 0, 32, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "1..2^31-1"},
      {bf16, e4m3, -1, 32, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "1..2^31-1"},
      {bf16, e4m3, 2, 0, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "1..2^31-1"},
      {bf16, e4m3, int64_t(1) << 31, 32, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "1..2^31-1"},
      {bf16, e4m3, INT32_MAX, INT32_MAX - 31, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "more workgroups"},
      {bf16, e4m3, 2, 32, nullptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "non-NULL"},
      {bf16, e4m3, 2, 32, in.ptr, 0, nullptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "non-NULL"},
      {bf16, e4m3, 2, 32, in.ptr, 0, codes.ptr, nullptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "non-NULL"},
      {MXGEMM_DTYPE_E4M3, e4m3, 2, 32, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "in_type 0"},
      {mxgemm_dtype(42), e4m3, 2, 32, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "in_type 42"},
      {bf16, MXGEMM_DTYPE_BF16, 2, 32, in.ptr, 0, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "format 2"},
      {bf16, e4m3, 2, 64, in.ptr, 32, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "ld_input (32)"},
      {bf16, e4m3, 2, 64, in.ptr, -64, codes.ptr, scales.ptr,
       MXGEMM_STATUS_INVALID_ARGUMENT, "ld_input (-64)"},
      {bf16, e4m3, 2, 32, in.ptr, 64, codes.ptr, scales.ptr,
       MXGEMM_STATUS_NOT_ELIGIBLE, "contiguous rows"},
      {bf16, e4m3, 2, 32, static_cast<char *>(in.ptr) + 2, 0, codes.ptr,
       scales.ptr, MXGEMM_STATUS_NOT_ELIGIBLE, "16-byte aligned"},
      {bf16, e4m3, 2, 32, in.ptr, 0, static_cast<char *>(codes.ptr) + 1,
       scales.ptr, MXGEMM_STATUS_NOT_ELIGIBLE, "16-byte aligned"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(mxgemm_quantize(g.ctx, c.in, c.format, c.m, c.k, c.input, c.ld,
                              c.codes, c.scales, nullptr),
              c.want)
        << c.message;
    EXPECT_NE(std::strstr(mxgemm_last_error(), c.message), nullptr)
        << mxgemm_last_error();
  }
  // A destroyed context is refused too.
  mxgemm_context *dead = nullptr;
  ASSERT_EQ(mxgemm_context_create(nullptr, &dead), MXGEMM_STATUS_OK);
  ASSERT_EQ(mxgemm_context_destroy(dead), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_quantize(dead, bf16, e4m3, 2, 32, in.ptr, 0, codes.ptr,
                            scales.ptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  // Nothing was written.
  std::vector<uint8_t> after(1024);
  ASSERT_EQ(mxgemm_copy_to_host(g.ctx, after.data(), codes.ptr, 1024),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(after, std::vector<uint8_t>(1024, 0x5a));
}

TEST(RuntimeQuantize, DryRunChecksAndLaunchesNothing) {
  REQUIRE_FACADE();
  Context g(/*strict=*/0, /*dryRun=*/1);
  DeviceBuffer in(g.ctx, 4096), codes(g.ctx, 1024), scales(g.ctx, 64);
  ASSERT_EQ(mxgemm_device_memset(g.ctx, codes.ptr, 0x5a, 1024),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_quantize(g.ctx, MXGEMM_DTYPE_F32, MXGEMM_DTYPE_E5M2, 8, 32,
                            in.ptr, 0, codes.ptr, scales.ptr, nullptr),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  std::vector<uint8_t> after(1024);
  ASSERT_EQ(mxgemm_copy_to_host(g.ctx, after.data(), codes.ptr, 1024),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(after, std::vector<uint8_t>(1024, 0x5a));
}

TEST(RuntimeQuantize, WithoutHipItIsNotEligibleOrStrictlyAnError) {
  alignas(16) static uint8_t in[128], codes[64], scales[2];
  for (int strict : {0, 1}) {
    mxgemm_context_options o;
    mxgemm_context_options_init(&o);
    o.hip_library = "/nonexistent/libamdhip64.so";
    o.strict = strict;
    o.log = [](void *, const char *) {};
    mxgemm_context *ctx = nullptr;
    ASSERT_EQ(mxgemm_context_create(&o, &ctx), MXGEMM_STATUS_OK);
    EXPECT_EQ(mxgemm_quantize(ctx, MXGEMM_DTYPE_BF16, MXGEMM_DTYPE_E4M3, 2, 32,
                              in, 0, codes, scales, nullptr),
              strict ? MXGEMM_STATUS_HIP_ERROR : MXGEMM_STATUS_NOT_ELIGIBLE);
    EXPECT_NE(std::strstr(mxgemm_last_error(), "HIP unavailable"), nullptr)
        << mxgemm_last_error();
    mxgemm_context_destroy(ctx);
  }
}

} // namespace
