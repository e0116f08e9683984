//===- QuantizeDescriptor.cpp - the sidecar of a quantize kernel ----------===//

#include "mxgemm/Contract/QuantizeDescriptor.h"

#include "DataKernelSidecar.h"

using namespace mxgemm;
using namespace mxgemm::contract;
using json::ObjectReader;

ErrorMessage QuantizeDescriptor::parse(std::string_view text,
                                       QuantizeDescriptor &out) {
  out = QuantizeDescriptor();
  static const DataKernelRules kRules{"quantize descriptor",
                                      "mxgemm-quantize",
                                      {"input", "codes", "scales", "m", "k"},
                                      kWorkgroupSize,
                                      kArgumentBytes};
  std::string scaleLayout;
  if (ErrorMessage e = parseDataKernelSidecar(
          text, kRules,
          {"in_type", "format", "scale_layout", "blocks_per_workgroup"}, out,
          [&](ObjectReader &r) {
            r.string("in_type", out.inType);
            r.string("format", out.format);
            r.string("scale_layout", scaleLayout);
            r.integer("blocks_per_workgroup", out.blocksPerWorkgroup);
          }))
    return e;
  auto bad = [](const std::string &what) -> ErrorMessage {
    return "quantize descriptor: " + what;
  };
  if (out.inType != "bf16" && out.inType != "f16" && out.inType != "f32")
    return bad("in_type '" + out.inType + "' is not bf16, f16 or f32");
  if (out.format != "e4m3" && out.format != "e5m2")
    return bad("format '" + out.format + "' is not e4m3 or e5m2");
  std::optional<ScaleLayout> layout = parseScaleLayout(scaleLayout);
  if (!layout)
    return bad("scale_layout '" + scaleLayout +
               "' is not row_major, mfma_16x16x128 or mfma_32x32x64");
  out.scaleLayout = *layout;
  if (out.blocksPerWorkgroup != kBlocksPerWorkgroup)
    return bad("blocks_per_workgroup " +
               std::to_string(out.blocksPerWorkgroup) + " is not 256");
  return std::nullopt;
}
