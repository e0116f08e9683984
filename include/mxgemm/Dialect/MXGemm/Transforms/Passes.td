//===- Passes.td - mxgemm transformation passes ------------*- tablegen -*-===//
//
// The passes of the mxgemm-to-gfx950 pipeline that rewrite mxgemm IR
// (docs/Design.md section 3), plus mxgemm-prefetch-registers and
// mxgemm-schedule-mfma, which reshape what convert-mxgemm-to-amdgpu
// (include/mxgemm/Conversion/Passes.td) emits; the
// passes on ROCDL/LLVM-dialect IR are in include/mxgemm/Target/Passes.td.
// Every pass's flag is its DEBUG_TYPE; every target-dependent pass takes
// `chip`.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_TD
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MXGemmTile : Pass<"mxgemm-tile", "::mlir::ModuleOp"> {
  let summary = "tile mxgemm.scaled_matmul into a gfx950 gpu.func kernel";
  let description = [{
    Turns every `func.func` whose body is one `mxgemm.scaled_matmul` into a
    `gpu.func` kernel of the same name inside `gpu.module @mxgemm_kernels`,
    with the kernel ABI of docs/Design.md section 4 (the argument list of
    `include/mxgemm/Contract/KernelABI.h`): flat global pointers
    `X, Xs, W, Ws, Y` (bare-pointer memrefs) followed by `M : i32`. The host
    function is removed: the runtime shim is the host side. The config is
    checked again against the target model of `chip`, whose XCD count the
    kernel's tile mapping records.

    Structure: a 1-D grid of `ceil(M / (tile_m / split)) * (N / tile_n)`
    workgroups of `64 * waves_m * waves_n` threads (wave64, gfx950);
    `mxgemm.program_tile` maps the workgroup id to an output tile (expanded
    by `mxgemm-group-tiles`); each wave owns a
    `tile_m / split / waves_m x tile_n / waves_n` sub-tile and accumulates
    it over an `scf.for` K loop of `mxgemm.wave_mma` steps of `tile_k`; the
    result is written by `mxgemm.store_tile`, which masks rows at or past M.
    A partial last tile column (N not a multiple of `tile_n`) and a K
    tail are masked where the verifier allows them (docs/Design.md,
    "Edges").

    Generic kernels (`?` for N or K in the op's types, direct loads of both
    operands): two more arguments after M, `N : i32` and `K : i32`; the
    tile columns are `ceil(N / tile_n)` at run time (`program_tile`'s
    `num_tiles_n` operand, row-major order), the K loop runs to K with
    every step masked at K (`wave_mma`'s `sizes(N, K)`), and stores use the
    run-time row length (`store_tile`'s `n` operand). Every static kernel
    is built exactly as before.

    Split-K (`k_splits = S > 1`, any staging of X and W): two more
    arguments, `Work` (an FP32 workspace of S x M x N) and `Phase : i32`,
    and a 2-D grid (y = S segments). Phase 0: workgroup (t, s) runs the K loop
    over segment `[s K / S, (s + 1) K / S)` of tile t from zero and stores
    its FP32 partial into plane s of `Work`. Phase 1 (a second launch on
    the same grid): the S workgroups of a tile share its outputs (S equal
    runs, row-major); each output is the sum of its S partials in
    ascending order, in Y's type, by one thread. The order of every addition is fixed, so the result is
    reproducible bit for bit (docs/Design.md, "Split K").

    Tail split (`tail_split = true` with `k_splits = S`): with T tiles and
    R = T mod 256 (the target's CUs), 1-D grids. Phase 0 has T - R + R x S
    workgroups: the first T - R run their tile over all of K and store Y;
    workgroup T - R + u runs segment u / R of tail tile T - R + u mod R (a K
    loop whose trip count is chosen at run time) and stores its partial as
    one program tile of a compact workspace. Phase 1 has the R x S tail
    units alone (docs/Design.md, "Tail split").

    Example: `mxgemm-opt --mxgemm-tile examples/wq_b.mlir`.
  }];
  let statistics = [
    Statistic<"numKernels", "num-kernels",
              "gpu.func kernels built from mxgemm.scaled_matmul">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx950\"",
           "target chip (only gfx950 is supported)">
  ];
}

def MXGemmGroupTiles : Pass<"mxgemm-group-tiles"> {
  let summary = "expand mxgemm.program_tile into the program-id -> tile swizzle";
  let description = [{
    Replaces `mxgemm.program_tile` with the index arithmetic of
    `TileGrouping.h` (the same formula the bijection unit tests enumerate):

    - `group_m = 1, group_n = 0`: row-major order;
    - `group_m = G, group_n = 0`: the classic 1-D GROUP_M (bands of G tile
      rows, M fastest inside a band);
    - `group_m = GM, group_n = GN`: 2-D groups of GM x GN tiles (e.g. the
      case table's 4M x 8N and 8M x 4N), M fastest inside a group;
    - `xcd_remap = true`: first remaps program ids so that the ids gfx950
      dispatches to one XCD (p % 8) form a contiguous logical range, so that
      tiles sharing operands share that XCD's 4 MB L2.

    The last band and column group may be partial (M is a runtime value);
    every tile is produced exactly once.

    Example: `mxgemm-opt --mxgemm-tile --mxgemm-group-tiles in.mlir`.
  }];
  let statistics = [
    Statistic<"numProgramTiles", "num-program-tiles",
              "mxgemm.program_tile ops expanded">,
    Statistic<"numGroupedOrders", "num-grouped-orders",
              "of which in a grouped or XCD-remapped (not row-major) order">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MXGemmStageCopies : Pass<"mxgemm-stage-copies"> {
  let summary = "stage LDS-staged operands through an LDS ring (gfx950)";
  let description = [{
    For kernels whose config stages X and/or W through LDS
    (`stage_x`/`stage_w` = `lds_async` or `lds_sync`), adds an LDS ring of
    `stages` slots of `[rows, tile_k (+16 if lds_layout = padded)]` bytes
    per staged operand (a `gpu.func` workgroup attribution), and rewrites
    the K loop body into: `mxgemm.copy_to_lds` of the K tile into slot 0,
    `mxgemm.wait_copies {pending = 0}`, `mxgemm.ring_barrier`, the
    `mxgemm.wave_mma` reading that operand from the wave's rows of the slot,
    `mxgemm.ring_barrier`.

    `lds_async` copies with gfx950 `global_load_lds_dwordx4` (16 bytes per
    lane into a wave-contiguous 1024-byte LDS span: the layout is chosen by
    which global address each lane loads), `lds_sync` through VGPRs. Padding
    rows by 16 bytes makes the `ds_read_b128` operand reads conflict-free
    under the 4-phase rule for 128-byte rows; `lds_layout = xor` keeps rows
    unpadded and permutes the 16-byte chunks of row r by XOR with
    (r / max(1, 256 / row_bytes)) % chunks_per_row, which also makes the
    `ds_write_b128`s of `lds_sync` conflict-free (async copies express the
    permutation through the global address each lane loads). Scales keep
    their natural global layout.

    `stage_w = packed_registers` gives W no ring: the pass marks the
    `mxgemm.wave_mma` with `w_panels`, so that each lane loads its 32 MFMA
    operand bytes per step with one contiguous global load from W packed in
    MFMA panels (`include/mxgemm/Contract/WeightPanels.h`; a wave reads 2 KiB
    contiguous per step). No LDS traffic and no barrier are needed for W.

    Example: `mxgemm-opt --mxgemm-tile --mxgemm-stage-copies in.mlir`.
  }];
  let statistics = [
    Statistic<"numStagedKernels", "num-staged-kernels",
              "kernels given an LDS ring">,
    Statistic<"numStagedOperands", "num-staged-operands",
              "operands staged through LDS">,
    Statistic<"numLdsBytes", "num-lds-bytes",
              "LDS bytes allocated to rings, summed over kernels">,
    Statistic<"numPackedWMmas", "num-packed-w-mmas",
              "MMAs marked to read W from packed panels">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::gpu::GPUDialect"];
}

def MXGemmStageStores : Pass<"mxgemm-stage-stores"> {
  let summary = "stage the epilogue through LDS for 16-byte row stores (gfx950)";
  let description = [{
    Gives each `mxgemm.store_tile` of a kernel, in program order while the
    LDS has room, a `staging` buffer: a
    `[waves, mfma_m, cols + pad]` LDS array of the output type (a `gpu.func`
    workgroup attribution beside the operand rings), with `cols` the widest
    of 128 and 64 bytes of output columns that divides the wave tile, is
    made of whole MFMA blocks and still fits the 160 KiB of LDS a gfx950
    workgroup may use. `convert-mxgemm-to-amdgpu` then writes each MFMA
    block row through the wave's slice and stores 16 bytes per lane along
    output rows (`global_store_dwordx4`): with 64 BF16 columns every store
    instruction writes 8 whole 128-byte rows, where direct stores write 8
    bytes into each of 32 rows. A store for which the LDS has no room
    stays direct (a tail split's FP32 partials, built after its Y store,
    where the ring takes the rest). The buffer adds to the kernel's LDS use and so to its occupancy
    limit.

    Example: `mxgemm-opt --mxgemm-tile --mxgemm-stage-stores in.mlir`.
  }];
  let statistics = [
    Statistic<"numStagedStores", "num-staged-stores",
              "kernels whose epilogue goes through LDS">,
    Statistic<"numDirectStores", "num-direct-stores",
              "kernels left with direct stores (no LDS room)">,
    Statistic<"numStagingBytes", "num-staging-bytes",
              "LDS bytes of staging buffers, summed over kernels">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MXGemmPipeline : Pass<"mxgemm-pipeline"> {
  let summary = "N-stage software pipelining of the staged K loop (gfx950)";
  let description = [{
    Rewrites each staged K loop (as built by `mxgemm-stage-copies`) into an
    N-stage pipeline over the LDS ring (N = `stages` of the kernel's config,
    or the pass option; 2 = double buffering): a prologue copies tiles
    0..N-2; iteration t waits for tile t only, publishes it with one
    barrier, issues the copies of tile t+N-1 into the slot read in
    iteration t-1, and runs the MFMAs of tile t while they are in flight.
    Every iteration issues a whole tile of copies, also past the last tile
    (K clamped to it, refilling a slot nobody reads), so exactly N-2 tiles
    of copies follow tile t's in issue order and one static wait serves
    every iteration: `s_waitcnt vmcnt((N-2) * copies per tile)`, counted
    with the fewest copies any wave issues. A static count also lets LLVM's
    waitcnt insertion keep the copies in flight past the MMA's own loads.
    N = 1 leaves the loop alone. In a split-K kernel the copies start at
    the segment's K origin plus the loop's K offset (`K0 = origin + k`,
    origin loop-invariant): the prologue and every refill add the origin,
    and the clamp stays at the segment's last K tile. A loop bound chosen
    at run time (a tail split's whole tiles and segments) clamps to the
    computed last K tile (bound - tile_k); a persistent tile walk needs a
    constant bound.

    With `schedule = pingpong` (8 waves, two per SIMD, both operands in LDS,
    N >= 2) the two groups of four waves (one wave of each per SIMD) run
    half an iteration apart: the wait moves into the MMA's turn
    (`pingpong_pending` of `mxgemm.wave_mma`: the wave's copies of tile
    t+1, then a barrier between its LDS reads and its MFMAs), tile 0 is
    waited for before the loop, and a conditional `mxgemm.ring_barrier`
    before the loop (group B) and after it (group A) staggers the groups, so
    that one group's turn meets the other's publishing barrier: one group
    reads LDS and refills while the other runs its MFMAs. With N = 2 the
    refill of tile t+1 lands in the slot the other group read until this
    iteration's publishing barrier: the MMA then takes two turns per K
    tile, over the two halves of the wave's W block columns
    (`pingpong_refills`, the W copies of tile t+1 left in flight at the
    first), and the X copies run two tiles ahead, moved after the MMA,
    which issues them in its second turn into the X half of the tile's own
    slot (`pingpong_pending`: those left in flight at the second)
    (docs/Design.md, "Two-slot ping-pong").

    Example: `mxgemm-opt --mxgemm-tile --mxgemm-stage-copies --mxgemm-pipeline in.mlir`.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "pipeline depth (0 = the config's stages)">
  ];
  let statistics = [
    Statistic<"numPipelinedLoops", "num-pipelined-loops",
              "staged K loops pipelined (depth > 1)">,
    Statistic<"numPipelineStages", "num-pipeline-stages",
              "pipeline stages, summed over pipelined loops">,
    Statistic<"numPrologueCopies", "num-prologue-copies",
              "mxgemm.copy_to_lds ops issued in prologues">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def MXGemmUnrollK : Pass<"mxgemm-unroll-k"> {
  let summary = "unroll the pipelined K loop by unroll_k and share its scale "
                "loads (gfx950)";
  let description = [{
    For kernels whose config says `unroll_k = U` (U > 1), unrolls every K
    loop with one `mxgemm.wave_mma` (the pipelined loop of
    `mxgemm-pipeline`) by U; a remainder of fewer than U K tiles is
    unrolled fully. In a ping-pong loop (`pingpong_pending`) the U MMAs of
    an unrolled iteration then share their scale loads: an
    `mxgemm.load_wave_scales` loads the E8M0 blocks of all U K tiles with
    one 4-, 8- or 16-byte load per row and lane, and each MMA reads its K
    tile's bytes from the words (`scale_words`, `scale_words_tile`)
    instead of loading one byte per row and lane. The words are loaded one
    iteration ahead: the first iteration's before the loop, the next one's
    after the copies of the last K tile, whose turn leaves them in flight
    (its `pingpong_pending` grows by their loads), carried by the loop; the
    last iteration loads its own K tiles again. Sharing needs a static K,
    a multiple of tile_k and of 32 x the load width (each row's blocks
    aligned); elsewhere the loop is only unrolled. The K order of every
    MFMA is unchanged, so results are bit-identical.

    Without unrolling (`unroll_k = 1`), a two-slot ping-pong loop (its MMA
    has `pingpong_refills`) with row-major X scales, a static K that is a
    multiple of tile_k = 128, gets its X scales one K tile ahead: an
    X-only `mxgemm.load_wave_scales` (`span = 1`, a dword per MFMA block
    row and lane) for tile t + 1, after the X copies that the MMA issues
    in its second turn (its `pingpong_pending` grows by the loads), carried
    by the loop into `x_scale_words`. The first turn of tile t + 1 then
    waits for them with the copies it waits for anyway, instead of for a
    scale load issued in the same memory phase; each row-major scale load
    touches a cache line per row, 32 address-unit cycles. Under 32x32-block
    W scales (not MFMA-native) the same op also loads the W words of tile
    t + 1 (`w_scale_words`): wave-uniform, they are scalar loads into
    SGPRs, which neither occupy the vector-memory queue of the second
    memory phase nor leave a vector load for the first one to wait for.
    A split-K segment's loop, whose MMA reads K tile origin + k (a
    loop-invariant origin), loads them from origin + k the same way.

    A two-slot loop with a static trip count of two or more, outside a
    persistent kernel's tile walk, then has its first K tile peeled
    (`scf::peelForLoopFirstIteration`): the peeled MMA accumulates into
    the loop's zero initial value, which LLVM folds into the MFMAs' C
    operand (an inline 0), so the 128 `v_mov` per wave that zeroed the
    accumulators before the loop go away. Those sit on the critical path
    of a short-K kernel's prologue, where the two waves of a SIMD issue
    every instruction in turn; the results are bit-identical (each MFMA
    still adds its products to +0). In a tile walk the duplicated
    iteration costs the registers the 256x256 walk does not have.

    Why (gfx950): a scale load touches one cache line per row of the wave's
    MFMA block (rows are K / 32 bytes apart), and the texture address unit
    spends a cycle per line whatever the width, so in the 128x256x128
    kernels the per-K-tile byte loads of scales cost more address cycles
    than the operand copies. `mxgemm-sim` predicts the address unit freed
    but no kernel faster (docs/Performance.md, "unroll_k"), so no tuned
    config uses it yet.

    Example: `mxgemm-opt --mxgemm-tile --mxgemm-stage-copies
    --mxgemm-pipeline --mxgemm-unroll-k in.mlir` on a config with
    `stage_x = stage_w = lds_async, stages = 3, schedule = pingpong,
    unroll_k = 2`.
  }];
  let statistics = [
    Statistic<"numUnrolledLoops", "num-unrolled-loops",
              "K loops unrolled by unroll_k">,
    Statistic<"numSharedScaleLoads", "num-shared-scale-loads",
              "unrolled K loops whose MMAs share scale loads">,
    Statistic<"numPrefetchedXScales", "num-prefetched-x-scales",
              "two-slot K loops whose X scales come one K tile ahead">,
    Statistic<"numPrefetchedWScales", "num-prefetched-w-scales",
              "two-slot K loops whose W scales come one K tile ahead "
              "(scalar loads)">,
    Statistic<"numPeeledFirstKTiles", "num-peeled-first-k-tiles",
              "two-slot K loops whose first K tile is peeled (its MFMAs "
              "start from C = 0)">
  ];
  // Peeling computes the remaining loop's bounds with affine.apply.
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def MXGemmScheduleMfma : Pass<"mxgemm-schedule-mfma"> {
  let summary = "interleave loads with the MFMA chain of the K loop (gfx950)";
  let description = [{
    For kernels whose config says `schedule = interleave` (or with
    `force`), orders each K-loop body by appending gfx950 sched-group
    barriers (`rocdl.sched.group.barrier`, lowered to
    `s_sched_group_barrier` hints for the LLVM scheduler): one MFMA, then
    its share of LDS reads (mask 0x100), then of global loads (mask 0x20),
    repeated for every MFMA of the body; and brackets the MFMA cluster with
    `s_setprio 1` / `s_setprio 0`. With `schedule = loads_first` the
    barriers put every global load of the body (counted in 16-byte
    instructions), then every LDS read, before all MFMAs, without
    `s_setprio` (it would bound the scheduling region): small-M kernels
    stream W from HBM, and left alone LLVM interleaves the loads with the
    MFMAs that consume them, so that only a few are in flight and a K tile
    waits for several memory latencies instead of one. In kernels whose K
    loops `mxgemm-prefetch-registers` pipelined (whatever `schedule` says),
    every block with MFMAs (the unrolled loop body, the straight-line
    prologue and epilogue) is ordered run by run, a run being the next
    tiles' global loads and then a tile's MFMAs, with the groups after each
    control-flow-free stretch's last MFMA. Data movement and arithmetic are
    unchanged; MFMA steps keep their K order (each accumulator block is a
    dependence chain). Runs after `convert-mxgemm-to-amdgpu`.

    Example: `mxgemm-opt --mxgemm-to-gfx950` on a config with
    `schedule = interleave`, or
    `mxgemm-opt --convert-mxgemm-to-amdgpu --mxgemm-schedule-mfma=force in.mlir`.
  }];
  let options = [
    Option<"force", "force", "bool", /*default=*/"false",
           "schedule every kernel, whatever its config says">
  ];
  let statistics = [
    Statistic<"numScheduledLoops", "num-scheduled-loops",
              "K-loop bodies given an MFMA/load interleave">,
    Statistic<"numSchedGroupBarriers", "num-sched-group-barriers",
              "rocdl.sched.group.barrier ops emitted">,
    Statistic<"numScheduledMfmas", "num-scheduled-mfmas",
              "MFMAs placed by the sched-group barriers">
  ];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect"];
}

def MXGemmPrefetchRegisters : Pass<"mxgemm-prefetch-registers"> {
  let summary = "keep stages - 1 K tiles of register loads in flight in "
                "kernels without an LDS ring (gfx950)";
  let description = [{
    For kernels whose config loads both operands straight into registers
    (`stage_x = direct`, `stage_w = direct` or `packed_registers`) and says
    `stages = s` with s >= 2, software-pipelines every K loop with MFMAs
    using the upstream SCF pipeliner (`scf::pipelineForLoop`): the body's
    global loads (operands and scales) and the arithmetic their addresses
    need form stage 0, everything else stage s - 1. The loaded registers
    are carried by the loop, the prologue issues the first s - 1 K tiles'
    loads and the peeled epilogue runs the last tiles' MFMAs, so every
    load and MFMA of the unpipelined loop runs exactly once, in the same
    K order: the results are bit-identical. Without it a direct K loop
    issues one K tile's loads and waits for all of them before the tile's
    MFMAs, one memory latency per K tile (the small-M kernels that stream
    W, docs/Design.md "Small M"). A loop with fewer K tiles than stages is
    left as it is; a run-time K (a generic kernel) is an error. Runs after
    `convert-mxgemm-to-amdgpu`, before `mxgemm-schedule-mfma`, whose
    `loads_first` order then puts the next tile's loads ahead of this
    tile's MFMAs.

    Example: `mxgemm-opt --mxgemm-to-gfx950` on a config with
    `stage_x = direct, stage_w = direct, stages = 2`, or
    `mxgemm-opt --convert-mxgemm-to-amdgpu --mxgemm-prefetch-registers in.mlir`.
  }];
  let statistics = [
    Statistic<"numPipelinedLoops", "num-pipelined-loops",
              "K loops software-pipelined">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def MXGemmRaiseScaledContractions
    : Pass<"mxgemm-raise-scaled-contractions", "::mlir::func::FuncOp"> {
  let summary = "raise upstream MX contractions (linalg + arith.scaling_extf) "
                "to mxgemm.scaled_matmul_tensor";
  let description = [{
    Finds the block-scaled FP8 GEMMs an upstream tensor-level pipeline
    (IREE-, torch-mlir- or Triton-style) emits and replaces them with
    `mxgemm.scaled_matmul_tensor`, which `one-shot-bufferize` turns into
    `mxgemm.scaled_matmul` and `mxgemm-to-gfx950` compiles for gfx950's
    scaled MFMAs (`v_mfma_scale_f32_*_f8f6f4`). What it matches, on ranked
    tensors:

    - the contraction `Y[m, n] = sum_k A[m, k] * B[n, k]` spelled as
      `linalg.generic` (maps `(m, n, k) -> (m, k)`, `(n, k)`, `(m, n)`,
      iterators parallel, parallel, reduction, body `mulf` + `addf`),
      `linalg.matmul` with those `indexing_maps` (B transposed) or
      `linalg.contract` with those maps;
    - both operands `arith.scaling_extf` of an FP8 tensor (`f8E4M3FN` or
      `f8E5M2`, `[M, K]` / `[N, K]`) by E8M0 scales (`f8E8M0FNU`) extended
      to f32; the scales are an `[R, K/32]` tensor broadcast along K in
      blocks of 32, by a `linalg.generic` that yields its input with the
      input map `(r, k) -> (r, k floordiv 32)` (per row) or, for the
      weights, `(n, k) -> (n floordiv 32, k floordiv 32)` (32x32 blocks), or
      by `tensor.collapse_shape [[0], [1, 2]]` of a `linalg.broadcast`
      `[R, K/32] -> [R, K/32, 32]` (`dimensions = [2]`, per row);
    - an f32 accumulator from `linalg.fill` of `+0.0`;
    - optionally the f32 result rounded to bf16 by `arith.truncf` (nearest
      even) or by an elementwise `linalg.generic` whose body is that
      `arith.truncf`: the op then writes bf16 directly.

    N and K must be static, M may be dynamic; the problem must satisfy the
    contract (docs/Design.md section 1) and the config chosen (below).
    The op is built with the naive config, `#mxgemm.config<>`
    (`mxgemm-compile --config=default`; a pass sees no M and does not run
    the `--config=auto` choice of docs/Compiler.md), or with the `config`
    option. Dead producers (fill, broadcasts,
    `scaling_extf`) are erased.

    **Rounding.** Raising changes the numerics: upstream's contraction
    rounds every f32 addition and `arith.scaling_extf` to f32 can overflow
    (to inf) where the exact MX product does not, while the MX contract
    forms each K-step's sum exactly and rounds once per K-step (64 or 128
    elements, docs/Design.md section 1). Results agree within the
    project's tolerance rule (docs/Numerics.md), not bit for bit. With
    `require-opt-in`, only contractions that carry the unit attribute
    `mxgemm.accept_mx_rounding` are raised.

    A scaled contraction (one with an `arith.scaling_extf` operand) that
    does not match is left unchanged with a remark
    `not raised to mxgemm: <reason>` (e.g. scales broadcast in blocks of
    16, f16 accumulation, B not transposed, a non-zero initial
    accumulator). Contractions without `scaling_extf` operands are not
    looked at.

    Example: `mxgemm-opt --mxgemm-raise-scaled-contractions in.mlir`, then
    `--one-shot-bufferize="bufferize-function-boundaries
    function-boundary-type-conversion=identity-layout-map"`.
  }];
  let options = [
    Option<"requireOptIn", "require-opt-in", "bool", /*default=*/"false",
           "raise only contractions with the unit attribute "
           "mxgemm.accept_mx_rounding">,
    Option<"config", "config", "std::string", /*default=*/"\"\"",
           "body of the #mxgemm.config<...> to build the op with; empty: "
           "the default config">
  ];
  let statistics = [
    Statistic<"numRaised", "num-raised",
              "contractions replaced by mxgemm.scaled_matmul_tensor">,
    Statistic<"numMissed", "num-missed",
              "scaled contractions left unchanged (with a remark)">
  ];
  let dependentDialects = ["::mxgemm::MXGemmDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MXGemmLowerToUpstream
    : Pass<"mxgemm-lower-to-upstream", "::mlir::func::FuncOp"> {
  let summary = "lower mxgemm.scaled_matmul(_tensor) to linalg + "
                "arith.scaling_extf (a portable reference)";
  let description = [{
    Rewrites `mxgemm.scaled_matmul` (memrefs) and
    `mxgemm.scaled_matmul_tensor` (tensors) as upstream MLIR that any
    target can compile, for example the CPU through `mlir-runner`: a
    `linalg.fill` of `+0.0` into an f32 `[M, N]` accumulator, one
    `linalg.generic` over `(m, n, k)` whose body is
    `scaling_extf(X[m, k], Xs[m, k floordiv 32]) *
    scaling_extf(W[n, k], Ws[n, k floordiv 32])` added to the accumulator
    (`Ws[n floordiv 32, k floordiv 32]` for 32x32-block weight scales),
    and for bf16 output an elementwise `linalg.generic` with
    `arith.truncf` (nearest even) into Y. On memrefs the f32 accumulator of
    a bf16 result is a `memref.alloc`, freed after use. The config is not
    used: this is not a gfx950 kernel.

    **Numerics.** This is upstream's rounding, not the MX contract's: every
    f32 addition rounds (the contract rounds once per K-step) and a
    dequantized operand can overflow f32 where the exact product does not.
    The result agrees with the C++ reference (`referenceGemmFP64`) within
    the tolerance rule of docs/Numerics.md for K-step 1, i.e.
    `|y - ref| <= K * 2^-24 * sum_k |products|` plus the bf16 rounding of
    the result; it is not bit-exact with a gfx950 kernel.

    On the CPU, FP8 and E8M0 arithmetic needs
    `arith-expand{include-f8e8m0=true}` and `convert-arith-to-apfloat`
    (with `libmlir_apfloat_wrappers.so` at run time); see
    `test/Dialect/MXGemm/Transforms/lower-to-upstream-cpu.test`.

    Example: `mxgemm-opt --mxgemm-lower-to-upstream examples/wq_b.mlir`.
  }];
  let statistics = [
    Statistic<"numLowered", "num-lowered",
              "mxgemm GEMMs rewritten as linalg + arith.scaling_extf">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def MXGemmLowerQuantize : Pass<"mxgemm-lower-quantize", "::mlir::ModuleOp"> {
  let summary = "lower mxgemm.quantize to a gfx950 gpu.func kernel";
  let description = [{
    Turns every `func.func` whose body is one `mxgemm.quantize` into a
    `gpu.func` kernel of the same name inside `gpu.module @mxgemm_kernels`
    with the arguments `input, codes, scales` (flat bare-pointer global
    memrefs) and `M : i32, K : i32`; the host function is removed.

    Structure (gfx950, wave64): a 1-D grid of `ceil(M * K / 32 / 256)`
    workgroups of 256 threads, 256 blocks each. Row-major `[M, K]` with
    `K % 32 == 0` makes the 32-blocks contiguous and numbered like the
    scales. A block is spread over a quad of lanes, lane `q` holding values
    `8q..8q+7` (one 16-byte `vector.load` of BF16/FP16, 32 bytes of FP32),
    so that one load instruction of a wave covers whole 128-byte lines;
    each lane does four such pieces, its four loads first. The quad's amax
    comes from two `rocdl.update.dpp` quad permutations (folded into
    `v_max_u32_dpp`, no LDS); each lane stores its 8 code bytes and lane 0
    of the quad the scale byte: at the block's number with row-major
    scales, at its place in the MFMA-native layout of the op's
    `scale_layout` otherwise (row and column by one 32-bit division per
    block from the workgroup's first block; the blocks of the last row and
    column also write the layout's padding, 127).

    The FP8 conversion is exact arithmetic on the bit patterns rather
    than `v_cvt_pk_fp8_f32`: it reproduces the reference quantizer bit for
    bit without depending on the instruction's clamp and NaN behaviour
    (docs/Numerics.md, "Device quantization"). A block of finite values
    with a shared exponent of at least -115 (E4M3; -108 for E5M2) takes a
    short path: for BF16/FP16 values that are all input and FP8 normals,
    the rebias-and-round on the packed 16-bit patterns (`v_pk_*_u16`,
    codes packed by `llvm.amdgcn.perm`); otherwise FP8-normal elements by
    rebiasing the FP32 exponent field and rounding at bit 23 - p,
    FP8-subnormal ones by adding 2^23 in FP32 (all operands normal). Any
    other block takes the general path: significands normalised with
    `llvm.intr.ctlz`, a variable right shift with round to nearest even,
    saturation, NaN/inf codes. The general/short choice is per block (the
    quad agrees; the general path's amax is a quad reduction too), the
    choices inside the short path per lane (`scf.if`).

    Example: `mxgemm-opt --mxgemm-lower-quantize test/Dialect/MXGemm/quantize.mlir`.
  }];
  let statistics = [
    Statistic<"numKernels", "num-kernels",
              "gpu.func kernels built from mxgemm.quantize">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MXGemmLowerPackPanels : Pass<"mxgemm-lower-pack-panels", "::mlir::ModuleOp"> {
  let summary = "lower mxgemm.pack_panels to a gfx950 gpu.func kernel";
  let description = [{
    Turns every `func.func` whose body is one `mxgemm.pack_panels` into a
    `gpu.func` kernel of the same name inside `gpu.module @mxgemm_kernels`
    with the arguments `w, packed` (flat bare-pointer global i8 memrefs)
    and `N : i32, K : i32` (the shape is dynamic: one kernel per MFMA shape
    serves every weight); the host function is removed.

    Structure (gfx950, wave64): a 1-D grid of `ceil(panels / 4)`
    workgroups of 256 threads, panels = `N / non_k * K / kStep`; wave `w`
    of workgroup `g` writes panel `4 g + w` = `(nb, ks)`. Lane `l` loads
    its two 16-byte runs `W[nb non_k + l % non_k][ks kStep + (kStep / 2) h
    + 16 (l / non_k) ..+15]` (h = 0, 1; `global_load_dwordx4` each) and
    stores the 32 bytes at `panel * 2048 + 32 l`, so a wave's stores are
    one contiguous 2048-byte run (include/mxgemm/Contract/WeightPanels.h's
    mapping). No LDS, no arithmetic beyond addressing: bandwidth-bound.
    Offsets are 64-bit (`index`), so any `N * K < 2^63` is addressed.

    Example: `mxgemm-opt --mxgemm-lower-pack-panels test/Dialect/MXGemm/pack-panels.mlir`.
  }];
  let statistics = [
    Statistic<"numKernels", "num-kernels",
              "gpu.func kernels built from mxgemm.pack_panels">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_TD
