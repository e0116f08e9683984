//===- Passes.td - mxgemm transformation passes ------------*- tablegen -*-===//
//
// The passes of the mxgemm-to-gfx950 pipeline (DESIGN.md section 3). Every
// pass's flag is its DEBUG_TYPE; every target-dependent pass takes `chip`.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_TD
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_PASSES_TD
