//===- MXGemm.h - mxgemm dialect, attributes and ops ------------*- C++ -*-===//
//
// The one header a user of the mxgemm IR includes.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_IR_MXGEMM_H
#define MXGEMM_DIALECT_MXGEMM_IR_MXGEMM_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Support/MLIR.h"
#include "mxgemm/Target/TargetModel.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemmDialect.h.inc"
#include "mxgemm/Dialect/MXGemm/IR/MXGemmEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mxgemm/Dialect/MXGemm/IR/MXGemmAttrs.h.inc"

namespace mxgemm {
/// The contract's names of the dialect's enums (the IR keywords are the
/// same words; the mapping lives in MXGemmAttrs.cpp).
::mxgemm::contract::ScaleGranularity toContract(WeightScaleGranularity g);
WeightScaleGranularity fromContract(::mxgemm::contract::ScaleGranularity g);
::mxgemm::contract::MfmaShape toContract(MfmaShape shape);
MfmaShape fromContract(::mxgemm::contract::MfmaShape shape);
::mxgemm::contract::Staging toContract(Staging staging);

/// The contract element type of an IR element type (f8E4M3FN -> e4m3,
/// f8E5M2 -> e5m2, bf16, f16, f32), or nothing for any other type.
std::optional<::mxgemm::contract::ElementType> toContractElementType(Type t);
/// The IR element type of a contract element type.
Type getElementType(MLIRContext *ctx, ::mxgemm::contract::ElementType t);
} // namespace mxgemm

#define GET_OP_CLASSES
#include "mxgemm/Dialect/MXGemm/IR/MXGemmOps.h.inc"

#endif // MXGEMM_DIALECT_MXGEMM_IR_MXGEMM_H
