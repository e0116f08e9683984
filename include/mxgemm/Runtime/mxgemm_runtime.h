/*===- mxgemm_runtime.h - C API of the mxgemm runtime shim --------*- C -*-===*
 *
 * The one public header of libmxgemm_runtime.so (C99, no C++ across it):
 * shape dispatch of block-scaled MXFP8 GEMMs Y = X . W^T (docs/Design.md
 * sections 1 and 5) onto the gfx950 kernels embedded in the library (built
 * ahead of time from tuning/gfx950.json). A caller asks `mxgemm_query`
 * whether a problem has a tuned kernel; `mxgemm_gemm` launches it on a
 * hipStream_t, or returns MXGEMM_STATUS_NOT_ELIGIBLE with the rule that
 * failed so that the caller's own path runs. Kernels compiled elsewhere
 * (mxgemm-compile, the compiler's C API) are launched through the same
 * checks with `mxgemm_kernel_load` / `mxgemm_kernel_launch`. HIP is loaded
 * with dlopen at first use and never linked. See docs/Runtime.md.
 *
 * Errors. Every function that returns a status returns MXGEMM_STATUS_OK or
 * records a message as the calling thread's last error
 * (`mxgemm_last_error`), NOT_ELIGIBLE included; a successful call leaves
 * the last error as it was. Bad input is a status and a message, never a
 * crash.
 *
 * Handles. `mxgemm_context *` and `mxgemm_loaded_kernel *` are opaque
 * handles, not addresses: never dereference them. The library checks every
 * handle it is given against a process-wide table of live objects without
 * reading the object, so a handle used after `mxgemm_context_destroy` /
 * `mxgemm_kernel_unload` (a second destroy or unload included), a handle of
 * the other kind, or a made-up value is MXGEMM_STATUS_INVALID_ARGUMENT with
 * a message. NULL is INVALID_ARGUMENT, except that `mxgemm_context_destroy
 * (NULL)` is a no-op. Destroying a context unloads the kernels loaded into
 * it. The one rule the library cannot check: do not destroy (unload) a
 * handle while another thread is still inside a call that uses it; every
 * call that starts after the destroy returned is refused. At most 4096
 * contexts and 65536 loaded kernels are live at a time (NOT_SUPPORTED
 * beyond).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_RUNTIME_H
#define MXGEMM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define MXGEMM_API __attribute__((visibility("default")))
#else
#define MXGEMM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MXGEMM_VERSION_MAJOR 0
#define MXGEMM_VERSION_MINOR 3
#define MXGEMM_VERSION_PATCH 1

/* Status of every call. Values are stable (documented encodings). */
typedef enum mxgemm_status {
  MXGEMM_STATUS_OK = 0,
  /* The problem has no tuned kernel here; `reason` says which rule failed.
     The caller runs its own path. */
  MXGEMM_STATUS_NOT_ELIGIBLE = 1,
  /* Null pointer, zero/negative/mismatched size, overflow, bad enum, a
     handle that names no live object, a code object or kernel descriptor
     that fails its checks, a problem that is not a loaded kernel's. */
  MXGEMM_STATUS_INVALID_ARGUMENT = 2,
  /* A HIP call failed (or, in strict mode, HIP/a code object is missing). */
  MXGEMM_STATUS_HIP_ERROR = 3,
  /* The operation exists in the API but not for this problem (packing the
     weights of a kernel that reads row-major W), or a handle table is
     full. */
  MXGEMM_STATUS_NOT_SUPPORTED = 4,
  /* A bug in the library (an internal invariant failed). */
  MXGEMM_STATUS_INTERNAL = 5
} mxgemm_status;

/* Why a problem is not eligible (plan.reason). Stable values. */
typedef enum mxgemm_reason {
  MXGEMM_REASON_NONE = 0,
  MXGEMM_REASON_HIP_UNAVAILABLE = 1,  /* dlopen/hipInit/no device */
  MXGEMM_REASON_ARCH_MISMATCH = 2,    /* device is not gfx950 (CC 9.5) */
  MXGEMM_REASON_OUTPUT_TYPE = 3,      /* output is not BF16 */
  MXGEMM_REASON_NOT_PREQUANTIZED = 4, /* X or W is not FP8 (+E8M0) */
  MXGEMM_REASON_K_NOT_MULTIPLE_OF_32 = 5,
  MXGEMM_REASON_NOT_CONTIGUOUS = 6,   /* a leading dimension != row length */
  MXGEMM_REASON_NO_TUNED_KERNEL = 7,  /* no entry for (arch,N,K,fmts,...) */
  MXGEMM_REASON_M_OUT_OF_RANGE = 8,   /* key found, M outside its ranges */
  MXGEMM_REASON_CODE_OBJECT_LOAD = 9, /* hipModuleLoadData/GetFunction */
  MXGEMM_REASON_MISALIGNED = 10,      /* a pointer is not 16-byte aligned */
  MXGEMM_REASON_PACKED_WEIGHTS = 11,  /* problem.w_layout != the kernel's */
  /* JIT on, and no kernel could be compiled or loaded for the problem (the
     JIT library is missing, the compile failed, ...); warned once */
  MXGEMM_REASON_JIT_FAILED = 12,
  /* problem.x_scale_layout or w_scale_layout != the kernel's (plan's) */
  MXGEMM_REASON_SCALE_LAYOUT = 13
} mxgemm_reason;

/* Which kind of kernel a plan names (plan.kind). Stable values. */
typedef enum mxgemm_plan_kind {
  MXGEMM_PLAN_KIND_NONE = 0,     /* no kernel (the call is not eligible) */
  MXGEMM_PLAN_KIND_EMBEDDED = 1, /* a tuned kernel embedded in the library */
  /* A tuned kernel of a directory loaded by mxgemm_context_load_library */
  MXGEMM_PLAN_KIND_LIBRARY = 2,
  MXGEMM_PLAN_KIND_LOADED_KERNEL = 3, /* mxgemm_kernel_load / a descriptor */
  /* Compiled at run time (MXGEMM_JIT=1 / mxgemm_context_set_jit), or loaded
     from the kernel cache; plan.entry is its cache key, plan.note says
     which */
  MXGEMM_PLAN_KIND_JIT = 4,
  /* An embedded generic kernel (run-time N and K, row-major W): serves a
     key without a tuned, loaded or JIT kernel; plan.entry names it */
  MXGEMM_PLAN_KIND_GENERIC = 5
} mxgemm_plan_kind;

/* Element types. X and W must be FP8 (pre-quantized) for the tuned path;
   the others exist so that a caller can describe its problem and be told
   NOT_ELIGIBLE instead of lying about its data. */
typedef enum mxgemm_dtype {
  MXGEMM_DTYPE_E4M3 = 0, /* f8E4M3FN */
  MXGEMM_DTYPE_E5M2 = 1, /* f8E5M2 */
  MXGEMM_DTYPE_BF16 = 2,
  MXGEMM_DTYPE_F16 = 3,
  MXGEMM_DTYPE_F32 = 4
} mxgemm_dtype;

/* Granularity of the E8M0 weight scales (docs/Design.md section 1). */
typedef enum mxgemm_scale_granularity {
  MXGEMM_SCALE_BLOCK32X32 = 0, /* Ws [ceil(N/32), K/32] */
  MXGEMM_SCALE_PER_ROW = 1     /* Ws [N, K/32] */
} mxgemm_scale_granularity;

/* How W is laid out in memory. Kernels with stage_w = packed_registers read
   MFMA panels, made once per weight tensor by mxgemm_pack_weights; all
   others read row-major W. The panel layout depends only on N, K and the
   MFMA shape, and all M ranges of one (N, K, types) key share it, so one
   packed tensor serves every M. */
typedef enum mxgemm_weight_layout {
  MXGEMM_WEIGHTS_ROW_MAJOR = 0,  /* W [N, K], leading dimension ld_w */
  MXGEMM_WEIGHTS_MFMA_PANELS = 1 /* packed by mxgemm_pack_weights */
} mxgemm_weight_layout;

/* How an E8M0 scale tensor (Xs or Ws) is laid out in memory (docs/Runtime.md,
   "Scale layouts"). Row-major is the default and what mxgemm_quantize
   writes. The MFMA-native layouts are what kernels compiled with
   x_scale_layout / w_scale_layout read: 256-byte chunks of R rows x 4 K
   steps, four scale blocks of a lane in one dword, rows padded to a
   multiple of R with 127 (1.0); mxgemm_quantize_to_layout (activations),
   mxgemm_pack_scales (device) and
   mxgemm_preshuffle_scales (numerics library, host) make them, and
   include/mxgemm/Contract/ScaleLayout.h defines them. Stable values. */
typedef enum mxgemm_scale_layout {
  MXGEMM_SCALES_ROW_MAJOR = 0,      /* [rows, K/32], leading dimension ld */
  MXGEMM_SCALES_MFMA_16X16X128 = 1, /* R = 16, for 16x16x128 MFMAs */
  MXGEMM_SCALES_MFMA_32X32X64 = 2   /* R = 32, for 32x32x64 MFMAs */
} mxgemm_scale_layout;

/* One GEMM Y[M,N] = X[M,K] . W[N,K]^T with Xs [M, K/32] and Ws as above.
   Leading dimensions are in elements; 0 means "row-major contiguous". A
   leading dimension larger than the row is legal but NOT_ELIGIBLE (the
   kernels take contiguous operands); smaller is INVALID_ARGUMENT. */
typedef struct mxgemm_problem {
  int64_t m, n, k;
  mxgemm_dtype x_type;              /* default E4M3 */
  mxgemm_dtype w_type;              /* default E4M3 */
  mxgemm_scale_granularity w_scale; /* default BLOCK32X32 */
  mxgemm_dtype out_type;            /* default BF16 */
  int64_t ld_x, ld_xs, ld_w, ld_ws, ld_y;
  /* Layout of `w` (default ROW_MAJOR). With MFMA_PANELS, ld_w must be 0 or
     K; a problem whose kernel reads the other layout is NOT_ELIGIBLE with
     MXGEMM_REASON_PACKED_WEIGHTS. */
  mxgemm_weight_layout w_layout;
  /* Layouts of `xs` and `ws` (default ROW_MAJOR; since 0.2.0). A native
     layout has no leading dimension (ld_xs / ld_ws must be 0) and takes
     mxgemm_scale_bytes() bytes; a problem whose kernel reads another layout
     is NOT_ELIGIBLE with MXGEMM_REASON_SCALE_LAYOUT (a loaded kernel's:
     INVALID_ARGUMENT, as for its other fields). */
  mxgemm_scale_layout x_scale_layout;
  mxgemm_scale_layout w_scale_layout;
} mxgemm_problem;

/* Device pointers of the operands (from hipMalloc, or mxgemm_device_alloc). */
typedef struct mxgemm_tensors {
  const void *x, *xs, *w, *ws;
  void *y;
} mxgemm_tensors;

/* The decision for one problem. Strings point into the library's static
   data (valid until it is unloaded), into the loaded kernel (valid until
   it is unloaded), or into `message`. */
typedef struct mxgemm_plan {
  mxgemm_status status;
  mxgemm_reason reason;
  const char *entry;  /* tuning-database entry name, "" if none (and for a
                         loaded kernel) */
  const char *kernel; /* kernel symbol in the code object, "" if none */
  const char *config; /* #mxgemm.config body of the kernel */
  const char *note;   /* the database note (e.g. the case-table plan) */
  uint32_t grid_x, grid_y, grid_z;    /* workgroups */
  uint32_t block_x, block_y, block_z; /* work-items per workgroup */
  uint32_t lds_bytes;                 /* dynamic LDS: always 0 */
  uint32_t program_tile_m, tile_n, num_tiles_n;
  uint32_t k_step; /* K per MFMA step: 64 (32x32x64) or 128 (16x16x128) */
  /* Workgroup -> tile order: group_m x group_n tile groups (group_n 0 = all
     N tiles), XCD remap; 1, 0, 0 is row-major. */
  uint32_t group_m, group_n, xcd_remap;
  /* The layout of W the kernel reads (also when the problem is
     NOT_ELIGIBLE with MXGEMM_REASON_PACKED_WEIGHTS). */
  mxgemm_weight_layout w_layout;
  /* Which kind of kernel serves the problem (NONE when none does). */
  mxgemm_plan_kind kind;
  /* The layouts of Xs and Ws the kernel reads (also when the problem is
     NOT_ELIGIBLE with MXGEMM_REASON_SCALE_LAYOUT); since 0.2.0. */
  mxgemm_scale_layout x_scale_layout, w_scale_layout;
  int64_t m_min, m_max; /* M range of the entry (loaded: 1..2^31-1) */
  /* Split-K (since 0.3.0): K segments per split tile (1: K is not split).
     A split-K kernel runs two launches in stream order: the first (grid
     above) stores FP32 partials, the second adds them. Without a tail
     split every tile is split and grid_y = k_splits in both launches. With
     a tail split (docs/Runtime.md, "Tail split") both grids are 1-D: the
     first launch runs grid_x - tail_tiles * k_splits whole tiles, then
     k_splits workgroups per tail tile; the second has
     reduction_grid_x = tail_tiles * k_splits workgroups (0: none). */
  uint32_t k_splits;
  uint32_t tail_tiles;       /* tiles split by a tail split, else 0 */
  uint32_t reduction_grid_x; /* x workgroups of the second launch, or 0 */
  char message[320];         /* human-readable decision / reason */
} mxgemm_plan;

typedef void (*mxgemm_log_fn)(void *user_data, const char *message);

typedef struct mxgemm_context_options {
  /* HIP library to dlopen; NULL: $MXGEMM_HIP_LIBRARY, else libamdhip64.so. */
  const char *hip_library;
  /* Strict mode: HIP or code-object load failures are MXGEMM_STATUS_HIP_ERROR
     instead of NOT_ELIGIBLE (with a once-per-process warning). */
  int strict;
  /* Dry run: mxgemm_gemm and mxgemm_kernel_launch do every check and pack
     the kernel arguments but do not call hipModuleLaunchKernel (benchmarks,
     tests). */
  int dry_run;
  /* Receives warnings; NULL: they go to stderr. */
  mxgemm_log_fn log;
  void *log_user_data;
} mxgemm_context_options;

/* Opaque handles (see "Handles" at the top). */
typedef struct mxgemm_context mxgemm_context;
typedef struct mxgemm_loaded_kernel mxgemm_loaded_kernel;

/* Static information about one embedded kernel (for tools and bindings).
   The tuned entries come first; then the generic kernels, whose n and k
   are 0 (they serve any N and K) and whose m range is their M bucket. */
typedef struct mxgemm_kernel_info {
  const char *entry, *kernel, *arch, *config, *note;
  int64_t n, k, m_min, m_max;
  mxgemm_dtype x_type, w_type, out_type;
  mxgemm_scale_granularity w_scale;
  size_t code_object_bytes;
  uint32_t workgroup_size, vgpr_count, agpr_count, sgpr_count;
  mxgemm_weight_layout w_layout; /* the layout of W the kernel reads */
  /* The layouts of Xs and Ws the kernel reads (since 0.2.0). */
  mxgemm_scale_layout x_scale_layout, w_scale_layout;
} mxgemm_kernel_info;

/* "0.3.1" (MXGEMM_VERSION_MAJOR.MINOR.PATCH of the library). */
MXGEMM_API const char *mxgemm_version(void);
/* Static name of a status ("MXGEMM_STATUS_OK", ...); never NULL. */
MXGEMM_API const char *mxgemm_status_string(mxgemm_status status);
/* Static name of a reason ("MXGEMM_REASON_M_OUT_OF_RANGE", ...). */
MXGEMM_API const char *mxgemm_reason_string(mxgemm_reason reason);
/* Static name of a plan kind ("MXGEMM_PLAN_KIND_LIBRARY", ...). */
MXGEMM_API const char *mxgemm_plan_kind_string(mxgemm_plan_kind kind);
/* Message of the last call on this thread that did not return
   MXGEMM_STATUS_OK ("" if none); valid until the thread's next failing
   call. */
MXGEMM_API const char *mxgemm_last_error(void);

/* Defaults: all zero/NULL. */
MXGEMM_API void mxgemm_context_options_init(mxgemm_context_options *options);
/* Fills the defaults (E4M3 x E4M3, block32x32, BF16, contiguous row-major)
   and M/N/K. */
MXGEMM_API void mxgemm_problem_init(mxgemm_problem *problem, int64_t m,
                                    int64_t n, int64_t k);
/* `options` may be NULL. HIP is not touched until the first call needing
   it. NOT_SUPPORTED when 4096 contexts are live. */
MXGEMM_API mxgemm_status mxgemm_context_create(
    const mxgemm_context_options *options, mxgemm_context **context);
/* Unloads the modules (those of loaded kernels too) and invalidates the
   handle and the handles of its loaded kernels; NULL is a no-op, a
   destroyed context INVALID_ARGUMENT. No call may be in flight on it. */
MXGEMM_API mxgemm_status mxgemm_context_destroy(mxgemm_context *context);

/* The decision for `problem` (shape-level rules, device, code object). The
   pointer rules (alignment) are checked by mxgemm_gemm. Returns plan->status.
   Thread-safe; after the first call it neither allocates nor locks. */
MXGEMM_API mxgemm_status mxgemm_query(mxgemm_context *context,
                                      const mxgemm_problem *problem,
                                      mxgemm_plan *plan);
/* Row split (docs/Runtime.md, "Row split"): for some M a tuned entry runs
   the call as two launches in stream order, so that no round of workgroups
   is left mostly idle: its kernel on rows [0, *first_rows), then the key's
   entry for the other rows on X, its scales and Y offset by *first_rows
   rows. mxgemm_query's plan is `plan` here (the first launch; its message
   names both). Returns plan->status. With one launch *first_rows is 0 and
   `tail` has kind NONE and the message "one launch"; with two, `tail` is
   the second launch's plan, its rows counted from *first_rows. */
MXGEMM_API mxgemm_status mxgemm_query_row_split(mxgemm_context *context,
                                                const mxgemm_problem *problem,
                                                mxgemm_plan *plan,
                                                int64_t *first_rows,
                                                mxgemm_plan *tail);
/* Launches the tuned kernel on `stream` (a hipStream_t; NULL = default
   stream). Asynchronous. NOT_ELIGIBLE: nothing was launched, run your own
   path. `plan` may be NULL (the reason is then in mxgemm_last_error).
   Thread-safe, allocation- and lock-free. */
MXGEMM_API mxgemm_status mxgemm_gemm(mxgemm_context *context,
                                     const mxgemm_problem *problem,
                                     const mxgemm_tensors *tensors,
                                     void *stream, mxgemm_plan *plan);
/* Packs the device tensor W [N, K] (row-major, FP8) once per weight tensor
   into `packed` (device memory, *packed_bytes = N * K bytes, 16-byte
   aligned; it may be `w` itself) in the MFMA panel layout the kernel for
   `problem` reads (problem->w_layout is ignored here). Then pass `packed` as
   tensors.w with problem.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS; Ws stays as
   it is. With `packed` NULL only *packed_bytes is set. A one-time
   preparation, not a per-call step. `packed` apart from `w`: an embedded
   packing kernel (one per MFMA shape) permutes W on the device,
   asynchronously on `stream` (after W's producers); `packed` overlapping
   `w` (in place): synchronizes `stream`, then copies through host memory.
   NOT_SUPPORTED if the kernel reads row-major W (nothing to pack);
   NOT_ELIGIBLE if the problem has no kernel (plan rules as mxgemm_query) or
   the packing kernel cannot be loaded (HIP_ERROR in strict mode);
   INVALID_ARGUMENT for NULL or misaligned buffers. Nothing is written when
   it fails. The layout is defined in include/mxgemm/Contract/WeightPanels.h
   and docs/Runtime.md. */
MXGEMM_API mxgemm_status mxgemm_pack_weights(mxgemm_context *context,
                                             const mxgemm_problem *problem,
                                             const void *w, void *packed,
                                             size_t *packed_bytes,
                                             void *stream);

/* Bytes of a contiguous scale tensor of `rows` rows (M for Xs, N for
   per-row Ws, ceil(N/32) for block32x32 Ws) and K/32 blocks per row in
   `layout`: rows * K/32 for ROW_MAJOR; rows rounded up to the layout's R
   (16 or 32) times K/32 rounded up to 4 for the MFMA-native layouts.
   INVALID_ARGUMENT (with the reason) for a bad layout, rows or K not
   positive, K not a multiple of 32, or a size that overflows. */
MXGEMM_API mxgemm_status mxgemm_scale_bytes(mxgemm_scale_layout layout,
                                            int64_t rows, int64_t k,
                                            size_t *bytes);
/* Rewrites the contiguous row-major device scales `scales` [rows, K/32]
   into `packed` (device memory of mxgemm_scale_bytes(layout, rows, k)
   bytes; it may be `scales` itself if that is large enough) in `layout`,
   the padding bytes 127. For weight scales: once per weight tensor, like
   mxgemm_pack_weights, then pass `packed` as tensors.ws with
   problem.w_scale_layout = `layout`. A one-time preparation, not a
   per-call step: it synchronizes `stream` and copies through host memory
   (activation scales come in the layout from mxgemm_quantize_to_layout).
   INVALID_ARGUMENT for a bad context,
   layout, rows or K (as mxgemm_scale_bytes) or a NULL pointer;
   NOT_ELIGIBLE if HIP is unavailable (HIP_ERROR in strict mode);
   HIP_ERROR if a copy fails. Nothing is written when it fails. */
MXGEMM_API mxgemm_status mxgemm_pack_scales(mxgemm_context *context,
                                            mxgemm_scale_layout layout,
                                            const void *scales, int64_t rows,
                                            int64_t k, void *packed,
                                            void *stream);

/* Activation quantization on the device (OCP MX v1.0, docs/Runtime.md,
   "Quantization"): `input` [M, K] of `in_type` (BF16, F16 or F32; rows
   `ld_input` elements apart, 0 = K) becomes `codes` [M, K] of `format`
   (E4M3 or E5M2, row-major, contiguous) and `scales` [M, K/32] (E8M0,
   row-major, contiguous): per 32 elements of a row, the shared exponent
   floor(log2(amax)) - emax (8 for E4M3, 15 for E5M2) clamped to
   [-127, 127] (scale byte = exponent + 127; an all-zero block gets 127,
   a block with a NaN or inf 255), elements = value / 2^exponent rounded
   to nearest even, saturated to the largest finite code (NaN -> NaN code,
   +-inf -> the saturated/inf code of numerics::encodeFP8). Byte for byte
   numerics::quantizeMX. One embedded kernel per (in_type, format) serves
   every shape; it is checked (SHA-256 and ELF against its descriptor)
   before its module is loaded. Asynchronous on `stream` (a hipStream_t;
   NULL = default stream).
   INVALID_ARGUMENT (nothing launched): a bad context, in_type or format;
   M or K not in 1..2^31-1; K not a multiple of 32; ld_input neither 0 nor
   >= K; a NULL pointer; sizes that overflow. NOT_ELIGIBLE (nothing
   launched, quantize on your own path): HIP unavailable or not a gfx950
   (HIP_ERROR in strict mode), `input` or `codes` not 16-byte aligned, a
   module that does not load (HIP_ERROR in strict mode), ld_input > K
   (strided rows: this version's kernels read contiguous rows). Dry-run
   contexts check everything and launch nothing. */
MXGEMM_API mxgemm_status mxgemm_quantize(mxgemm_context *context,
                                         mxgemm_dtype in_type,
                                         mxgemm_dtype format, int64_t m,
                                         int64_t k, const void *input,
                                         int64_t ld_input, void *codes,
                                         void *scales, void *stream);
/* mxgemm_quantize with the scales written in `scale_layout`: ROW_MAJOR is
   mxgemm_quantize; an MFMA-native layout writes `scales` as
   mxgemm_scale_bytes(scale_layout, m, k) bytes, the padding 127, for a
   kernel that reads its X scales in that layout (no separate packing
   step). One embedded kernel per (in_type, format, layout); the same rules
   and statuses as mxgemm_quantize, plus INVALID_ARGUMENT for a bad layout
   value. */
MXGEMM_API mxgemm_status mxgemm_quantize_to_layout(
    mxgemm_context *context, mxgemm_dtype in_type, mxgemm_dtype format,
    mxgemm_scale_layout scale_layout, int64_t m, int64_t k, const void *input,
    int64_t ld_input, void *codes, void *scales, void *stream);

/* Tuning data loaded at run time.

   mxgemm_context_load_library: loads the directory `dir` that
   `mxgemm-tune --export DIR` writes (manifest.json, format
   "mxgemm-tune-export" version 1; the tuning database it names, with the
   M ranges; one code object and one kernel descriptor per entry) into
   `context`. From then on mxgemm_query / mxgemm_gemm / mxgemm_pack_weights
   on this context serve the keys (N, K, formats, weight-scale granularity,
   output type) of the loaded entries with the loaded kernels (plan.kind =
   MXGEMM_PLAN_KIND_LIBRARY): the loaded entries of a key replace the
   embedded ones of that key, all M ranges (so that one key keeps one W
   layout); an M outside the loaded ranges is M_OUT_OF_RANGE. Loading
   again adds the new directory's keys and replaces the previously loaded
   entries of the keys it has.

   Everything is checked before HIP sees a byte: the directory and every
   file read must be owned by the calling user, not writable by group or
   others, and a real directory / regular files (no symbolic links); the
   manifest's format and version; the manifest's entries are the
   database's (name, kernel, N, K, M range, config) and the reverse; the
   SHA-256 of each code object equals the manifest's and its descriptor's
   code_object_sha256; the descriptor parses (format_version 2), describes
   the entry's problem and config, its chip is gfx950, its arguments are
   ones this runtime passes, and the code object is a gfx950 AMDGPU ELF
   that defines its kernel (as mxgemm_kernel_load); then HIP must be usable
   and the device a gfx950, the chip of every entry. A failure returns
   INVALID_ARGUMENT (HIP_ERROR if HIP is unavailable or a module does not
   load, NOT_ELIGIBLE if the device is not a gfx950) with the reason as the
   last error, and the context is unchanged: all or nothing. Thread-safe:
   queries running meanwhile see the old or the new set of entries. */
MXGEMM_API mxgemm_status mxgemm_context_load_library(mxgemm_context *context,
                                                     const char *dir);

/* JIT: a problem with no tuned or loaded kernel (shape rules met: BF16
   out, FP8 operands, K a multiple of 32, contiguous) gets a kernel compiled
   by libmxgemm_jit.so (dlopened only then, found beside this library or at
   $MXGEMM_JIT_LIBRARY) with the compiler's auto config for M rounded up to
   a power of two, kept in the on-disk kernel cache (docs/Runtime.md) so
   that the next process loads it. On for every context when the
   environment has MXGEMM_JIT=1 at mxgemm_context_create, or per context
   with mxgemm_context_set_jit(ctx, 1). The first mxgemm_query /
   mxgemm_gemm of a (key, M bucket) WAITS for the compile (about a second;
   one compile per key however many threads ask) or the cache load; later
   calls find the kernel in memory. A failure is NOT_ELIGIBLE with
   MXGEMM_REASON_JIT_FAILED and a one-time warning. */
MXGEMM_API mxgemm_status mxgemm_context_set_jit(mxgemm_context *context,
                                                int enable);

/* Generic kernels: embedded kernels that take N and K at run time (E4M3 x
   E4M3, both weight-scale kinds, BF16 out, row-major W; one per M range
   1..16, 17..64, 65..2^31-1). When on, a problem with no tuned, loaded or
   JIT kernel (shape rules met) runs on the generic kernel of its formats
   and M: plan.kind MXGEMM_PLAN_KIND_GENERIC, plan.entry its name. A JIT
   failure falls back to it too. On by default, so every MXFP8 GEMM on
   gfx950 with K a multiple of 32 gets a correct kernel with no compiler in
   the process. A caller whose own path is faster than a generic kernel
   turns them off (NOT_ELIGIBLE then says "use it"): for every context
   with MXGEMM_GENERIC=0 in the environment at mxgemm_context_create, or
   per context with mxgemm_context_set_generic(ctx, 0) (1 turns them back
   on). With MXGEMM_LOG_UNTUNED=FILE each key a generic kernel serves is
   appended to FILE once per process. */
MXGEMM_API mxgemm_status mxgemm_context_set_generic(mxgemm_context *context,
                                                    int enable);

/* Kernels compiled elsewhere (mxgemm-compile, the compiler's C API).

   mxgemm_kernel_load: loads `code_object` (`code_object_bytes` bytes) with
   its kernel descriptor `descriptor_json` (the JSON sidecar mxgemm-compile
   writes beside it, format_version 2, NUL-terminated) into `context`. Before
   HIP sees anything: the descriptor must parse and be consistent, its chip
   must be gfx950, the SHA-256 of the bytes must equal its
   code_object_sha256, the bytes must be an AMDGPU ELF for gfx950 that
   defines its kernel, and every kernel argument it lists must be one this
   runtime passes; each failure is INVALID_ARGUMENT with the reason. Then
   the module is loaded on the context's device: HIP_ERROR if HIP is
   unavailable or hipModuleLoadData/hipModuleGetFunction fail, NOT_ELIGIBLE
   if the device is not a gfx950. The library copies both inputs. On OK,
   *kernel is a handle valid until mxgemm_kernel_unload(context, *kernel)
   or mxgemm_context_destroy(context). */
MXGEMM_API mxgemm_status mxgemm_kernel_load(mxgemm_context *context,
                                            const void *code_object,
                                            size_t code_object_bytes,
                                            const char *descriptor_json,
                                            mxgemm_loaded_kernel **kernel);
/* The plan of a loaded kernel for `problem` (grid from the descriptor,
   workgroup size, tile order, k_step), as mxgemm_query gives for the
   embedded kernels; nothing is launched. `problem` must be the problem the
   kernel was compiled for: N, K, X and W formats, weight-scale granularity,
   output type and w_layout equal the descriptor's (else INVALID_ARGUMENT
   naming the field); M above 2^31 - 1 is NOT_ELIGIBLE (M_OUT_OF_RANGE: M is
   an i32 kernel argument); a leading dimension other than the row length
   is NOT_ELIGIBLE (NOT_CONTIGUOUS). plan->entry and plan->note are "",
   m_min..m_max is 1..2^31-1. Returns plan->status. */
MXGEMM_API mxgemm_status mxgemm_kernel_query(mxgemm_context *context,
                                             mxgemm_loaded_kernel *kernel,
                                             const mxgemm_problem *problem,
                                             mxgemm_plan *plan);
/* The plan of a kernel descriptor alone (the JSON sidecar of a compiled
   kernel, or mxgemm_kernel_descriptor(i)) for `problem`: the grid, tile
   order and k_step the kernel would be launched with, by the rules of
   mxgemm_kernel_query, without a context, HIP or the code object (tools
   that sample a kernel's workgroups, performance models). The descriptor
   is parsed and checked as mxgemm_kernel_load does (INVALID_ARGUMENT with
   the reason otherwise). plan->entry, kernel, config and note are "" (the
   descriptor has them). Returns plan->status. */
MXGEMM_API mxgemm_status mxgemm_descriptor_query(const char *descriptor_json,
                                                 const mxgemm_problem *problem,
                                                 mxgemm_plan *plan);
/* Launches a loaded kernel on `stream` (a hipStream_t; NULL = default
   stream): the rules of mxgemm_kernel_query plus the pointer rules of
   mxgemm_gemm (non-NULL, else INVALID_ARGUMENT; 16-byte aligned, else
   NOT_ELIGIBLE/MISALIGNED), then hipModuleLaunchKernel with the arguments
   packed at the descriptor's offsets. Asynchronous; `plan` may be NULL.
   Thread-safe, allocation- and lock-free. */
MXGEMM_API mxgemm_status mxgemm_kernel_launch(mxgemm_context *context,
                                              mxgemm_loaded_kernel *kernel,
                                              const mxgemm_problem *problem,
                                              const mxgemm_tensors *tensors,
                                              void *stream, mxgemm_plan *plan);
/* Unloads a kernel loaded into `context` (hipModuleUnload) and invalidates
   its handle; unloading it again is INVALID_ARGUMENT. Synchronize the
   streams that run it first. */
MXGEMM_API mxgemm_status mxgemm_kernel_unload(mxgemm_context *context,
                                              mxgemm_loaded_kernel *kernel);

/* Embedded kernel library. */
MXGEMM_API size_t mxgemm_kernel_count(void);
MXGEMM_API mxgemm_status mxgemm_kernel_get(size_t index,
                                           mxgemm_kernel_info *info);
/* Pointer to the embedded code object of kernel `index` (for inspection). */
MXGEMM_API mxgemm_status mxgemm_kernel_code_object(size_t index,
                                                   const void **data,
                                                   size_t *bytes);
/* The kernel descriptor of kernel `index` (JSON, format_version 2: problem,
   config, MFMA, grid, arguments, layouts, resources, code-object SHA-256;
   docs/Runtime.md), NUL-terminated, valid while the library is loaded; NULL
   if `index` is out of range. */
MXGEMM_API const char *mxgemm_kernel_descriptor(size_t index);
/* Output tile of workgroup `workgroup` under `plan` (rows [row, row +
   program_tile_m) x cols [col, col + tile_n), clipped to M), using the same
   program-id -> tile swizzle the kernel was compiled with (group_m x group_n
   groups, XCD remap; include/mxgemm/Contract/TileGrouping.h). Every field
   of the plan is checked: a caller-built plan that describes no grid
   (group_m = 0, grid_x not a multiple of num_tiles_n, more than 2^31 - 1
   rows, ...), or a workgroup past it, is INVALID_ARGUMENT. */
MXGEMM_API mxgemm_status mxgemm_plan_workgroup_tile(const mxgemm_plan *plan,
                                                    uint32_t workgroup,
                                                    int64_t *row, int64_t *col);
/* The workgroups of a call's launches that complete the output tiles of the
   workgroups `ids`, for a runner that executes a listed id in every launch
   whose grid holds it and skips the others (the emulator's
   MXGEMM_EMU_WORKGROUPS; since 0.3.1). `plans`: the call's plans, one or the
   two of a row split (mxgemm_query_row_split); each plan has a first launch
   of grid_x x grid_y workgroups (flat ids x + y grid_x) and, with split K, a
   second that adds the partials. The result holds `ids`, every K segment of
   a tile they compute, a tail split's segments and reductions of its tail
   tiles (docs/Runtime.md, "Tail split"), and the same again for every id
   that this adds to another launch, until nothing grows. Writes the ids in
   ascending order to `out` and their number to `count`; with out = NULL and
   capacity = 0 only the count. An id in no launch, a capacity short of the
   count (`count` still written) or a plan that
   mxgemm_plan_workgroup_tile would refuse is INVALID_ARGUMENT. */
MXGEMM_API mxgemm_status mxgemm_plan_workgroup_closure(
    const mxgemm_plan *const *plans, size_t num_plans, const uint64_t *ids,
    size_t num_ids, uint64_t *out, size_t capacity, size_t *count);

/* Thin wrappers over the dlopened HIP of `context`, so that bindings and
   tools need no HIP headers: device memory, copies, stream sync. */
MXGEMM_API mxgemm_status mxgemm_device_alloc(mxgemm_context *context,
                                             size_t bytes, void **ptr);
MXGEMM_API mxgemm_status mxgemm_device_free(mxgemm_context *context, void *ptr);
MXGEMM_API mxgemm_status mxgemm_copy_to_device(mxgemm_context *context,
                                               void *dst, const void *src,
                                               size_t bytes);
MXGEMM_API mxgemm_status mxgemm_copy_to_host(mxgemm_context *context, void *dst,
                                             const void *src, size_t bytes);
MXGEMM_API mxgemm_status mxgemm_device_memset(mxgemm_context *context,
                                              void *ptr, int value,
                                              size_t bytes);
MXGEMM_API mxgemm_status mxgemm_synchronize(mxgemm_context *context,
                                            void *stream);
/* Device name and compute capability as HIP reports them. */
MXGEMM_API mxgemm_status mxgemm_device_info(mxgemm_context *context, char *name,
                                            size_t name_bytes, int *cc_major,
                                            int *cc_minor);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_RUNTIME_H */
