/*===- Compiler.h - C API of the mxgemm kernel compiler -----------*- C -*-===*
 *
 * One GEMM problem in, one gfx950 code object out, inside the caller's
 * MlirContext: build (or parse) the mxgemm.scaled_matmul of a problem into
 * an MlirModule, run the mxgemm-to-gfx950 pipeline and the in-process
 * serialisation on it, and get the code object (hsaco) bytes and the JSON
 * sidecar back in an opaque result that the caller destroys. The same
 * library as mxgemm-compile (mxgemm/Compiler/KernelCompiler.h): a kernel
 * compiled here is byte-identical to one compiled by the tool.
 *
 * Errors (bad spec, verifier, pass or serialisation failure) are emitted as
 * diagnostics on the context (attach a handler with
 * mlirContextAttachDiagnosticHandler to capture them) and the call returns a
 * null module / null result; nothing aborts the process.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_C_COMPILER_H
#define MXGEMM_C_COMPILER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A GEMM problem family Y[M,N] = X[M,K] . W[N,K]^T (M is a runtime
   argument). Empty strings take the defaults. */
typedef struct MxgemmProblemSpec {
  /* Kernel symbol, an identifier ([A-Za-z_][A-Za-z0-9_$.]*); default
     "mxgemm_n<N>_k<K>". */
  MlirStringRef name;
  int64_t n, k;          /* 1 <= N, K <= 2^24; K a multiple of 32 */
  MlirStringRef xFormat; /* "e4m3" (default) or "e5m2" */
  MlirStringRef wFormat; /* same as xFormat */
  MlirStringRef wScale;  /* "block32x32" (default) or "per_row" */
  MlirStringRef outType; /* "bf16" (default) or "f32" */
  /* "auto" or empty (the default since API version 2): the config the
     compiler chooses (the tuning database's entry for the key and the M
     hint, else its heuristic; docs/Compiler.md), with the M hint and the
     database of MxgemmConfigOptions (mxgemmProblemBuildWithOptions; none
     and the embedded database otherwise). "default": the naive config,
     128x128x128 tiles, 2x2 waves of 32x32x64 MFMAs (what empty meant in
     API version 1). Anything else: the body of #mxgemm.config<...>, e.g.
     "tile_m = 128, tile_n = 256, ...", the other fields naive. */
  MlirStringRef config;
} MxgemmProblemSpec;

/* Version 2: `config` empty means "auto" (version 1: the naive config),
   MxgemmConfigOptions and the calls that take it are new. Every version 1
   struct keeps its layout, so version 1 binaries keep linking and running;
   they get the chosen config where they left `config` empty. */
#define MXGEMM_C_COMPILER_API_VERSION 2

/* MXGEMM_C_COMPILER_API_VERSION of the library (not of the header). */
MLIR_CAPI_EXPORTED int mxgemmCompilerGetAPIVersion(void);

/* Sets `n`, `k` and every other field to its default (empty). */
MLIR_CAPI_EXPORTED void mxgemmProblemSpecInit(MxgemmProblemSpec *spec,
                                              int64_t n, int64_t k);

/* What `config = "auto"` looks at besides the problem. */
typedef struct MxgemmConfigOptions {
  /* The M the kernel will mostly run at, 1..2^31-1; 0 = no hint (the
     database entry that holds the largest M, the heuristic sized for
     8193..16384). M stays a run-time argument of the kernel. */
  int64_t mHint;
  /* Path of a tuning database file (docs/Runtime.md, "Tuning database");
     empty: the database embedded in the compiler (tuning/gfx950.json). */
  MlirStringRef tuningDatabase;
} MxgemmConfigOptions;

/* No hint, the embedded database. */
MLIR_CAPI_EXPORTED void mxgemmConfigOptionsInit(MxgemmConfigOptions *options);

/* The config `spec` gets with `options` (NULL: defaults), as one JSON
   object passed to `callback`: {"config": "<body of #mxgemm.config<...>>",
   "config_source": "database:<entry>" | "heuristic:<rule>" | "default" |
   "explicit", "reason": "<one sentence>"}. Fails, after emitting
   diagnostics on `context`, when the spec is invalid, the database cannot
   be read or no config fits the problem. */
MLIR_CAPI_EXPORTED MlirLogicalResult
mxgemmProblemChooseConfig(MlirContext context, const MxgemmProblemSpec *spec,
                          const MxgemmConfigOptions *options,
                          MlirStringCallback callback, void *userData);

/* The problem as MLIR source (one func.func with one mxgemm.scaled_matmul),
   passed to `callback` in one or more pieces. Fails, without calling
   `callback`, when a field is invalid (the spec is not checked against the
   verifier: that needs a context, see mxgemmProblemBuild). */
MLIR_CAPI_EXPORTED MlirLogicalResult mxgemmProblemPrintSource(
    const MxgemmProblemSpec *spec, MlirStringCallback callback, void *userData);

/* Builds the problem into a new module of `context`, verified. The context
   gets the mxgemm registry appended (mxgemmRegisterAllDialects) if it does
   not have it. Returns a null module (mlirModuleIsNull) after emitting
   diagnostics on `context` when the spec or its config is invalid. The
   caller owns the module (mlirModuleDestroy). */
MLIR_CAPI_EXPORTED MlirModule mxgemmProblemBuild(MlirContext context,
                                                 const MxgemmProblemSpec *spec);

/* mxgemmProblemBuild with the M hint and database of `options` (NULL:
   defaults) for `config = "auto"`. The module records where its config came
   from; mxgemmCompile writes it to the descriptor's "config_source". */
MLIR_CAPI_EXPORTED MlirModule mxgemmProblemBuildWithOptions(
    MlirContext context, const MxgemmProblemSpec *spec,
    const MxgemmConfigOptions *options);

/* Parses mxgemm source (e.g. a saved problem) like mxgemmProblemBuild. */
MLIR_CAPI_EXPORTED MlirModule mxgemmProblemParse(MlirContext context,
                                                 MlirStringRef source);

/* What mxgemmCompile stops at and returns. */
typedef enum MxgemmEmitStage {
  MXGEMM_EMIT_MLIR = 0, /* the lowered module, as MLIR text */
  MXGEMM_EMIT_LLVM = 1, /* optimised LLVM IR text */
  MXGEMM_EMIT_ISA = 2,  /* gfx950 assembly text */
  MXGEMM_EMIT_HSACO = 3 /* linked code object + JSON sidecar */
} MxgemmEmitStage;

typedef struct MxgemmCompileOptions {
  MlirStringRef chip;         /* default "gfx950" */
  unsigned optLevel;          /* LLVM optimisation level 0-3; default 3 */
  unsigned codeObjectVersion; /* AMDHSA code object version; default 500 */
  MxgemmEmitStage stage;      /* default MXGEMM_EMIT_HSACO */
} MxgemmCompileOptions;

/* Defaults: gfx950, -O3, code object v5, HSACO. */
MLIR_CAPI_EXPORTED void mxgemmCompileOptionsInit(MxgemmCompileOptions *options);

/* Opaque result of mxgemmCompile; owns its bytes. */
typedef struct MxgemmCompileResult {
  void *ptr;
} MxgemmCompileResult;

static inline bool mxgemmCompileResultIsNull(MxgemmCompileResult result) {
  return !result.ptr;
}

/* Runs the mxgemm-to-gfx950 pipeline on `module` (in place: afterwards it
   holds the lowered gpu.module) and, for the later stages, the in-process
   serialisation. `options` may be NULL (defaults). `module` must hold
   exactly one mxgemm.scaled_matmul. On failure the diagnostics are on the
   module's context and the result is null. */
MLIR_CAPI_EXPORTED MxgemmCompileResult
mxgemmCompile(MlirModule module, const MxgemmCompileOptions *options);

/* The output of the stage: the code object (an AMDGPU ELF) for
   MXGEMM_EMIT_HSACO, else the text (not NUL-terminated; `size` bytes).
   Valid until the result is destroyed. */
MLIR_CAPI_EXPORTED void
mxgemmCompileResultGetCodeObject(MxgemmCompileResult result, const void **data,
                                 size_t *size);

/* The kernel descriptor (JSON, format_version 2; docs/Runtime.md): kernel
   name, problem, config with every field, MFMA, grid and tile mapping,
   argument layout, layouts, resources read back from the code object, its
   SHA-256 and the compiler versions; what mxgemm-compile writes to
   <out>.hsaco.json, without the "code_object" file name.
   Empty for the stages before HSACO. NUL-terminated; valid until the result
   is destroyed. */
MLIR_CAPI_EXPORTED MlirStringRef
mxgemmCompileResultGetMetadataJSON(MxgemmCompileResult result);

/* Frees the result; a null result is a no-op. */
MLIR_CAPI_EXPORTED void mxgemmCompileResultDestroy(MxgemmCompileResult result);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_C_COMPILER_H */
