//===- Passes.h - mxgemm passes on ROCDL/LLVM-dialect IR --------*- C++ -*-===//
//
// Declarations of the Target-layer passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_PASSES_H
#define MXGEMM_TARGET_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Pass/Pass.h"
#include "mxgemm/Support/MLIR.h"

namespace mxgemm {
#define GEN_PASS_DECL
#include "mxgemm/Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxgemm/Target/Passes.h.inc"
} // namespace mxgemm

#endif // MXGEMM_TARGET_PASSES_H
