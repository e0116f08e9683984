//===- ConfigFuzzer.cpp - fuzz the #mxgemm.config parser and verifier -----===//
//
// The input is the body of `#mxgemm.config<...>` as a user gives it to
// `mxgemm-compile --config`: it goes through the attribute parser, the
// contract's field table and the config verifier (where wrapping products
// used to end in SIGFPE).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/ConfigText.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<mxgemm::MXGemmDialect>();
    return c;
  }();
  mlir::ScopedDiagnosticHandler quiet(
      ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::StringRef body(reinterpret_cast<const char *>(data), size);
  auto config = mxgemm::parseConfigBody(ctx, body);
  if (mlir::succeeded(config)) {
    // An accepted config has derived quantities that do not overflow.
    (void)config->ldsBytes();
    (void)config->accumulatorRegsPerLane(mxgemm::target::kGFX950);
  }
  return 0;
}
