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
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A context keeps every distinct attribute it ever uniqued, so one shared
  // by millions of inputs only grows (libFuzzer stops at 2 GB); a fresh one
  // per input costs more than the parse. Start a new one every 4096 inputs.
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned inputs = 0;
  if (!context || ++inputs % 4096 == 0) {
    context = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    context->loadDialect<mxgemm::MXGemmDialect>();
  }
  mlir::MLIRContext *ctx = context.get();
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
