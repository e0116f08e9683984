//===- QuantizeCompiler.cpp - mxgemm.quantize to a code object ------------===//
//
// The quantize kernel and its descriptor fields; the pipeline and the
// serialisation are the data-movement kernels' (DataKernelCompiler.h).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Compiler/QuantizeCompiler.h"
#include "DataKernelCompiler.h"

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mxgemm;

std::string mxgemm::getQuantizeKernelName(const QuantizeSpec &spec) {
  if (!spec.name.empty())
    return spec.name;
  return "mxgemm_quantize_" + spec.inType + "_" + spec.format;
}

OwningOpRef<ModuleOp> mxgemm::buildQuantize(MLIRContext *ctx,
                                            const QuantizeSpec &spec) {
  Location loc = NameLoc::get(StringAttr::get(ctx, "mxgemm-quantize"));
  Builder types(ctx);
  Type in = llvm::StringSwitch<Type>(spec.inType)
                .Case("bf16", types.getBF16Type())
                .Case("f16", types.getF16Type())
                .Case("f32", types.getF32Type())
                .Default(Type());
  Type code = llvm::StringSwitch<Type>(spec.format)
                  .Case("e4m3", Float8E4M3FNType::get(ctx))
                  .Case("e5m2", Float8E5M2Type::get(ctx))
                  .Default(Type());
  if (!in || !code) {
    emitError(loc) << "quantize takes bf16, f16 or f32 values to e4m3 or "
                      "e5m2, got "
                   << spec.inType << " to " << spec.format;
    return {};
  }
  ctx->getOrLoadDialect<MXGemmDialect>();
  ctx->getOrLoadDialect<func::FuncDialect>();
  const int64_t dyn = ShapedType::kDynamic;
  auto memref = [&](Type elem) { return MemRefType::get({dyn, dyn}, elem); };
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, getQuantizeKernelName(spec),
      b.getFunctionType(
          {memref(in), memref(code), memref(Float8E8M0FNUType::get(ctx))}, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  QuantizeOp::create(b, loc, body->getArgument(0), body->getArgument(1),
                     body->getArgument(2));
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return {};
  return module;
}

bool mxgemm::containsQuantize(ModuleOp module) {
  bool found = false;
  module.walk([&](QuantizeOp) { found = true; });
  return found;
}

static std::string typeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  return isa<Float8E4M3FNType>(t) ? "e4m3" : "e5m2";
}

FailureOr<std::string> mxgemm::compileQuantize(ModuleOp module,
                                               const CompileOptions &options,
                                               std::string &descriptorJson) {
  SmallVector<QuantizeOp> ops;
  module.walk([&](QuantizeOp op) { ops.push_back(op); });
  if (ops.size() != 1)
    return module.emitError("expected exactly one mxgemm.quantize, got ")
           << ops.size();
  auto func = ops.front()->getParentOfType<func::FuncOp>();
  if (!func)
    return ops.front().emitOpError("must be inside a func.func");
  const std::string kernel = func.getName().str();
  const std::string inType =
      typeName(ops.front().getInput().getType().getElementType());
  const std::string format =
      typeName(ops.front().getCodes().getType().getElementType());

  return compiler::compileDataKernel(
      module, options, kernel,
      llvm::json::Object{
          {"kind", "mxgemm-quantize"},
          {"version", 1},
          {"in_type", inType},
          {"format", format},
          {"scale_layout", stringifyScaleLayout(ops.front().getScaleLayout())},
          {"arguments",
           llvm::json::Array{"input", "codes", "scales", "m", "k"}},
          {"workgroup_size", 256},
          {"blocks_per_workgroup", 256}},
      descriptorJson);
}
