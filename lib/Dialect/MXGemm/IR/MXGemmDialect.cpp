//===- MXGemmDialect.cpp - mxgemm dialect registration
//-----------------------===//
//
// Registers the mxgemm attributes and operations.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mxgemm;

#include "mxgemm/Dialect/MXGemm/IR/MXGemmDialect.cpp.inc"
#include "mxgemm/Dialect/MXGemm/IR/MXGemmEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mxgemm/Dialect/MXGemm/IR/MXGemmAttrs.cpp.inc"

void MXGemmDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mxgemm/Dialect/MXGemm/IR/MXGemmAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "mxgemm/Dialect/MXGemm/IR/MXGemmOps.cpp.inc"
      >();
}
