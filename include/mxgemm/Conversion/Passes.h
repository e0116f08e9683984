//===- Passes.h - mxgemm conversion passes ----------------------*- C++ -*-===//
//
// Declarations of the mxgemm conversion passes (generated from Passes.td)
// and the pattern entry points behind them.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONVERSION_PASSES_H
#define MXGEMM_CONVERSION_PASSES_H

#include "mxgemm/Conversion/MXGemmToAMDGPU/MXGemmToAMDGPU.h"
#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Pass/Pass.h"

namespace mxgemm {
#define GEN_PASS_DECL
#include "mxgemm/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxgemm/Conversion/Passes.h.inc"
} // namespace mxgemm

#endif // MXGEMM_CONVERSION_PASSES_H
