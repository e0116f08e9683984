//===- MXGemmAttrs.td - mxgemm enums and attributes --------*- tablegen -*-===//
//
// The tuning configuration (docs/Design.md section 3) and the enums it is built
// from. Every enum's keyword is what appears in the IR and in the tuning
// database, so renaming one is a format change.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_IR_MXGEMMATTRS_TD
#define MXGEMM_DIALECT_MXGEMM_IR_MXGEMMATTRS_TD

include "mxgemm/Dialect/MXGemm/IR/MXGemmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def MXGemm_MfmaShape : I32EnumAttr<"MfmaShape",
    "gfx950 scaled MFMA instruction shape (M x N x K per instruction)", [
      I32EnumAttrCase<"M32N32K64", 0, "m32n32k64">,
      I32EnumAttrCase<"M16N16K128", 1, "m16n16k128">]> {
  let cppNamespace = "::mxgemm";
  let genSpecializedAttr = 0;
}


def MXGemm_MfmaShapeAttr : EnumAttr<MXGemm_Dialect, MXGemm_MfmaShape, "mfma">;

def MXGemm_Staging : I32EnumAttr<"Staging",
    "how one GEMM operand travels from global memory to the MFMA registers", [
      // Each lane loads its MFMA operand bytes from the natural row-major
      // layout; no LDS. The simple, always-correct path.
      I32EnumAttrCase<"Direct", 0, "direct">,
      // Global -> LDS with global_load_lds_dwordx4 (no VGPR round trip).
      I32EnumAttrCase<"LdsAsync", 1, "lds_async">,
      // Global -> VGPR -> LDS.
      I32EnumAttrCase<"LdsSync", 2, "lds_sync">,
      // Operand pre-packed in MFMA-native panels, loaded straight to VGPRs.
      I32EnumAttrCase<"PackedRegisters", 3, "packed_registers">]> {
  let cppNamespace = "::mxgemm";
  let genSpecializedAttr = 0;
}

def MXGemm_StagingAttr : EnumAttr<MXGemm_Dialect, MXGemm_Staging, "staging">;

def MXGemm_LdsLayout : I32EnumAttr<"LdsLayout",
    "layout of LDS-staged operand tiles", [
      I32EnumAttrCase<"Plain", 0, "plain">,
      I32EnumAttrCase<"Padded", 1, "padded">,
      I32EnumAttrCase<"Xor", 2, "xor">]> {
  let cppNamespace = "::mxgemm";
  let genSpecializedAttr = 0;
}

def MXGemm_Schedule : I32EnumAttr<"Schedule",
    "instruction-order variant of the K loop body", [
      // Leave the order to the LLVM scheduler.
      I32EnumAttrCase<"Default", 0, "default">,
      // Interleave loads with the MFMA chain via sched-group barriers.
      I32EnumAttrCase<"Interleave", 1, "interleave">,
      // Two groups of four waves (one per SIMD each) take turns: one issues
      // LDS reads and refills while the other runs its MFMA cluster.
      I32EnumAttrCase<"PingPong", 2, "pingpong">,
      // Every load of a K tile issued before its first MFMA (memory-level
      // parallelism for small M, where W streams from HBM once).
      I32EnumAttrCase<"LoadsFirst", 3, "loads_first">]> {
  let cppNamespace = "::mxgemm";
  let genSpecializedAttr = 0;
}

def MXGemm_ScaleLayout : I32EnumAttr<"ScaleLayout",
    "memory layout of an E8M0 scale tensor (Contract/ScaleLayout.h)", [
      // [rows, K/32], one byte per 32 K-elements: what quantizers write.
      I32EnumAttrCase<"RowMajor", 0, "row_major">,
      // MFMA-native: a wave's scale load for one MFMA step reads one
      // contiguous 256-byte run; a lane's dword holds four steps.
      I32EnumAttrCase<"Mfma16x16x128", 1, "mfma_16x16x128">,
      I32EnumAttrCase<"Mfma32x32x64", 2, "mfma_32x32x64">]> {
  let cppNamespace = "::mxgemm";
  let genSpecializedAttr = 0;
}

def MXGemm_ScaleLayoutAttr
    : EnumAttr<MXGemm_Dialect, MXGemm_ScaleLayout, "scale_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def MXGemm_WeightScaleGranularity : I32EnumAttr<"WeightScaleGranularity",
    "granularity of the E8M0 weight scales (docs/Design.md section 1)", [
      // OCP MX: one scale per weight row and 32 K-elements, [N, K/32].
      I32EnumAttrCase<"PerRow", 0, "per_row">,
      // DeepSeek-V4 checkpoints: one scale per 32x32 block, [ceil(N/32), K/32].
      I32EnumAttrCase<"Block32x32", 1, "block32x32">]> {
  let cppNamespace = "::mxgemm";
  let genSpecializedAttr = 0;
}

def MXGemm_WeightScaleGranularityAttr
    : EnumAttr<MXGemm_Dialect, MXGemm_WeightScaleGranularity, "w_scale"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// #mxgemm.config
//===----------------------------------------------------------------------===//

def MXGemm_ConfigAttr : AttrDef<MXGemm_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "tuning configuration of one mxgemm kernel";
  let description = [{
    Everything the passes need to build one kernel, explicit and verified
    against the gfx950 limits (docs/Design.md section 3). Fields may appear
    in any order; fields left out take the default shown in brackets, and
    the printer omits fields equal to their default. The fields, defaults
    and rules are owned by `include/mxgemm/Contract/KernelConfig.h`, which
    the tuning database, the kernel descriptor and the runtime share.

    | field | meaning |
    |---|---|
    | `tile_m`, `tile_n`, `tile_k` | workgroup tile of the logical program [128, 128, 128] |
    | `waves_m`, `waves_n` | wave arrangement; each wave owns a `tile_m/split/waves_m x tile_n/waves_n` sub-tile [2, 2] |
    | `mfma` | `m32n32k64` or `m16n16k128` (`v_mfma_scale_f32_32x32x64_f8f6f4` / `16x16x128`) [m32n32k64] |
    | `group_m`, `group_n` | program-id -> tile grouping: groups of `group_m x group_n` tiles; `group_n = 0` spans all N tiles (classic 1-D GROUP_M); `1 x 0` is row-major order [1, 0] |
    | `xcd_remap` | remap program ids so that neighbours share an XCD's L2 (gfx950 dispatches round-robin over 8 XCDs) [false] |
    | `stage_x`, `stage_w` | operand staging: `direct`, `lds_async`, `lds_sync`, `packed_registers` (W only: pre-packed MFMA panels) [direct] |
    | `stages` | software-pipeline depth of the K loop, 1..4: LDS ring depth (2 = double buffering; with `pingpong`, each K tile then takes two turns), or without an LDS ring the K tiles of register loads in flight [1] |
    | `lds_layout` | `plain`, `padded` or `xor` (bank-conflict avoidance) [plain] |
    | `split` | independent programs per logical tile along M [1] |
    | `waves_per_eu` | occupancy hint, 0 = none [0] |
    | `schedule` | `default`, `interleave`, `pingpong` (8 waves, two per SIMD, taking turns between LDS reads and MFMAs) or `loads_first` (every global load of a K tile before its MFMAs: small M) [default] |
    | `k_splits` | split-K: K segments accumulated by separate workgroups into an FP32 workspace and added in ascending order by a second launch; any staging (an LDS ring runs over the segment's K tiles) [1] |
    | `persistent` | persistent grid: at most `persistent` workgroups per CU, each walking tiles `id, id + grid, ...`; with an LDS ring the next tile's first K tiles are copied during this tile's last iterations; not with `k_splits` [0 = a workgroup per tile] |
    | `unroll_k` | copies of the pipelined K loop's body per iteration; the wave MMAs of the copies share one wide scale load per row (`mxgemm-share-scale-loads`); needs an LDS ring (stages >= 2) [1] |
    | `tail_split` | with `k_splits`: split K only in the tiles of the grid's last, partly filled round (one workgroup per CU); the others run whole and store Y directly; needs an LDS ring (stages >= 2) [false] |
    | `x_scale_layout`, `w_scale_layout` | layout of the X / W scale tensors the kernel reads: `row_major`, or the MFMA-native layout of the config's MFMA shape (`mfma_16x16x128`, `mfma_32x32x64`: a wave's scale load is one contiguous run; static N and K, K a multiple of `tile_k`, `unroll_k = 1`; W: per-row weight scales) [row_major] |

    Example (the `wq_b` plan of the case table):

    ```mlir
    #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128, waves_m = 1,
                   waves_n = 4, mfma = m32n32k64, stage_x = lds_async,
                   stage_w = packed_registers, stages = 2, split = 2>
    ```
  }];
  let parameters = (ins
    "int64_t":$tileM, "int64_t":$tileN, "int64_t":$tileK,
    "int64_t":$wavesM, "int64_t":$wavesN,
    "::mxgemm::MfmaShape":$mfma,
    "int64_t":$groupM, "int64_t":$groupN, "bool":$xcdRemap,
    "::mxgemm::Staging":$stageX, "::mxgemm::Staging":$stageW,
    "int64_t":$stages, "::mxgemm::LdsLayout":$ldsLayout,
    "int64_t":$split, "int64_t":$wavesPerEU,
    "::mxgemm::Schedule":$schedule, "int64_t":$kSplits,
    "int64_t":$persistent, "int64_t":$unrollK, "bool":$tailSplit,
    "::mxgemm::ScaleLayout":$xScaleLayout,
    "::mxgemm::ScaleLayout":$wScaleLayout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// A config with every field at its default
    /// (`::mxgemm::contract::KernelConfig`, the one owner of the defaults).
    static ConfigAttr getDefault(::mlir::MLIRContext *ctx);
    /// The attribute of a contract config, and back.
    static ConfigAttr get(::mlir::MLIRContext *ctx,
                          const ::mxgemm::contract::KernelConfig &config);
    ::mxgemm::contract::KernelConfig getKernelConfig() const;
    /// MFMA instruction extents.
    int64_t getMfmaM() const;
    int64_t getMfmaN() const { return getMfmaM(); }
    int64_t getMfmaK() const;
    /// Rows of the output computed by one program (`tile_m / split`).
    int64_t getProgramTileM() const { return getTileM() / getSplit(); }
    /// Waves per workgroup and threads per workgroup (wave64).
    int64_t getNumWaves() const { return getWavesM() * getWavesN(); }
    int64_t getWorkgroupSize() const;
    /// Bytes of LDS the kernel allocates for this config.
    int64_t getLdsBytes() const;
    /// FP32 accumulator registers per lane of one wave.
    int64_t getAccumulatorRegsPerLane() const;
  }];
}

#endif // MXGEMM_DIALECT_MXGEMM_IR_MXGEMMATTRS_TD
