//===- ExportManifest.h - the manifest of an exported kernel set -*- C++
//-*-===//
//
// `mxgemm-tune --export DIR` writes DIR/manifest.json beside the tuning
// database it wrote, one code object and one kernel descriptor per entry;
// mxgemm_context_load_library reads it back. This is the manifest's one
// reader (LLVM-free, for the runtime): the schema, the format and version,
// and file names that stay inside the directory. Whether the files agree
// with each other is the loader's job.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_EXPORTMANIFEST_H
#define MXGEMM_CONTRACT_EXPORTMANIFEST_H

#include "mxgemm/Contract/KernelConfig.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxgemm::contract {

/// One exported kernel (`kernels[i]`).
struct ExportedKernel {
  /// The tuning-database entry and the kernel symbol.
  std::string name, kernel;
  /// File names in the directory.
  std::string codeObject, descriptor;
  /// Lower-case hex SHA-256 of the code object.
  std::string sha256;
  int64_t mMin = 0, mMax = 0, n = 0, k = 0;
  /// The config as the body of #mxgemm.config<...> (formatConfigBody).
  std::string config;
};

struct ExportManifest {
  static constexpr std::string_view kFormat = "mxgemm-tune-export";
  static constexpr int kVersion = 1;
  /// File name of the tuning database in the directory.
  std::string database;
  /// Hash of the simulator's target table the predictions came from.
  std::string targetHash;
  std::vector<ExportedKernel> kernels;

  /// Parses and checks `json`: schema (unknown, missing or mistyped
  /// fields), format and version, plain file names (no '/', not "." or
  /// ".."), 64-hex-digit hashes, unique entry names.
  static ErrorMessage parse(std::string_view json, ExportManifest &out);
};

/// True if `name` is a plain file name: not empty, no '/', no NUL, not "."
/// or "..".
bool isPlainFileName(std::string_view name);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_EXPORTMANIFEST_H
