//===- QuantizeDescriptor.cpp - the sidecar of a quantize kernel ----------===//

#include "mxgemm/Contract/QuantizeDescriptor.h"
#include "mxgemm/Contract/Digest.h"

#include "Json.h"

using namespace mxgemm;
using namespace mxgemm::contract;
using json::Json;
using json::ObjectReader;

ErrorMessage QuantizeDescriptor::parse(std::string_view text,
                                       QuantizeDescriptor &out) {
  out = QuantizeDescriptor();
  Json j;
  if (ErrorMessage e = json::parseStrict(text, j, /*maxDepth=*/3))
    return "quantize descriptor: " + *e;
  ErrorMessage error;
  ObjectReader r(j, "", error);
  r.onlyFields({"kind", "version", "kernel", "in_type", "format",
                "scale_layout", "arguments", "workgroup_size",
                "blocks_per_workgroup", "target", "resources",
                "code_object_sha256", "mxgemm_version", "llvm_version"});
  std::string kind, scaleLayout, mxgemmVersion, llvmVersion;
  int64_t version = 0;
  r.string("kind", kind);
  r.integer("version", version);
  r.string("kernel", out.kernel);
  r.string("in_type", out.inType);
  r.string("format", out.format);
  r.string("scale_layout", scaleLayout);
  r.integer("workgroup_size", out.workgroupSize);
  r.integer("blocks_per_workgroup", out.blocksPerWorkgroup);
  r.string("target", out.target);
  r.string("code_object_sha256", out.codeObjectSha256);
  r.string("mxgemm_version", mxgemmVersion);
  r.string("llvm_version", llvmVersion);
  const Json *args = r.array("arguments");
  if (const Json *res = r.object("resources")) {
    ObjectReader rr(*res, "resources", error);
    rr.onlyFields({"vgpr_count", "sgpr_count", "vgpr_spill_count",
                   "scratch_bytes", "kernarg_segment_bytes"});
    rr.integer("vgpr_count", out.vgprCount);
    rr.integer("sgpr_count", out.sgprCount);
    rr.integer("vgpr_spill_count", out.vgprSpillCount);
    rr.integer("scratch_bytes", out.scratchBytes);
    rr.integer("kernarg_segment_bytes", out.kernargSegmentBytes);
  }
  if (error)
    return "quantize descriptor: " + *error;
  auto bad = [](const std::string &what) -> ErrorMessage {
    return "quantize descriptor: " + what;
  };
  if (kind != "mxgemm-quantize" || version != 1)
    return bad("kind '" + kind + "' version " + std::to_string(version) +
               " is not mxgemm-quantize version 1");
  if (out.inType != "bf16" && out.inType != "f16" && out.inType != "f32")
    return bad("in_type '" + out.inType + "' is not bf16, f16 or f32");
  if (out.format != "e4m3" && out.format != "e5m2")
    return bad("format '" + out.format + "' is not e4m3 or e5m2");
  if (scaleLayout != "row_major")
    return bad("scale_layout '" + scaleLayout + "' is not row_major");
  static const char *const kArguments[] = {"input", "codes", "scales", "m",
                                           "k"};
  bool argumentsMatch = args->size() == std::size(kArguments);
  for (size_t i = 0; argumentsMatch && i < args->size(); ++i)
    argumentsMatch = (*args)[i].is_string() &&
                     (*args)[i].get<std::string>() == kArguments[i];
  if (!argumentsMatch)
    return bad("arguments are not [input, codes, scales, m, k]");
  if (out.workgroupSize != kWorkgroupSize ||
      out.blocksPerWorkgroup != kBlocksPerWorkgroup)
    return bad("workgroup_size " + std::to_string(out.workgroupSize) +
               " and blocks_per_workgroup " +
               std::to_string(out.blocksPerWorkgroup) + " are not 256 and 256");
  if (out.kernargSegmentBytes < kArgumentBytes || out.kernargSegmentBytes > 256)
    return bad("kernarg_segment_bytes " +
               std::to_string(out.kernargSegmentBytes) +
               " does not hold the 32 argument bytes (or exceeds 256)");
  if (out.vgprSpillCount != 0 || out.scratchBytes != 0)
    return bad("the kernel spills or uses scratch");
  if (!isSha256Hex(out.codeObjectSha256))
    return bad("code_object_sha256 is not a SHA-256 hex digest");
  const size_t dash = out.target.rfind('-');
  out.chip = dash == std::string::npos ? "" : out.target.substr(dash + 1);
  if (out.chip.empty() || out.target.rfind("amdgcn-amd-amdhsa-", 0) != 0)
    return bad("target '" + out.target +
               "' is not an amdgcn-amd-amdhsa triple "
               "with a processor");
  return std::nullopt;
}
