//===- Passes.cpp - C API registration of the mxgemm passes ---------------===//
//
// Forwards to the one registration point (mxgemm::registerAllPasses) and to
// the C++ pipeline builder, so that the C API, mxgemm-opt and
// mxgemm-compile run the same pipeline.
//
//===----------------------------------------------------------------------===//

#include "mxgemm-c/Passes.h"

#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"
#include "mxgemm/InitAll.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"

#include <mutex>

void mxgemmRegisterPasses() {
  // The pass registry rejects a second registration of a pipeline name.
  static std::once_flag once;
  std::call_once(once, [] { ::mxgemm::registerAllPasses(); });
}

void mxgemmAddToGFX950Pipeline(MlirOpPassManager passManager,
                               MlirStringRef chip, unsigned optLevel) {
  mxgemm::MXGemmToGFX950Options options;
  if (chip.length)
    options.chip = unwrap(chip).str();
  options.optLevel = optLevel;
  mxgemm::buildMXGemmToGFX950Pipeline(*unwrap(passManager), options);
}
