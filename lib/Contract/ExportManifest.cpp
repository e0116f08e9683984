//===- ExportManifest.cpp - the manifest of an exported kernel set --------===//

#include "mxgemm/Contract/ExportManifest.h"
#include "mxgemm/Contract/Digest.h"

#include "Json.h"

#include <set>

using namespace mxgemm;
using namespace mxgemm::contract;
using json::Json;
using json::ObjectReader;

bool contract::isPlainFileName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

ErrorMessage ExportManifest::parse(std::string_view text, ExportManifest &out) {
  Json j;
  // kernels[i].m_range[0] is the deepest value: depth 4.
  if (ErrorMessage e = json::parseStrict(text, j, /*maxDepth=*/6))
    return "manifest: " + *e;
  ErrorMessage error;
  ObjectReader top(j, "", error);
  top.onlyFields({"format", "version", "target_hash", "database", "kernels"});
  std::string format;
  int64_t version = 0;
  ExportManifest m;
  top.string("format", format);
  top.integer("version", version);
  top.optionalString("target_hash", m.targetHash);
  top.string("database", m.database);
  const Json *kernels = top.array("kernels");
  if (error)
    return "manifest: " + *error;
  if (format != kFormat || version != kVersion)
    return "manifest: expected format '" + std::string(kFormat) + "' version " +
           std::to_string(kVersion) + ", got '" + format + "' version " +
           std::to_string(version);
  if (!isPlainFileName(m.database))
    return "manifest: database '" + m.database +
           "' is not a file name in the directory";
  std::set<std::string> names;
  for (size_t i = 0; i < kernels->size(); ++i) {
    const Json &value = (*kernels)[i];
    std::string where = "manifest: kernels[" + std::to_string(i) + "]";
    ExportedKernel k;
    ObjectReader r(value, where, error);
    r.onlyFields({"name", "kernel", "code_object", "descriptor", "sha256",
                  "m_range", "n", "k", "config"});
    r.string("name", k.name);
    r.string("kernel", k.kernel);
    r.string("code_object", k.codeObject);
    r.string("descriptor", k.descriptor);
    r.string("sha256", k.sha256);
    const Json *range = r.array("m_range");
    r.integer("n", k.n);
    r.integer("k", k.k);
    r.string("config", k.config);
    if (error)
      return error;
    if (range->size() != 2 || !(*range)[0].is_number_integer() ||
        !(*range)[1].is_number_integer())
      return where + ".m_range: expected [m_min, m_max] integers";
    k.mMin = (*range)[0].get<int64_t>();
    k.mMax = (*range)[1].get<int64_t>();
    if (!isPlainFileName(k.codeObject) || !isPlainFileName(k.descriptor))
      return where + ": code_object and descriptor must be file names in "
                     "the directory";
    if (!isSha256Hex(k.sha256))
      return where + ".sha256: expected 64 lower-case hex digits";
    if (!names.insert(k.name).second)
      return where + ": duplicate name '" + k.name + "'";
    m.kernels.push_back(std::move(k));
  }
  if (m.kernels.empty())
    return "manifest: no kernels";
  out = std::move(m);
  return std::nullopt;
}
