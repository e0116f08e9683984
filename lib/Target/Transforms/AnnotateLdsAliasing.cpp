//===- AnnotateLdsAliasing.cpp - mxgemm-annotate-lds-aliasing -------------===//
//
// Alias scopes that let LLVM's waitcnt insertion keep refill copies in
// flight while the MFMAs read the current ring slot (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Target/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "mxgemm-annotate-lds-aliasing"

namespace mxgemm {
#define GEN_PASS_DEF_MXGEMMANNOTATELDSALIASING
#include "mxgemm/Target/Passes.h.inc"

namespace {

/// The gfx950 LDS address space.
constexpr unsigned kLdsAddressSpace = 3;

bool readsLds(LLVM::LoadOp load) {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(load.getAddr().getType());
  return ptr && ptr.getAddressSpace() == kLdsAddressSpace;
}

struct LdsAccesses {
  SmallVector<ROCDL::LoadToLDSOp> copies;
  SmallVector<LLVM::LoadOp> reads;
};

/// Annotates the LDS copies and reads of `func`; returns what it annotated
/// (nothing if the function has no copies or no reads).
LdsAccesses annotate(LLVM::LLVMFuncOp func) {
  LdsAccesses accesses;
  func.walk([&](Operation *op) {
    if (auto copy = dyn_cast<ROCDL::LoadToLDSOp>(op))
      accesses.copies.push_back(copy);
    else if (auto load = dyn_cast<LLVM::LoadOp>(op); load && readsLds(load))
      accesses.reads.push_back(load);
  });
  if (accesses.copies.empty() || accesses.reads.empty())
    return {};
  MLIRContext *ctx = func.getContext();
  auto domain =
      LLVM::AliasScopeDomainAttr::get(ctx, StringAttr::get(ctx, "mxgemm.lds"));
  auto copyScope = LLVM::AliasScopeAttr::get(
      domain, StringAttr::get(ctx, "mxgemm.lds.copies"));
  auto readScope = LLVM::AliasScopeAttr::get(
      domain, StringAttr::get(ctx, "mxgemm.lds.reads"));
  auto copyScopes = ArrayAttr::get(ctx, {copyScope});
  auto readScopes = ArrayAttr::get(ctx, {readScope});
  for (ROCDL::LoadToLDSOp copy : accesses.copies)
    copy.setAliasScopesAttr(copyScopes);
  for (LLVM::LoadOp read : accesses.reads) {
    read.setAliasScopesAttr(readScopes);
    read.setNoaliasScopesAttr(copyScopes);
  }
  return accesses;
}

struct MXGemmAnnotateLdsAliasingPass
    : public impl::MXGemmAnnotateLdsAliasingBase<
          MXGemmAnnotateLdsAliasingPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      LdsAccesses annotated = annotate(func);
      if (annotated.copies.empty())
        return;
      ++numAnnotatedFunctions;
      numAnnotatedCopies += annotated.copies.size();
      numAnnotatedReads += annotated.reads.size();
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": @" << func.getSymName()
                              << ": " << annotated.copies.size() << " copies, "
                              << annotated.reads.size() << " LDS reads\n");
    });
  }
};

} // namespace
} // namespace mxgemm
