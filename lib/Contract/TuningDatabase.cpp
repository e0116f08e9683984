//===- TuningDatabase.cpp - reading and checking the tuning database ------===//

#include "mxgemm/Contract/TuningDatabase.h"

#include "Json.h"

#include <map>
#include <tuple>

using namespace mxgemm;
using namespace mxgemm::contract;
using json::Json;
using json::ObjectReader;

namespace {
bool validName(const std::string &name) {
  if (name.empty() || name.size() > 48 || name[0] < 'a' || name[0] > 'z')
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

void readKey(const Json &value, const std::string &path, TuningEntry &e,
             ErrorMessage &error) {
  ObjectReader r(value, path, error);
  r.onlyFields(
      {"arch", "n", "k", "x_format", "w_format", "w_scale", "out_type"});
  r.string("arch", e.arch);
  r.integer("n", e.problem.n);
  r.integer("k", e.problem.k);
  r.keyword("x_format", e.problem.xType, parseElementType, "e4m3, e5m2");
  r.keyword("w_format", e.problem.wType, parseElementType, "e4m3, e5m2");
  r.keyword("w_scale", e.problem.wScale, parseScaleGranularity,
            "block32x32, per_row");
  r.keyword("out_type", e.problem.outType, parseElementType, "bf16, f32");
  if (error)
    return;
  if (!target::findTargetModel(e.arch))
    r.fail("arch", "'" + e.arch + "' is not a supported chip (gfx950)");
  else if (ErrorMessage p = validateProblem(e.problem))
    error = path + ": " + *p;
}
} // namespace

ErrorMessage TuningDatabase::parse(std::string_view text, TuningDatabase &out) {
  Json j;
  // entries[i].key.n is the deepest field: depth 4.
  if (ErrorMessage e = json::parseStrict(text, j, /*maxDepth=*/8))
    return e;
  ErrorMessage error;
  ObjectReader top(j, "", error);
  top.onlyFields({"comment", "format", "version", "entries"});
  std::string format, comment;
  int64_t version = 0;
  top.optionalString("comment", comment);
  top.string("format", format);
  top.integer("version", version);
  const Json *entries = top.array("entries");
  if (error)
    return "top level: " + *error;
  if (format != kFormat || version != kVersion)
    return "top level: expected format '" + std::string(kFormat) +
           "' version " + std::to_string(kVersion) + ", got '" + format +
           "' version " + std::to_string(version);

  TuningDatabase db;
  using KeyTuple =
      std::tuple<std::string, int64_t, int64_t, int, int, int, int>;
  std::map<KeyTuple, std::vector<const TuningEntry *>> byKey;
  db.entries.reserve(entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json &value = (*entries)[i];
    std::string where = "entry " + std::to_string(i);
    if (value.is_object() && value.contains("name") &&
        value["name"].is_string())
      where += " '" + value["name"].get<std::string>() + "'";
    TuningEntry e;
    ObjectReader r(value, where, error);
    r.onlyFields({"name", "comment", "note", "key", "m_range", "config"});
    r.string("name", e.name);
    r.optionalString("comment", e.comment);
    r.optionalString("note", e.note);
    const Json *key = r.object("key");
    const Json *range = r.array("m_range");
    const Json *config = r.object("config");
    if (error)
      return error;
    if (!validName(e.name))
      return where + ": name must match [a-z][a-z0-9_]{0,47}";
    if (db.find(e.name))
      return where + ": duplicate name '" + e.name + "'";
    readKey(*key, where + " key", e, error);
    if (error)
      return error;
    auto rangeBound = [&](size_t i, int64_t &v) {
      const Json &b = (*range)[i];
      if (!b.is_number_integer() ||
          (b.is_number_unsigned() && b.get<uint64_t>() > uint64_t(kMaxM)))
        return false;
      v = b.get<int64_t>();
      return true;
    };
    if (range->size() != 2 || !rangeBound(0, e.mMin) ||
        !rangeBound(1, e.mMax) || e.mMin < 1 || e.mMin > e.mMax ||
        e.mMax > kMaxM)
      return where +
             ": 'm_range' must be [m_min, m_max] with 1 <= m_min "
             "<= m_max <= " +
             std::to_string(kMaxM) + ", got " + range->dump();
    json::readConfig(*config, where + " config", e.config, error);
    if (error)
      return error;
    const target::TargetModel &t = *target::findTargetModel(e.arch);
    if (ErrorMessage c = verifyConfig(e.config, t))
      return where + " config: " + *c;
    if (ErrorMessage c = verifyProblemConfig(e.problem, e.config))
      return where + ": " + *c;
    db.entries.push_back(std::move(e));
  }
  // Keys: M ranges of one key must not overlap, and every entry of a key
  // reads W in the same layout (a caller packs a weight once, whatever M).
  for (const TuningEntry &e : db.entries) {
    const GemmProblem &p = e.problem;
    KeyTuple key{e.arch,       p.n,           p.k,           int(p.xType),
                 int(p.wType), int(p.wScale), int(p.outType)};
    for (const TuningEntry *other : byKey[key]) {
      if (e.mMin <= other->mMax && other->mMin <= e.mMax)
        return "entry '" + e.name + "': M range " + std::to_string(e.mMin) +
               ".." + std::to_string(e.mMax) + " overlaps entry '" +
               other->name + "' (" + std::to_string(other->mMin) + ".." +
               std::to_string(other->mMax) + ") of the same key";
      if (e.config.readsWeightPanels() != other->config.readsWeightPanels() ||
          (e.config.readsWeightPanels() && e.config.mfma != other->config.mfma))
        return "entry '" + e.name +
               "': reads W in another layout than entry '" + other->name +
               "' of the same key; packed weights must serve every M of a key";
    }
    byKey[key].push_back(&e);
  }
  out = std::move(db);
  return std::nullopt;
}

const TuningEntry *TuningDatabase::find(std::string_view name) const {
  for (const TuningEntry &e : entries)
    if (e.name == name)
      return &e;
  return nullptr;
}
