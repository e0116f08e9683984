//===- mxgemm-compile.cpp - AOT compiler for one mxgemm kernel ------------===//
//
// mxgemm-compile --n N --k K [--m M] [--config auto|default|'...']
//   (--dynamic-n / --dynamic-k instead of --n / --k: a generic kernel)
//                [--tuning-db DB] [--explain] -o kernel.hsaco
// mxgemm-compile --tuning-db DB --entry NAME -o kernel.hsaco
// mxgemm-compile --tuning-db DB --list | --table
// mxgemm-compile input.mlir -o kernel.hsaco [--emit=mlir|llvm|isa|hsaco]
// Writes the code object and, for hsaco, its kernel descriptor beside it.
// Exit status: 0 compiled, 1 rejected by a diagnostic, 2 usage, 3 I/O.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/ConfigChoice.h"
#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/Compiler/PackPanelsCompiler.h"
#include "mxgemm/Compiler/QuantizeCompiler.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/InitAll.h"
#include "mxgemm/Support/Tool.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;
using namespace mxgemm; // ExitCode
namespace mx = mxgemm;
namespace contract = mxgemm::contract;

static cl::OptionCategory category("mxgemm-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("[input.mlir]"),
                                      cl::init(""), cl::cat(category));
static cl::opt<std::string> outputFile("o",
                                       cl::desc("output file ('-': stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::alias outputFileLong("output", cl::desc("alias for -o"),
                                cl::aliasopt(outputFile), cl::cat(category));
static cl::opt<std::string>
    sidecarFile("sidecar",
                cl::desc("kernel descriptor path (default: <output>.json)"),
                cl::init(""), cl::cat(category));
static cl::opt<int64_t> n("n", cl::desc("N (weight rows)"), cl::init(0),
                          cl::cat(category));
static cl::opt<int64_t> k("k",
                          cl::desc("K (reduction length, a multiple of 32)"),
                          cl::init(0), cl::cat(category));
static cl::opt<bool> dynamicN(
    "dynamic-n",
    cl::desc("a generic kernel: N is a run-time argument (instead of --n)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> dynamicK(
    "dynamic-k",
    cl::desc("a generic kernel: K is a run-time argument (instead of --k)"),
    cl::init(false), cl::cat(category));
static cl::opt<int64_t>
    mHint("m",
          cl::desc("the M the kernel will mostly run at, a hint for "
                   "--config=auto (M stays a run-time argument; 0: none)"),
          cl::init(0), cl::cat(category));
static cl::opt<std::string> config(
    "config",
    cl::desc("auto (default): the tuning database's entry for the key and M, "
             "else a heuristic (docs/Compiler.md); default: the naive "
             "config; or config fields, e.g. 'tile_m = 128, tile_n = 256' "
             "(the body of #mxgemm.config<...>, the other fields naive)"),
    cl::init("auto"), cl::cat(category));
static cl::opt<bool>
    explain("explain",
            cl::desc("print the chosen config and why on stderr (auto "
                     "choices always print one line)"),
            cl::init(false), cl::cat(category));
static cl::opt<std::string>
    tuningDb("tuning-db",
             cl::desc("a tuning database: the one --config=auto looks in "
                      "(default: the embedded tuning/gfx950.json), or, with "
                      "--entry or --list, the one to compile from or check"),
             cl::init(""), cl::cat(category));
static cl::opt<std::string> entry("entry", cl::desc("tuning-database entry"),
                                  cl::init(""), cl::cat(category));
static cl::opt<bool>
    listEntries("list",
                cl::desc("check the --tuning-db and print its entry names"),
                cl::init(false), cl::cat(category));
static cl::opt<bool>
    tableOfEntries("table",
                   cl::desc("check the --tuning-db and print its entries as a "
                            "Markdown table: config, M range, predictions "
                            "(docs/Performance.md shows it)"),
                   cl::init(false), cl::cat(category));
static cl::opt<std::string> name("name",
                                 cl::desc("kernel name (an identifier)"),
                                 cl::init(""), cl::cat(category));
static cl::opt<std::string> xFormat("x-format", cl::desc("e4m3 or e5m2"),
                                    cl::init("e4m3"), cl::cat(category));
static cl::opt<std::string> wFormat("w-format", cl::desc("e4m3 or e5m2"),
                                    cl::init("e4m3"), cl::cat(category));
static cl::opt<std::string> wScale("w-scale", cl::desc("block32x32 or per_row"),
                                   cl::init("block32x32"), cl::cat(category));
static cl::opt<std::string> outType("out-type", cl::desc("bf16 or f32"),
                                    cl::init("bf16"), cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("target chip"),
                                 cl::init("gfx950"), cl::cat(category));
static cl::opt<unsigned> optLevel("O", cl::desc("optimisation level 0-3"),
                                  cl::init(3), cl::Prefix, cl::cat(category));
static cl::opt<mx::EmitStage> emit(
    "emit", cl::desc("stage to stop at"), cl::init(mx::EmitStage::HSACO),
    cl::values(clEnumValN(mx::EmitStage::MLIR, "mlir", "lowered MLIR"),
               clEnumValN(mx::EmitStage::LLVM, "llvm", "optimised LLVM IR"),
               clEnumValN(mx::EmitStage::ISA, "isa", "gfx950 assembly"),
               clEnumValN(mx::EmitStage::HSACO, "hsaco",
                          "code object + kernel descriptor")),
    cl::cat(category));
static cl::opt<bool> printIRAfterAll("print-ir-after-all",
                                     cl::desc("print the IR after each pass"),
                                     cl::init(false), cl::cat(category));

static int fail(ExitCode code, const Twine &message) {
  errs() << "mxgemm-compile: error: " << message << "\n";
  return code;
}

/// Reads and checks --tuning-db; on failure says why and returns the exit
/// code in `status`.
static std::optional<contract::TuningDatabase> readDatabase(int &status) {
  contract::TuningDatabase db;
  bool ioError = false;
  if (auto e = mx::readTuningDatabase(tuningDb, db, &ioError)) {
    status = fail(ioError ? ExitIO : ExitFailure, *e);
    return std::nullopt;
  }
  return db;
}

/// Says which config was chosen and why: one line for auto choices,
/// the config body too with --explain.
static void explainChoice(const contract::ConfigChoice &choice) {
  if (choice.source == contract::ConfigSource::Database ||
      choice.source == contract::ConfigSource::Heuristic || explain)
    errs() << "mxgemm-compile: config " << choice.sourceLabel() << ": "
           << choice.reason << "\n";
  if (explain)
    errs() << "mxgemm-compile: config body: "
           << contract::formatConfigBody(choice.config) << "\n";
}

/// The spec from --n/--k and the format flags, or from a database entry.
static std::optional<mx::ProblemSpec> specFromFlags(mlir::MLIRContext &ctx,
                                                    int &status) {
  mx::ProblemSpec spec;
  spec.name = name;
  if (!entry.empty()) {
    std::optional<contract::TuningDatabase> db = readDatabase(status);
    if (!db)
      return std::nullopt;
    const contract::TuningEntry *e = db->find(entry);
    if (!e) {
      status = fail(ExitFailure, tuningDb + ": no entry named '" + entry + "'");
      return std::nullopt;
    }
    spec.problem = e->problem;
    spec.config = e->config;
    spec.configSource = "database:" + e->name;
    if (spec.name.empty())
      spec.name = e->kernelName();
    return spec;
  }
  auto x = contract::parseElementType(xFormat);
  auto w = contract::parseElementType(wFormat);
  auto s = contract::parseScaleGranularity(wScale);
  auto o = contract::parseElementType(outType);
  if (!x || !w || !s || !o) {
    status = fail(ExitUsage, "--x-format/--w-format take e4m3 or e5m2, "
                             "--w-scale block32x32 or per_row, --out-type "
                             "bf16 or f32");
    return std::nullopt;
  }
  if ((dynamicN && n.getNumOccurrences()) ||
      (dynamicK && k.getNumOccurrences())) {
    status = fail(ExitUsage, "give --n or --dynamic-n (and --k or "
                             "--dynamic-k), not both");
    return std::nullopt;
  }
  spec.problem = {dynamicN ? contract::kDynamicExtent : int64_t(n),
                  dynamicK ? contract::kDynamicExtent : int64_t(k),
                  *x,
                  *w,
                  *s,
                  *o};
  // The problem first: its message is the clearest for bad N and K.
  if (auto error =
          contract::validateProblem(spec.problem, /*allowDynamic=*/true)) {
    status = fail(ExitFailure, *error);
    return std::nullopt;
  }
  mx::ConfigRequest request;
  request.text = config;
  request.mHint = mHint;
  std::optional<contract::TuningDatabase> db;
  if (!tuningDb.empty()) {
    db = readDatabase(status);
    if (!db)
      return std::nullopt;
    request.database = &*db;
  }
  auto choice = mx::chooseConfig(
      &ctx, spec.problem, chip, request,
      [&](const Twine &message) { fail(ExitFailure, message); });
  if (mlir::failed(choice)) {
    status = ExitFailure; // reported by chooseConfig or the config parser
    return std::nullopt;
  }
  explainChoice(*choice);
  spec.config = choice->config;
  spec.configSource = choice->sourceLabel();
  return spec;
}

/// The database as a Markdown table, one row per entry in file order: the
/// predictions are the database's (mxgemm-sim at the sustained clock, "x0"
/// when only XCD 0 was traced), not a new simulation.
static void printEntryTable(const contract::TuningDatabase &db,
                            llvm::raw_ostream &os) {
  os << "| entry | N | K | M | config | row split | predicted us (at M) |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const contract::TuningEntry &e : db.entries) {
    os << "| " << e.name << " | " << e.problem.n << " | " << e.problem.k
       << " | " << e.mMin << ".." << e.mMax << " | "
       << contract::formatConfigBody(e.config) << " | ";
    if (e.rowSplit.maxTailRows)
      os << "tails <= " << e.rowSplit.maxTailRows << " rows";
    else
      os << "-";
    os << " |";
    for (size_t i = 0; i < e.predictions.size(); ++i) {
      const contract::TuningPrediction &p = e.predictions[i];
      os << (i ? ", " : " ")
         << llvm::formatv("{0:F2} ({1}{2})", p.timeUs, p.m,
                          p.tracesAllXcds() ? "" : ", x0");
    }
    os << " |\n";
  }
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << mxgemm::getVersionLine() << "\nLLVM " << mx::getLLVMVersion() << "\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "mxgemm AOT kernel compiler\n",
                                   &errs()))
    return ExitUsage;
  // lld's driver resets every cl::opt when it links: copy what is needed.
  const std::string outPath = outputFile, sidecarPath = sidecarFile;
  const mx::EmitStage stage = emit;
  if (optLevel > 3)
    return fail(ExitUsage, "-O takes 0-3, got " + Twine(optLevel.getValue()));
  if (listEntries || tableOfEntries) {
    if (tuningDb.empty())
      return fail(ExitUsage, "--list and --table need --tuning-db");
    int status = ExitSuccess;
    std::optional<contract::TuningDatabase> db = readDatabase(status);
    if (db && listEntries)
      for (const contract::TuningEntry &e : db->entries)
        outs() << e.name << "\n";
    if (db && tableOfEntries)
      printEntryTable(*db, outs());
    return status;
  }
  const bool fromShape =
      n.getNumOccurrences() || k.getNumOccurrences() || dynamicN || dynamicK;
  const bool fromEntry = !entry.empty();
  if (!inputFile.empty() && (fromShape || fromEntry))
    return fail(ExitUsage, "give an input file or --n/--k or --entry");
  if (inputFile.empty() && !fromShape && !fromEntry)
    return fail(ExitUsage, "give --n and --k, --tuning-db with --entry, or an "
                           "input file");
  if (fromEntry && tuningDb.empty())
    return fail(ExitUsage, "--entry needs --tuning-db");
  if (fromShape && fromEntry)
    return fail(ExitUsage, "give --n/--k or --entry, not both");
  if (!fromShape && (mHint.getNumOccurrences() || config.getNumOccurrences()))
    return fail(ExitUsage, "--m and --config go with --n and --k");
  if (mHint < 0 || mHint > contract::kMaxM)
    return fail(ExitUsage, "--m takes 0 (no hint) to " +
                               Twine(contract::kMaxM) + ", got " +
                               Twine(mHint.getValue()));
  if (!tuningDb.empty() && fromShape) {
    StringRef text = StringRef(config).trim();
    if (!text.empty() && text != mx::kConfigAuto)
      return fail(ExitUsage, "--tuning-db with --n/--k is the database of "
                             "--config=auto; it does nothing with --config=" +
                                 text);
  }
  if (stage == mx::EmitStage::HSACO && outPath == "-" && sidecarPath.empty())
    return fail(ExitUsage, "writing a code object to stdout needs --sidecar");

  mlir::DialectRegistry registry;
  mxgemm::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  // Diagnostics name the op; whole-module dumps belong to --print-ir-after-all.
  ctx.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (!inputFile.empty()) {
    std::string error;
    auto buffer = mlir::openInputFile(inputFile, &error);
    if (!buffer)
      return fail(ExitIO, error);
    sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  } else {
    int status = ExitSuccess;
    std::optional<mx::ProblemSpec> spec = specFromFlags(ctx, status);
    if (!spec)
      return status;
    if (auto error = mx::validateProblemSpec(*spec, chip))
      return fail(ExitFailure, *error);
    module = mx::buildProblem(&ctx, *spec, chip);
  }
  if (!module)
    return ExitFailure;

  mx::CompileOptions options;
  options.chip = chip;
  options.optLevel = optLevel;
  options.stage = stage;
  options.printIRAfterAll = printIRAfterAll;
  const bool quantize = mx::containsQuantize(*module);
  if (quantize || mx::containsPackPanels(*module)) {
    // The data-movement kernels (mxgemm.quantize, mxgemm.pack_panels) have
    // their own pipeline and descriptors.
    std::string descriptor;
    auto code = quantize ? mx::compileQuantize(*module, options, descriptor)
                         : mx::compilePackPanels(*module, options, descriptor);
    if (mlir::failed(code))
      return ExitFailure;
    std::error_code ec;
    auto out = std::make_unique<ToolOutputFile>(
        outPath, ec,
        stage == mx::EmitStage::HSACO ? sys::fs::OF_None : sys::fs::OF_Text);
    if (ec)
      return fail(ExitIO, "cannot open " + outPath + ": " + ec.message());
    out->os() << *code;
    if (stage == mx::EmitStage::HSACO) {
      std::string path = sidecarPath.empty() ? outPath + ".json" : sidecarPath;
      auto side = std::make_unique<ToolOutputFile>(path, ec, sys::fs::OF_Text);
      if (ec)
        return fail(ExitIO, "cannot open " + path + ": " + ec.message());
      side->os() << descriptor;
      side->keep();
    }
    out->keep();
    return ExitSuccess;
  }
  auto result = mx::compileProblem(*module, options);
  if (mlir::failed(result))
    return ExitFailure;

  std::error_code ec;
  auto out = std::make_unique<ToolOutputFile>(
      outPath, ec,
      stage == mx::EmitStage::HSACO ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec)
    return fail(ExitIO, "cannot open " + outPath + ": " + ec.message());
  out->os() << result->output;
  if (stage == mx::EmitStage::HSACO) {
    std::string path = sidecarPath.empty() ? outPath + ".json" : sidecarPath;
    if (outPath != "-")
      result->descriptor.codeObject = sys::path::filename(outPath).str();
    auto side = std::make_unique<ToolOutputFile>(path, ec, sys::fs::OF_Text);
    if (ec)
      return fail(ExitIO, "cannot open " + path + ": " + ec.message());
    side->os() << result->descriptor.toJson();
    side->keep();
  }
  out->keep();
  return ExitSuccess;
}
