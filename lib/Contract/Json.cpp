//===- Json.cpp - strict JSON reading for the contract's formats ----------===//

#include "Json.h"

#include <cmath>

#include <set>
#include <vector>

using namespace mxgemm;
using namespace mxgemm::contract;
using namespace mxgemm::contract::json;

namespace {
/// Thrown from the parse callback to stop at the first duplicate key or at
/// too deep a nesting (caught below; never leaves this file).
struct StrictnessError {
  std::string message;
};

std::string typeName(const Json &v) { return v.type_name(); }
} // namespace

ErrorMessage json::parseStrict(std::string_view text, Json &out, int maxDepth) {
  std::vector<std::set<std::string>> keys;
  auto callback = [&](int depth, Json::parse_event_t event,
                      Json &parsed) -> bool {
    switch (event) {
    case Json::parse_event_t::object_start:
    case Json::parse_event_t::array_start:
      if (depth >= maxDepth)
        throw StrictnessError{"nesting deeper than " +
                              std::to_string(maxDepth) + " levels"};
      if (event == Json::parse_event_t::object_start)
        keys.emplace_back();
      break;
    case Json::parse_event_t::object_end:
      if (!keys.empty())
        keys.pop_back();
      break;
    case Json::parse_event_t::key:
      if (!keys.empty() &&
          !keys.back().insert(parsed.get<std::string>()).second)
        throw StrictnessError{"duplicate key '" + parsed.get<std::string>() +
                              "'"};
      break;
    default:
      break;
    }
    return true;
  };
  try {
    out = Json::parse(text.begin(), text.end(), callback);
  } catch (const StrictnessError &e) {
    return "not valid JSON: " + e.message;
  } catch (const Json::exception &e) {
    // "[json.exception.parse_error.101] parse error at ...": keep the words.
    std::string what = e.what();
    size_t tag = what.find("] ");
    return "not valid JSON: " +
           (what.rfind("[json.exception", 0) == 0 && tag != std::string::npos
                ? what.substr(tag + 2)
                : what);
  }
  return std::nullopt;
}

std::string json::childPath(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

ObjectReader::ObjectReader(const Json &value, std::string path,
                           ErrorMessage &error)
    : value(value), where(std::move(path)), error(error) {
  if (!error && !value.is_object())
    error = (where.empty() ? std::string("top level") : where) +
            ": expected an object, got " + typeName(value);
}

void ObjectReader::fail(std::string_view key, const std::string &message) {
  if (!error)
    error = (where.empty() ? "" : where + ": ") + "field '" + std::string(key) +
            "': " + message;
}

const Json *ObjectReader::field(std::string_view key, bool required) {
  if (error)
    return nullptr;
  auto it = value.find(std::string(key));
  if (it == value.end()) {
    if (required)
      fail(key, "missing");
    return nullptr;
  }
  return &*it;
}

void ObjectReader::integer(std::string_view key, int64_t &out) {
  if (const Json *v = field(key, true)) {
    // JSON numbers parsed as unsigned above INT64_MAX, or as floats, are
    // not integers of ours.
    if (v->is_number_integer() &&
        (v->is_number_unsigned() ? v->get<uint64_t>() <= uint64_t(INT64_MAX)
                                 : true))
      out = v->get<int64_t>();
    else
      fail(key, "expected an integer, got " +
                    (v->is_number() ? v->dump() : typeName(*v)));
  }
}

void ObjectReader::string(std::string_view key, std::string &out) {
  if (const Json *v = field(key, true)) {
    if (v->is_string())
      out = v->get<std::string>();
    else
      fail(key, "expected a string, got " + typeName(*v));
  }
}

void ObjectReader::boolean(std::string_view key, bool &out) {
  if (const Json *v = field(key, true)) {
    if (v->is_boolean())
      out = v->get<bool>();
    else
      fail(key, "expected true or false, got " + typeName(*v));
  }
}

void ObjectReader::number(std::string_view key, double &out) {
  if (const Json *v = field(key, true)) {
    if (v->is_number() && std::isfinite(v->get<double>()))
      out = v->get<double>();
    else
      fail(key, "expected a number, got " +
                    (v->is_number() ? v->dump() : typeName(*v)));
  }
}

void ObjectReader::optionalInteger(std::string_view key, int64_t &out) {
  if (field(key, false))
    integer(key, out);
}
void ObjectReader::optionalString(std::string_view key, std::string &out) {
  if (field(key, false))
    string(key, out);
}
void ObjectReader::optionalBoolean(std::string_view key, bool &out) {
  if (field(key, false))
    boolean(key, out);
}

const Json *ObjectReader::object(std::string_view key) {
  const Json *v = field(key, true);
  if (v && !v->is_object()) {
    fail(key, "expected an object, got " + typeName(*v));
    return nullptr;
  }
  return v;
}

const Json *ObjectReader::array(std::string_view key) {
  const Json *v = field(key, true);
  if (v && !v->is_array()) {
    fail(key, "expected an array, got " + typeName(*v));
    return nullptr;
  }
  return v;
}

void ObjectReader::onlyFields(std::initializer_list<std::string_view> allowed) {
  onlyFields(std::vector<std::string_view>(allowed));
}

void ObjectReader::onlyFields(const std::vector<std::string_view> &allowed) {
  if (error)
    return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    bool known = false;
    for (std::string_view a : allowed)
      known |= a == it.key();
    if (!known) {
      std::string list;
      for (std::string_view a : allowed)
        list += (list.empty() ? "" : ", ") + std::string(a);
      fail(it.key(), "not a known field (allowed: " + list + ")");
      return;
    }
  }
}

//===----------------------------------------------------------------------===//
// Config objects
//===----------------------------------------------------------------------===//

Json json::configToJson(const KernelConfig &config) {
  Json out = Json::object();
  for (int f = 0; f < kNumConfigFields; ++f) {
    std::string name(configFieldName(f));
    std::string value = configFieldValue(config, f);
    // k_splits, persistent, unroll_k, tail_split and the scale layouts came
    // after format 2 was fixed: written only where they are set, so other
    // descriptors stay what older readers accept.
    if (name == "k_splits" && config.kSplits == 1)
      continue;
    if (name == "persistent" && config.persistent == 0)
      continue;
    if (name == "unroll_k" && config.unrollK == 1)
      continue;
    if (name == "tail_split" && !config.tailSplit)
      continue;
    if (name == "x_scale_layout" &&
        config.xScaleLayout == ScaleLayout::RowMajor)
      continue;
    if (name == "w_scale_layout" &&
        config.wScaleLayout == ScaleLayout::RowMajor)
      continue;
    switch (configFieldKind(f)) {
    case ConfigFieldKind::Integer:
      out[name] = std::stoll(value);
      break;
    case ConfigFieldKind::Boolean:
      out[name] = value == "true";
      break;
    case ConfigFieldKind::Keyword:
      out[name] = value;
      break;
    }
  }
  return out;
}

std::string contract::formatConfigJson(const KernelConfig &config) {
  return json::configToJson(config).dump();
}

void json::readConfig(const Json &value, const std::string &path,
                      KernelConfig &out, ErrorMessage &error) {
  ObjectReader reader(value, path, error);
  if (error)
    return;
  for (auto it = value.begin(); it != value.end() && !error; ++it) {
    int f = findConfigField(it.key());
    if (f < 0) {
      std::string list;
      for (int i = 0; i < kNumConfigFields; ++i)
        list += (i ? ", " : "") + std::string(configFieldName(i));
      reader.fail(it.key(), "not a config field (allowed: " + list + ")");
      return;
    }
    const Json &v = it.value();
    ErrorMessage set;
    switch (configFieldKind(f)) {
    case ConfigFieldKind::Integer: {
      int64_t x = 0;
      reader.integer(it.key(), x);
      if (!error)
        set = setConfigInteger(out, f, x);
      break;
    }
    case ConfigFieldKind::Boolean:
      if (!v.is_boolean())
        reader.fail(it.key(), "expected true or false, got " +
                                  std::string(v.type_name()));
      else
        set = setConfigKeyword(out, f, v.get<bool>() ? "true" : "false");
      break;
    case ConfigFieldKind::Keyword:
      if (!v.is_string())
        reader.fail(it.key(), "expected one of " + configFieldKeywords(f) +
                                  ", got " + std::string(v.type_name()));
      else
        set = setConfigKeyword(out, f, v.get<std::string>());
      break;
    }
    if (set)
      reader.fail(it.key(), *set);
  }
}
