//===- MLIR.h - the MLIR names mxgemm's compiler code uses ------*- C++ -*-===//
//
// Every part of mxgemm lives under one namespace root, `mxgemm` (the
// dialect, passes and compiler as much as the MLIR-free contract, runtime
// and emulator). This header brings the MLIR and LLVM names the compiler
// side uses into it, the way upstream dialects see them inside `mlir`, so
// that headers need no `using namespace` and no `mlir::` on every type.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SUPPORT_MLIR_H
#define MXGEMM_SUPPORT_MLIR_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir {
class Attribute;
class Block;
class Builder;
class ConversionPatternRewriter;
class ConversionTarget;
class DialectRegistry;
class DictionaryAttr;
class InFlightDiagnostic;
class IntegerAttr;
class Location;
class MLIRContext;
class MemRefType;
class ModuleOp;
class NamedAttribute;
class OpBuilder;
class Operation;
class OpPassManager;
class Pass;
class PatternRewriter;
class RewritePatternSet;
class StringAttr;
class Type;
class TypeAttr;
class TypeConverter;
class Value;
class ValueRange;
class VectorType;
template <typename OpTy> class OwningOpRef;
template <typename SourceOp> class OpConversionPattern;
template <typename SourceOp> struct OpRewritePattern;
namespace amdgpu {}
namespace arith {}
namespace func {}
namespace gpu {}
namespace LLVM {}
namespace memref {}
namespace ROCDL {}
namespace scf {}
namespace vector {}
} // namespace mlir

namespace mxgemm {
// Core IR.
using mlir::Attribute;
using mlir::Block;
using mlir::Builder;
using mlir::DialectRegistry;
using mlir::DictionaryAttr;
using mlir::InFlightDiagnostic;
using mlir::IntegerAttr;
using mlir::Location;
using mlir::MemRefType;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::NamedAttribute;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::OwningOpRef;
using mlir::StringAttr;
using mlir::Type;
using mlir::TypeAttr;
using mlir::Value;
using mlir::ValueRange;
using mlir::VectorType;
// The upstream dialects the passes build.
namespace amdgpu = mlir::amdgpu;
namespace arith = mlir::arith;
namespace func = mlir::func;
namespace gpu = mlir::gpu;
namespace LLVM = mlir::LLVM;
namespace memref = mlir::memref;
namespace ROCDL = mlir::ROCDL;
namespace scf = mlir::scf;
namespace vector = mlir::vector;
// Passes and rewriting.
using mlir::ConversionPatternRewriter;
using mlir::ConversionTarget;
using mlir::OpConversionPattern;
using mlir::OpPassManager;
using mlir::OpRewritePattern;
using mlir::Pass;
using mlir::PatternRewriter;
using mlir::RewritePatternSet;
using mlir::TypeConverter;
// Results and LLVM support types (as mlir/Support/LLVM.h imports them).
using mlir::ArrayRef;
using mlir::cast;
using mlir::dyn_cast;
using mlir::dyn_cast_or_null;
using mlir::failed;
using mlir::failure;
using mlir::FailureOr;
using mlir::function_ref;
using mlir::isa;
using mlir::LogicalResult;
using mlir::SmallVector;
using mlir::StringRef;
using mlir::succeeded;
using mlir::success;
using mlir::Twine;
} // namespace mxgemm

#endif // MXGEMM_SUPPORT_MLIR_H
