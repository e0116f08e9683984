//===- mxgemm-lsp-server.cpp - MLIR language server with mxgemm dialects --===//
//
// MLIR's LSP server (diagnostics, hover, go-to-definition, document symbols)
// with the registry of mxgemm-opt, so editors understand mxgemm IR and the
// upstream dialects the pipeline lowers through. VS Code's MLIR extension
// runs it when `mlir.server_path` names it (docs/Embedding.md).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mxgemm::registerAllDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry)) ? 1 : 0;
}
