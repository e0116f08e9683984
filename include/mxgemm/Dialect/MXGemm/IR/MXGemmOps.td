//===- MXGemmOps.td - mxgemm operations --------------------*- tablegen -*-===//
//
// The problem-level op and the mid-level ops the passes lower through.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_IR_MXGEMMOPS_TD
#define MXGEMM_DIALECT_MXGEMM_IR_MXGEMMOPS_TD

include "mxgemm/Dialect/MXGemm/IR/MXGemmDialect.td"
include "mxgemm/Dialect/MXGemm/IR/MXGemmAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"

def MXGemm_FP8Element : AnyTypeOf<[F8E4M3FN, F8E5M2]>;
def MXGemm_FP8Memref : MemRefRankOf<[F8E4M3FN, F8E5M2], [2]>;
def MXGemm_ScaleMemref : MemRefRankOf<[F8E8M0FNU], [2]>;
def MXGemm_OutMemref : MemRefRankOf<[BF16, F32], [2]>;

//===----------------------------------------------------------------------===//
// scaled_matmul
//===----------------------------------------------------------------------===//

def MXGemm_ScaledMatmulOp : MXGemm_Op<"scaled_matmul"> {
  let summary = "block-scaled MXFP8 GEMM Y = X . W^T (problem level)";
  let description = [{
    Computes `Y[m, n] = sum_k Xs(m, k) X[m, k] Ws(n, k) W[n, k]` as defined in
    docs/Design.md section 1 (OCP MX v1.0): FP8 operands (`f8E4M3FN` or `f8E5M2`,
    chosen per operand), one E8M0 scale (`f8E8M0FNU`) per 32 consecutive K
    elements, FP32 accumulation and a BF16 or FP32 result.

    - `x`: `[M, K]` activations, `x_scales`: `[M, K/32]`.
    - `w`: `[N, K]` weights (the op computes `X . W^T`), `w_scales`:
      `[N, K/32]` for `w_scale = per_row` or `[ceil(N/32), K/32]` for
      `w_scale = block32x32`.
    - `y`: `[M, N]`, written in full.

    M may be dynamic; static N and K need `K % 32 == 0`. N and K may be
    dynamic too (`?` in W's type, and then in every type they shape): a
    generic kernel, which takes them as run-time arguments; it needs direct
    loads of both operands (`stage_x = stage_w = direct`, the only
    structure that masks every N and K edge), `k_splits = 1` and the
    row-major tile order (`group_m = 1, group_n = 0`, no XCD remap), and
    its caller passes K a multiple of 32. The `config` decides how the op
    is compiled for gfx950; N need not be a multiple of its `tile_n`
    (except for packed W) and K need not be a multiple of `tile_k` with
    direct loads (docs/Design.md, "Edges"). The op lowers to one `gpu.func`
    kernel through `mxgemm-tile` (see `mxgemm-to-gfx950`).

    With `stage_w = packed_registers` in the config, the kernel's `W`
    argument is not row-major: it is W pre-packed once (per weight tensor)
    into MFMA panels, `include/mxgemm/Contract/WeightPanels.h`, as the
    runtime's `mxgemm_pack_weights` does. The op itself still describes the
    logical `[N, K]` weights.

    Example:

    ```mlir
    mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
        {config = #mxgemm.config<tile_m = 128, tile_n = 128, tile_k = 128>,
         w_scale = #mxgemm.w_scale<block32x32>}
        : memref<?x1280xf8E4M3FN>, memref<?x40xf8E8M0FNU>,
          memref<16384x1280xf8E4M3FN>, memref<512x40xf8E8M0FNU>
          into memref<?x16384xbf16>
    ```
  }];
  let arguments = (ins
    Arg<MXGemm_FP8Memref, "activations", [MemRead]>:$x,
    Arg<MXGemm_ScaleMemref, "activation scales", [MemRead]>:$x_scales,
    Arg<MXGemm_FP8Memref, "weights", [MemRead]>:$w,
    Arg<MXGemm_ScaleMemref, "weight scales", [MemRead]>:$w_scales,
    Arg<MXGemm_OutMemref, "output", [MemWrite]>:$y,
    MXGemm_ConfigAttr:$config,
    MXGemm_WeightScaleGranularityAttr:$w_scale);
  let assemblyFormat = [{
    $x `,` $x_scales `,` $w `,` $w_scales `into` $y attr-dict `:`
    type($x) `,` type($x_scales) `,` type($w) `,` type($w_scales) `into` type($y)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getN() { return getW().getType().getDimSize(0); }
    int64_t getK() { return getW().getType().getDimSize(1); }
    /// The problem in the contract's terms (shapes, formats, scale kind).
    ::mxgemm::contract::GemmProblem getProblem();
  }];
}

def MXGemm_FP8Tensor : TensorRankOf<[F8E4M3FN, F8E5M2], [2]>;
def MXGemm_ScaleTensor : TensorRankOf<[F8E8M0FNU], [2]>;
def MXGemm_OutTensor : TensorRankOf<[BF16, F32], [2]>;

def MXGemm_ScaledMatmulTensorOp : MXGemm_Op<"scaled_matmul_tensor",
    [Pure, AllTypesMatch<["init", "result"]>,
     DestinationStyleOpInterface,
     DeclareOpInterfaceMethods<BufferizableOpInterface,
       ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
        "getAliasingValues", "bufferize"]>]> {
  let summary = "mxgemm.scaled_matmul on tensors (destination style)";
  let description = [{
    The tensor form of `mxgemm.scaled_matmul`, for tensor-level pipelines
    (the IR `mxgemm-raise-scaled-contractions` produces from upstream
    linalg + `arith.scaling_extf`): the same computation, operand shapes,
    formats, `config` and `w_scale` (docs/Design.md section 1), with the
    result `Y` returned as a new value. `init` only gives the result's
    shape and its destination buffer: it is overwritten in full, never read.

    One-shot bufferization (`one-shot-bufferize`) turns it into
    `mxgemm.scaled_matmul` on the buffers of its operands, writing into the
    buffer of `init`; the memref op needs identity-layout buffers, so
    function boundaries bufferize with
    `function-boundary-type-conversion=identity-layout-map`. From there the
    `mxgemm-to-gfx950` pipeline compiles it for gfx950 as usual.

    Example:

    ```mlir
    %y = mxgemm.scaled_matmul_tensor %x, %xs, %w, %ws into %init
        {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<per_row>}
        : tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>,
          tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
          into tensor<?x128xbf16>
    ```
  }];
  let arguments = (ins MXGemm_FP8Tensor:$x, MXGemm_ScaleTensor:$x_scales,
                   MXGemm_FP8Tensor:$w, MXGemm_ScaleTensor:$w_scales,
                   MXGemm_OutTensor:$init,
                   MXGemm_ConfigAttr:$config,
                   MXGemm_WeightScaleGranularityAttr:$w_scale);
  let results = (outs MXGemm_OutTensor:$result);
  let assemblyFormat = [{
    $x `,` $x_scales `,` $w `,` $w_scales `into` $init attr-dict `:`
    type($x) `,` type($x_scales) `,` type($w) `,` type($w_scales) `into`
    type($init)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getN() { return getW().getType().getDimSize(0); }
    int64_t getK() { return getW().getType().getDimSize(1); }
    /// The problem in the contract's terms (shapes, formats, scale kind).
    ::mxgemm::contract::GemmProblem getProblem();
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Kernel-level ops (produced by mxgemm-tile, lowered by later passes)
//===----------------------------------------------------------------------===//

def MXGemm_FlatFP8Memref : MemRefRankOf<[F8E4M3FN, F8E5M2], [1]>;
def MXGemm_FlatScaleMemref : MemRefRankOf<[F8E8M0FNU], [1]>;
/// E8M0 scales of several K tiles: the dwords of each MFMA block row (or
/// column) in turn.
def MXGemm_ScaleWords : VectorOfRankAndType<[1], [I32]>;
def MXGemm_FlatOutMemref : MemRefRankOf<[BF16, F32], [1]>;

def MXGemm_ProgramTileOp : MXGemm_Op<"program_tile", [Pure]> {
  let summary = "maps a program (workgroup) id to its output tile";
  let description = [{
    Returns the tile coordinates `(tile_m_index, tile_n_index)` computed by
    program `pid` in a grid of `num_tiles_m x num_tiles_n` program tiles.
    `num_tiles_m` is a runtime value (M is dynamic), `num_tiles_n` static,
    or, in a generic kernel (dynamic N), the runtime operand
    `num_tiles_n_size` instead of the attribute (row-major order only:
    `group_m = 1, group_n = 0`, no XCD remap).
    The grouping fields of the config (`group_m`, `group_n`, `xcd_remap`)
    are attributes here, with the number of XCDs the target distributes
    workgroups over (`num_xcds`, from the target model of `mxgemm-tile`'s
    chip: 8 on gfx950); `mxgemm-group-tiles` expands the op to index
    arithmetic. With `group_m = 1, group_n = 0` the order is row-major:
    `(pid / num_tiles_n, pid % num_tiles_n)`.

    Example:

    ```mlir
    %tm, %tn = mxgemm.program_tile %pid, %num_tiles_m
        {num_tiles_n = 128 : i64, group_m = 1 : i64, group_n = 0 : i64,
         xcd_remap = false, num_xcds = 8 : i64}
    ```
  }];
  let arguments = (ins Index:$pid, Index:$num_tiles_m,
                   Optional<Index>:$num_tiles_n_size,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$num_tiles_n,
                   ConfinedAttr<I64Attr, [IntPositive]>:$group_m,
                   ConfinedAttr<I64Attr, [IntNonNegative]>:$group_n,
                   BoolAttr:$xcd_remap,
                   ConfinedAttr<I64Attr, [IntPositive]>:$num_xcds);
  let results = (outs Index:$tile_m_index, Index:$tile_n_index);
  let assemblyFormat = [{
    $pid `,` $num_tiles_m (`num_tiles_n` `(` $num_tiles_n_size^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def MXGemm_LdsTile : MemRefRankOf<[F8E4M3FN, F8E5M2], [2]>;

def MXGemm_WaveMmaOp : MXGemm_Op<"wave_mma",
    [AllTypesMatch<["acc", "result"]>, AttrSizedOperandSegments,
     MemoryEffects<[MemRead]>]> {
  let summary = "one wave's block-scaled MMA over one K tile";
  let description = [{
    Accumulates, for the `wave_m x wave_n` output sub-tile owned by one wave
    (rows `row0 ..`, columns `col0 ..`), the MX product over K elements
    `k0 .. k0 + tile_k` into `acc`, in increasing K order, one MFMA K-step at
    a time (docs/Design.md section 1). Operands are flat row-major views of the
    kernel arguments; `m` is the runtime row count: rows at or past `m` read
    the last valid row (their results are never stored), so no access is out
    of bounds.

    With `x_tile` / `w_tile` (added by `mxgemm-stage-copies`), that
    operand's data is read from the wave's rows of the current LDS tile
    instead (row `i` of the view is the wave's row `i`, column `j` is
    `k0 + j`), with 16-byte `ds_read_b128`s; scales always come from the
    global scale tensors in their natural layout. `xor_swizzle` says the
    tiles were written with the XOR chunk permutation of
    `mxgemm.copy_to_lds`.

    With `w_panels` (added by `mxgemm-stage-copies` for `stage_w =
    packed_registers`), `w` holds the weights pre-packed in MFMA panels
    (`include/mxgemm/Contract/WeightPanels.h`): each lane reads its 32
    operand bytes of an MFMA step with one contiguous global load straight
    into the MFMA operand registers, with no LDS and no per-lane gather.

    With `pingpong_pending` (set by `mxgemm-pipeline` for `schedule =
    pingpong`), the wave's turn changes between its LDS reads and its MFMAs:
    all LDS reads of the tile are issued first, ahead of the refill copies
    of the pipelined loop, and waited for (`s_waitcnt lgkmcnt(0)`) before
    the copies, so that the wait does not include the copies' LDS-DMA;
    then `s_waitcnt vmcnt(pingpong_pending)` (the wave's copies of the next
    tile have landed) and a workgroup `s_barrier` that the other wave group
    reaches at the start of its own reads; the MFMAs then run at raised
    priority (`s_setprio 1`) while the other group reads. `sched_barrier`s
    keep LLVM from moving anything across the turn.

    With `pingpong_refills` as well (a two-slot ring, `stages = 2`), the
    tile takes two turns over the two halves of the wave's MFMA block
    columns (an even number): the reads of every X fragment of the tile and
    of the first half's W fragments, a turn that leaves `pingpong_refills`
    copies (the W refills of the next tile, issued after the reads) in
    flight, the first half's MFMAs; then a barrier, the second half's W
    reads (X stays in registers), the `mxgemm.copy_to_lds` ops that follow
    the op in its block (issued here: `mxgemm-pipeline`'s X copies two
    tiles ahead, into the X half of this tile's slot, which no wave reads
    any more), a turn that waits `vmcnt(pingpong_pending)`, and the second
    half's MFMAs. Every MFMA block runs its K steps in order, as with one
    turn.

    `acc` holds the accumulators of the `wave_m / mfma_m x wave_n / mfma_n`
    MFMA blocks in block-row-major order, each in the transposed D layout of
    docs/Design.md section 9 (W is the MFMA's A operand: lane `l` holds row
    `l % mfma_m` of the block and four consecutive columns per register
    quad; 16 floats per lane for 32x32x64, 4 for 16x16x128).
    In a generic kernel (dynamic N or K, direct loads only) the `k`
    attribute is absent and `sizes(%n, %k)` gives N and K at run time: W
    rows are always clamped to N - 1 and every load is masked at K (the K
    tail rule above), since any N and K may come. `row_strides(%ldx,
    %ldxs)` (generic kernels only) gives the distance between X rows in
    elements and between X-scale rows in bytes, for X passed as a view;
    without it rows are K and K / 32 apart. W and its scales are always
    contiguous.

    With `x_scales_native` / `w_scales_native` (set by `mxgemm-tile` for
    `x_scale_layout` / `w_scale_layout` other than `row_major`), that scale
    tensor is in the MFMA-native layout of the op's MFMA shape
    (`include/mxgemm/Contract/ScaleLayout.h`): the byte of row `r` and block
    `b` is at `((r / R) * chunks + b / 4G) * 256 + ((b % G) * R + r % R) * 4
    + (b / G) % 4` (R = 16, G = 4 for 16x16x128; R = 32, G = 2 for
    32x32x64), so each step's scale load of the wave reads 64 consecutive
    dwords' bytes, one per lane, instead of a byte from each of 16 or 32
    rows. Static K, a multiple of `tile_k`, and no `scale_words`.

    With `x_scale_words` (added by `mxgemm-unroll-k`), the X scales come
    from an `mxgemm.load_wave_scales` that loaded them for several K tiles
    at once, and with `w_scale_words` the W scales too (otherwise the MMA
    loads its W scales itself); `scale_words_tile` says which of those K
    tiles this MMA computes.

    `convert-mxgemm-to-amdgpu` turns the op into operand loads and
    `amdgpu.scaled_mfma` (`v_mfma_scale_f32_32x32x64_f8f6f4` /
    `v_mfma_scale_f32_16x16x128_f8f6f4` on gfx950).

    Example:

    ```mlir
    %acc1 = mxgemm.wave_mma %x, %xs, %w, %ws, %acc0 [%row0, %col0, %k0, %m]
        {mfma = #mxgemm<mfma m32n32k64>, wave_m = 64 : i64, wave_n = 64 : i64,
         tile_k = 128 : i64, k = 1280 : i64,
         w_scale = #mxgemm.w_scale<block32x32>}
        : memref<2147483648xf8E4M3FN>, memref<2147483648xf8E8M0FNU>,
          memref<20971520xf8E4M3FN>, memref<20480xf8E8M0FNU>, vector<64xf32>
    ```
  }];
  let arguments = (ins MXGemm_FlatFP8Memref:$x, MXGemm_FlatScaleMemref:$x_scales,
                   MXGemm_FlatFP8Memref:$w, MXGemm_FlatScaleMemref:$w_scales,
                   VectorOfRankAndType<[1], [F32]>:$acc,
                   Index:$row0, Index:$col0, Index:$k0, Index:$m,
                   Optional<Index>:$n_size, Optional<Index>:$k_size,
                   Optional<Index>:$x_row_stride,
                   Optional<Index>:$xs_row_stride,
                   Optional<MXGemm_LdsTile>:$x_tile,
                   Optional<MXGemm_LdsTile>:$w_tile,
                   Optional<MXGemm_ScaleWords>:$x_scale_words,
                   Optional<MXGemm_ScaleWords>:$w_scale_words,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$scale_words_tile,
                   UnitAttr:$xor_swizzle,
                   UnitAttr:$w_panels,
                   UnitAttr:$x_scales_native,
                   UnitAttr:$w_scales_native,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$pingpong_pending,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$pingpong_refills,
                   MXGemm_MfmaShapeAttr:$mfma,
                   ConfinedAttr<I64Attr, [IntPositive]>:$wave_m,
                   ConfinedAttr<I64Attr, [IntPositive]>:$wave_n,
                   ConfinedAttr<I64Attr, [IntPositive]>:$tile_k,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$k,
                   MXGemm_WeightScaleGranularityAttr:$w_scale);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $x `,` $x_scales `,` $w `,` $w_scales `,` $acc
    `[` $row0 `,` $col0 `,` $k0 `,` $m `]`
    (`sizes` `(` $n_size^ `,` $k_size `)`)?
    (`row_strides` `(` $x_row_stride^ `,` $xs_row_stride `)`)?
    (`x_tile` `(` $x_tile^ `:` type($x_tile) `)`)?
    (`w_tile` `(` $w_tile^ `:` type($w_tile) `)`)?
    (`x_scale_words` `(` $x_scale_words^ `:` type($x_scale_words) `)`)?
    (`w_scale_words` `(` $w_scale_words^ `:` type($w_scale_words) `)`)?
    attr-dict `:`
    type($x) `,` type($x_scales) `,` type($w) `,` type($w_scales) `,` type($acc)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// MFMA block rows/columns and K per instruction (the target model's
    /// MFMA table).
    int64_t getMfmaMN() {
      return ::mxgemm::target::kGFX950.getMfma(toContract(getMfma())).m;
    }
    int64_t getMfmaKSize() {
      return ::mxgemm::target::kGFX950.getMfma(toContract(getMfma())).k;
    }
    /// Accumulator floats per lane of one MFMA block.
    int64_t getAccPerBlock() { return getMfmaMN() * getMfmaMN() / 64; }
    int64_t getBlocksM() { return getWaveM() / getMfmaMN(); }
    int64_t getBlocksN() { return getWaveN() / getMfmaMN(); }
  }];
}

def MXGemm_LoadWaveScalesOp : MXGemm_Op<"load_wave_scales",
    [MemoryEffects<[MemRead]>]> {
  let summary = "one wave's E8M0 scales of several K tiles, one load per row";
  let description = [{
    Loads, for the MFMA blocks of the wave's `wave_m x wave_n` sub-tile at
    rows `row0 ..` and columns `col0 ..`, the E8M0 scales of `span`
    consecutive K tiles from `k0` (`span * tile_k / 32` blocks per row, 4,
    8 or 16 bytes) with one global load per row and lane, where the
    `mxgemm.wave_mma`s of the K tiles would each load one byte per row and
    lane. `x_words` holds, for each MFMA block row in turn, its
    `span * tile_k / 128` X-scale dwords (rows clamped to `m - 1` as in
    `mxgemm.wave_mma`), `w_words` those of each block column (columns
    clamped to `n - 1`); each lane holds its own row's blocks. Without
    the `w_words` result only X scales are loaded.

    `mxgemm-unroll-k` creates the op for a ping-pong K loop unrolled by
    `span` and hands the words to the `span` MMAs of an iteration
    (`wave_mma ... x_scale_words(...) w_scale_words(...)`), loaded one
    iteration ahead; and, with `span = 1` and no `w_words`, for the X
    scales of a two-slot loop's next K tile. The op
    is lowered where it stands (`getNumLoads()` vector loads per lane, in
    order), so that waits counted in loads can leave it in flight. The
    load needs `k0` and each row's blocks aligned to the load width: `k` a
    multiple of `32 * bytes` and `k0` of `span * tile_k`.

    On gfx950 one `global_load_dword`/`dwordx2`/`dwordx4` per row touches
    the same cache lines as one `global_load_ubyte`, so the texture
    address unit handles 1/span of the scale lines it handled. W words of
    32x32-block scales are the same in every lane of a block column: they
    are scalar loads (`s_load_dword`, one per distinct scale row, into
    SGPRs), which leave the vector-memory path to the operand copies and
    count in lgkmcnt, not vmcnt (the W scale pointer must be 4-byte
    aligned: a scalar load ignores the address's low two bits).

    Example (16x16x128 MFMAs, wave tile 64x64, four K tiles of 128):

    ```mlir
    %xw, %ww = mxgemm.load_wave_scales %xs, %ws [%row0, %col0, %k0, %m]
        {mfma = #mxgemm<mfma m16n16k128>, wave_m = 64 : i64,
         wave_n = 64 : i64, tile_k = 128 : i64, k = 5120 : i64,
         n = 2304 : i64, span = 4 : i64, w_scale = #mxgemm.w_scale<per_row>}
        : memref<2621440xf8E8M0FNU>, memref<368640xf8E8M0FNU>
          -> vector<16xi32>, vector<16xi32>
    ```
  }];
  let arguments = (ins MXGemm_FlatScaleMemref:$x_scales,
                   MXGemm_FlatScaleMemref:$w_scales,
                   Index:$row0, Index:$col0, Index:$k0, Index:$m,
                   MXGemm_MfmaShapeAttr:$mfma,
                   ConfinedAttr<I64Attr, [IntPositive]>:$wave_m,
                   ConfinedAttr<I64Attr, [IntPositive]>:$wave_n,
                   ConfinedAttr<I64Attr, [IntPositive]>:$tile_k,
                   ConfinedAttr<I64Attr, [IntPositive]>:$k,
                   ConfinedAttr<I64Attr, [IntPositive]>:$n,
                   ConfinedAttr<I64Attr, [IntPositive]>:$span,
                   MXGemm_WeightScaleGranularityAttr:$w_scale);
  let results = (outs MXGemm_ScaleWords:$x_words,
                  Optional<MXGemm_ScaleWords>:$w_words);
  let assemblyFormat = [{
    $x_scales `,` $w_scales `[` $row0 `,` $col0 `,` $k0 `,` $m `]` attr-dict
    `:` type($x_scales) `,` type($w_scales) `->` type($x_words)
    (`,` type($w_words)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getMfmaMN() {
      return ::mxgemm::target::kGFX950.getMfma(toContract(getMfma())).m;
    }
    /// Scale bytes per row and lane: span K tiles of tile_k / 32 blocks.
    int64_t getBytesPerRow() { return getSpan() * getTileK() / 32; }
    /// Vector-memory loads per lane (what vmcnt counts): one per MFMA
    /// block row of X, and one per W block column unless the W words are
    /// scalar loads.
    int64_t getNumLoads() {
      const int64_t mn = getMfmaMN();
      if (!getWWords() || hasScalarWWords())
        return getWaveM() / mn;
      return getWaveM() / mn + getWaveN() / mn;
    }
    /// True if the W words are scalar (SMEM) loads, one per distinct scale
    /// row: under 32x32-block scales every block column of the wave (16
    /// or 32 columns from a multiple of its width) lies in one scale row,
    /// so all lanes would load the same dwords.
    bool hasScalarWWords() {
      return getWWords() &&
             getWScale() != ::mxgemm::WeightScaleGranularity::PerRow;
    }
    /// True if W block columns 2j and 2j + 1 read the same scale row: 16
    /// columns each from a multiple of 32 (a wave tile's first column is a
    /// multiple of wave_n), under 32x32-block scales.
    bool sharesWScaleRows() {
      return getWScale() != ::mxgemm::WeightScaleGranularity::PerRow &&
             getMfmaMN() == 16 && getWaveN() % 32 == 0;
    }
  }];
}

def MXGemm_CopyToLdsOp : MXGemm_Op<"copy_to_lds"> {
  let summary = "workgroup-cooperative copy of one operand K-tile into LDS";
  let description = [{
    All threads of the workgroup copy rows `row0 .. row0 + rows` (each
    clamped to `row_limit - 1`, so a partial M tile never reads out of
    bounds) and K elements `k0 .. k0 + tile_k` of the row-major operand
    `src` (row length `k`) into `dst[stage, 0 .. rows, 0 .. tile_k]`. Bytes
    of an LDS row past `tile_k` (padding) are unspecified.

    `mode = lds_async` uses gfx950 `global_load_lds_dwordx4`
    (`amdgpu.gather_to_lds`): each lane moves 16 bytes and a wave fills 1024
    contiguous LDS bytes, so the LDS layout is expressed by which global
    address each lane loads; no VGPR round trip. `mode = lds_sync` loads
    16 bytes per lane into VGPRs and stores them with `ds_write_b128`.
    The data is visible to other waves only after `mxgemm.wait_copies` and a
    barrier. With `xor_swizzle`, the 16-byte chunk `c` of ring row `r` is
    stored at chunk `c ^ ((r / max(1, 256 / row_bytes)) % chunks_per_row)`
    (bank-conflict-free `ds_read_b128` without padding); with async copies
    the permutation is applied to the global address each lane loads.

    Example:

    ```mlir
    mxgemm.copy_to_lds %x, %ring [%stage, %row0, %k0, %m]
        {rows = 128 : i64, tile_k = 128 : i64, k = 1280 : i64,
         mode = #mxgemm<staging lds_async>, num_waves = 4 : i64}
        : memref<1099511627776xf8E4M3FN>,
          memref<2x128x144xf8E4M3FN, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins MXGemm_FlatFP8Memref:$src,
                   Arg<MemRefRankOf<[F8E4M3FN, F8E5M2], [3]>, "LDS ring",
                       [MemWrite]>:$dst,
                   Index:$stage, Index:$row0, Index:$k0, Index:$row_limit,
                   ConfinedAttr<I64Attr, [IntPositive]>:$rows,
                   ConfinedAttr<I64Attr, [IntPositive]>:$tile_k,
                   ConfinedAttr<I64Attr, [IntPositive]>:$k,
                   MXGemm_StagingAttr:$mode,
                   ConfinedAttr<I64Attr, [IntPositive]>:$num_waves,
                   UnitAttr:$xor_swizzle);
  let assemblyFormat = [{
    $src `,` $dst `[` $stage `,` $row0 `,` $k0 `,` $row_limit `]` attr-dict
    `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// 16-byte chunks per LDS row (padding included).
    int64_t getRowChunks() {
      return getDst().getType().getDimSize(2) / 16;
    }
    /// Copy instructions every wave of the workgroup is sure to issue
    /// (what a wait count may rely on).
    int64_t getMinLoadsPerWave() {
      int64_t chunks = getRows() * (getMode() == Staging::LdsAsync
                                        ? getRowChunks()
                                        : getTileK() / 16);
      return chunks / (64 * getNumWaves());
    }
  }];
}

def MXGemm_WaitCopiesOp : MXGemm_Op<"wait_copies"> {
  let summary = "wait until at most `pending` of this wave's loads are in flight";
  let description = [{
    Blocks the wave until at most `pending` of its most recently issued
    vector-memory loads (including `global_load_lds_dwordx4` copies into
    LDS) are outstanding, and all of its LDS operations have completed:
    gfx950 `s_waitcnt vmcnt(pending) lgkmcnt(0)`. Loads complete in order,
    so every older copy has landed. `mxgemm-pipeline` picks the smallest
    wait that still covers the K tile about to be read.

    Example: `mxgemm.wait_copies {pending = 4 : i64}`
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
}

def MXGemm_RingBarrierOp : MXGemm_Op<"ring_barrier"> {
  let summary = "workgroup barrier of the LDS operand ring";
  let description = [{
    All waves of the workgroup meet (gfx950 `s_barrier`). The barrier itself
    waits for no memory operation: what it publishes was completed before
    it, by the `mxgemm.wait_copies` that precedes every publishing barrier
    (the wave's copies of the tile, `vmcnt`, and its LDS writes,
    `lgkmcnt(0)`), and by the MFMAs that consumed every operand read before
    a releasing barrier. `convert-mxgemm-to-amdgpu` lowers it to `s_barrier`
    between two single-thread fences, which keep the compiler from moving
    memory operations across it without adding waits. A `gpu.barrier`
    (workgroup-scope fences) or `amdgpu.lds_barrier` (LDS-scope fences)
    would make LLVM wait for every copy still in flight, including the
    refills of later tiles, and serialize the pipeline.

    Example: `mxgemm.ring_barrier`
  }];
  let assemblyFormat = "attr-dict";
}

def MXGemm_StoreTileOp : MXGemm_Op<"store_tile", [AttrSizedOperandSegments]> {
  let summary = "stores one wave's accumulators to the output, masked by M";
  let description = [{
    Converts the accumulators of a `mxgemm.wave_mma` sub-tile (same layout)
    to the element type of `y` (BF16 round-to-nearest-even, or FP32) and
    stores them at rows `row0 ..` and columns `col0 ..` of the row-major
    `[m, n]` output; rows at or past `m` are not written.

    Without `staging`, each lane stores the four consecutive outputs it holds
    (8 bytes of BF16) straight to global memory: four times fewer stores than
    one per element, but each store touches one row per lane. With
    `staging` (added by `mxgemm-stage-stores`), a `[waves, mfma_m, cols]`
    LDS buffer of the output type with rows of 64 or 128 bytes, the wave
    writes one MFMA block row of `cols` columns at a time into its slice,
    reads it back 16 bytes per lane along rows and stores those with
    `global_store_dwordx4`: every store writes whole rows of
    `cols * sizeof(out)` bytes (a 128-byte line for 64 BF16 columns). The
    16-byte chunks of slice row `r` are permuted by XOR with
    `(r / (256 / row_bytes)) % chunks_per_row`: the reads (a quarter-wave
    phase reads whole rows, all 64 banks) are conflict-free with or without
    it, and it spreads the writes of a column of rows over the banks. The
    slice is the wave's own, so no barrier is needed; LDS operations of one
    wave complete in order.

    In a generic kernel (dynamic N) the `n` attribute is absent and the
    runtime operand `n(%n)` gives N; such stores are never staged, and a
    wave tile reaching past N stores element by element. `row_stride(%ldy)`
    (generic kernels only) gives the distance between output rows in
    elements, for Y passed as a view; without it rows are N apart.

    Example:

    ```mlir
    mxgemm.store_tile %acc, %y [%row0, %col0, %m]
        staging(%buf : memref<4x32x64xbf16, #gpu.address_space<workgroup>>)
        {mfma = #mxgemm<mfma m32n32k64>, wave_m = 64 : i64, wave_n = 64 : i64,
         n = 16384 : i64}
        : vector<64xf32>, memref<2147483648xbf16>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                   Arg<MXGemm_FlatOutMemref, "output", [MemWrite]>:$y,
                   Index:$row0, Index:$col0, Index:$m,
                   Optional<Index>:$n_size,
                   Optional<Index>:$y_row_stride,
                   Optional<MemRefRankOf<[BF16, F32], [3]>>:$staging,
                   MXGemm_MfmaShapeAttr:$mfma,
                   ConfinedAttr<I64Attr, [IntPositive]>:$wave_m,
                   ConfinedAttr<I64Attr, [IntPositive]>:$wave_n,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$n);
  let assemblyFormat = [{
    $acc `,` $y `[` $row0 `,` $col0 `,` $m `]`
    (`n` `(` $n_size^ `)`)?
    (`row_stride` `(` $y_row_stride^ `)`)?
    (`staging` `(` $staging^ `:` type($staging) `)`)? attr-dict `:`
    type($acc) `,` type($y)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Output columns staged at a time (0 without staging).
    int64_t getStagingColumns() {
      return getStaging() ? getStaging().getType().getDimSize(2) : 0;
    }
  }];
}

//===----------------------------------------------------------------------===//
// quantize
//===----------------------------------------------------------------------===//

def MXGemm_QuantizeInMemref : MemRefRankOf<[BF16, F16, F32], [2]>;

def MXGemm_QuantizeOp : MXGemm_Op<"quantize"> {
  let summary = "OCP MX quantization of [M, K] values to FP8 codes and E8M0 scales";
  let description = [{
    Quantizes the row-major `input` `[M, K]` (BF16, FP16 or FP32) to MXFP8:
    `codes` `[M, K]` (`f8E4M3FN` or `f8E5M2`) and one E8M0 scale per 32
    consecutive elements of a row, `scales` `[M, K/32]` (row-major): the
    activation operands of `mxgemm.scaled_matmul`. The rule is the one of
    docs/Numerics.md and `numerics::quantizeMX` (OCP MX v1.0), bit for bit:

    - shared exponent `e = floor(log2(amax)) - emax` over the block's finite
      elements (`emax` = 8 for E4M3, 15 for E5M2), clamped to [-127, 127];
      scale byte `e + 127`; an all-zero block gets 127 (scale 1.0) and a
      block holding NaN or inf gets the E8M0 NaN 255;
    - elements `x / 2^e` rounded to nearest even (subnormals kept) and
      saturated to the largest finite value; NaN gives the format's NaN and
      inf the largest finite value (E4M3) or inf (E5M2), sign kept.

    With `scale_layout` an MFMA-native layout (`mfma_16x16x128` or
    `mfma_32x32x64`, `include/mxgemm/Contract/ScaleLayout.h`), `scales` is
    the flat byte tensor that layout takes (rows padded to a multiple of 16
    or 32, blocks to whole 256-byte chunks; the padding is written as 127,
    1.0): activation scales for a kernel compiled with that
    `x_scale_layout`, with no separate preshuffle pass.

    Dimensions may be static or dynamic; K must be a multiple of 32 (checked
    here when static, by the caller of the kernel otherwise). The op lowers
    through `mxgemm-quantize-to-gfx950` to one gfx950 kernel in which four
    lanes share each 32-element block, eight values each, and agree on its
    amax by DPP (see `mxgemm-lower-quantize`).

    Example:

    ```mlir
    func.func @quantize_bf16_e4m3(%x: memref<?x?xbf16>,
        %codes: memref<?x?xf8E4M3FN>, %scales: memref<?x?xf8E8M0FNU>) {
      mxgemm.quantize %x into %codes, %scales
          : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?x?xf8E8M0FNU>
      return
    }

    // Scales for a kernel with x_scale_layout = mfma_16x16x128.
    func.func @quantize_bf16_e4m3_native(%x: memref<?x?xbf16>,
        %codes: memref<?x?xf8E4M3FN>, %scales: memref<?xf8E8M0FNU>) {
      mxgemm.quantize %x into %codes, %scales
          {scale_layout = #mxgemm.scale_layout<mfma_16x16x128>}
          : memref<?x?xbf16> into memref<?x?xf8E4M3FN>, memref<?xf8E8M0FNU>
      return
    }
    ```
  }];
  let arguments = (ins
    Arg<MXGemm_QuantizeInMemref, "values to quantize", [MemRead]>:$input,
    Arg<MXGemm_FP8Memref, "FP8 codes", [MemWrite]>:$codes,
    Arg<MemRefRankOf<[F8E8M0FNU], [1, 2]>, "E8M0 scales",
        [MemWrite]>:$scales,
    DefaultValuedAttr<MXGemm_ScaleLayoutAttr,
                      "::mxgemm::ScaleLayout::RowMajor">:$scale_layout);
  let assemblyFormat = [{
    $input `into` $codes `,` $scales attr-dict `:`
    type($input) `into` type($codes) `,` type($scales)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// pack_panels
//===----------------------------------------------------------------------===//

def MXGemm_PackPanelsOp : MXGemm_Op<"pack_panels"> {
  let summary = "permutes a row-major FP8 weight [N, K] into MFMA panels";
  let description = [{
    Copies the row-major weight `w` `[N, K]` (FP8 codes as bytes) into
    `packed` (`N * K` bytes) in the panel layout that GEMM kernels with
    `stage_w = packed_registers` read (include/mxgemm/Contract/
    WeightPanels.h, docs/Design.md sections 5 and 9): panels of `non_k`
    rows x `2048 / non_k` K elements (`non_k` = 32 for the 32x32x64 MFMA,
    16 for 16x16x128), ordered `[N / non_k][K / kStep]`, each the 64 lanes'
    32-byte B operands in lane order. A pure permutation: the bytes are not
    interpreted, so the same kernel packs E4M3 and E5M2 weights.

    Dimensions may be static or dynamic; N must be a multiple of `non_k`
    and K of `2048 / non_k` (checked here when static, by the caller of the
    kernel otherwise). The op lowers through `mxgemm-quantize-to-gfx950`
    (see `mxgemm-lower-pack-panels`) to one gfx950 kernel, a wave per panel.

    Example:

    ```mlir
    func.func @pack_panels_32(%w: memref<?x?xi8>, %packed: memref<?xi8>) {
      mxgemm.pack_panels %w into %packed {non_k = 32}
          : memref<?x?xi8> into memref<?xi8>
      return
    }
    ```
  }];
  let arguments = (ins
    Arg<MemRefRankOf<[I8], [2]>, "row-major weight [N, K]", [MemRead]>:$w,
    Arg<MemRefRankOf<[I8], [1]>, "packed weight, N * K bytes", [MemWrite]>:$packed,
    I64Attr:$non_k);
  let assemblyFormat = [{
    $w `into` $packed attr-dict `:` type($w) `into` type($packed)
  }];
  let hasVerifier = 1;
}

#endif // MXGEMM_DIALECT_MXGEMM_IR_MXGEMMOPS_TD
