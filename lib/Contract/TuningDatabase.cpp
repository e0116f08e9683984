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
constexpr std::string_view kPredictionSource = "mxgemm-sim (not a measurement)";

/// One element of an entry's `predicted` array; its M must lie in the
/// entry's range (read before).
void readPrediction(const Json &value, const std::string &path, TuningEntry &e,
                    ErrorMessage &error) {
  ObjectReader r(value, path, error);
  r.onlyFields({"m", "prediction", "time_us", "tflops", "mfma_utilisation",
                "grid_efficiency", "workgroups", "workgroups_per_cu", "limiter",
                "target_hash", "sampling"});
  TuningPrediction p;
  std::string source;
  r.integer("m", p.m);
  r.string("prediction", source);
  r.number("time_us", p.timeUs);
  r.number("tflops", p.tflops);
  r.number("mfma_utilisation", p.mfmaUtilisation);
  r.number("grid_efficiency", p.gridEfficiency);
  r.integer("workgroups", p.workgroups);
  r.integer("workgroups_per_cu", p.workgroupsPerCu);
  r.string("limiter", p.limiter);
  r.string("target_hash", p.targetHash);
  r.string("sampling", p.sampling);
  if (error)
    return;
  if (source != kPredictionSource)
    r.fail("prediction", "expected '" + std::string(kPredictionSource) + "'");
  else if (p.sampling != "all-xcds" && p.sampling != "xcd0-only")
    r.fail("sampling", "expected all-xcds or xcd0-only");
  else if (p.m < e.mMin || p.m > e.mMax)
    r.fail("m", std::to_string(p.m) + " is outside the entry's m_range");
  else if (!(p.timeUs > 0) || p.tflops < 0 || p.mfmaUtilisation < 0 ||
           p.mfmaUtilisation > 1 || p.gridEfficiency < 0 ||
           p.gridEfficiency > 1 || p.workgroups < 1 || p.workgroupsPerCu < 1)
    r.fail("time_us", "figures out of range (time_us > 0, utilisation and "
                      "grid_efficiency in 0..1, workgroups >= 1)");
  else
    e.predictions.push_back(std::move(p));
}

/// An entry's `row_split` object (its config read before).
void readRowSplit(const Json &value, const std::string &path, TuningEntry &e,
                  ErrorMessage &error) {
  ObjectReader r(value, path, error);
  r.onlyFields({"workgroups_per_round", "max_tail_rows"});
  r.integer("workgroups_per_round", e.rowSplit.workgroupsPerRound);
  r.integer("max_tail_rows", e.rowSplit.maxTailRows);
  if (error)
    return;
  // Bounds that keep RowSplit::firstRows exact in int64.
  if (e.rowSplit.workgroupsPerRound < 1 ||
      e.rowSplit.workgroupsPerRound > (int64_t(1) << 20))
    r.fail("workgroups_per_round", "must be in 1..2^20");
  else if (e.rowSplit.maxTailRows < 1 || e.rowSplit.maxTailRows > kMaxM)
    r.fail("max_tail_rows", "must be in 1.." + std::to_string(kMaxM));
  else if (e.config.splitsK())
    r.fail("workgroups_per_round",
           "a row split's first launch must not split K (k_splits = 1)");
}

/// The fields formatConfigBody prints, as an ordered JSON object.
Json configObject(const KernelConfig &c) {
  Json all = json::configToJson(c);
  Json defaults = json::configToJson(KernelConfig());
  Json out = Json::object();
  for (auto it = all.begin(); it != all.end(); ++it) {
    int f = findConfigField(it.key());
    if (f <= findConfigField("mfma") || it.value() != defaults[it.key()])
      out[it.key()] = it.value();
  }
  return out;
}
} // namespace

std::string TuningDatabase::toJson(std::string_view comment) const {
  Json top = Json::object();
  top["comment"] = std::string(comment);
  top["format"] = std::string(kFormat);
  top["version"] = kVersion;
  Json list = Json::array();
  for (const TuningEntry &e : entries) {
    const GemmProblem &p = e.problem;
    Json j = Json::object();
    j["name"] = e.name;
    if (!e.comment.empty())
      j["comment"] = e.comment;
    if (!e.note.empty())
      j["note"] = e.note;
    j["key"] = Json{{"arch", e.arch},
                    {"n", p.n},
                    {"k", p.k},
                    {"x_format", std::string(elementTypeName(p.xType))},
                    {"w_format", std::string(elementTypeName(p.wType))},
                    {"w_scale", std::string(scaleGranularityName(p.wScale))},
                    {"out_type", std::string(elementTypeName(p.outType))}};
    j["m_range"] = Json::array({e.mMin, e.mMax});
    j["config"] = configObject(e.config);
    if (!e.predictions.empty()) {
      Json preds = Json::array();
      for (const TuningPrediction &q : e.predictions)
        preds.push_back(Json{{"m", q.m},
                             {"prediction", std::string(kPredictionSource)},
                             {"time_us", q.timeUs},
                             {"tflops", q.tflops},
                             {"mfma_utilisation", q.mfmaUtilisation},
                             {"grid_efficiency", q.gridEfficiency},
                             {"workgroups", q.workgroups},
                             {"workgroups_per_cu", q.workgroupsPerCu},
                             {"limiter", q.limiter},
                             {"target_hash", q.targetHash},
                             {"sampling", q.sampling}});
      j["predicted"] = std::move(preds);
    }
    if (e.rowSplit.workgroupsPerRound)
      j["row_split"] =
          Json{{"workgroups_per_round", e.rowSplit.workgroupsPerRound},
               {"max_tail_rows", e.rowSplit.maxTailRows}};
    list.push_back(std::move(j));
  }
  top["entries"] = std::move(list);
  return top.dump(2) + "\n";
}

ErrorMessage TuningDatabase::parse(std::string_view text, TuningDatabase &out) {
  Json j;
  // entries[i].key.n is the deepest field: depth 4.
  if (ErrorMessage e = json::parseStrict(text, j, /*maxDepth=*/8))
    return e;
  ErrorMessage error;
  ObjectReader top(j, "", error);
  top.onlyFields({"comment", "format", "version", "entries"});
  TuningDatabase db;
  std::string format;
  int64_t version = 0;
  top.optionalString("comment", db.comment);
  top.string("format", format);
  top.integer("version", version);
  const Json *entries = top.array("entries");
  if (error)
    return "top level: " + *error;
  if (format != kFormat || version != kVersion)
    return "top level: expected format '" + std::string(kFormat) +
           "' version " + std::to_string(kVersion) + ", got '" + format +
           "' version " + std::to_string(version);

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
    r.onlyFields({"name", "comment", "note", "key", "m_range", "config",
                  "predicted", "row_split"});
    r.string("name", e.name);
    r.optionalString("comment", e.comment);
    r.optionalString("note", e.note);
    const Json *key = r.object("key");
    const Json *range = r.array("m_range");
    const Json *config = r.object("config");
    const Json *predicted =
        value.contains("predicted") ? r.array("predicted") : nullptr;
    const Json *rowSplit =
        value.contains("row_split") ? r.object("row_split") : nullptr;
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
    if (predicted)
      for (size_t p = 0; p < predicted->size(); ++p) {
        readPrediction((*predicted)[p],
                       where + " predicted[" + std::to_string(p) + "]", e,
                       error);
        if (error)
          return error;
      }
    if (rowSplit) {
      readRowSplit(*rowSplit, where + " row_split", e, error);
      if (error)
        return error;
    }
    db.entries.push_back(std::move(e));
  }
  // Keys: M ranges of one key must not overlap, and every entry of a key
  // reads W in the same layout (a caller packs a weight once, whatever M).
  // A scale-layout variant overlaps only entries of exactly its range
  // (its row-major base, if the key has one), and two entries of one range
  // read different scale layouts.
  for (const TuningEntry &e : db.entries) {
    if (e.isScaleLayoutVariant() && e.rowSplit.workgroupsPerRound)
      return "entry '" + e.name + "' (X scales " +
             std::string(scaleLayoutName(e.config.xScaleLayout)) +
             ", W scales " +
             std::string(scaleLayoutName(e.config.wScaleLayout)) +
             "): a scale-layout variant has no row_split (a tail's "
             "MFMA-native scales would start inside a row group)";
    const GemmProblem &p = e.problem;
    KeyTuple key{e.arch,       p.n,           p.k,           int(p.xType),
                 int(p.wType), int(p.wScale), int(p.outType)};
    for (const TuningEntry *other : byKey[key]) {
      const bool sameRange = e.mMin == other->mMin && e.mMax == other->mMax;
      const bool sameScales =
          e.config.xScaleLayout == other->config.xScaleLayout &&
          e.config.wScaleLayout == other->config.wScaleLayout;
      const bool variantPair =
          e.isScaleLayoutVariant() || other->isScaleLayoutVariant();
      if (e.mMin <= other->mMax && other->mMin <= e.mMax &&
          (!variantPair || !sameRange || sameScales))
        return "entry '" + e.name + "': M range " + std::to_string(e.mMin) +
               ".." + std::to_string(e.mMax) + " overlaps entry '" +
               other->name + "' (" + std::to_string(other->mMin) + ".." +
               std::to_string(other->mMax) + ") of the same key" +
               (variantPair
                    ? std::string(sameRange ? " with the same scale layouts"
                                            : "; a scale-layout variant "
                                              "repeats exactly the M range "
                                              "of the entries it overlaps")
                    : std::string());
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

bool contract::dispatchOrderLess(const TuningEntry &a, const TuningEntry &b) {
  return std::tuple(a.mMin, int(a.config.xScaleLayout),
                    int(a.config.wScaleLayout)) <
         std::tuple(b.mMin, int(b.config.xScaleLayout),
                    int(b.config.wScaleLayout));
}

int64_t RowSplit::firstRows(int64_t m, int64_t programTileM,
                            int64_t numTilesN) const {
  if (workgroupsPerRound < 1 || programTileM < 1 || numTilesN < 1 || m < 2)
    return 0;
  // The largest r with floor(r * W / numTilesN) tile rows < ceil(m / tile),
  // i.e. r * W < tileRows * numTilesN. With M <= 2^31, N <= 2^24 and
  // W <= 2^20 every product below is under 2^56.
  const int64_t tileRows = (m + programTileM - 1) / programTileM;
  const int64_t rounds = (tileRows * numTilesN - 1) / workgroupsPerRound;
  const int64_t first = rounds * workgroupsPerRound / numTilesN * programTileM;
  if (first < 1 || first >= m || m - first > maxTailRows)
    return 0;
  return first;
}

const TuningEntry *TuningDatabase::find(std::string_view name) const {
  for (const TuningEntry &e : entries)
    if (e.name == name)
      return &e;
  return nullptr;
}
