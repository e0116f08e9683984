//===- Options.h - the command line of a tool without LLVM ------*- C++ -*-===//
//
// `--name value` and `--flag` options for the tools that link no LLVM
// (llvm::cl serves the others): one table gives the parser, the --help text
// and the usage errors, and --help, --version and the exit codes are those
// every mxgemm tool shares (Tool.h).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SUPPORT_OPTIONS_H
#define MXGEMM_SUPPORT_OPTIONS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxgemm {

class ToolOptions {
public:
  struct Option {
    const char *name;  // "--m"
    const char *value; // "M" for the help text; null for a flag
    const char *help;
  };

  /// `usage` is the synopsis after "usage: "; `about` and `epilogue` frame
  /// the option list of --help. --help and --version are added.
  ToolOptions(std::string tool, std::string usage, std::string about,
              std::vector<Option> options, std::string epilogue);

  /// Reads argv. No argument at all, an unknown option or a missing value
  /// are a usageError; --help prints the help and --version
  /// getVersionText(), then exit with ExitSuccess.
  void parse(int argc, char **argv);

  bool has(const std::string &name) const { return values.count(name) != 0; }
  std::string text(const std::string &name,
                   const std::string &fallback = "") const;
  /// The integer value of `name`, `fallback` if it is absent; a value that
  /// is not an integer, or an absent option without fallback, is a
  /// usageError.
  int64_t integer(const std::string &name,
                  std::optional<int64_t> fallback = std::nullopt) const;

  /// "<tool>: error: <message>" on stderr, then exit(code).
  [[noreturn]] void fail(int code, const std::string &message) const;
  /// fail(ExitUsage, message) with the usage line: a wrong command line.
  [[noreturn]] void usageError(const std::string &message) const;

private:
  std::string tool, usage, about, epilogue;
  std::vector<Option> options;
  std::map<std::string, std::string> values;
};

} // namespace mxgemm

#endif // MXGEMM_SUPPORT_OPTIONS_H
