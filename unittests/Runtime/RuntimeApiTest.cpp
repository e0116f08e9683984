//===- RuntimeApiTest.cpp - C API checks that need no HIP -----------------===//
//
// Argument validation, the shape-level eligibility rules, status/reason
// strings, the embedded kernel library and the HIP-missing paths (warning,
// strict mode) of mxgemm_runtime.h. None of these load a working HIP: the
// context points at a library that does not exist.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Runtime/mxgemm_runtime.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr const char *kMissingHip = "/nonexistent/libamdhip64.so";

struct ContextGuard {
  mxgemm_context *ctx = nullptr;
  explicit ContextGuard(const mxgemm_context_options *options) {
    EXPECT_EQ(mxgemm_context_create(options, &ctx), MXGEMM_STATUS_OK);
  }
  ~ContextGuard() { mxgemm_context_destroy(ctx); }
};

mxgemm_context_options missingHipOptions(int strict = 0) {
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  o.hip_library = kMissingHip;
  o.strict = strict;
  o.log = [](void *user, const char *) {
    static_cast<std::atomic<int> *>(user)->fetch_add(1);
  };
  static std::atomic<int> sink;
  o.log_user_data = &sink;
  return o;
}

// A problem of the wq_b family inside the tuned range; its kernel reads W
// row-major (tuning/gfx950.json).
mxgemm_problem tunedProblem(int64_t m = 16384) {
  mxgemm_problem p;
  mxgemm_problem_init(&p, m, 16384, 1280);
  return p;
}

mxgemm_status query(mxgemm_context *ctx, const mxgemm_problem &p,
                    mxgemm_plan &plan) {
  std::memset(&plan, 0xab, sizeof(plan));
  return mxgemm_query(ctx, &p, &plan);
}

TEST(RuntimeApi, VersionAndStrings) {
  EXPECT_STREQ(mxgemm_version(), "0.3.1");
  EXPECT_STREQ(mxgemm_status_string(MXGEMM_STATUS_OK), "MXGEMM_STATUS_OK");
  EXPECT_STREQ(mxgemm_status_string(MXGEMM_STATUS_NOT_ELIGIBLE),
               "MXGEMM_STATUS_NOT_ELIGIBLE");
  EXPECT_STREQ(mxgemm_status_string(mxgemm_status(99)),
               "MXGEMM_STATUS_UNKNOWN");
  EXPECT_STREQ(mxgemm_reason_string(MXGEMM_REASON_M_OUT_OF_RANGE),
               "MXGEMM_REASON_M_OUT_OF_RANGE");
  EXPECT_STREQ(mxgemm_reason_string(mxgemm_reason(-1)),
               "MXGEMM_REASON_UNKNOWN");
}

TEST(RuntimeApi, EmbeddedLibraryHasTheSevenFamilies) {
  // One entry per family and M bucket (docs/Compiler.md): 7 x 9, two
  // more ranges of shared_gate_up's qualified bucket, 38 more where a
  // bucket is cut into tail-split ranges (docs/Tuning.md, "Tail splits per
  // M range"), two scale-layout variants (wo_b_native_xs and
  // engram_native_xs, checked in EveryFamilyServesM1To65536InOneWeightLayout),
  // then the six generic kernels (two weight-scale kinds x three M ranges),
  // whose N and K read 0 (any).
  ASSERT_EQ(mxgemm_kernel_count(), 111u);
  std::vector<std::pair<int64_t, int64_t>> genericRanges;
  for (size_t i = 105; i < 111; ++i) {
    mxgemm_kernel_info info;
    ASSERT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
    EXPECT_EQ(info.n, 0) << info.entry;
    EXPECT_EQ(info.k, 0) << info.entry;
    EXPECT_EQ(std::strncmp(info.entry, "generic_e4m3_e4m3_", 18), 0);
    EXPECT_EQ(info.w_layout, MXGEMM_WEIGHTS_ROW_MAJOR);
    EXPECT_EQ(info.out_type, MXGEMM_DTYPE_BF16);
    genericRanges.push_back({info.m_min, info.m_max});
  }
  std::sort(genericRanges.begin(), genericRanges.end());
  const std::vector<std::pair<int64_t, int64_t>> expectedRanges = {
      {1, 16}, {1, 16}, {17, 64}, {17, 64}, {65, 2147483647}, {65, 2147483647}};
  EXPECT_EQ(genericRanges, expectedRanges);
  const char *families[] = {"wq_b",           "engram",    "wo_b",
                            "shared_gate_up", "fused_qkv", "shared_down",
                            "index_query"};
  for (const char *family : families) {
    bool found = false;
    for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
      mxgemm_kernel_info info;
      ASSERT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
      if (std::strcmp(info.entry, family) != 0)
        continue;
      found = true;
      // The qualified bucket 8193..16384, whole or split by M range with
      // entries <family>_m<lo>_<hi> of the same key.
      EXPECT_GE(info.m_min, 8193);
      EXPECT_LE(info.m_max, 16384);
      int64_t covered = 0;
      for (size_t j = 0; j < mxgemm_kernel_count(); ++j) {
        mxgemm_kernel_info other;
        ASSERT_EQ(mxgemm_kernel_get(j, &other), MXGEMM_STATUS_OK);
        if (other.n == info.n && other.k == info.k &&
            other.w_scale == info.w_scale &&
            other.x_scale_layout == MXGEMM_SCALES_ROW_MAJOR &&
            other.m_min >= 8193 && other.m_max <= 16384 &&
            (j == i ||
             std::string(other.entry) == std::string(family) + "_m" +
                                             std::to_string(other.m_min) + "_" +
                                             std::to_string(other.m_max)))
          covered += other.m_max - other.m_min + 1;
      }
      EXPECT_EQ(covered, 16384 - 8193 + 1) << family;
      EXPECT_STREQ(info.arch, "gfx950");
      EXPECT_EQ(info.x_type, MXGEMM_DTYPE_E4M3);
      EXPECT_EQ(info.w_scale, MXGEMM_SCALE_BLOCK32X32);
      EXPECT_EQ(info.out_type, MXGEMM_DTYPE_BF16);
      EXPECT_EQ(std::string(info.kernel), std::string("mxgemm_") + family);
      EXPECT_NE(std::strstr(info.note, "case-table plan"), nullptr);
      const void *code;
      size_t bytes;
      ASSERT_EQ(mxgemm_kernel_code_object(i, &code, &bytes), MXGEMM_STATUS_OK);
      EXPECT_EQ(bytes, info.code_object_bytes);
      ASSERT_GT(bytes, 64u);
      EXPECT_EQ(std::memcmp(code,
                            "\x7f"
                            "ELF",
                            4),
                0);
    }
    EXPECT_TRUE(found) << family;
  }
  mxgemm_kernel_info info;
  EXPECT_EQ(mxgemm_kernel_get(mxgemm_kernel_count(), &info),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_kernel_get(0, nullptr), MXGEMM_STATUS_INVALID_ARGUMENT);
}

TEST(RuntimeApi, EveryFamilyServesM1To65536InOneWeightLayout) {
  // The bucket entries of a key tile M = 1..65536 without gap or overlap
  // and read W in the layout of the key's qualified (8193..16384) kernel,
  // so a weight packed once serves every M; with row-major scales, so
  // every caller is served at every M (a scale-layout variant only adds a
  // kernel for callers with native scales, in the same W layout).
  std::map<std::pair<int64_t, int64_t>, std::vector<mxgemm_kernel_info>> keys;
  std::vector<mxgemm_kernel_info> variants;
  for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
    mxgemm_kernel_info info;
    ASSERT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
    if (info.n == 0) // a generic kernel
      continue;
    if (info.x_scale_layout == MXGEMM_SCALES_ROW_MAJOR &&
        info.w_scale_layout == MXGEMM_SCALES_ROW_MAJOR)
      keys[{info.n, info.k}].push_back(info);
    else
      variants.push_back(info);
  }
  ASSERT_EQ(variants.size(), 2u);
  for (const mxgemm_kernel_info &v : variants) {
    ASSERT_EQ(keys.count({v.n, v.k}), 1u) << v.entry;
    bool sameRange = false;
    for (const mxgemm_kernel_info &info : keys[{v.n, v.k}])
      if (info.m_min == v.m_min && info.m_max == v.m_max) {
        sameRange = true;
        EXPECT_EQ(info.w_layout, v.w_layout) << v.entry;
      }
    EXPECT_TRUE(sameRange) << v.entry;
  }
  ASSERT_EQ(keys.size(), 7u);
  for (auto &[key, infos] : keys) {
    std::sort(infos.begin(), infos.end(),
              [](const mxgemm_kernel_info &a, const mxgemm_kernel_info &b) {
                return a.m_min < b.m_min;
              });
    int64_t next = 1;
    for (const mxgemm_kernel_info &info : infos) {
      EXPECT_EQ(info.m_min, next) << info.entry;
      EXPECT_EQ(info.w_layout, infos.front().w_layout) << info.entry;
      next = info.m_max + 1;
    }
    EXPECT_EQ(next, 65537) << key.first << " x " << key.second;
  }
}

TEST(RuntimeApi, InvalidArguments) {
  auto options = missingHipOptions();
  ContextGuard g(&options);
  mxgemm_plan plan;
  mxgemm_problem p = tunedProblem();
  EXPECT_EQ(mxgemm_context_create(nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_query(nullptr, &p, &plan), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_query(g.ctx, nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_query(g.ctx, &p, nullptr), MXGEMM_STATUS_INVALID_ARGUMENT);

  auto expectInvalid = [&](mxgemm_problem bad, const char *what) {
    EXPECT_EQ(query(g.ctx, bad, plan), MXGEMM_STATUS_INVALID_ARGUMENT) << what;
    EXPECT_EQ(plan.status, MXGEMM_STATUS_INVALID_ARGUMENT) << what;
    EXPECT_STREQ(plan.kernel, "") << what;
    EXPECT_NE(plan.message[0], '\0') << what;
  };
  mxgemm_problem q = p;
  q.m = 0;
  expectInvalid(q, "M = 0");
  q = p;
  q.n = -5;
  expectInvalid(q, "N < 0");
  q = p;
  q.k = 0;
  expectInvalid(q, "K = 0");
  q = p;
  q.x_type = mxgemm_dtype(17);
  expectInvalid(q, "bad dtype");
  q = p;
  q.w_scale = mxgemm_scale_granularity(3);
  expectInvalid(q, "bad scale granularity");
  q = p;
  q.ld_x = 1000; // smaller than K = 1280
  expectInvalid(q, "ld_x < K");
  q = p;
  q.ld_ws = -1;
  expectInvalid(q, "negative ld");
  q = p;
  q.w_layout = mxgemm_weight_layout(2);
  expectInvalid(q, "bad weight layout");
  q = p;
  q.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  q.ld_w = 2 * q.k; // panels have no leading dimension
  expectInvalid(q, "ld_w on packed W");
  EXPECT_NE(std::strstr(plan.message, "no leading dimension"), nullptr);
  q = p;
  q.m = int64_t(1) << 62;
  expectInvalid(q, "M * K overflows");
  EXPECT_NE(std::strstr(plan.message, "overflows"), nullptr);
  q = p;
  q.ld_y = int64_t(1) << 60;
  expectInvalid(q, "M * ld_y overflows");

  // mxgemm_gemm: null tensors and null pointers inside.
  mxgemm_tensors t{};
  EXPECT_EQ(mxgemm_gemm(g.ctx, &p, nullptr, nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_gemm(g.ctx, &p, &t, nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(plan.message, "NULL"), nullptr);
  EXPECT_NE(std::strstr(mxgemm_last_error(), "NULL"), nullptr);
  EXPECT_EQ(mxgemm_gemm(nullptr, &p, &t, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  // A null problem is refused before anything dereferences it.
  EXPECT_EQ(mxgemm_gemm(g.ctx, nullptr, &t, nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_gemm(g.ctx, nullptr, &t, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);

  // Helpers.
  size_t bytes = 0;
  EXPECT_EQ(mxgemm_pack_weights(g.ctx, &p, nullptr, nullptr, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_pack_weights(nullptr, &p, nullptr, nullptr, &bytes, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  int notNull = 0; // packing into a buffer needs W
  EXPECT_EQ(mxgemm_pack_weights(g.ctx, &p, nullptr, &notNull, &bytes, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  void *ptr = nullptr;
  EXPECT_EQ(mxgemm_device_alloc(g.ctx, 0, &ptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_copy_to_device(g.ctx, nullptr, &bytes, 4),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  mxgemm_plan notOk{};
  int64_t row, col;
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&notOk, 0, &row, &col),
            MXGEMM_STATUS_INVALID_ARGUMENT);
}

struct NotEligibleCase {
  const char *what;
  void (*edit)(mxgemm_problem &);
  mxgemm_reason reason;
  const char *messagePart;
};

TEST(RuntimeApi, ShapeRulesAreNotEligible) {
  auto options = missingHipOptions();
  ContextGuard g(&options);
  // The reasons of the tuned path: generic kernels (on by default) would
  // serve the unknown N, the per-row scales and M above the range.
  ASSERT_EQ(mxgemm_context_set_generic(g.ctx, 0), MXGEMM_STATUS_OK);
  const NotEligibleCase cases[] = {
      {"f32 output", [](mxgemm_problem &p) { p.out_type = MXGEMM_DTYPE_F32; },
       MXGEMM_REASON_OUTPUT_TYPE, "BF16 only"},
      {"bf16 X", [](mxgemm_problem &p) { p.x_type = MXGEMM_DTYPE_BF16; },
       MXGEMM_REASON_NOT_PREQUANTIZED, "pre-quantized"},
      {"f32 W", [](mxgemm_problem &p) { p.w_type = MXGEMM_DTYPE_F32; },
       MXGEMM_REASON_NOT_PREQUANTIZED, "W is f32"},
      {"K % 32", [](mxgemm_problem &p) { p.k = 1288; },
       MXGEMM_REASON_K_NOT_MULTIPLE_OF_32, "K = 1288"},
      {"strided X", [](mxgemm_problem &p) { p.ld_x = 2048; },
       MXGEMM_REASON_NOT_CONTIGUOUS, "X is not contiguous"},
      {"strided Y", [](mxgemm_problem &p) { p.ld_y = 16400; },
       MXGEMM_REASON_NOT_CONTIGUOUS, "Y is not contiguous"},
      {"unknown N", [](mxgemm_problem &p) { p.n = 4224; },
       MXGEMM_REASON_NO_TUNED_KERNEL, "N = 4224"},
      {"e5m2 W", [](mxgemm_problem &p) { p.w_type = MXGEMM_DTYPE_E5M2; },
       MXGEMM_REASON_NO_TUNED_KERNEL, "w e5m2"},
      {"per-row scales",
       [](mxgemm_problem &p) { p.w_scale = MXGEMM_SCALE_PER_ROW; },
       MXGEMM_REASON_NO_TUNED_KERNEL, "per_row"},
      {"huge N", [](mxgemm_problem &p) { p.n = int64_t(1) << 30; },
       MXGEMM_REASON_NO_TUNED_KERNEL, "no tuned kernel"},
      {"M above range", [](mxgemm_problem &p) { p.m = 65537; },
       MXGEMM_REASON_M_OUT_OF_RANGE,
       "M = 65537 is outside the tuned M range 1..65536"},
  };
  for (const NotEligibleCase &c : cases) {
    mxgemm_problem p = tunedProblem();
    c.edit(p);
    mxgemm_plan plan;
    EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_NOT_ELIGIBLE) << c.what;
    EXPECT_EQ(plan.reason, c.reason) << c.what;
    EXPECT_STREQ(plan.kernel, "") << c.what;
    EXPECT_EQ(plan.grid_x, 0u) << c.what;
    EXPECT_NE(std::strstr(plan.message, c.messagePart), nullptr)
        << c.what << ": " << plan.message;
  }
}

TEST(RuntimeApi, MissingHipIsNotEligibleWithOneWarning) {
  std::atomic<int> warnings{0};
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  o.hip_library = kMissingHip;
  o.log = [](void *user, const char *message) {
    EXPECT_NE(std::strstr(message, "HIP is not available"), nullptr);
    static_cast<std::atomic<int> *>(user)->fetch_add(1);
  };
  o.log_user_data = &warnings;
  for (int round = 0; round < 2; ++round) {
    ContextGuard g(&o);
    mxgemm_problem p = tunedProblem();
    mxgemm_plan plan;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_NOT_ELIGIBLE);
      EXPECT_EQ(plan.reason, MXGEMM_REASON_HIP_UNAVAILABLE);
      EXPECT_NE(std::strstr(plan.message, kMissingHip), nullptr)
          << plan.message;
    }
    alignas(16) static char buf[64];
    mxgemm_tensors t{buf, buf, buf, buf, buf};
    EXPECT_EQ(mxgemm_gemm(g.ctx, &p, &t, nullptr, nullptr),
              MXGEMM_STATUS_NOT_ELIGIBLE);
    void *ptr = nullptr;
    EXPECT_EQ(mxgemm_device_alloc(g.ctx, 16, &ptr), MXGEMM_STATUS_HIP_ERROR);
    EXPECT_NE(std::strstr(mxgemm_last_error(), "HIP unavailable"), nullptr);
  }
  // Once per process: ctest runs each test in its own process, so exactly
  // one; when the whole binary runs in one process an earlier test may have
  // warned already.
  EXPECT_LE(warnings.load(), 1);
}

TEST(RuntimeApi, StrictModeMakesMissingHipAnError) {
  auto options = missingHipOptions(/*strict=*/1);
  ContextGuard g(&options);
  mxgemm_problem p = tunedProblem();
  mxgemm_plan plan;
  EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_HIP_ERROR);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_HIP_UNAVAILABLE);
  // Shape rules stay NOT_ELIGIBLE in strict mode: the caller's path runs
  // (with generic kernels off; on, M = 100000 has a generic kernel, which
  // needs HIP).
  p.m = 100000;
  EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_HIP_ERROR);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_HIP_UNAVAILABLE);
  ASSERT_EQ(mxgemm_context_set_generic(g.ctx, 0), MXGEMM_STATUS_OK);
  EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_M_OUT_OF_RANGE);
}

TEST(RuntimeApi, InternalErrorsDoNotCrossTheBoundary) {
  ::setenv("MXGEMM_RUNTIME_FAULT", "internal", 1);
  auto options = missingHipOptions();
  ContextGuard g(&options);
  ::unsetenv("MXGEMM_RUNTIME_FAULT");
  mxgemm_problem p = tunedProblem();
  mxgemm_plan plan;
  EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_INTERNAL);
  EXPECT_NE(std::strstr(mxgemm_last_error(), "injected"), nullptr);
}

TEST(RuntimeApi, ContextOptionsAndEnvironment) {
  // NULL options are the defaults; destroy(NULL) is a no-op.
  mxgemm_context *ctx = nullptr;
  ASSERT_EQ(mxgemm_context_create(nullptr, &ctx), MXGEMM_STATUS_OK);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(mxgemm_context_destroy(ctx), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_context_destroy(nullptr), MXGEMM_STATUS_OK);
  // MXGEMM_HIP_LIBRARY is used when the options do not name a library.
  const char *saved = std::getenv("MXGEMM_HIP_LIBRARY");
  std::string savedValue = saved ? saved : "";
  ::setenv("MXGEMM_HIP_LIBRARY", "/nonexistent/from-env.so", 1);
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  o.strict = 1;
  ContextGuard g(&o);
  if (saved)
    ::setenv("MXGEMM_HIP_LIBRARY", savedValue.c_str(), 1);
  else
    ::unsetenv("MXGEMM_HIP_LIBRARY");
  mxgemm_problem p = tunedProblem();
  mxgemm_plan plan;
  EXPECT_EQ(query(g.ctx, p, plan), MXGEMM_STATUS_HIP_ERROR);
  EXPECT_NE(std::strstr(plan.message, "from-env.so"), nullptr) << plan.message;
}

} // namespace
