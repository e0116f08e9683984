//===- PackPanelsDescriptor.cpp - the sidecar of a packing kernel ---------===//

#include "mxgemm/Contract/PackPanelsDescriptor.h"
#include "mxgemm/Contract/WeightPanels.h"

#include "DataKernelSidecar.h"

using namespace mxgemm;
using namespace mxgemm::contract;
using json::ObjectReader;

ErrorMessage PackPanelsDescriptor::parse(std::string_view text,
                                         PackPanelsDescriptor &out) {
  out = PackPanelsDescriptor();
  static const DataKernelRules kRules{"pack-panels descriptor",
                                      "mxgemm-pack-panels",
                                      {"w", "packed", "n", "k"},
                                      kWorkgroupSize,
                                      kArgumentBytes};
  if (ErrorMessage e = parseDataKernelSidecar(
          text, kRules, {"mfma", "non_k", "k_step", "panels_per_workgroup"},
          out, [&](ObjectReader &r) {
            r.string("mfma", out.mfma);
            r.integer("non_k", out.nonK);
            r.integer("k_step", out.kStep);
            r.integer("panels_per_workgroup", out.panelsPerWorkgroup);
          }))
    return e;
  auto bad = [](const std::string &what) -> ErrorMessage {
    return "pack-panels descriptor: " + what;
  };
  const int64_t nonK = out.mfma == "m32n32k64"    ? 32
                       : out.mfma == "m16n16k128" ? 16
                                                  : 0;
  if (!nonK)
    return bad("mfma '" + out.mfma + "' is not m32n32k64 or m16n16k128");
  if (out.nonK != nonK || out.kStep != panelKStep(nonK))
    return bad("non_k " + std::to_string(out.nonK) + " and k_step " +
               std::to_string(out.kStep) + " are not " + std::to_string(nonK) +
               " and " + std::to_string(panelKStep(nonK)) + " (" + out.mfma +
               ")");
  if (out.panelsPerWorkgroup != kPanelsPerWorkgroup)
    return bad("panels_per_workgroup " +
               std::to_string(out.panelsPerWorkgroup) + " is not 4");
  return std::nullopt;
}
