/*===- Dialects.h - C API of the mxgemm dialect -------------------*- C -*-===*
 *
 * Registration of the mxgemm dialect in a caller's MlirContext, in the
 * upstream mlir-c style. Inserting the dialect handle (or calling
 * mxgemmRegisterAllDialects) also registers every upstream dialect and
 * extension the mxgemm-to-gfx950 pipeline lowers through, so that a context
 * prepared this way can run mxgemmCompile. See docs/Embedding.md.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_C_DIALECTS_H
#define MXGEMM_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__mxgemm__(). Inserting it into a registry inserts
   the mxgemm dialect and the upstream dialects, translations and extensions
   of the pipeline (as mxgemmRegisterAllDialects); loading it loads the
   mxgemm dialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(MXGemm, mxgemm);

/* Adds the mxgemm dialect and everything the pipeline needs to `registry`
   (mirrors mxgemm::registerAllDialects, the registry of mxgemm-opt). */
MLIR_CAPI_EXPORTED void mxgemmRegisterAllDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_C_DIALECTS_H */
