//===- ConfigText.h - a config from the fields a user types -----*- C++ -*-===//
//
// `mxgemm-compile --config 'tile_m = 128, stages = 2'` and the C API take the
// body of a `#mxgemm.config<...>`. It goes through the attribute parser and
// the config verifier only, never pasted into MLIR source, so the text cannot
// close the attribute and inject IR.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_IR_CONFIGTEXT_H
#define MXGEMM_DIALECT_MXGEMM_IR_CONFIGTEXT_H

#include "mxgemm/Contract/KernelConfig.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mxgemm {

/// Parses `body` as the fields of one `#mxgemm.config<...>` (the whole text
/// must be one config) and verifies it. Diagnostics go to `ctx`.
mlir::FailureOr<contract::KernelConfig> parseConfigBody(mlir::MLIRContext *ctx,
                                                        llvm::StringRef body);

} // namespace mxgemm

#endif // MXGEMM_DIALECT_MXGEMM_IR_CONFIGTEXT_H
