//===- ConfigText.cpp - a config from the fields a user types -------------===//

#include "mxgemm/Dialect/MXGemm/IR/ConfigText.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

FailureOr<mxgemm::contract::KernelConfig>
mxgemm::parseConfigBody(MLIRContext *ctx, StringRef body) {
  ctx->getOrLoadDialect<MXGemmDialect>();
  std::string text = ("#mxgemm.config<" + body + ">").str();
  size_t consumed = 0;
  Attribute attr = parseAttribute(text, ctx, Type(), &consumed);
  if (!attr)
    return failure();
  auto config = dyn_cast<ConfigAttr>(attr);
  if (!config || consumed != text.size()) {
    emitError(UnknownLoc::get(ctx))
        << "--config must be the fields of one #mxgemm.config, got '" << body
        << "'";
    return failure();
  }
  return config.getKernelConfig();
}
