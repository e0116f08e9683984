//===- Serialization.cpp - gfx950 code objects, in process
//-------------------===//
//
// Upstream gpu-module-to-binary shells out to <rocm>/llvm/bin/ld.lld; this
// path keeps everything in process so the compiler works on machines with no
// ROCm install, and links the same way on every machine.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Target/Serialization.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "lld/Common/Driver.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace mlir;

static constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";

static void initializeAMDGPUTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const mxgemm::SerializeOptions &options) {
  initializeAMDGPUTarget();
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("AMDGPU target unavailable: " + error);
  auto level =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, options.chip, options.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return llvm::createStringError("cannot create a target machine for " +
                                   options.chip);
  return tm;
}

FailureOr<std::unique_ptr<llvm::Module>>
mxgemm::translateAndOptimize(gpu::GPUModuleOp kernels, llvm::LLVMContext &ctx,
                             const SerializeOptions &options) {
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(kernels, ctx, kernels.getName());
  if (!module)
    return kernels.emitError("failed to translate the kernels to LLVM IR");
  auto tm = createTargetMachine(options);
  if (!tm)
    return kernels.emitError(llvm::toString(tm.takeError()));
  module->setTargetTriple(llvm::Triple(kTriple));
  module->setDataLayout((*tm)->createDataLayout());
  if (!module->getModuleFlag("amdhsa_code_object_version"))
    module->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                          options.codeObjectVersion);

  // The MLIR passes decide the loop structure (the K loop, its pipeline
  // prologue); letting LLVM fully unroll a pipelined K loop multiplies live
  // accumulators and spills, so every loop is marked as already unrolled.
  for (llvm::Function &f : *module) {
    if (f.isDeclaration())
      continue;
    llvm::DominatorTree dt(f);
    llvm::LoopInfo loops(dt);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      loop->setLoopAlreadyUnrolled();
  }

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm->get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = levels[std::min(options.optLevel, 3u)];
  llvm::ModulePassManager mpm = options.optLevel == 0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(*module, mam);
  return module;
}

llvm::Expected<std::string>
mxgemm::emitMachineCode(llvm::Module &module, const SerializeOptions &options,
                        bool assembly) {
  auto tm = createTargetMachine(options);
  if (!tm)
    return tm.takeError();
  llvm::SmallString<0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                 assembly ? llvm::CodeGenFileType::AssemblyFile
                                          : llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the AMDGPU backend cannot emit this file "
                                   "type");
  pm.run(module);
  return std::string(out.str());
}

llvm::Expected<std::string>
mxgemm::linkCodeObject(llvm::StringRef relocatable) {
  // lld keeps global state per link; one link at a time per process.
  static std::mutex lldMutex;
  std::lock_guard<std::mutex> lock(lldMutex);

  llvm::SmallString<128> objPath, outPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("mxgemm-kernel", "o", objPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeObj(objPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("mxgemm-kernel", "hsaco", outPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeOut(outPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objPath, ec);
    if (ec)
      return llvm::createStringError(ec, "cannot write " + objPath);
    os << relocatable;
  }
  std::string diagnostics;
  llvm::raw_string_ostream errs(diagnostics);
  llvm::raw_null_ostream outs;
  const char *args[] = {"ld.lld",        "-shared", "--no-undefined",
                        objPath.c_str(), "-o",      outPath.c_str()};
  lld::Result result =
      lld::lldMain(args, outs, errs, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    return llvm::createStringError("lld failed to link the code object: " +
                                   diagnostics);
  auto buffer = llvm::MemoryBuffer::getFile(outPath);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read the linked code object");
  return (*buffer)->getBuffer().str();
}
