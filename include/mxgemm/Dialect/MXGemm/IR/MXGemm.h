//===- MXGemm.h - mxgemm dialect, attributes and ops -------------*- C++
//-*-===//
//
// The one header a user of the mxgemm IR includes.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_IR_MXGEMM_H
#define MXGEMM_DIALECT_MXGEMM_IR_MXGEMM_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemmDialect.h.inc"
#include "mxgemm/Dialect/MXGemm/IR/MXGemmEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mxgemm/Dialect/MXGemm/IR/MXGemmAttrs.h.inc"

#define GET_OP_CLASSES
#include "mxgemm/Dialect/MXGemm/IR/MXGemmOps.h.inc"

#endif // MXGEMM_DIALECT_MXGEMM_IR_MXGEMM_H
