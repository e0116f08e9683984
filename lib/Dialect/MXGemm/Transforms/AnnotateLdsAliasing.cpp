//===- AnnotateLdsAliasing.cpp - mxgemm-annotate-lds-aliasing -------------===//
//
// Alias scopes that let LLVM's waitcnt insertion keep refill copies in
// flight while the MFMAs read the current ring slot (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#define DEBUG_TYPE "mxgemm-annotate-lds-aliasing"

namespace mlir::mxgemm {
#define GEN_PASS_DEF_MXGEMMANNOTATELDSALIASING
#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h.inc"

namespace {

/// The gfx950 LDS address space.
constexpr unsigned kLdsAddressSpace = 3;

bool readsLds(LLVM::LoadOp load) {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(load.getAddr().getType());
  return ptr && ptr.getAddressSpace() == kLdsAddressSpace;
}

void annotate(LLVM::LLVMFuncOp func) {
  SmallVector<ROCDL::LoadToLDSOp> copies;
  SmallVector<LLVM::LoadOp> reads;
  func.walk([&](Operation *op) {
    if (auto copy = dyn_cast<ROCDL::LoadToLDSOp>(op))
      copies.push_back(copy);
    else if (auto load = dyn_cast<LLVM::LoadOp>(op); load && readsLds(load))
      reads.push_back(load);
  });
  if (copies.empty() || reads.empty())
    return;
  MLIRContext *ctx = func.getContext();
  auto domain =
      LLVM::AliasScopeDomainAttr::get(ctx, StringAttr::get(ctx, "mxgemm.lds"));
  auto copyScope = LLVM::AliasScopeAttr::get(
      domain, StringAttr::get(ctx, "mxgemm.lds.copies"));
  auto readScope = LLVM::AliasScopeAttr::get(
      domain, StringAttr::get(ctx, "mxgemm.lds.reads"));
  auto copyScopes = ArrayAttr::get(ctx, {copyScope});
  auto readScopes = ArrayAttr::get(ctx, {readScope});
  for (ROCDL::LoadToLDSOp copy : copies)
    copy.setAliasScopesAttr(copyScopes);
  for (LLVM::LoadOp read : reads) {
    read.setAliasScopesAttr(readScopes);
    read.setNoaliasScopesAttr(copyScopes);
  }
}

struct MXGemmAnnotateLdsAliasingPass
    : public impl::MXGemmAnnotateLdsAliasingBase<
          MXGemmAnnotateLdsAliasingPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([](LLVM::LLVMFuncOp func) { annotate(func); });
  }
};

} // namespace
} // namespace mlir::mxgemm
