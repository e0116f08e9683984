//===- Passes.td - mxgemm conversion passes ----------------*- tablegen -*-===//
//
// The passes that take mxgemm ops out of the IR (docs/Design.md section 3): after
// them only upstream dialects remain. Every pass's flag is its DEBUG_TYPE.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONVERSION_PASSES_TD
#define MXGEMM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMXGemmToAMDGPU : Pass<"convert-mxgemm-to-amdgpu"> {
  let summary = "lower wave-level mxgemm ops to amdgpu.scaled_mfma, LDS "
                "copies, waits, barriers and stores (gfx950)";
  let description = [{
    Lowers the wave-level ops that `mxgemm-tile`, `mxgemm-stage-copies` and
    `mxgemm-pipeline` leave in a gfx950 kernel to the `amdgpu`, `rocdl`,
    `llvm`, `vector`, `memref` and `scf` dialects, as dialect-conversion
    patterns (`populateMXGemmToAMDGPUConversionPatterns`). The whole mxgemm
    dialect is illegal afterwards: an mxgemm op the patterns do not lower
    (`mxgemm.scaled_matmul` before `mxgemm-tile`, `mxgemm.program_tile`
    before `mxgemm-group-tiles`) is an error naming the pass that should
    have run, so a misordered pipeline fails instead of leaving mxgemm ops
    behind.

    `mxgemm.wave_mma` becomes per-lane operand loads in the register layouts
    of docs/Design.md section 9 and a fixed-K-order chain of
    `amdgpu.scaled_mfma` (gfx950 `v_mfma_scale_f32_32x32x64_f8f6f4` or
    `v_mfma_scale_f32_16x16x128_f8f6f4`): lane `l` loads bytes
    `k = 32*(e>>4) + 16*(l/32) + (e&15)` (32x32x64) or
    `k = 64*(e>>4) + 16*(l/16) + (e&15)` (16x16x128) of its row, and the
    E8M0 scale of row `l % nonK`, block `l / nonK` of each step. W is the
    MFMA's A operand and X its B, so each block is computed transposed and a
    lane ends with four consecutive output columns of one row. Where a K
    tile has several steps, one aligned 4- or 8-byte load per row brings the
    scales of all of them, shifted right by 8 * (l / nonK) bytes, and each
    MFMA selects its byte with the scale byte select (op_sel); a one-step
    tile loads one byte per row into byte 0. Per-row and 32x32-block weight
    scales are both supported.
    Operands staged in LDS (`x_tile`/`w_tile`) are read with 16-byte
    `ds_read_b128`s at the same (row, k) positions; `w_panels` operands with
    one contiguous 32-byte load per lane. In a pipelined loop (refill copies
    between the publishing barrier and the MMA) the global loads of every
    MFMA step (scales, panels, direct operands) are issued before those
    copies: vmcnt retires in order, so a load issued after the copies could
    only be waited for together with them. The barrier and the copies are
    recognised whether or not they are lowered yet, so the result does not
    depend on the order in which the driver applies the patterns.

    `mxgemm.store_tile` becomes conversion four outputs at a time (BF16
    round to nearest even, two `v_cvt_pk_bf16_f32`; or FP32) and 8-byte
    stores per lane, or, with a `staging` buffer, LDS writes, 16-byte LDS
    reads along output rows and `global_store_dwordx4`; rows at or past M
    are masked per lane in the last tile row (accumulators out of a K loop
    of one trip, or of a kernel whose K loop `mxgemm-prefetch-registers`
    will pipeline, first go through an empty asm with side effects, so
    that LLVM cannot sink their MFMAs and scale operands under that mask);
    `mxgemm.copy_to_lds` becomes `amdgpu.gather_to_lds`
    (`global_load_lds_dwordx4`; in a `gpu.func` its wave index comes from
    one `rocdl.readfirstlane` at the kernel's entry, so that the LDS
    destination in M0 is scalar arithmetic) or global loads + LDS stores;
    `mxgemm.wait_copies` becomes `amdgpu.memory_counter_wait`
    (`s_waitcnt vmcnt(N) lgkmcnt(0)`), and `mxgemm.ring_barrier` becomes
    `rocdl.s.barrier` between single-thread `llvm.fence`s (in the K loop
    of a two-slot ping-pong kernel, `schedule = pingpong, stages = 2`,
    also between `rocdl.sched.barrier 0`s, which keep the backend from
    hoisting the loop's address arithmetic above it, to the end of the
    previous MFMA turn).

    A kernel whose config says `stage_w = packed_registers` but whose MMA
    reads row-major W (`mxgemm-stage-copies` did not run) is rejected.

    Example:
    `mxgemm-opt --mxgemm-tile --mxgemm-group-tiles --convert-mxgemm-to-amdgpu in.mlir`
  }];
  let options = [
    Option<"allowPatternRollback", "allow-pattern-rollback", "bool",
           /*default=*/"true",
           "let the conversion driver defer erasure and roll back patterns "
           "(false: the one-shot driver, which erases replaced ops at once)">
  ];
  let statistics = [
    Statistic<"numMfmas", "num-mfmas", "amdgpu.scaled_mfma ops emitted">,
    Statistic<"numHoistedMmas", "num-hoisted-mmas",
              "MMAs whose global loads were issued ahead of refill copies">,
    Statistic<"numDsReads", "num-ds-reads",
              "16-byte LDS operand reads (ds_read_b128) emitted">,
    Statistic<"numGlobalLoads", "num-global-loads",
              "global loads emitted (MMA operands and scales, lds_sync data)">,
    Statistic<"numScalarLoads", "num-scalar-loads",
              "scalar (SMEM) loads emitted (wave-uniform W scale words)">,
    Statistic<"numLdsCopies", "num-lds-copies",
              "mxgemm.copy_to_lds ops lowered">,
    Statistic<"numLdsCopyInstructions", "num-lds-copy-instructions",
              "global-to-LDS transfers emitted (gather_to_lds or LDS store)">,
    Statistic<"numWaits", "num-waits", "mxgemm.wait_copies ops lowered">,
    Statistic<"numBarriers", "num-barriers",
              "mxgemm.ring_barrier ops lowered">,
    Statistic<"numStores", "num-stores",
              "output stores emitted (guarded and unguarded)">
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect"];
}

#endif // MXGEMM_CONVERSION_PASSES_TD
