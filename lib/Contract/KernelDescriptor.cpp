//===- KernelDescriptor.cpp - the v2 kernel descriptor in JSON ------------===//
//
// Writing is a fixed-order object; reading checks the schema and then
// recomputes every field that follows from the problem and config, so that
// a consumer can trust `grid`, `mfma`, `arguments` and the layouts without
// re-deriving them (and a descriptor that disagrees with its own config is
// refused instead of launching the wrong grid).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Contract/Digest.h"

#include "Json.h"

using namespace mxgemm;
using namespace mxgemm::contract;
using json::Json;
using json::ObjectReader;

std::string_view contract::weightLayoutName(WeightLayout layout) {
  return layout == WeightLayout::MfmaPanels ? "mfma_panels" : "row_major";
}

std::optional<WeightLayout> contract::parseWeightLayout(std::string_view name) {
  if (name == "row_major")
    return WeightLayout::RowMajor;
  if (name == "mfma_panels")
    return WeightLayout::MfmaPanels;
  return std::nullopt;
}

KernelDescriptor KernelDescriptor::describe(std::string kernel,
                                            const GemmProblem &problem,
                                            const KernelConfig &config,
                                            const target::TargetModel &t) {
  KernelDescriptor d;
  d.kernel = std::move(kernel);
  d.chip = std::string(t.chip);
  d.target = std::string(t.amdhsaTarget);
  d.problem = problem;
  d.config = config;
  const target::MfmaInstruction &mfma = t.getMfma(config.mfma);
  d.mfma.instruction = std::string(mfma.mnemonic);
  d.mfma.m = mfma.m;
  d.mfma.n = mfma.n;
  d.mfma.kStep = mfma.k;
  d.mfma.nonK = mfma.nonK();
  d.workgroupSize = config.workgroupSize(t);
  d.grid = TileGrid::of(config, problem.n, t);
  d.arguments = kernelArguments(problem, config);
  d.wLayout = config.readsWeightPanels() ? WeightLayout::MfmaPanels
                                         : WeightLayout::RowMajor;
  d.xScaleLayout = config.xScaleLayout;
  d.wScaleLayout = config.wScaleLayout;
  if (config.splitsK()) {
    d.kSegments.clear();
    for (int64_t b : kSegmentBoundaries(problem, config))
      d.kSegments += (d.kSegments.empty() ? "" : ",") + std::to_string(b);
  }
  return d;
}

const KernelArgument *
KernelDescriptor::findArgument(std::string_view name) const {
  for (const KernelArgument &a : arguments)
    if (a.name == name)
      return &a;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {
/// N or K: the integer, or "?" for a generic kernel's run-time extent.
Json extentJson(int64_t extent) {
  return extent == kDynamicExtent ? Json("?") : Json(extent);
}
} // namespace

std::string KernelDescriptor::toJson() const {
  Json args = Json::array();
  for (const KernelArgument &a : arguments)
    args.push_back(Json{{"name", a.name},
                        {"kind", std::string(argumentKindName(a.kind))},
                        {"offset", a.offset},
                        {"size", a.size}});
  Json j = Json::object();
  j["format_version"] = kFormatVersion;
  j["kernel"] = kernel;
  j["chip"] = chip;
  j["target"] = target;
  j["problem"] =
      Json{{"n", extentJson(problem.n)},
           {"k", extentJson(problem.k)},
           {"x_format", std::string(elementTypeName(problem.xType))},
           {"w_format", std::string(elementTypeName(problem.wType))},
           {"w_scale", std::string(scaleGranularityName(problem.wScale))},
           {"out_type", std::string(elementTypeName(problem.outType))}};
  j["config"] = json::configToJson(config);
  if (!configSource.empty())
    j["config_source"] = configSource;
  j["mfma"] = Json{{"instruction", mfma.instruction},
                   {"m", mfma.m},
                   {"n", mfma.n},
                   {"k_step", mfma.kStep},
                   {"non_k", mfma.nonK}};
  j["grid"] = Json{{"workgroup_size", workgroupSize},
                   {"program_tile_m", grid.programTileM},
                   {"tile_n", grid.tileN},
                   {"num_tiles_n", grid.numTilesN},
                   {"group_m", grid.groupM},
                   {"group_n", grid.groupN},
                   {"xcd_remap", grid.xcdRemap},
                   {"num_xcds", grid.numXcds}};
  if (grid.kSplits != 1)
    j["grid"]["k_splits"] = grid.kSplits;
  if (grid.maxWorkgroups != 0)
    j["grid"]["max_workgroups"] = grid.maxWorkgroups;
  if (grid.tailSplit) {
    j["grid"]["tail_split"] = true;
    j["grid"]["round_workgroups"] = grid.roundWorkgroups;
  }
  j["arguments"] = std::move(args);
  j["w_layout"] = std::string(weightLayoutName(wLayout));
  j["x_scale_layout"] = std::string(scaleLayoutName(xScaleLayout));
  j["w_scale_layout"] = std::string(scaleLayoutName(wScaleLayout));
  j["k_segments"] = kSegments;
  j["resources"] =
      Json{{"vgpr_count", resources.vgprCount},
           {"agpr_count", resources.agprCount},
           {"accum_offset", resources.accumOffset},
           {"sgpr_count", resources.sgprCount},
           {"vgpr_spill_count", resources.vgprSpillCount},
           {"sgpr_spill_count", resources.sgprSpillCount},
           {"lds_bytes", resources.ldsBytes},
           {"scratch_bytes", resources.scratchBytes},
           {"kernarg_segment_bytes", resources.kernargSegmentBytes},
           {"max_flat_workgroup_size", resources.maxFlatWorkgroupSize},
           {"wavefront_size", resources.wavefrontSize}};
  if (!codeObject.empty())
    j["code_object"] = codeObject;
  j["code_object_sha256"] = codeObjectSha256;
  j["compiler"] =
      Json{{"mxgemm_version", mxgemmVersion}, {"llvm_version", llvmVersion}};
  return j.dump(2) + "\n";
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
void readProblem(const Json &value, GemmProblem &p, ErrorMessage &error) {
  ObjectReader r(value, "problem", error);
  r.onlyFields({"n", "k", "x_format", "w_format", "w_scale", "out_type"});
  for (auto [key, extent] :
       {std::pair<const char *, int64_t *>{"n", &p.n}, {"k", &p.k}}) {
    auto it = value.find(key);
    if (it != value.end() && it->is_string() && *it == "?")
      *extent = kDynamicExtent;
    else
      r.integer(key, *extent);
  }
  const std::string formats = "e4m3, e5m2, bf16, f16, f32";
  r.keyword("x_format", p.xType, parseElementType, formats);
  r.keyword("w_format", p.wType, parseElementType, formats);
  r.keyword("w_scale", p.wScale, parseScaleGranularity, "block32x32, per_row");
  r.keyword("out_type", p.outType, parseElementType, formats);
}

void readResources(const Json &value, KernelResources &res,
                   ErrorMessage &error) {
  ObjectReader r(value, "resources", error);
  r.onlyFields({"vgpr_count", "agpr_count", "accum_offset", "sgpr_count",
                "vgpr_spill_count", "sgpr_spill_count", "lds_bytes",
                "scratch_bytes", "kernarg_segment_bytes",
                "max_flat_workgroup_size", "wavefront_size"});
  r.integer("vgpr_count", res.vgprCount);
  r.integer("agpr_count", res.agprCount);
  r.integer("accum_offset", res.accumOffset);
  r.integer("sgpr_count", res.sgprCount);
  r.integer("vgpr_spill_count", res.vgprSpillCount);
  r.integer("sgpr_spill_count", res.sgprSpillCount);
  r.integer("lds_bytes", res.ldsBytes);
  r.integer("scratch_bytes", res.scratchBytes);
  r.integer("kernarg_segment_bytes", res.kernargSegmentBytes);
  r.integer("max_flat_workgroup_size", res.maxFlatWorkgroupSize);
  r.integer("wavefront_size", res.wavefrontSize);
  const int64_t limit = int64_t(1) << 32;
  for (int64_t v :
       {res.vgprCount, res.agprCount, res.accumOffset, res.sgprCount,
        res.vgprSpillCount, res.sgprSpillCount, res.ldsBytes, res.scratchBytes,
        res.kernargSegmentBytes, res.maxFlatWorkgroupSize, res.wavefrontSize})
    if (!error && (v < 0 || v >= limit))
      error = "resources: every count must be in 0..2^32-1, got " +
              std::to_string(v);
}
} // namespace

ErrorMessage KernelDescriptor::parse(std::string_view text,
                                     KernelDescriptor &out) {
  Json j;
  // The deepest descriptor field is arguments[i].name: depth 3.
  if (ErrorMessage e = json::parseStrict(text, j, /*maxDepth=*/8))
    return "kernel descriptor: " + *e;
  ErrorMessage error;
  KernelDescriptor d;
  ObjectReader r(j, "", error);
  r.onlyFields({"format_version", "kernel", "chip", "target", "problem",
                "config", "config_source", "mfma", "grid", "arguments",
                "w_layout", "x_scale_layout", "w_scale_layout", "k_segments",
                "resources", "code_object", "code_object_sha256", "compiler"});
  int64_t version = 0;
  r.integer("format_version", version);
  if (!error && version != kFormatVersion)
    return "kernel descriptor: format_version " + std::to_string(version) +
           " is not supported (this build reads version " +
           std::to_string(kFormatVersion) + ")";
  r.string("kernel", d.kernel);
  r.string("chip", d.chip);
  r.string("target", d.target);
  const Json *problem = r.object("problem");
  const Json *config = r.object("config");
  r.optionalString("config_source", d.configSource);
  const Json *mfma = r.object("mfma");
  const Json *grid = r.object("grid");
  const Json *args = r.array("arguments");
  r.keyword("w_layout", d.wLayout, parseWeightLayout, "row_major, mfma_panels");
  const std::string scaleLayouts = scaleLayoutNames();
  r.keyword("x_scale_layout", d.xScaleLayout, parseScaleLayout, scaleLayouts);
  r.keyword("w_scale_layout", d.wScaleLayout, parseScaleLayout, scaleLayouts);
  r.string("k_segments", d.kSegments);
  const Json *resources = r.object("resources");
  r.optionalString("code_object", d.codeObject);
  r.string("code_object_sha256", d.codeObjectSha256);
  const Json *compiler = r.object("compiler");
  if (error)
    return "kernel descriptor: " + *error;

  readProblem(*problem, d.problem, error);
  json::readConfig(*config, "config", d.config, error);
  readResources(*resources, d.resources, error);
  {
    ObjectReader m(*mfma, "mfma", error);
    m.onlyFields({"instruction", "m", "n", "k_step", "non_k"});
    m.string("instruction", d.mfma.instruction);
    m.integer("m", d.mfma.m);
    m.integer("n", d.mfma.n);
    m.integer("k_step", d.mfma.kStep);
    m.integer("non_k", d.mfma.nonK);
  }
  {
    ObjectReader g(*grid, "grid", error);
    g.onlyFields({"workgroup_size", "program_tile_m", "tile_n", "num_tiles_n",
                  "group_m", "group_n", "xcd_remap", "num_xcds", "k_splits",
                  "max_workgroups", "tail_split", "round_workgroups"});
    g.integer("workgroup_size", d.workgroupSize);
    g.integer("program_tile_m", d.grid.programTileM);
    g.integer("tile_n", d.grid.tileN);
    g.integer("num_tiles_n", d.grid.numTilesN);
    g.integer("group_m", d.grid.groupM);
    g.integer("group_n", d.grid.groupN);
    g.boolean("xcd_remap", d.grid.xcdRemap);
    g.integer("num_xcds", d.grid.numXcds);
    if (grid->contains("k_splits"))
      g.integer("k_splits", d.grid.kSplits);
    if (grid->contains("max_workgroups"))
      g.integer("max_workgroups", d.grid.maxWorkgroups);
    if (grid->contains("tail_split"))
      g.boolean("tail_split", d.grid.tailSplit);
    if (grid->contains("round_workgroups"))
      g.integer("round_workgroups", d.grid.roundWorkgroups);
  }
  for (size_t i = 0; i < args->size() && !error; ++i) {
    ObjectReader a((*args)[i], "arguments[" + std::to_string(i) + "]", error);
    a.onlyFields({"name", "kind", "offset", "size"});
    KernelArgument arg;
    int64_t offset = 0, size = 0;
    a.string("name", arg.name);
    a.keyword("kind", arg.kind, parseArgumentKind, "global_pointer, i32");
    a.integer("offset", offset);
    a.integer("size", size);
    arg.offset = uint32_t(offset);
    arg.size = uint32_t(size);
    d.arguments.push_back(std::move(arg));
  }
  {
    ObjectReader c(*compiler, "compiler", error);
    c.onlyFields({"mxgemm_version", "llvm_version"});
    c.string("mxgemm_version", d.mxgemmVersion);
    c.string("llvm_version", d.llvmVersion);
  }
  if (error)
    return "kernel descriptor: " + *error;

  // Meaning: a chip we model, a valid problem and config, and derived
  // fields that are what this build derives from them.
  const target::TargetModel *t = target::findTargetModel(d.chip);
  if (!t)
    return "kernel descriptor: unknown chip '" + d.chip + "'";
  if (ErrorMessage e = validateProblem(d.problem, /*allowDynamic=*/true))
    return "kernel descriptor: problem: " + *e;
  if (ErrorMessage e = verifyConfig(d.config, *t))
    return "kernel descriptor: config: " + *e;
  if (ErrorMessage e = verifyProblemConfig(d.problem, d.config))
    return "kernel descriptor: " + *e;
  if (!isSha256Hex(d.codeObjectSha256))
    return "kernel descriptor: code_object_sha256 must be 64 lower-case hex "
           "digits";
  KernelDescriptor expected = describe(d.kernel, d.problem, d.config, *t);
  auto mismatch = [&](const char *field) -> ErrorMessage {
    return std::string("kernel descriptor: ") + field +
           " disagrees with the problem and config (expected what "
           "this build derives from them)";
  };
  if (d.target != expected.target)
    return mismatch("target");
  if (d.kSegments != expected.kSegments)
    return "kernel descriptor: k_segments '" + d.kSegments + "' is not '" +
           expected.kSegments +
           "', what this build derives from K and "
           "k_splits";
  if (d.mfma.instruction != expected.mfma.instruction ||
      d.mfma.m != expected.mfma.m || d.mfma.n != expected.mfma.n ||
      d.mfma.kStep != expected.mfma.kStep || d.mfma.nonK != expected.mfma.nonK)
    return mismatch("mfma");
  const TileGrid &g = d.grid, &eg = expected.grid;
  if (d.workgroupSize != expected.workgroupSize ||
      g.programTileM != eg.programTileM || g.tileN != eg.tileN ||
      g.numTilesN != eg.numTilesN || g.groupM != eg.groupM ||
      g.groupN != eg.groupN || g.xcdRemap != eg.xcdRemap ||
      g.numXcds != eg.numXcds || g.kSplits != eg.kSplits ||
      g.maxWorkgroups != eg.maxWorkgroups || g.tailSplit != eg.tailSplit ||
      g.roundWorkgroups != eg.roundWorkgroups)
    return mismatch("grid");
  if (d.arguments != expected.arguments)
    return mismatch("arguments");
  if (d.wLayout != expected.wLayout)
    return mismatch("w_layout");
  if (d.xScaleLayout != expected.xScaleLayout)
    return mismatch("x_scale_layout");
  if (d.wScaleLayout != expected.wScaleLayout)
    return mismatch("w_scale_layout");
  out = std::move(d);
  return std::nullopt;
}
