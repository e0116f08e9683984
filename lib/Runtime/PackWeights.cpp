//===- PackWeights.cpp - mxgemm_pack_weights on the device ----------------===//
//
// The two embedded packing kernels (mxgemm.pack_panels for m32n32k64 and
// m16n16k128, lib/Runtime/PackKernels), each checked once per process
// against its descriptor like the quantize kernels (DataKernels.h) and
// loaded into a context's device on its first out-of-place pack. The host
// path stays for packing in place.
//
//===----------------------------------------------------------------------===//

#include "DataKernels.h"

#include "mxgemm/Contract/PackPanelsDescriptor.h"
#include "mxgemm/Contract/WeightPanels.h"

#include <array>
#include <climits>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

using PD = contract::PackPanelsDescriptor;

struct PackKernel : DataKernelImage {
  PD descriptor;
};

/// The kernel table: m32n32k64 first.
constexpr int64_t kNonK[Context::kPackKernels] = {32, 16};

size_t kernelIndex(int64_t nonK) { return nonK == kNonK[0] ? 0 : 1; }

std::string kernelName(int64_t nonK) {
  return "mxgemm_pack_panels_" + std::to_string(nonK);
}

std::string check(PackKernel &k, const std::string &name, int64_t nonK) {
  auto file = [](const std::string &n) {
    return findEmbeddedFile(pack::kEmbeddedFiles, pack::kEmbeddedFileCount, n);
  };
  const EmbeddedFile *code = file(name + ".hsaco");
  const EmbeddedFile *desc = file(name + ".hsaco.json");
  if (!code || !desc)
    return "no embedded code object or descriptor";
  std::string_view text(reinterpret_cast<const char *>(desc->data), desc->size);
  if (contract::ErrorMessage e = PD::parse(text, k.descriptor))
    return *e;
  if (k.descriptor.nonK != nonK)
    return "the descriptor describes non_k " +
           std::to_string(k.descriptor.nonK) + ", not " + std::to_string(nonK);
  return checkDataKernel(code, k.descriptor, name, k);
}

/// The two kernels, checked once per process.
const std::array<PackKernel, Context::kPackKernels> &kernels() {
  static const auto table = [] {
    std::array<PackKernel, Context::kPackKernels> t;
    for (size_t i = 0; i < t.size(); ++i) {
      const std::string name = kernelName(kNonK[i]);
      std::string why = check(t[i], name, kNonK[i]);
      if (!why.empty())
        t[i].error = "embedded packing kernel " + name + ": " + why;
    }
    return t;
  }();
  return table;
}

/// Loads the context's packing modules (once; a failure stays in the
/// module's error).
void loadModules(Context &ctx) {
  std::call_once(ctx.packOnce, [&] {
    const auto &table = kernels();
    for (size_t i = 0; i < table.size(); ++i)
      if (table[i].error.empty())
        loadDataKernel(ctx, table[i], table[i].descriptor.kernel,
                       ctx.packModules[i]);
  });
}

} // namespace

mxgemm_status runtime::packWeightPanels(Context &ctx, const void *w,
                                        void *packed, int64_t n, int64_t k,
                                        int64_t nonK, size_t bytes,
                                        void *stream) {
  const uintptr_t from = reinterpret_cast<uintptr_t>(w),
                  to = reinterpret_cast<uintptr_t>(packed);
  if (from < to + bytes && to < from + bytes) // once per weight tensor
    return rewriteThroughHost(ctx, w, bytes, packed, bytes, stream,
                              "internal: packing W through the host failed",
                              [&](const uint8_t *rowMajor, uint8_t *panels) {
                                contract::packWeightPanels(rowMajor, panels, n,
                                                           k, nonK);
                                return true;
                              });
  const size_t index = kernelIndex(nonK);
  const PackKernel &kernel = kernels()[index];
  if (!kernel.error.empty())
    return fail(MXGEMM_STATUS_INTERNAL, "mxgemm_pack_weights: " + kernel.error);
  // The kernel's i32 arguments and u32 grid: N, K <= 2^24 for any key the
  // runtime serves, so these hold; checked so that they never wrap.
  const int64_t panels = n / nonK * (k / contract::panelKStep(nonK));
  const int64_t workgroups =
      (panels + PD::kPanelsPerWorkgroup - 1) / PD::kPanelsPerWorkgroup;
  if (n > INT32_MAX || k > INT32_MAX || workgroups > INT32_MAX)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "mxgemm_pack_weights: N = " + std::to_string(n) +
                    ", K = " + std::to_string(k) +
                    " exceed the packing kernel's 32-bit sizes");
  loadModules(ctx);
  const EmbeddedModule &module = ctx.packModules[index];
  if (!module.error.empty())
    return fail(ctx.options.strict ? MXGEMM_STATUS_HIP_ERROR
                                   : MXGEMM_STATUS_NOT_ELIGIBLE,
                "mxgemm_pack_weights: " + module.error);
  alignas(16) unsigned char args[256] = {};
  const uint64_t pointers[] = {from, to};
  std::memcpy(args + PD::kWOffset, &pointers[0], 8);
  std::memcpy(args + PD::kPackedOffset, &pointers[1], 8);
  const int32_t n32 = int32_t(n), k32 = int32_t(k);
  std::memcpy(args + PD::kNOffset, &n32, 4);
  std::memcpy(args + PD::kKOffset, &k32, 4);
  return launchDataKernel(
      ctx, "mxgemm_pack_weights: hipModuleLaunchKernel", module,
      uint32_t(workgroups), uint32_t(PD::kWorkgroupSize), args,
      size_t(kernel.descriptor.kernargSegmentBytes), stream);
}
