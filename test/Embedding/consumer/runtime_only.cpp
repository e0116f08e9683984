//===- runtime_only.cpp - embed only the mxgemm runtime shim --------------===//
//
// An inference engine that ships prebuilt kernels links libmxgemm_runtime.so
// alone: no MLIR, no LLVM, no HIP at link time. Checks the version, the
// status names and that a HIP library that does not exist is reported with
// the documented statuses (NOT_ELIGIBLE / HIP_UNAVAILABLE, HIP_ERROR in
// strict mode) instead of failing the process.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "FAILED: %s (%s:%d)\n", what, __FILE__, __LINE__);  \
      std::exit(1);                                                            \
    }                                                                          \
    std::printf("ok: %s\n", what);                                             \
  } while (0)

static void collectWarning(void *userData, const char *message) {
  *static_cast<std::string *>(userData) += message;
}

/// Queries the first embedded kernel's problem with a HIP library that
/// does not exist.
static mxgemm_status queryWithoutHip(int strict, mxgemm_plan *plan,
                                     std::string *warnings) {
  mxgemm_kernel_info info;
  if (mxgemm_kernel_get(0, &info) != MXGEMM_STATUS_OK)
    return MXGEMM_STATUS_INTERNAL;
  mxgemm_context_options options;
  mxgemm_context_options_init(&options);
  options.hip_library = "/nonexistent/libamdhip64.so";
  options.strict = strict;
  options.log = collectWarning;
  options.log_user_data = warnings;
  mxgemm_context *context = nullptr;
  if (mxgemm_context_create(&options, &context) != MXGEMM_STATUS_OK)
    return MXGEMM_STATUS_INTERNAL;
  mxgemm_problem problem;
  mxgemm_problem_init(&problem, info.m_min, info.n, info.k);
  problem.x_type = info.x_type;
  problem.w_layout = info.w_layout; // the layout the kernel reads
  problem.w_type = info.w_type;
  problem.w_scale = info.w_scale;
  problem.out_type = info.out_type;
  mxgemm_status status = mxgemm_query(context, &problem, plan);
  mxgemm_context_destroy(context);
  return status;
}

int main() {
  std::string version = std::to_string(MXGEMM_VERSION_MAJOR) + "." +
                        std::to_string(MXGEMM_VERSION_MINOR) + "." +
                        std::to_string(MXGEMM_VERSION_PATCH);
  CHECK(version == mxgemm_version(), "mxgemm_version() matches the header");
  CHECK(std::strcmp(mxgemm_status_string(MXGEMM_STATUS_NOT_ELIGIBLE),
                    "MXGEMM_STATUS_NOT_ELIGIBLE") == 0,
        "mxgemm_status_string names NOT_ELIGIBLE");
  CHECK(std::strcmp(mxgemm_reason_string(MXGEMM_REASON_HIP_UNAVAILABLE),
                    "MXGEMM_REASON_HIP_UNAVAILABLE") == 0,
        "mxgemm_reason_string names HIP_UNAVAILABLE");
  CHECK(mxgemm_context_create(nullptr, nullptr) ==
            MXGEMM_STATUS_INVALID_ARGUMENT,
        "a NULL context pointer is INVALID_ARGUMENT");
  CHECK(mxgemm_kernel_count() > 0, "the kernel library is embedded");

  mxgemm_plan plan;
  std::string warnings;
  CHECK(queryWithoutHip(/*strict=*/0, &plan, &warnings) ==
                MXGEMM_STATUS_NOT_ELIGIBLE &&
            plan.reason == MXGEMM_REASON_HIP_UNAVAILABLE,
        "a bogus HIP library is NOT_ELIGIBLE / HIP_UNAVAILABLE");
  std::printf("plan: %s\n", plan.message);
  CHECK(queryWithoutHip(/*strict=*/1, &plan, &warnings) ==
                MXGEMM_STATUS_HIP_ERROR &&
            plan.reason == MXGEMM_REASON_HIP_UNAVAILABLE,
        "in strict mode it is HIP_ERROR");
  std::printf("runtime-only: all checks passed\n");
  return 0;
}
