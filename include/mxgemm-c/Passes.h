/*===- Passes.h - C API of the mxgemm passes ----------------------*- C -*-===*
 *
 * Registers the mxgemm passes and the mxgemm-to-gfx950 pipeline (and the
 * upstream passes it is built from) in the global pass registry, so that
 * mlirParsePassPipeline / mlirOpPassManagerAddPipeline accept
 * "mxgemm-tile", "mxgemm-to-gfx950{chip=gfx950 opt-level=3}", ...
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_C_PASSES_H
#define MXGEMM_C_PASSES_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every pass and pipeline mxgemm-opt knows. Idempotent and
   thread-safe. */
MLIR_CAPI_EXPORTED void mxgemmRegisterPasses(void);

/* Appends the mxgemm-to-gfx950 pipeline (mxgemm-tile ... rocdl-attach-target)
   for `chip` (empty: "gfx950") at LLVM optimisation level `optLevel` (0-3)
   to `passManager`, which must be anchored on builtin.module. */
MLIR_CAPI_EXPORTED void mxgemmAddToGFX950Pipeline(MlirOpPassManager passManager,
                                                  MlirStringRef chip,
                                                  unsigned optLevel);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_C_PASSES_H */
