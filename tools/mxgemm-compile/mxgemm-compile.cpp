//===- mxgemm-compile.cpp - AOT compiler for one mxgemm kernel
//---------------===//
//
// mxgemm-compile --n N --k K [--config '...'] -o kernel.hsaco
// mxgemm-compile input.mlir -o kernel.hsaco [--emit=mlir|llvm|isa|hsaco]
// Writes the code object and, for hsaco, a JSON sidecar beside it.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;
namespace mx = mlir::mxgemm;

static cl::OptionCategory category("mxgemm-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("[input.mlir]"),
                                      cl::init(""), cl::cat(category));
static cl::opt<std::string> outputFile("output", cl::desc("output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::alias outputFileShort("o", cl::desc("alias for --output"),
                                 cl::aliasopt(outputFile), cl::cat(category));
static cl::opt<std::string>
    sidecarFile("sidecar",
                cl::desc("JSON sidecar path (default: <output>.json)"),
                cl::init(""), cl::cat(category));
static cl::opt<int64_t> n("n", cl::desc("N (weight rows)"), cl::init(0),
                          cl::cat(category));
static cl::opt<int64_t> k("k", cl::desc("K (reduction length)"), cl::init(0),
                          cl::cat(category));
static cl::opt<std::string>
    config("config",
           cl::desc("config fields, e.g. 'tile_m = 128, tile_n = 256' (the "
                    "body of #mxgemm.config<...>)"),
           cl::init(""), cl::cat(category));
static cl::opt<std::string> name("name", cl::desc("kernel name"), cl::init(""),
                                 cl::cat(category));
static cl::opt<std::string> xFormat("x-format",
                                    cl::desc("e4m3 (default) or e5m2"),
                                    cl::init("e4m3"), cl::cat(category));
static cl::opt<std::string> wFormat("w-format",
                                    cl::desc("e4m3 (default) or e5m2"),
                                    cl::init("e4m3"), cl::cat(category));
static cl::opt<std::string> wScale("w-scale",
                                   cl::desc("block32x32 (default) or per_row"),
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
                          "code object + sidecar")),
    cl::cat(category));
static cl::opt<bool> printIRAfterAll("print-ir-after-all",
                                     cl::desc("print the IR after each pass"),
                                     cl::init(false), cl::cat(category));

static std::optional<std::string> fp8Type(StringRef s) {
  if (s == "e4m3" || s == "f8E4M3FN")
    return std::string("f8E4M3FN");
  if (s == "e5m2" || s == "f8E5M2")
    return std::string("f8E5M2");
  return std::nullopt;
}

static int fail(const Twine &message) {
  errs() << "mxgemm-compile: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "mxgemm AOT kernel compiler\n");

  std::string source;
  if (!inputFile.empty()) {
    if (n || k)
      return fail("give either an input file or --n/--k, not both");
    auto buffer = MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!buffer)
      return fail("cannot read " + inputFile + ": " +
                  buffer.getError().message());
    source = (*buffer)->getBuffer().str();
  } else {
    if (n <= 0 || k <= 0)
      return fail("--n and --k must be positive (or give an input file)");
    mx::ProblemSpec spec;
    spec.n = n;
    spec.k = k;
    auto xf = fp8Type(xFormat), wf = fp8Type(wFormat);
    if (!xf || !wf)
      return fail("--x-format/--w-format must be e4m3 or e5m2");
    spec.xFormat = *xf;
    spec.wFormat = *wf;
    if (wScale != "block32x32" && wScale != "per_row")
      return fail("--w-scale must be block32x32 or per_row");
    spec.wScale = wScale;
    if (outType != "bf16" && outType != "f32")
      return fail("--out-type must be bf16 or f32");
    spec.outType = outType;
    spec.config = config;
    spec.name =
        name.empty()
            ? ("mxgemm_n" + std::to_string(n) + "_k" + std::to_string(k))
            : name.getValue();
    source = mx::buildProblemSource(spec);
  }

  mlir::DialectRegistry registry;
  mxgemm::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  // Diagnostics name the op; whole-module dumps belong to --print-ir-after-all.
  ctx.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(
          source, inputFile.empty() ? std::string("<problem>") : inputFile),
      SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1;

  mx::CompileOptions options;
  options.chip = chip;
  options.optLevel = optLevel;
  options.stage = emit;
  options.printIRAfterAll = printIRAfterAll;
  // lld's driver resets every cl::opt when it links, so read the options
  // this tool still needs before compiling.
  const std::string outPath = outputFile, sidecarPath = sidecarFile;
  const mx::EmitStage stage = emit;
  auto result = mx::compileProblem(*module, options);
  if (mlir::failed(result))
    return 1;

  std::error_code ec;
  auto out = std::make_unique<ToolOutputFile>(
      outPath, ec,
      stage == mx::EmitStage::HSACO ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec)
    return fail("cannot open " + outPath + ": " + ec.message());
  out->os() << result->output;
  if (stage == mx::EmitStage::HSACO) {
    if (outPath == "-" && sidecarPath.empty())
      return fail("writing a code object to stdout needs --sidecar");
    std::string path = sidecarPath.empty() ? outPath + ".json" : sidecarPath;
    result->sidecar["code_object"] = sys::path::filename(outPath).str();
    auto side = std::make_unique<ToolOutputFile>(path, ec, sys::fs::OF_Text);
    if (ec)
      return fail("cannot open " + path + ": " + ec.message());
    side->os() << formatv("{0:2}", json::Value(std::move(result->sidecar)))
               << "\n";
    side->keep();
  }
  out->keep();
  return 0;
}
