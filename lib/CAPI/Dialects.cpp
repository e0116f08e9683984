//===- Dialects.cpp - C API registration of the mxgemm dialect ------------===//
//
// The dialect handle inserts the whole mxgemm registry (our dialect plus the
// upstream dialects, translations and extensions of the pipeline), not only
// MXGemmDialect: a foreign context that registered "mxgemm" must be able to
// run mxgemm-to-gfx950, whose conversions look their interfaces up in the
// registry.
//
//===----------------------------------------------------------------------===//

#include "mxgemm-c/Dialects.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
namespace mx = mxgemm;

static void insertMXGemmRegistry(MlirDialectRegistry registry) {
  ::mxgemm::registerAllDialects(*unwrap(registry));
}

static MlirDialect loadMXGemmDialect(MlirContext context) {
  DialectRegistry registry;
  ::mxgemm::registerAllDialects(registry);
  unwrap(context)->appendDialectRegistry(registry);
  return wrap(unwrap(context)->getOrLoadDialect<mx::MXGemmDialect>());
}

static MlirStringRef getMXGemmDialectNamespace() {
  return wrap(mx::MXGemmDialect::getDialectNamespace());
}

MlirDialectHandle mlirGetDialectHandle__mxgemm__() {
  static MlirDialectRegistrationHooks hooks = {
      insertMXGemmRegistry, loadMXGemmDialect, getMXGemmDialectNamespace};
  return MlirDialectHandle{&hooks};
}

void mxgemmRegisterAllDialects(MlirDialectRegistry registry) {
  insertMXGemmRegistry(registry);
}
