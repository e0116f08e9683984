//===- Passes.td - mxgemm passes on ROCDL/LLVM-dialect IR --*- tablegen -*-===//
//
// The passes that run after the upstream ROCDL conversion, on the LLVM and
// ROCDL dialects just before serialisation (docs/Design.md section 3). Every
// pass's flag is its DEBUG_TYPE.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_PASSES_TD
#define MXGEMM_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def MXGemmAnnotateLdsAliasing : Pass<"mxgemm-annotate-lds-aliasing"> {
  let summary = "tell LLVM's waitcnt insertion that operand reads never "
                "alias in-flight LDS copies (gfx950)";
  let description = [{
    LLVM's `SIInsertWaitcnts` must assume that a `ds_read` may read bytes an
    in-flight `global_load_lds_dwordx4` is still writing, and then waits
    with `vmcnt(0)`, for every earlier vector-memory operation, since vmcnt
    retires in order. In an `mxgemm-pipeline` ring that wait also covers the
    refill copies of the next tiles and serializes the pipeline. The
    compiler knows better: every LDS read of a staged tile comes after the
    `mxgemm.wait_copies` that covers that tile's copies and the barrier that
    publishes it, so at any read the copies still in flight write other
    ring slots.

    Runs on the LLVM dialect after `convert-gpu-to-rocdl`: in functions
    with LDS copies (`rocdl.load.to.lds`), puts each copy in the alias scope
    `mxgemm.lds.copies` and each LDS load (`llvm.load` from address space
    3) in `mxgemm.lds.reads` with `noalias` to the copies' scope, the alias
    information `SIInsertWaitcnts` uses to tell LDS DMA targets apart (the
    same device Triton's AMD backend uses for its async copies). The
    metadata is only valid for kernels built by `mxgemm-stage-copies` and
    `mxgemm-pipeline`, whose explicit waits and barriers order every read
    after its copies; the emulator's unwaited-read checker verifies that on
    every test. Functions without LDS copies are left alone.

    Example: `mxgemm-opt --mxgemm-to-gfx950` (the last pass on the kernel
    module), or on ROCDL-dialect input
    `mxgemm-opt --pass-pipeline='builtin.module(gpu.module(mxgemm-annotate-lds-aliasing))'`.
  }];
  let statistics = [
    Statistic<"numAnnotatedFunctions", "num-annotated-functions",
              "functions with LDS copies whose accesses were annotated">,
    Statistic<"numAnnotatedCopies", "num-annotated-copies",
              "LDS copies put in the mxgemm.lds.copies scope">,
    Statistic<"numAnnotatedReads", "num-annotated-reads",
              "LDS loads marked noalias to the copies">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // MXGEMM_TARGET_PASSES_TD
