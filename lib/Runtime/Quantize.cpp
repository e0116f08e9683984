//===- Quantize.cpp - mxgemm_quantize: MX quantization on the device ------===//
//
// The eighteen embedded quantize kernels (cmake/MXGemmQuantizeKernels.cmake),
// one per (input type, format, scale layout), each checked once per process
// against its
// descriptor (schema and ABI, SHA-256, AMDGPU ELF defining the kernel) and
// loaded into a context's device on the first mxgemm_quantize there. The
// arguments are checked before anything touches HIP.
//
//===----------------------------------------------------------------------===//

#include "DataKernels.h"

#include "mxgemm/Contract/QuantizeDescriptor.h"
#include "mxgemm/Contract/ScaleLayout.h"

#include <array>
#include <climits>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

/// MX block: one E8M0 scale per 32 elements of a row.
constexpr int64_t kBlock = 32;

struct QuantizeKernel : DataKernelImage {
  contract::QuantizeDescriptor descriptor;
};

const char *inTypeName(mxgemm_dtype t) {
  switch (t) {
  case MXGEMM_DTYPE_BF16:
    return "bf16";
  case MXGEMM_DTYPE_F16:
    return "f16";
  case MXGEMM_DTYPE_F32:
    return "f32";
  default:
    return nullptr;
  }
}

const char *formatName(mxgemm_dtype t) {
  return t == MXGEMM_DTYPE_E4M3   ? "e4m3"
         : t == MXGEMM_DTYPE_E5M2 ? "e5m2"
                                  : nullptr;
}

constexpr mxgemm_scale_layout kLayouts[] = {MXGEMM_SCALES_ROW_MAJOR,
                                            MXGEMM_SCALES_MFMA_16X16X128,
                                            MXGEMM_SCALES_MFMA_32X32X64};

/// Index of (in, format, layout) in the kernel table: in-major, e4m3 first,
/// row-major first.
size_t kernelIndex(mxgemm_dtype in, mxgemm_dtype format,
                   mxgemm_scale_layout layout) {
  const size_t i = in == MXGEMM_DTYPE_BF16 ? 0 : in == MXGEMM_DTYPE_F16 ? 1 : 2;
  return (i * 2 + (format == MXGEMM_DTYPE_E5M2 ? 1 : 0)) * std::size(kLayouts) +
         size_t(layout);
}

std::string check(QuantizeKernel &k, const std::string &name, const char *in,
                  const char *format, mxgemm_scale_layout layout) {
  auto file = [](const std::string &n) {
    return findEmbeddedFile(quantize::kEmbeddedFiles,
                            quantize::kEmbeddedFileCount, n);
  };
  const EmbeddedFile *code = file(name + ".hsaco");
  const EmbeddedFile *desc = file(name + ".hsaco.json");
  if (!code || !desc)
    return "no embedded code object or descriptor";
  std::string_view text(reinterpret_cast<const char *>(desc->data), desc->size);
  contract::QuantizeDescriptor &d = k.descriptor;
  if (contract::ErrorMessage e = contract::QuantizeDescriptor::parse(text, d))
    return *e;
  if (d.inType != in || d.format != format ||
      d.scaleLayout != contract::ScaleLayout(layout))
    return "the descriptor describes " + d.kernel + " (" + d.inType + " -> " +
           d.format + ", " +
           std::string(contract::scaleLayoutName(d.scaleLayout)) + " scales)";
  return checkDataKernel(code, d, name, k);
}

/// The eighteen kernels, checked once per process.
const std::array<QuantizeKernel, Context::kQuantizeKernels> &kernels() {
  static const auto table = [] {
    std::array<QuantizeKernel, Context::kQuantizeKernels> t;
    for (mxgemm_dtype in :
         {MXGEMM_DTYPE_BF16, MXGEMM_DTYPE_F16, MXGEMM_DTYPE_F32})
      for (mxgemm_dtype format : {MXGEMM_DTYPE_E4M3, MXGEMM_DTYPE_E5M2})
        for (mxgemm_scale_layout layout : kLayouts) {
          QuantizeKernel &k = t[kernelIndex(in, format, layout)];
          std::string name = std::string("mxgemm_quantize_") + inTypeName(in) +
                             "_" + formatName(format);
          if (layout != MXGEMM_SCALES_ROW_MAJOR)
            name += "_" + std::string(contract::scaleLayoutName(
                              contract::ScaleLayout(layout)));
          std::string why =
              check(k, name, inTypeName(in), formatName(format), layout);
          if (!why.empty())
            k.error = "embedded quantize kernel " + name + ": " + why;
        }
    return t;
  }();
  return table;
}

/// Loads the context's quantize modules (once; a failure stays in the
/// module's error).
void loadModules(Context &ctx) {
  std::call_once(ctx.quantizeOnce, [&] {
    const auto &table = kernels();
    for (size_t i = 0; i < table.size(); ++i) {
      const QuantizeKernel &k = table[i];
      if (!k.error.empty())
        continue; // reported from the kernel table
      loadDataKernel(ctx, k, k.descriptor.kernel, ctx.quantizeModules[i]);
    }
  });
}

/// The argument rules (nothing touches HIP): the grid into `workgroups`.
mxgemm_status checkArguments(mxgemm_dtype in, mxgemm_dtype format,
                             mxgemm_scale_layout layout, int64_t m, int64_t k,
                             const void *input, int64_t ldInput,
                             const void *codes, const void *scales,
                             uint32_t &workgroups, std::string &why) {
  if (!inTypeName(in)) {
    why = "in_type " + std::to_string(int(in)) +
          " is not MXGEMM_DTYPE_BF16, MXGEMM_DTYPE_F16 or MXGEMM_DTYPE_F32";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!formatName(format)) {
    why = "format " + std::to_string(int(format)) +
          " is not MXGEMM_DTYPE_E4M3 or MXGEMM_DTYPE_E5M2";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!validScaleLayout(layout)) {
    why = "scale_layout " + std::to_string(int(layout)) +
          " is not a value of mxgemm_scale_layout";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  // M and K are i32 kernel arguments.
  if (m < 1 || m > INT32_MAX || k < 1 || k > INT32_MAX) {
    why = "M (" + std::to_string(m) + ") and K (" + std::to_string(k) +
          ") must be in 1..2^31-1";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (k % kBlock) {
    why = "K (" + std::to_string(k) + ") is not a multiple of 32";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (ldInput != 0 && ldInput < k) {
    why = "ld_input (" + std::to_string(ldInput) + ") is neither 0 nor >= K (" +
          std::to_string(k) + ")";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!input || !codes || !scales) {
    why = "input, codes and scales must be non-NULL";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  // Every byte the call touches must be addressable; the grid is one
  // workgroup per 256 blocks and must fit HIP's u32 grid.
  const int64_t ld = ldInput ? ldInput : k;
  const int64_t elementBytes = in == MXGEMM_DTYPE_F32 ? 4 : 2;
  int64_t inputElements, inputBytes, elements;
  if (__builtin_mul_overflow(m - 1, ld, &inputElements) ||
      __builtin_add_overflow(inputElements, k, &inputElements) ||
      __builtin_mul_overflow(inputElements, elementBytes, &inputBytes) ||
      __builtin_mul_overflow(m, k, &elements) ||
      uint64_t(inputBytes) > uint64_t(SIZE_MAX) ||
      uint64_t(elements) > uint64_t(SIZE_MAX) ||
      !contract::scaleTensorBytes(contract::ScaleLayout(layout), m,
                                  k / kBlock)) {
    why = "the sizes of M = " + std::to_string(m) +
          ", K = " + std::to_string(k) + " overflow";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const uint64_t blocks = uint64_t(elements) / kBlock;
  const uint64_t grid =
      (blocks + contract::QuantizeDescriptor::kBlocksPerWorkgroup - 1) /
      contract::QuantizeDescriptor::kBlocksPerWorkgroup;
  if (grid > uint64_t(INT32_MAX)) {
    why = "M x K / 32 blocks (" + std::to_string(blocks) +
          ") need more workgroups than a launch has (2^31 - 1)";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  workgroups = uint32_t(grid);
  return MXGEMM_STATUS_OK;
}

/// mxgemm_quantize and mxgemm_quantize_to_layout (`api` names the one
/// called in messages).
mxgemm_status quantizeWith(const char *api, mxgemm_context *context,
                           mxgemm_dtype in_type, mxgemm_dtype format,
                           mxgemm_scale_layout layout, int64_t m, int64_t k,
                           const void *input, int64_t ld_input, void *codes,
                           void *scales, void *stream) {
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  const std::string prefix = std::string(api) + ": ";
  return guarded([&] {
    if (ctx->injectInternal)
      throw std::logic_error("injected internal error (MXGEMM_RUNTIME_FAULT)");
    uint32_t workgroups = 0;
    std::string why;
    if (mxgemm_status s =
            checkArguments(in_type, format, layout, m, k, input, ld_input,
                           codes, scales, workgroups, why))
      return fail(s, prefix + why);
    const size_t index = kernelIndex(in_type, format, layout);
    const QuantizeKernel &kernel = kernels()[index];
    if (!kernel.error.empty())
      return fail(MXGEMM_STATUS_INTERNAL, prefix + kernel.error);
    if (ld_input != 0 && ld_input != k)
      return fail(MXGEMM_STATUS_NOT_ELIGIBLE,
                  prefix + "ld_input (" + std::to_string(ld_input) +
                      ") is not K (" + std::to_string(k) +
                      "): the kernels read contiguous rows");
    mxgemm_reason reason;
    char message[kMessageBytes];
    MessageBuilder msg(message, sizeof(message));
    if (mxgemm_status s = checkDevice(*ctx, reason, msg))
      return fail(s, prefix + message);
    if (reinterpret_cast<uintptr_t>(input) % 16 ||
        reinterpret_cast<uintptr_t>(codes) % 16)
      return fail(MXGEMM_STATUS_NOT_ELIGIBLE,
                  prefix + "input and codes must be 16-byte aligned");
    loadModules(*ctx);
    const EmbeddedModule &module = ctx->quantizeModules[index];
    if (!module.error.empty())
      return fail(ctx->options.strict ? MXGEMM_STATUS_HIP_ERROR
                                      : MXGEMM_STATUS_NOT_ELIGIBLE,
                  prefix + module.error);
    using QD = contract::QuantizeDescriptor;
    alignas(16) unsigned char args[256] = {};
    const uint64_t pointers[] = {reinterpret_cast<uintptr_t>(input),
                                 reinterpret_cast<uintptr_t>(codes),
                                 reinterpret_cast<uintptr_t>(scales)};
    std::memcpy(args + QD::kInputOffset, &pointers[0], 8);
    std::memcpy(args + QD::kCodesOffset, &pointers[1], 8);
    std::memcpy(args + QD::kScalesOffset, &pointers[2], 8);
    const int32_t m32 = int32_t(m), k32 = int32_t(k);
    std::memcpy(args + QD::kMOffset, &m32, 4);
    std::memcpy(args + QD::kKOffset, &k32, 4);
    if (ctx->options.dry_run)
      return MXGEMM_STATUS_OK;
    return launchDataKernel(*ctx, (prefix + "hipModuleLaunchKernel").c_str(),
                            module, workgroups, uint32_t(QD::kWorkgroupSize),
                            args, size_t(kernel.descriptor.kernargSegmentBytes),
                            stream);
  });
}

} // namespace

extern "C" mxgemm_status
mxgemm_quantize(mxgemm_context *context, mxgemm_dtype in_type,
                mxgemm_dtype format, int64_t m, int64_t k, const void *input,
                int64_t ld_input, void *codes, void *scales, void *stream) {
  return quantizeWith("mxgemm_quantize", context, in_type, format,
                      MXGEMM_SCALES_ROW_MAJOR, m, k, input, ld_input, codes,
                      scales, stream);
}

extern "C" mxgemm_status mxgemm_quantize_to_layout(
    mxgemm_context *context, mxgemm_dtype in_type, mxgemm_dtype format,
    mxgemm_scale_layout scale_layout, int64_t m, int64_t k, const void *input,
    int64_t ld_input, void *codes, void *scales, void *stream) {
  return quantizeWith("mxgemm_quantize_to_layout", context, in_type, format,
                      scale_layout, m, k, input, ld_input, codes, scales,
                      stream);
}
