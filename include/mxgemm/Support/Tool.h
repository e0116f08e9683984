//===- Tool.h - what every mxgemm command-line tool shares ------*- C++ -*-===//
//
// The version line every tool prints for --version, and the exit codes they
// document, so that a script can tell a rejected input from a usage error
// from an I/O failure. No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SUPPORT_TOOL_H
#define MXGEMM_SUPPORT_TOOL_H

#include <string>

namespace mxgemm {

/// Exit status of every mxgemm tool.
enum ExitCode : int {
  /// Success: compiled, verified, clean.
  ExitSuccess = 0,
  /// The input was processed and found wrong: a diagnostic (compile error),
  /// a numeric mismatch, a checker finding.
  ExitFailure = 1,
  /// The command line is wrong (unknown option, missing or bad value).
  ExitUsage = 2,
  /// A file could not be read or written, or a library could not be loaded.
  ExitIO = 3,
};

/// "0.1.0".
const char *getVersion();
/// The git commit the tools were built from ("unknown" outside a checkout).
const char *getGitCommit();
/// "mxgemm 0.1.0 (git 0123abcd)".
std::string getVersionLine();

} // namespace mxgemm

#endif // MXGEMM_SUPPORT_TOOL_H
