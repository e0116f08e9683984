//===- compile_kernel_cxx.cpp - embed the C++ compiler libraries ----------===//
//
// A C++ host with its own MLIR (the same libMLIR.so) links the static
// MXGemm::MXGemmCompiler and MXGemm::MXGemmInitAll instead of the C API:
// checks that those exported targets bring their headers, libMLIR/libLLVM
// and lld's ELF driver along, and that a kernel comes out.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/KernelCompiler.h"
#include "mxgemm/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdio>

static const char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};

int main() {
  mlir::DialectRegistry registry;
  mxgemm::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  mxgemm::ProblemSpec spec;
  spec.name = "consumer_cxx_gemm";
  spec.problem.n = 256;
  spec.problem.k = 256;
  mlir::OwningOpRef<mlir::ModuleOp> module = mxgemm::buildProblem(&ctx, spec);
  if (!module)
    return 1;
  auto result = mxgemm::compileProblem(*module, {});
  if (mlir::failed(result) || result->output.compare(0, 4, kElfMagic, 4) != 0)
    return 1;
  // The kernel descriptor is the contract's type: it round-trips as JSON.
  mxgemm::contract::KernelDescriptor back;
  if (mxgemm::contract::KernelDescriptor::parse(result->descriptor.toJson(),
                                                back))
    return 1;
  std::printf("compile-kernel-cxx: %s, %zu bytes, %lld-thread workgroups\n",
              back.kernel.c_str(), result->output.size(),
              (long long)back.workgroupSize);
  return 0;
}
