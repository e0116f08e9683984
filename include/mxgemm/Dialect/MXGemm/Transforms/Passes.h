//===- Passes.h - mxgemm transformation passes --------------------*- C++
//-*-===//
//
// Declarations of the mxgemm passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_H
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

namespace mxgemm {
#define GEN_PASS_DECL
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"
} // namespace mxgemm

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_H
