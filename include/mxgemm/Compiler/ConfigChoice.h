//===- ConfigChoice.h - which config a compile uses -------------*- C++ -*-===//
//
// What `--config` means, for mxgemm-compile and the compiler C API alike:
// "auto" (the default: contract::selectConfig over a tuning database,
// by default the one embedded in this library), "default" (the naive
// KernelConfig{}) or the body of an `#mxgemm.config<...>` (explicit).
// The tool and the C API parse nothing themselves: they call chooseConfig.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_COMPILER_CONFIGCHOICE_H
#define MXGEMM_COMPILER_CONFIGCHOICE_H

#include "mxgemm/Contract/ConfigSelection.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Support/MLIR.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace mxgemm {

/// The `--config` keywords.
inline constexpr llvm::StringLiteral kConfigAuto = "auto",
                                     kConfigDefault = "default";

/// The tuning database embedded at build time (tuning/gfx950.json), parsed
/// and checked once, on first use; null (with the reason in `error`) only
/// if the embedded copy does not parse, which the build already rules out.
const contract::TuningDatabase *
getEmbeddedTuningDatabase(contract::ErrorMessage *error = nullptr);

/// Reads and checks the tuning database at `path`. `ioError` tells a file
/// that cannot be read from one that is not a valid database.
contract::ErrorMessage readTuningDatabase(llvm::StringRef path,
                                          contract::TuningDatabase &out,
                                          bool *ioError = nullptr);

/// How a caller asks for a config.
struct ConfigRequest {
  /// "auto" or empty (auto), "default", or a config body.
  std::string text;
  /// M the kernel will mostly run at (1..kMaxM), 0 = no hint.
  int64_t mHint = 0;
  /// The database auto looks in; null = the embedded one.
  const contract::TuningDatabase *database = nullptr;
};

/// The config `request` gives `problem` on `chip`, and why. Failures of a
/// config body are diagnostics on `ctx` (the attribute parser's); the others
/// (invalid problem, M hint out of range, no config fits) go to `error`.
FailureOr<contract::ConfigChoice>
chooseConfig(MLIRContext *ctx, const contract::GemmProblem &problem,
             llvm::StringRef chip, const ConfigRequest &request,
             llvm::function_ref<void(const llvm::Twine &)> error);

} // namespace mxgemm

#endif // MXGEMM_COMPILER_CONFIGCHOICE_H
