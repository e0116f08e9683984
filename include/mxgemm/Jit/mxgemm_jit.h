/*===- mxgemm_jit.h - the runtime's entry into libmxgemm_jit.so ---*- C -*-===*
 *
 * libmxgemm_jit.so links the compiler (MLIR, LLVM, lld); the runtime, which
 * must not, dlopens it only when JIT is on (MXGEMM_JIT=1 or
 * mxgemm_context_set_jit) and calls its one entry point, mxgemm_jit_v1,
 * with the structs below. Versioned: `struct_size` and `abi_version` are
 * checked, and a new layout gets a new entry point name. Internal to
 * mxgemm (runtime <-> JIT library of the same build), see docs/Runtime.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_JIT_MXGEMM_JIT_H
#define MXGEMM_JIT_MXGEMM_JIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MXGEMM_JIT_ABI_VERSION 1
#define MXGEMM_JIT_ENTRY "mxgemm_jit_v1"

typedef enum mxgemm_jit_op {
  /* The config the compiler's auto selection gives the problem (tuning
     database, then heuristics) and the compiler's versions: no compile. */
  MXGEMM_JIT_OP_CONFIG = 0,
  /* CONFIG, then compile the problem with that config into
     result.code_object / result.descriptor_json (kernel `kernel_name`). */
  MXGEMM_JIT_OP_COMPILE = 1,
  /* Frees what a COMPILE put into `result`. */
  MXGEMM_JIT_OP_RELEASE = 2
} mxgemm_jit_op;

typedef struct mxgemm_jit_request {
  uint32_t struct_size; /* sizeof(mxgemm_jit_request) */
  uint32_t abi_version; /* MXGEMM_JIT_ABI_VERSION */
  int32_t op;           /* mxgemm_jit_op */
  const char *chip;     /* "gfx950" */
  int64_t n, k;
  int64_t m_hint; /* the M the kernel is chosen for (1..2^31-1) */
  /* mxgemm_dtype / mxgemm_scale_granularity values */
  int32_t x_type, w_type, w_scale, out_type;
  const char *kernel_name; /* COMPILE: the kernel symbol */
} mxgemm_jit_request;

typedef struct mxgemm_jit_result {
  uint32_t struct_size; /* sizeof(mxgemm_jit_result), set by the caller */
  int32_t ok;           /* 1: done; 0: `error` says why */
  char error[1024];
  char config[1024];        /* #mxgemm.config body */
  char config_source[128];  /* "database:<entry>", "heuristic:<rule>" */
  char mxgemm_version[128]; /* "0.1.0 (git <commit>)" */
  char llvm_version[64];
  /* COMPILE: malloc'ed by the library, freed by MXGEMM_JIT_OP_RELEASE. */
  void *code_object;
  size_t code_object_bytes;
  char *descriptor_json;
  double compile_ms;
} mxgemm_jit_result;

typedef int (*mxgemm_jit_entry_fn)(const mxgemm_jit_request *request,
                                   mxgemm_jit_result *result);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_JIT_MXGEMM_JIT_H */
