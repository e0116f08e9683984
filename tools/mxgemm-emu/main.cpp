//===- mxgemm-emu.cpp - run gfx950 code objects on the emulator -----------===//
//
// Thin driver over the emulator library: `dump` prints what the loader read,
// `loops` what each loop of the code issues per iteration,
// `run` launches any kernel from a textual launch description
// (Emulator/LaunchSpec.h), `gemm` (the default) runs a compiled mxgemm kernel
// as its kernel descriptor says and checks Y bit for bit against the CPU
// reference (Emulator/GemmRun.h). Exit status (Support/Tool.h): 0 clean,
// 1 checker findings or mismatches, 2 usage (including a launch the kernel's
// metadata forbids), 3 a file that cannot be read, written or loaded.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Emulator/GemmRun.h"
#include "mxgemm/Emulator/LaunchSpec.h"
#include "mxgemm/Emulator/LoopSummary.h"
#include "mxgemm/Emulator/QuantizeRun.h"
#include "mxgemm/Support/Tool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::emu;

static cl::OptionCategory category("mxgemm-emu options");
static cl::SubCommand dumpCmd("dump", "print the kernels, descriptors and "
                                      "metadata the loader read");
static cl::SubCommand loopsCmd("loops",
                               "print what each loop of the code issues per "
                               "iteration (static counts)");
static cl::SubCommand runCmd("run", "launch any kernel from a textual "
                                    "description of its buffers and arguments");
static cl::SubCommand gemmCmd("gemm", "run a compiled mxgemm kernel on random "
                                      "MX data and check it (the default)");
static cl::SubCommand quantizeCmd("quantize",
                                  "run a compiled mxgemm.quantize kernel on "
                                  "generated data and check it");
#define ALL_SUBS                                                               \
  cl::sub(dumpCmd), cl::sub(loopsCmd), cl::sub(runCmd), cl::sub(gemmCmd),      \
      cl::sub(quantizeCmd), cl::sub(cl::SubCommand::getTopLevel())
#define LAUNCH_SUBS cl::sub(runCmd), cl::sub(gemmCmd), cl::sub(quantizeCmd)
#define GEMM_SUBS cl::sub(gemmCmd)

static cl::opt<std::string> codeObject(cl::Positional, cl::desc("<K.hsaco>"),
                                       ALL_SUBS, cl::cat(category));
static cl::opt<bool> loopsJson("json", cl::desc("print the loops as JSON"),
                               cl::sub(loopsCmd), cl::cat(category));
// Launch options of run and gemm.
static cl::opt<std::string> kernel("kernel", cl::desc("kernel to run"),
                                   LAUNCH_SUBS, cl::cat(category));
static cl::opt<std::string> grid("grid", cl::desc("grid in workgroups"),
                                 cl::value_desc("X[,Y,Z]"), cl::sub(runCmd),
                                 cl::cat(category));
static cl::opt<std::string>
    block("block", cl::desc("workgroup size (default: from the metadata)"),
          cl::value_desc("X[,Y,Z]"), cl::sub(runCmd), cl::cat(category));
static cl::opt<std::string> workgroups("workgroups",
                                       cl::desc("run only these workgroup ids"),
                                       cl::value_desc("a,b,c"), LAUNCH_SUBS,
                                       cl::cat(category));
static cl::opt<bool> noChecks("no-checks", cl::desc("turn the checkers off"),
                              LAUNCH_SUBS, cl::cat(category));
static cl::opt<bool> stats("stats", cl::desc("print launch statistics"),
                           LAUNCH_SUBS, cl::cat(category));
static cl::opt<std::string>
    statsJson("stats-json", cl::desc("write statistics as JSON ('-': stdout)"),
              cl::value_desc("file"), LAUNCH_SUBS, cl::cat(category));
static cl::opt<std::string> threads("threads",
                                    cl::desc("worker threads (0: all cores)"),
                                    cl::value_desc("N"), LAUNCH_SUBS,
                                    cl::cat(category));
static cl::opt<std::string> lds("lds", cl::desc("dynamic LDS bytes"),
                                cl::value_desc("N"), cl::sub(runCmd),
                                cl::cat(category));
static cl::opt<std::string>
    quantum("quantum", cl::desc("instructions per wave between switches"),
            cl::value_desc("N"), LAUNCH_SUBS, cl::cat(category));
// run only.
static cl::list<std::string>
    buffers("buf", cl::desc("device buffer, zeroed or initialised"),
            cl::value_desc(
                "NAME=BYTES[:zero|iota|iota32|fill=V|rand=SEED|randn-bf16=SEED|"
                "randn-f16=SEED|randn-f32=SEED]"),
            cl::sub(runCmd), cl::cat(category));
static cl::list<std::string>
    args("arg", cl::desc("next kernel argument"),
         cl::value_desc("buf:NAME[+OFF]|i32:V|i64:V|ptr:V"), cl::sub(runCmd),
         cl::cat(category));
static cl::list<std::string>
    prints("print", cl::desc("print a buffer after the run"),
           cl::value_desc("NAME[:u8|u16|u32|i32|f32|bf16[:COUNT]]"),
           cl::sub(runCmd), cl::cat(category));
// gemm only.
static cl::opt<std::string>
    sidecar("sidecar", cl::desc("the kernel descriptor (required)"),
            cl::value_desc("K.hsaco.json"), GEMM_SUBS, cl::cat(category));
static cl::opt<std::string> quantM("m", cl::desc("rows (1 to 2^31-1)"),
                                   cl::sub(quantizeCmd), cl::cat(category));
static cl::opt<std::string> quantK("k", cl::desc("columns, a multiple of 32"),
                                   cl::sub(quantizeCmd), cl::cat(category));
static cl::opt<std::string> quantIn("in", cl::desc("bf16, f16 or f32"),
                                    cl::init("bf16"), cl::sub(quantizeCmd),
                                    cl::cat(category));
static cl::opt<std::string> quantFormat("format", cl::desc("e4m3 or e5m2"),
                                        cl::init("e4m3"), cl::sub(quantizeCmd),
                                        cl::cat(category));
static cl::opt<std::string> quantSeed("seed", cl::desc("random seed"),
                                      cl::sub(quantizeCmd), cl::cat(category));
static cl::opt<std::string>
    quantScaleLayout("scale-layout",
                     cl::desc("the layout the kernel writes the scales in: "
                              "row_major, mfma_16x16x128 or mfma_32x32x64"),
                     cl::init("row_major"), cl::sub(quantizeCmd),
                     cl::cat(category));
static cl::opt<std::string> m("m", cl::desc("rows of X and Y (1 to 2^31-1)"),
                              cl::value_desc("M"), GEMM_SUBS,
                              cl::cat(category));
static cl::opt<std::string>
    gemmN("n", cl::desc("N, for a generic kernel (its descriptor's N is ?)"),
          cl::value_desc("N"), GEMM_SUBS, cl::cat(category));
static cl::opt<std::string>
    gemmK("k", cl::desc("K, for a generic kernel (its descriptor's K is ?)"),
          cl::value_desc("K"), GEMM_SUBS, cl::cat(category));
static cl::opt<std::string>
    ldX("ld-x",
        cl::desc("leading dimension of X in elements (a kernel with "
                 "row strides; default K)"),
        cl::value_desc("N"), GEMM_SUBS, cl::cat(category));
static cl::opt<std::string>
    ldXs("ld-xs",
         cl::desc("leading dimension of the X scales in bytes "
                  "(default K/32)"),
         cl::value_desc("N"), GEMM_SUBS, cl::cat(category));
static cl::opt<std::string>
    ldY("ld-y",
        cl::desc("leading dimension of Y in elements (default N); "
                 "bytes written between rows fail the run"),
        cl::value_desc("N"), GEMM_SUBS, cl::cat(category));
static cl::opt<std::string> seed("seed", cl::desc("random seed (default 1)"),
                                 cl::value_desc("S"), GEMM_SUBS,
                                 cl::cat(category));
static cl::opt<std::string>
    sample("sample", cl::desc("run about N workgroups, edges included"),
           cl::value_desc("N"), GEMM_SUBS, cl::cat(category));
// Tests that a wrong scale layout is caught.
static cl::opt<bool> wPerRow("w-per-row",
                             cl::desc("generate one W scale per row and "
                                      "K block, whatever the kernel expects"),
                             GEMM_SUBS, cl::cat(category));
static cl::opt<bool> wBlock32("w-block32",
                              cl::desc("generate one W scale per 32x32 "
                                       "block, whatever the kernel expects"),
                              GEMM_SUBS, cl::cat(category));

static int fail(ExitCode code, const Twine &message) {
  errs() << "mxgemm-emu: error: " << message << "\n";
  return code;
}

/// Usage errors for bad launch descriptions, I/O for files, failure for the
/// rest (a launch the emulator ran and found wrong).
static int fail(Error error, ExitCode otherwise) {
  int code = otherwise;
  handleAllErrors(
      std::move(error),
      [&](const LaunchSpecError &e) { code = fail(ExitUsage, e.message()); },
      [&](const LaunchConfigError &e) { code = fail(ExitUsage, e.message()); },
      [&](const ErrorInfoBase &e) { code = fail(otherwise, e.message()); });
  return code;
}

/// Fills the launch options common to run and gemm into `config`.
static Error readLaunchOptions(LaunchConfig &config) {
  config.checks = !noChecks;
  auto number = [](cl::opt<std::string> &o, uint64_t max, auto &out) -> Error {
    if (o.getNumOccurrences() == 0)
      return Error::success();
    Expected<uint64_t> v = parseUnsignedValue(o, max, ("--" + o.ArgStr).str());
    if (!v)
      return v.takeError();
    out = *v;
    return Error::success();
  };
  if (Error e = number(threads, UINT32_MAX, config.threads))
    return e;
  if (Error e = number(lds, UINT32_MAX, config.dynamicLdsBytes))
    return e;
  if (Error e = number(quantum, UINT32_MAX, config.quantum))
    return e;
  if (grid.getNumOccurrences())
    if (Error e = parseDims(grid, config.grid, "--grid"))
      return e;
  if (block.getNumOccurrences())
    if (Error e = parseDims(block, config.workgroup, "--block"))
      return e;
  if (workgroups.getNumOccurrences()) {
    auto ids = parseIdList(workgroups, "--workgroups");
    if (!ids)
      return ids.takeError();
    config.workgroupsToRun = std::move(*ids);
  }
  return Error::success();
}

/// Findings and statistics; 1 if there were findings.
static int report(const LaunchResult &r) {
  for (const Finding &f : r.findings)
    printFinding(errs(), f);
  if (r.totalFindings > r.findings.size())
    errs() << "note: " << (r.totalFindings - r.findings.size())
           << " more findings not shown\n";
  if (stats)
    r.stats.print(outs());
  if (statsJson == "-") {
    r.stats.printJson(outs());
  } else if (!statsJson.empty()) {
    std::error_code ec;
    raw_fd_ostream os(statsJson, ec);
    if (ec)
      return fail(ExitIO, "cannot write " + statsJson + ": " + ec.message());
    r.stats.printJson(os);
  }
  return r.totalFindings ? ExitFailure : ExitSuccess;
}

static const KernelInfo *pickKernel(const CodeObject &co) {
  if (!kernel.empty())
    return co.findKernel(kernel);
  return co.kernels().size() == 1 ? &co.kernels().front() : nullptr;
}

static int runMode(const CodeObject &co) {
  const KernelInfo *k = pickKernel(co);
  if (!k)
    return fail(ExitUsage, kernel.empty() ? "the code object has several "
                                            "kernels; choose one with --kernel"
                                          : "no kernel named '" + kernel + "'");
  LaunchSpec spec;
  LaunchConfig config;
  if (Error e = readLaunchOptions(config))
    return fail(std::move(e), ExitUsage);
  for (const std::string &b : buffers)
    if (Error e = spec.addBuffer(b))
      return fail(std::move(e), ExitUsage);
  for (const std::string &a : args)
    if (Error e = spec.addArgument(a))
      return fail(std::move(e), ExitUsage);
  for (const std::string &p : prints)
    if (Error e = spec.addPrint(p))
      return fail(std::move(e), ExitUsage);
  DeviceMemory memory;
  auto addresses = spec.prepare(memory, config);
  if (!addresses)
    return fail(addresses.takeError(), ExitUsage);
  auto result = launch(co, *k, config, memory);
  if (!result)
    return fail(result.takeError(), ExitFailure);
  spec.printBuffers(outs(), memory, *addresses);
  return report(*result);
}

static int gemmMode(const CodeObject &co) {
  GemmRunOptions options;
  if (Error e = readLaunchOptions(options.launch))
    return fail(std::move(e), ExitUsage);
  options.workgroups = options.launch.workgroupsToRun;
  if (wPerRow && wBlock32)
    return fail(ExitUsage, "--w-per-row and --w-block32 exclude each other");
  if (wPerRow)
    options.dataWScale = numerics::ScaleGranularity::PerRow;
  if (wBlock32)
    options.dataWScale = numerics::ScaleGranularity::Block32x32;
  auto rows = parseUnsignedValue(m, INT32_MAX, "--m");
  if (!rows || *rows == 0)
    return fail(rows ? make_error<LaunchSpecError>("--m must be at least 1")
                     : rows.takeError(),
                ExitUsage);
  options.m = int64_t(*rows);
  for (auto [opt, out] :
       {std::pair{&gemmN, &options.n}, std::pair{&gemmK, &options.k}})
    if (opt->getNumOccurrences()) {
      auto v = parseUnsignedValue(*opt, contract::kMaxProblemExtent,
                                  ("--" + opt->ArgStr).str());
      if (!v || *v == 0)
        return fail(v ? make_error<LaunchSpecError>("--" + opt->ArgStr.str() +
                                                    " must be at least 1")
                      : v.takeError(),
                    ExitUsage);
      *out = int64_t(*v);
    }
  for (auto [opt, out] :
       {std::pair{&ldX, &options.ldX}, std::pair{&ldXs, &options.ldXs},
        std::pair{&ldY, &options.ldY}})
    if (opt->getNumOccurrences()) {
      auto v = parseUnsignedValue(*opt, INT32_MAX, ("--" + opt->ArgStr).str());
      if (!v || *v == 0)
        return fail(v ? make_error<LaunchSpecError>("--" + opt->ArgStr.str() +
                                                    " must be at least 1")
                      : v.takeError(),
                    ExitUsage);
      *out = int64_t(*v);
    }
  for (auto [opt, out] :
       {std::pair{&seed, &options.seed}, std::pair{&sample, &options.sample}})
    if (opt->getNumOccurrences()) {
      auto v = parseUnsignedValue(*opt, UINT64_MAX, ("--" + opt->ArgStr).str());
      if (!v)
        return fail(v.takeError(), ExitUsage);
      *out = *v;
    }
  if (sidecar.empty())
    return fail(ExitUsage, "gemm needs --sidecar K.hsaco.json");
  auto text = MemoryBuffer::getFile(sidecar);
  if (!text)
    return fail(ExitIO,
                "cannot read " + sidecar + ": " + text.getError().message());
  contract::KernelDescriptor d;
  if (auto error = contract::KernelDescriptor::parse((*text)->getBuffer(), d))
    return fail(ExitIO, sidecar + ": " + *error);

  auto run = runGemm(co, d, options);
  if (!run)
    return fail(run.takeError(), ExitFailure);
  if (run->packedWeights)
    outs() << "W packed in MFMA panels of " << d.mfma.nonK << " rows\n";
  for (const numerics::GemmMismatch &mm : run->check.first)
    errs() << "mismatch at Y[" << mm.row << "][" << mm.col << "]: got 0x"
           << utohexstr(mm.got) << ", expected 0x" << utohexstr(mm.expected)
           << "\n";
  int status = report(run->launch);
  const numerics::GemmCheckResult &check = run->check;
  outs() << "compared " << check.compared << " outputs, " << check.mismatches
         << " mismatches";
  if (check.unwritten)
    outs() << ", " << check.unwritten << " not written";
  outs() << "\n";
  if (run->sampled)
    outs() << "sampled " << run->launch.stats.workgroupsRun << " of "
           << run->gridSize << " workgroups, M edge "
           << (check.lastRowWritten ? "covered" : "NOT covered") << "\n";
  if (ldX.getNumOccurrences() || ldXs.getNumOccurrences() ||
      ldY.getNumOccurrences())
    outs() << "row strides: ldX " << run->ldX << ", ldXs " << run->ldXs
           << ", ldY " << run->ldY << "; " << run->yGapBytesWritten
           << " bytes written between rows of Y\n";
  if (!run->sampled && check.unwritten)
    return fail(ExitFailure, "the full run left " + Twine(check.unwritten) +
                                 " outputs unwritten");
  if (run->yGapBytesWritten)
    return fail(ExitFailure, Twine(run->yGapBytesWritten) +
                                 " bytes between rows of Y were written");
  return check.mismatches ? int(ExitFailure) : status;
}

static int quantizeMode(const CodeObject &co) {
  const KernelInfo *k = pickKernel(co);
  if (!k)
    return fail(ExitUsage, kernel.empty() ? "the code object has several "
                                            "kernels; choose one with --kernel"
                                          : "no kernel named '" + kernel + "'");
  QuantizeRunOptions options;
  if (Error e = readLaunchOptions(options.launch))
    return fail(std::move(e), ExitUsage);
  auto rows = parseUnsignedValue(quantM, INT32_MAX, "--m");
  if (!rows)
    return fail(rows.takeError(), ExitUsage);
  auto cols = parseUnsignedValue(quantK, INT32_MAX, "--k");
  if (!cols)
    return fail(cols.takeError(), ExitUsage);
  if (*rows == 0 || *cols == 0 || *cols % 32)
    return fail(ExitUsage, "--m must be at least 1 and --k a positive "
                           "multiple of 32");
  options.m = int64_t(*rows);
  options.k = int64_t(*cols);
  auto in = parseQuantizeInput(quantIn);
  if (!in)
    return fail(ExitUsage, "--in takes bf16, f16 or f32, got " + quantIn);
  options.input = *in;
  if (quantFormat != "e4m3" && quantFormat != "e5m2")
    return fail(ExitUsage, "--format takes e4m3 or e5m2, got " + quantFormat);
  options.format = quantFormat == "e4m3" ? numerics::FP8Format::E4M3
                                         : numerics::FP8Format::E5M2;
  auto layout = contract::parseScaleLayout(quantScaleLayout);
  if (!layout)
    return fail(ExitUsage, "--scale-layout takes row_major, mfma_16x16x128 "
                           "or mfma_32x32x64, got " +
                               quantScaleLayout);
  options.scaleLayout = *layout;
  if (quantSeed.getNumOccurrences()) {
    auto v = parseUnsignedValue(quantSeed, UINT64_MAX, "--seed");
    if (!v)
      return fail(v.takeError(), ExitUsage);
    options.seed = *v;
  }
  auto run = runQuantize(co, *k, options);
  if (!run)
    return fail(run.takeError(), ExitFailure);
  for (const std::string &line : run->firstMismatches)
    errs() << "mismatch at " << line << "\n";
  int status = report(run->launch);
  outs() << "compared " << run->comparedCodes << " codes, "
         << run->codeMismatches << " mismatches; " << run->comparedScales
         << " scales, " << run->scaleMismatches << " mismatches\n";
  return run->codeMismatches || run->scaleMismatches ? int(ExitFailure)
                                                     : status;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << getVersionLine() << "\nLLVM " << LLVM_VERSION_STRING << "\n";
  });
  // `gemm` is the default: `mxgemm-emu K.hsaco --sidecar ...`.
  SmallVector<const char *> argList(argv, argv + argc);
  if (argc > 1 && !StringRef(argv[1]).starts_with("-") &&
      !is_contained({"dump", "loops", "run", "gemm", "quantize"},
                    StringRef(argv[1])))
    argList.insert(argList.begin() + 1, "gemm");
  if (!cl::ParseCommandLineOptions(
          argList.size(), argList.data(),
          "mxgemm gfx950 emulator\n\n"
          "  mxgemm-emu dump K.hsaco\n"
          "  mxgemm-emu loops K.hsaco [--json]\n"
          "  mxgemm-emu run K.hsaco --buf o=512 --arg buf:o --print o:u32:4\n"
          "  mxgemm-emu [gemm] K.hsaco --sidecar K.hsaco.json --m 200\n"
          "  mxgemm-emu quantize Q.hsaco --in bf16 --format e4m3 --m 33 --k "
          "96\n",
          &errs()))
    return ExitUsage;
  if (codeObject.empty())
    return fail(ExitUsage, "no code object given (see --help)");
  auto co = CodeObject::loadFile(codeObject);
  if (!co)
    return fail(co.takeError(), ExitIO);
  if (dumpCmd) {
    outs() << (*co)->dump();
    return ExitSuccess;
  }
  if (loopsCmd) {
    std::vector<LoopSummary> loops = summarizeLoops(**co);
    if (loopsJson)
      printLoopSummariesJson(outs(), loops);
    else
      printLoopSummaries(outs(), loops);
    return ExitSuccess;
  }
  if (runCmd)
    return runMode(**co);
  if (quantizeCmd)
    return quantizeMode(**co);
  return gemmMode(**co);
}
