//===- DataKernelSidecar.cpp - the shared descriptor schema ---------------===//

#include "DataKernelSidecar.h"

#include "mxgemm/Contract/Digest.h"

#include <vector>

using namespace mxgemm;
using namespace mxgemm::contract;
using json::Json;
using json::ObjectReader;

ErrorMessage contract::parseDataKernelSidecar(
    std::string_view text, const DataKernelRules &rules,
    std::initializer_list<std::string_view> ownFields,
    DataKernelDescriptor &out,
    const std::function<void(ObjectReader &)> &readOwn) {
  auto bad = [&](const std::string &message) -> ErrorMessage {
    return std::string(rules.what) + ": " + message;
  };
  Json j;
  if (ErrorMessage e = json::parseStrict(text, j, /*maxDepth=*/3))
    return bad(*e);
  ErrorMessage error;
  ObjectReader r(j, "", error);
  std::vector<std::string_view> allowed = {"kind",
                                           "version",
                                           "kernel",
                                           "arguments",
                                           "target",
                                           "resources",
                                           "code_object_sha256",
                                           "workgroup_size",
                                           "mxgemm_version",
                                           "llvm_version"};
  allowed.insert(allowed.end(), ownFields.begin(), ownFields.end());
  r.onlyFields(allowed);
  std::string kind, mxgemmVersion, llvmVersion;
  int64_t version = 0;
  r.string("kind", kind);
  r.integer("version", version);
  r.string("kernel", out.kernel);
  r.integer("workgroup_size", out.workgroupSize);
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
  readOwn(r);
  if (error)
    return bad(*error);
  if (kind != rules.kind || version != 1)
    return bad("kind '" + kind + "' version " + std::to_string(version) +
               " is not " + std::string(rules.kind) + " version 1");
  bool argumentsMatch = args->size() == rules.arguments.size();
  std::string expected;
  size_t i = 0;
  for (std::string_view name : rules.arguments) {
    expected += (i ? ", " : "") + std::string(name);
    argumentsMatch = argumentsMatch && (*args)[i].is_string() &&
                     (*args)[i].get<std::string>() == name;
    ++i;
  }
  if (!argumentsMatch)
    return bad("arguments are not [" + expected + "]");
  if (out.workgroupSize != rules.workgroupSize)
    return bad("workgroup_size " + std::to_string(out.workgroupSize) +
               " is not " + std::to_string(rules.workgroupSize));
  if (out.kernargSegmentBytes < rules.argumentBytes ||
      out.kernargSegmentBytes > 256)
    return bad("kernarg_segment_bytes " +
               std::to_string(out.kernargSegmentBytes) + " does not hold the " +
               std::to_string(rules.argumentBytes) +
               " argument bytes (or exceeds 256)");
  if (out.vgprSpillCount != 0 || out.scratchBytes != 0)
    return bad("the kernel spills or uses scratch");
  if (!isSha256Hex(out.codeObjectSha256))
    return bad("code_object_sha256 is not a SHA-256 hex digest");
  const size_t dash = out.target.rfind('-');
  out.chip = dash == std::string::npos ? "" : out.target.substr(dash + 1);
  if (out.chip.empty() || out.target.rfind("amdgcn-amd-amdhsa-", 0) != 0)
    return bad("target '" + out.target +
               "' is not an amdgcn-amd-amdhsa triple with a processor");
  return std::nullopt;
}
