//===- Json.h - strict JSON reading for the contract's formats --*- C++ -*-===//
//
// nlohmann/json parses the text; these helpers add what the contract's
// formats need on top: a duplicate key or nesting deeper than the format
// has is an error (nlohmann keeps the last duplicate silently), and every
// field is read through a typed accessor whose message names its path
// ("entries[2].config.tile_m"), so a bad file is a sentence, not an
// exception trace. Internal to lib/Contract.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_CONTRACT_JSON_H
#define MXGEMM_LIB_CONTRACT_JSON_H

#include "mxgemm/Contract/KernelConfig.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace mxgemm::contract::json {

using Json = nlohmann::ordered_json;

/// Parses `text` into `out`; duplicate keys in one object and nesting
/// deeper than `maxDepth` are errors.
ErrorMessage parseStrict(std::string_view text, Json &out, int maxDepth);

/// Typed access to the fields of one JSON object. The first failure is
/// kept in `error` and every later call is a no-op, so a reader is a plain
/// sequence of field reads followed by one check.
class ObjectReader {
public:
  ObjectReader(const Json &value, std::string path, ErrorMessage &error);

  /// Required fields (an error if missing or of the wrong type).
  void integer(std::string_view key, int64_t &out);
  void string(std::string_view key, std::string &out);
  void boolean(std::string_view key, bool &out);
  /// A finite JSON number (integer or not).
  void number(std::string_view key, double &out);
  /// Optional fields keep `out` when absent.
  void optionalInteger(std::string_view key, int64_t &out);
  void optionalString(std::string_view key, std::string &out);
  void optionalBoolean(std::string_view key, bool &out);
  /// A required nested object or array (null on failure).
  const Json *object(std::string_view key);
  const Json *array(std::string_view key);
  /// A keyword field parsed by `parse` (std::optional<T>(std::string_view)).
  template <typename T, typename Parse>
  void keyword(std::string_view key, T &out, Parse parse,
               std::string_view expected) {
    std::string text;
    string(key, text);
    if (error)
      return;
    if (auto v = parse(text))
      out = *v;
    else
      fail(key, "'" + text + "' is not one of " + std::string(expected));
  }
  /// Every field present must be in `allowed`.
  void onlyFields(std::initializer_list<std::string_view> allowed);
  void onlyFields(const std::vector<std::string_view> &allowed);

  bool ok() const { return !error; }
  const std::string &path() const { return where; }
  /// Records `message` about field `key` (if no error is recorded yet).
  void fail(std::string_view key, const std::string &message);

private:
  const Json *field(std::string_view key, bool required);

  const Json &value;
  std::string where;
  ErrorMessage &error;
};

/// `path` + "." + `key` (or `key` at the top level).
std::string childPath(const std::string &path, std::string_view key);

/// The config as a JSON object with every field (canonical order).
Json configToJson(const KernelConfig &config);
/// Reads a config object: fields may be omitted (defaults), unknown fields
/// and wrong types are errors. Does not verify the config.
void readConfig(const Json &value, const std::string &path, KernelConfig &out,
                ErrorMessage &error);

} // namespace mxgemm::contract::json

#endif // MXGEMM_LIB_CONTRACT_JSON_H
