//===- mxgemm-run.cpp - run one GEMM through the runtime shim -------------===//
//
// Prints the shim's plan (or the rule that makes the problem ineligible),
// then runs the problem through libmxgemm_runtime.so as an engine would
// (RuntimeRun/GemmRun.h): on real HIP when libamdhip64.so loads, else on the
// emulator's HIP facade (--hip-library or MXGEMM_HIP_LIBRARY decide). The
// kernel is the embedded one, or with --kernel K.hsaco a compiled one (its
// descriptor K.hsaco.json) through mxgemm_kernel_load. On the facade only
// --sample workgroups run; their tiles are checked bit for bit against the
// CPU reference, and nothing else may be written. --help lists the options.
//
// Exit status: 0 verified; 1 mismatch (wrong, stray or missing outputs), a
// runtime INTERNAL error, or no host memory for the problem; 2 usage (a bad
// option, or a problem or kernel the runtime calls INVALID_ARGUMENT); 3 I/O
// (a file that cannot be read, a --dump that cannot be written); 4
// NOT_ELIGIBLE (the caller's fallback would run); 5 HIP error.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/RuntimeRun/GemmRun.h"
#include "mxgemm/Support/Options.h"
#include "mxgemm/Support/Tool.h"

#include <algorithm>
#include <fstream>

using namespace mxgemm;

namespace {
constexpr int kNotEligible = 4, kHipError = 5; // beyond Tool.h's codes

ToolOptions opts(
    "mxgemm-run", "mxgemm-run --m M --n N --k K [options]",
    "Runs one MXFP8 GEMM through libmxgemm_runtime.so and checks it bit for "
    "bit against the CPU reference.",
    {{"--m", "M", "rows of X and Y (required)"},
     {"--n", "N", "rows of W, columns of Y (required; --kernel: its N)"},
     {"--k", "K", "the reduction length (required; --kernel: its K)"},
     {"--x-format", "e4m3|e5m2|bf16|f16|f32", "X's format (default e4m3)"},
     {"--w-format", "e4m3|e5m2|bf16|f16|f32", "W's format (default e4m3)"},
     {"--w-scale", "block32x32|per-row", "W's scales (default block32x32)"},
     {"--out-type", "bf16|f32", "Y's format (default bf16)"},
     {"--w-layout", "auto|row-major|panels",
      "W as passed (auto: W and the scales in the kernel's layouts)"},
     {"--x-scale-layout", "LAYOUT",
      "X's scales as passed: row_major, mfma_16x16x128 or mfma_32x32x64 "
      "(packed by mxgemm_pack_scales; default: row-major, or with "
      "--w-layout auto the kernel's layout)"},
     {"--w-scale-layout", "LAYOUT", "W's scales as passed, likewise"},
     {"--kernel", "FILE", "launch this code object (descriptor FILE.json)"},
     {"--library", "DIR",
      "load DIR (mxgemm-tune --export) into the context first"},
     {"--seed", "S", "seed of the random MX data (default 1)"},
     {"--sample", "N", "workgroups run and checked (default 4, 0 = all)"},
     {"--dump", "DIR", "write x xs w ws y mask .npy and meta.json into DIR"},
     {"--hip-library", "PATH",
      "HIP (default: libamdhip64.so, else the facade)"},
     {"--strict", nullptr, "a missing HIP or code object is a HIP error"}},
    "exit status: 0 verified, 1 mismatch, 2 usage, 3 I/O, 4 not eligible, "
    "5 HIP error");

int exitCode(mxgemm_status s) {
  static const int codes[] = {ExitSuccess, kNotEligible, ExitUsage,
                              kHipError,   kNotEligible, ExitFailure};
  return unsigned(s) < 6 ? codes[s] : ExitFailure;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    opts.fail(ExitIO, "cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string name(mxgemm_dtype t) {
  return std::string(contract::elementTypeName(contract::ElementType(t)));
}

int run(int argc, char **argv) {
  opts.parse(argc, argv);
  // A compiled kernel's descriptor gives the problem's defaults.
  runtime::RunOptions run;
  contract::KernelDescriptor d;
  std::string code;
  if (opts.has("--kernel")) {
    code = readFile(opts.text("--kernel"));
    run.kernelDescriptor = readFile(opts.text("--kernel") + ".json");
    if (auto e = contract::KernelDescriptor::parse(run.kernelDescriptor, d))
      opts.fail(ExitUsage, opts.text("--kernel") + ".json: " + *e);
  }
  // A generic kernel's "?" extents have no default: --n / --k say them.
  auto orKernel = [&](int64_t v) {
    return code.empty() || v == contract::kDynamicExtent
               ? std::nullopt
               : std::optional<int64_t>(v);
  };
  mxgemm_problem p;
  mxgemm_problem_init(&p, opts.integer("--m"),
                      opts.integer("--n", orKernel(d.problem.n)),
                      opts.integer("--k", orKernel(d.problem.k)));
  auto format = [&](const char *option, contract::ElementType fallback) {
    auto t = opts.has(option) ? contract::parseElementType(opts.text(option))
                              : fallback;
    if (!t)
      opts.usageError(std::string(option) +
                      " must be one of e4m3, e5m2, bf16, f16, f32");
    return mxgemm_dtype(*t);
  };
  p.x_type = format("--x-format", d.problem.xType);
  p.w_type = format("--w-format", d.problem.wType);
  p.out_type = format("--out-type", d.problem.outType);
  std::string scale =
      opts.text("--w-scale",
                std::string(contract::scaleGranularityName(d.problem.wScale)));
  std::replace(scale.begin(), scale.end(), '-', '_');
  auto granularity = contract::parseScaleGranularity(scale);
  const std::string layout = opts.text("--w-layout", "auto");
  if (!granularity)
    opts.usageError("--w-scale must be block32x32 or per-row");
  if (layout != "auto" && layout != "row-major" && layout != "panels")
    opts.usageError("--w-layout must be auto, row-major or panels");
  p.w_scale = mxgemm_scale_granularity(*granularity);
  p.w_layout = layout == "panels" ? MXGEMM_WEIGHTS_MFMA_PANELS
                                  : MXGEMM_WEIGHTS_ROW_MAJOR;
  // A loaded kernel's layout is in its descriptor: auto takes it from there
  // (mxgemm_kernel_query refuses a mismatch as an invalid argument rather
  // than naming the layout it wants, as mxgemm_query does).
  // Auto also passes the scales in the layouts the kernel reads (packed by
  // mxgemm_pack_scales); otherwise they are row-major.
  if (layout == "auto" && !code.empty()) {
    p.w_layout = d.wLayout == contract::WeightLayout::MfmaPanels
                     ? MXGEMM_WEIGHTS_MFMA_PANELS
                     : MXGEMM_WEIGHTS_ROW_MAJOR;
    p.x_scale_layout = mxgemm_scale_layout(d.xScaleLayout);
    p.w_scale_layout = mxgemm_scale_layout(d.wScaleLayout);
  }
  // Scales in a layout the caller chose: the runtime picks the kernel (a
  // scale-layout variant of the tuned entry if there is one) by them.
  for (auto [option, field] :
       {std::pair{"--x-scale-layout", &p.x_scale_layout},
        std::pair{"--w-scale-layout", &p.w_scale_layout}}) {
    if (!opts.has(option))
      continue;
    std::string name = opts.text(option);
    std::replace(name.begin(), name.end(), '-', '_');
    std::optional<contract::ScaleLayout> parsed =
        contract::parseScaleLayout(name);
    if (!parsed)
      opts.usageError(std::string(option) + " must be one of " +
                      contract::scaleLayoutNames());
    *field = mxgemm_scale_layout(*parsed);
  }
  run.autoWeightLayout = layout == "auto";
  run.autoScaleLayouts =
      !opts.has("--x-scale-layout") && !opts.has("--w-scale-layout");
  run.libraryDir = opts.text("--library", "");
  run.seed = uint64_t(opts.integer("--seed", 1));
  const int64_t sample = opts.integer("--sample", 4);
  if (sample < 0)
    opts.usageError("--sample must be >= 0");
  run.sample = uint64_t(sample);

  const std::string hip =
      opts.text("--hip-library", runtime::defaultHipLibrary());
  run.facade = hip.find("mxgemm_hip_emu") != std::string::npos;
  mxgemm_context_options copts;
  mxgemm_context_options_init(&copts);
  copts.hip_library = hip.c_str();
  copts.strict = opts.has("--strict");
  mxgemm_context *ctx = nullptr;
  mxgemm_status s = mxgemm_context_create(&copts, &ctx);
  if (s == MXGEMM_STATUS_OK && opts.has("--library"))
    s = mxgemm_context_load_library(ctx, opts.text("--library").c_str());
  if (s == MXGEMM_STATUS_OK && !code.empty())
    s = mxgemm_kernel_load(ctx, code.data(), code.size(),
                           run.kernelDescriptor.c_str(), &run.kernel);
  if (s != MXGEMM_STATUS_OK)
    opts.fail(exitCode(s), std::string(mxgemm_status_string(s)) + ": " +
                               mxgemm_last_error());
  std::printf("problem: M=%lld N=%lld K=%lld x=%s w=%s w_scale=%s out=%s\n",
              (long long)p.m, (long long)p.n, (long long)p.k,
              name(p.x_type).c_str(), name(p.w_type).c_str(), scale.c_str(),
              name(p.out_type).c_str());
  std::fflush(stdout);
  runtime::RunResult r = runtime::runGemm(ctx, p, run);
  std::printf("%s",
              runtime::describeRun(r, code.empty() ? "" : opts.text("--kernel"))
                  .c_str());
  if (r.status != MXGEMM_STATUS_OK)
    return exitCode(r.status);
  if (opts.has("--dump")) {
    if (std::string e = runtime::writeDump(opts.text("--dump"), r); !e.empty())
      opts.fail(ExitIO, e);
    std::printf("dumped x.npy xs.npy w.npy ws.npy y.npy mask.npy meta.json "
                "to %s\n",
                opts.text("--dump").c_str());
  }
  if (run.kernel)
    mxgemm_kernel_unload(ctx, run.kernel);
  mxgemm_context_destroy(ctx);
  return r.verified() ? ExitSuccess : ExitFailure;
}

} // namespace

int main(int argc, char **argv) {
  // No exception may end the process with a signal: host memory for a large
  // problem is the one that can be thrown here.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    opts.fail(ExitFailure, "out of host memory for this problem");
  } catch (const std::exception &e) {
    opts.fail(ExitFailure, std::string("unexpected error: ") + e.what());
  }
}
