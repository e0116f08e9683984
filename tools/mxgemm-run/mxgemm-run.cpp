//===- mxgemm-run.cpp - run one GEMM through the runtime shim -------------===//
//
// mxgemm-run --m M --n N --k K [--x-format e4m3|e5m2|bf16] [--w-format ..]
//            [--w-scale block32x32|per-row] [--out-type bf16|f32] [--seed S]
//            [--sample N] [--dump DIR] [--hip-library PATH] [--strict]
//            [--w-layout auto|row-major|panels]
//
// Prints the shim's plan (or the rule that makes the problem ineligible)
// first, then runs the problem through libmxgemm_runtime.so exactly as an
// inference engine would: on the emulator's HIP facade by default, or on
// real HIP when libamdhip64.so can be loaded (MXGEMM_HIP_LIBRARY overrides
// both). On the facade only `--sample` workgroups execute (the first, the
// last and random ones; 0 = all). Those tiles are compared bit for bit with
// the CPU reference. --dump writes x.npy xs.npy w.npy ws.npy y.npy and
// mask.npy (bool [M, N], the elements that were computed and checked).
// W is generated row-major; with --w-layout auto (the default) and a kernel
// that reads MFMA panels, it is packed once with mxgemm_pack_weights, as an
// engine does at load time. row-major/panels pass the problem as given.
//
// Exit status: 0 verified, 1 mismatch or I/O error, 2 invalid arguments,
// 3 NOT_ELIGIBLE (the caller's fallback path would run), 4 HIP error.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/Npy.h"
#include "mxgemm/Numerics/Quantize.h"
#include "mxgemm/Numerics/Reference.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace nx = mxgemm::numerics;

namespace {

enum ExitCode {
  kVerified = 0,
  kFailed = 1,
  kInvalid = 2,
  kNotEligible = 3,
  kHipError = 4
};

struct Options {
  int64_t m = 0, n = 0, k = 0;
  std::string xFormat = "e4m3", wFormat = "e4m3", wScale = "block32x32",
              outType = "bf16";
  uint64_t seed = 1;
  int64_t sample = 4;
  std::string dump, hipLibrary, wLayout = "auto";
  bool strict = false;
};

[[noreturn]] void usage(const char *error) {
  std::fprintf(stderr,
               "mxgemm-run: error: %s\nusage: mxgemm-run --m M --n N --k K "
               "[--x-format e4m3|e5m2|bf16] [--w-format ...] [--w-scale "
               "block32x32|per-row] [--out-type bf16|f32] [--seed S] "
               "[--sample N] [--dump DIR] [--hip-library PATH] [--strict] "
               "[--w-layout auto|row-major|panels]\n",
               error);
  std::exit(kInvalid);
}

bool parseDtype(const std::string &s, mxgemm_dtype &t) {
  static const struct {
    const char *name;
    mxgemm_dtype type;
  } names[] = {{"e4m3", MXGEMM_DTYPE_E4M3},
               {"e5m2", MXGEMM_DTYPE_E5M2},
               {"bf16", MXGEMM_DTYPE_BF16},
               {"f16", MXGEMM_DTYPE_F16},
               {"f32", MXGEMM_DTYPE_F32}};
  for (const auto &n : names)
    if (s == n.name) {
      t = n.type;
      return true;
    }
  return false;
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage((a + " needs a value").c_str());
      return argv[++i];
    };
    auto integer = [&]() -> int64_t {
      std::string v = value();
      char *end = nullptr;
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end)
        usage((a + " needs an integer, got '" + v + "'").c_str());
      return x;
    };
    if (a == "--m")
      o.m = integer();
    else if (a == "--n")
      o.n = integer();
    else if (a == "--k")
      o.k = integer();
    else if (a == "--x-format")
      o.xFormat = value();
    else if (a == "--w-format")
      o.wFormat = value();
    else if (a == "--w-scale")
      o.wScale = value();
    else if (a == "--out-type")
      o.outType = value();
    else if (a == "--seed")
      o.seed = uint64_t(integer());
    else if (a == "--sample")
      o.sample = integer();
    else if (a == "--dump")
      o.dump = value();
    else if (a == "--hip-library")
      o.hipLibrary = value();
    else if (a == "--strict")
      o.strict = true;
    else if (a == "--w-layout")
      o.wLayout = value();
    else if (a == "--help" || a == "-h")
      usage("help requested");
    else
      usage(("unknown option " + a).c_str());
  }
  if (o.sample < 0)
    usage("--sample must be >= 0");
  return o;
}

/// MXGEMM_HIP_LIBRARY, else real HIP if it loads, else the emulator facade
/// next to this binary (../lib/libmxgemm_hip_emu.so).
std::string chooseHipLibrary(const Options &o, bool &facade) {
  facade = false;
  std::string path = o.hipLibrary;
  if (path.empty())
    if (const char *env = std::getenv("MXGEMM_HIP_LIBRARY"))
      path = env;
  if (path.empty()) {
    if (void *h = dlopen("libamdhip64.so", RTLD_LAZY | RTLD_LOCAL)) {
      dlclose(h);
      return "libamdhip64.so";
    }
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    std::string dir = len > 0 ? std::string(exe, size_t(len)) : "";
    dir = dir.substr(0, dir.find_last_of('/'));
    path = dir + "/../lib/libmxgemm_hip_emu.so";
  }
  facade = path.find("mxgemm_hip_emu") != std::string::npos;
  return path;
}

int statusExit(mxgemm_status s) {
  switch (s) {
  case MXGEMM_STATUS_OK:
    return kVerified;
  case MXGEMM_STATUS_NOT_ELIGIBLE:
  case MXGEMM_STATUS_NOT_SUPPORTED:
    return kNotEligible;
  case MXGEMM_STATUS_INVALID_ARGUMENT:
    return kInvalid;
  case MXGEMM_STATUS_HIP_ERROR:
    return kHipError;
  default:
    return kFailed;
  }
}

struct Device {
  mxgemm_context *ctx;
  std::vector<void *> buffers;
  ~Device() {
    for (void *p : buffers)
      mxgemm_device_free(ctx, p);
  }
  void *upload(const std::vector<uint8_t> &host) {
    void *p = alloc(host.size());
    check(mxgemm_copy_to_device(ctx, p, host.data(), host.size()));
    return p;
  }
  void *alloc(size_t bytes) {
    void *p = nullptr;
    check(mxgemm_device_alloc(ctx, bytes, &p));
    buffers.push_back(p);
    return p;
  }
  void check(mxgemm_status s) {
    if (s != MXGEMM_STATUS_OK) {
      std::fprintf(stderr, "mxgemm-run: error: %s: %s\n",
                   mxgemm_status_string(s), mxgemm_last_error());
      std::exit(statusExit(s));
    }
  }
};

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  mxgemm_problem p;
  mxgemm_problem_init(&p, o.m, o.n, o.k);
  if (!parseDtype(o.xFormat, p.x_type) || !parseDtype(o.wFormat, p.w_type) ||
      !parseDtype(o.outType, p.out_type))
    usage("formats are e4m3, e5m2, bf16, f16 or f32");
  if (o.wScale == "block32x32")
    p.w_scale = MXGEMM_SCALE_BLOCK32X32;
  else if (o.wScale == "per-row" || o.wScale == "per_row")
    p.w_scale = MXGEMM_SCALE_PER_ROW;
  else
    usage("--w-scale must be block32x32 or per-row");
  if (o.wLayout == "panels")
    p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  else if (o.wLayout != "auto" && o.wLayout != "row-major")
    usage("--w-layout must be auto, row-major or panels");

  bool facade = false;
  std::string hipPath = chooseHipLibrary(o, facade);
  mxgemm_context_options copts;
  mxgemm_context_options_init(&copts);
  copts.hip_library = hipPath.c_str();
  copts.strict = o.strict;
  mxgemm_context *ctx = nullptr;
  if (mxgemm_context_create(&copts, &ctx) != MXGEMM_STATUS_OK)
    return kFailed;

  std::printf("problem: M=%lld N=%lld K=%lld x=%s w=%s w_scale=%s out=%s\n",
              (long long)p.m, (long long)p.n, (long long)p.k, o.xFormat.c_str(),
              o.wFormat.c_str(), o.wScale.c_str(), o.outType.c_str());
  mxgemm_plan plan;
  mxgemm_status s = mxgemm_query(ctx, &p, &plan);
  const bool packW = o.wLayout == "auto" && s == MXGEMM_STATUS_NOT_ELIGIBLE &&
                     plan.reason == MXGEMM_REASON_PACKED_WEIGHTS &&
                     plan.w_layout == MXGEMM_WEIGHTS_MFMA_PANELS;
  if (packW) {
    p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
    s = mxgemm_query(ctx, &p, &plan);
  }
  if (s != MXGEMM_STATUS_OK) {
    std::printf("plan: %s %s: %s\n", mxgemm_status_string(s),
                mxgemm_reason_string(plan.reason), plan.message);
    std::fflush(stdout);
    mxgemm_context_destroy(ctx);
    return statusExit(s);
  }
  std::printf("plan: %s kernel %s (entry %s) grid %ux%ux%u block %ux%ux%u "
              "lds %u k_step %u M range %lld..%lld\n",
              mxgemm_status_string(s), plan.kernel, plan.entry, plan.grid_x,
              plan.grid_y, plan.grid_z, plan.block_x, plan.block_y,
              plan.block_z, plan.lds_bytes, plan.k_step, (long long)plan.m_min,
              (long long)plan.m_max);
  std::printf("  config: %s\n  note: %s\n", plan.config, plan.note);
  char devName[128] = "";
  int ccMajor = 0, ccMinor = 0;
  mxgemm_device_info(ctx, devName, sizeof(devName), &ccMajor, &ccMinor);
  std::printf("device: %s (compute capability %d.%d) via %s\n", devName,
              ccMajor, ccMinor, hipPath.c_str());
  std::fflush(stdout);

  // Workgroups to execute (facade) and check: first, last, random others.
  std::vector<uint32_t> workgroups;
  if (o.sample == 0 || uint64_t(o.sample) >= plan.grid_x) {
    for (uint32_t wg = 0; wg < plan.grid_x; ++wg)
      workgroups.push_back(wg);
  } else {
    std::set<uint32_t> chosen{0, plan.grid_x - 1};
    std::mt19937_64 rng(o.seed ^ 0x5eed);
    while (chosen.size() < uint64_t(o.sample))
      chosen.insert(uint32_t(rng() % plan.grid_x));
    workgroups.assign(chosen.begin(), chosen.end());
  }
  if (facade) {
    std::string list;
    for (uint32_t wg : workgroups)
      list += (list.empty() ? "" : ",") + std::to_string(wg);
    setenv("MXGEMM_EMU_WORKGROUPS", list.c_str(), 1);
  }

  nx::FP8Format xf =
      p.x_type == MXGEMM_DTYPE_E5M2 ? nx::FP8Format::E5M2 : nx::FP8Format::E4M3;
  nx::FP8Format wf =
      p.w_type == MXGEMM_DTYPE_E5M2 ? nx::FP8Format::E5M2 : nx::FP8Format::E4M3;
  nx::ScaleGranularity wg = p.w_scale == MXGEMM_SCALE_PER_ROW
                                ? nx::ScaleGranularity::PerRow
                                : nx::ScaleGranularity::Block32x32;
  nx::MXMatrix x = nx::randomMXMatrix(o.seed, p.m, p.k, xf);
  nx::MXMatrix w = nx::randomMXMatrix(o.seed + 1, p.n, p.k, wf, wg);

  Device dev{ctx, {}};
  mxgemm_tensors t;
  t.x = dev.upload(x.data);
  t.xs = dev.upload(x.scales);
  t.w = dev.upload(w.data);
  if (packW) {
    size_t bytes = 0;
    dev.check(mxgemm_pack_weights(ctx, &p, t.w, nullptr, &bytes, nullptr));
    void *packed = dev.alloc(bytes);
    dev.check(mxgemm_pack_weights(ctx, &p, t.w, packed, &bytes, nullptr));
    std::printf("weights: packed once in MFMA panels by mxgemm_pack_weights "
                "(%zu bytes)\n",
                bytes);
    std::fflush(stdout);
    t.w = packed;
  }
  t.ws = dev.upload(w.scales);
  size_t yBytes = size_t(p.m) * size_t(p.n) * 2;
  t.y = dev.alloc(yBytes);
  if (!o.dump.empty())
    dev.check(mxgemm_device_memset(ctx, t.y, 0xff, yBytes));
  s = mxgemm_gemm(ctx, &p, &t, nullptr, &plan);
  if (s != MXGEMM_STATUS_OK) {
    std::printf("gemm: %s %s: %s\n", mxgemm_status_string(s),
                mxgemm_reason_string(plan.reason), plan.message);
    return statusExit(s);
  }
  dev.check(mxgemm_synchronize(ctx, nullptr));

  // The checked tiles, their reference and the device result.
  std::vector<nx::OutputRegion> tiles;
  for (uint32_t g : workgroups) {
    int64_t row, col;
    dev.check(mxgemm_plan_workgroup_tile(&plan, g, &row, &col));
    tiles.push_back({row, std::min<int64_t>(row + plan.program_tile_m, p.m),
                     col, col + plan.tile_n});
  }
  nx::MXGemmOperands ops;
  ops.m = p.m, ops.n = p.n, ops.k = p.k;
  ops.x = x.data.data(), ops.xScales = x.scales.data(), ops.xFormat = xf;
  ops.w = w.data.data(), ops.wScales = w.scales.data(), ops.wFormat = wf;
  ops.wScaleGranularity = wg;
  nx::ReferenceOptions ro;
  ro.kStep = int(plan.k_step);
  size_t mismatches = 0, checked = 0;
  std::vector<uint16_t> yFull;
  if (!o.dump.empty()) {
    yFull.resize(size_t(p.m) * size_t(p.n));
    dev.check(mxgemm_copy_to_host(ctx, yFull.data(), t.y, yBytes));
  }
  for (const nx::OutputRegion &r : tiles) {
    int64_t rows = r.rowEnd - r.rowBegin, cols = r.colEnd - r.colBegin;
    std::vector<uint16_t> want(size_t(rows * cols)), got(want.size());
    nx::referenceGemmRegion(ops, r, nx::OutputType::BF16, want.data(), cols,
                            ro);
    for (int64_t i = 0; i < rows; ++i) {
      size_t offset = size_t((r.rowBegin + i) * p.n + r.colBegin);
      if (!yFull.empty())
        std::memcpy(&got[size_t(i * cols)], &yFull[offset], size_t(cols) * 2);
      else
        dev.check(mxgemm_copy_to_host(
            ctx, &got[size_t(i * cols)],
            static_cast<const char *>(t.y) + offset * 2, size_t(cols) * 2));
    }
    for (size_t i = 0; i < want.size(); ++i, ++checked)
      if (got[i] != want[i] && mismatches++ < 10)
        std::printf("mismatch: Y[%lld][%lld] = 0x%04x, reference 0x%04x\n",
                    (long long)(r.rowBegin + int64_t(i) / cols),
                    (long long)(r.colBegin + int64_t(i) % cols), got[i],
                    want[i]);
  }

  if (!o.dump.empty()) {
    mkdir(o.dump.c_str(), 0777);
    std::vector<uint8_t> mask(size_t(p.m) * size_t(p.n), 0);
    for (const nx::OutputRegion &r : tiles)
      for (int64_t i = r.rowBegin; i < r.rowEnd; ++i)
        std::memset(&mask[size_t(i * p.n + r.colBegin)], 1,
                    size_t(r.colEnd - r.colBegin));
    std::string err;
    auto write = [&](const char *name, nx::NpyDType type, const void *data,
                     int64_t rows, int64_t cols) {
      if (!nx::writeNpy(o.dump + "/" + name, type, data, rows, cols, &err)) {
        std::fprintf(stderr, "mxgemm-run: error: %s\n", err.c_str());
        std::exit(kFailed);
      }
    };
    write("x.npy", nx::NpyDType::UInt8, x.data.data(), p.m, p.k);
    write("xs.npy", nx::NpyDType::UInt8, x.scales.data(), x.scaleRows(),
          x.scaleCols());
    write("w.npy", nx::NpyDType::UInt8, w.data.data(), p.n, p.k);
    write("ws.npy", nx::NpyDType::UInt8, w.scales.data(), w.scaleRows(),
          w.scaleCols());
    write("y.npy", nx::NpyDType::UInt16, yFull.data(), p.m, p.n);
    write("mask.npy", nx::NpyDType::Bool, mask.data(), p.m, p.n);
    std::printf("dumped x.npy xs.npy w.npy ws.npy y.npy mask.npy to %s\n",
                o.dump.c_str());
  }
  std::printf("verify: %zu workgroups, %zu elements, %zu mismatches (bit-exact "
              "vs the CPU reference, k_step %u): %s\n",
              workgroups.size(), checked, mismatches, plan.k_step,
              mismatches ? "FAIL" : "OK");
  int rc = mismatches ? kFailed : kVerified;
  for (void *b : dev.buffers)
    mxgemm_device_free(ctx, b);
  dev.buffers.clear();
  mxgemm_context_destroy(ctx);
  return rc;
}
