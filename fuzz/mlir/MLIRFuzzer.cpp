//===- MLIRFuzzer.cpp - fuzz mxgemm-opt's parsing of mxgemm IR -----------===//
//
// What `mxgemm-opt` does first with any input: parse it with every dialect
// mxgemm registers, then verify it (the op and attribute verifiers of the
// mxgemm dialect included). Diagnostics are expected; signals are bugs.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: a parse that fails half-way may leave
  // dialect state behind.
  mlir::DialectRegistry registry;
  mxgemm::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.allowUnregisteredDialects(false);
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::StringRef source(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
