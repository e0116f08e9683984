//===- mxgemm-opt.cpp - the mxgemm pass driver
//--------------------------------===//
//
// mlir-opt with the mxgemm dialect, passes and pipelines, and the upstream
// pieces they lower through: the one place to debug every pipeline stage.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mxgemm::registerAllDialects(registry);
  mxgemm::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mxgemm optimizer driver (MXFP8 GEMMs for gfx950)\n",
      registry));
}
