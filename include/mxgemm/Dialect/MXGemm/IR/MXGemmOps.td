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
    DESIGN.md section 1 (OCP MX v1.0): FP8 operands (`f8E4M3FN` or `f8E5M2`,
    chosen per operand), one E8M0 scale (`f8E8M0FNU`) per 32 consecutive K
    elements, FP32 accumulation and a BF16 or FP32 result.

    - `x`: `[M, K]` activations, `x_scales`: `[M, K/32]`.
    - `w`: `[N, K]` weights (the op computes `X . W^T`), `w_scales`:
      `[N, K/32]` for `w_scale = per_row` or `[ceil(N/32), K/32]` for
      `w_scale = block32x32`.
    - `y`: `[M, N]`, written in full.

    M may be dynamic; N and K must be static and `K % 32 == 0`. The
    `config` decides how the op is compiled for gfx950; N and K must be
    multiples of its `tile_n` / `tile_k`. The op lowers to one `gpu.func`
    kernel through `mxgemm-tile` (see `mxgemm-to-gfx950`).

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
  }];
}

#endif // MXGEMM_DIALECT_MXGEMM_IR_MXGEMMOPS_TD
