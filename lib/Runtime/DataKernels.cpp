//===- DataKernels.cpp - the runtime's embedded data-movement kernels -----===//

#include "DataKernels.h"

#include <vector>

#include "mxgemm/Contract/CodeObjectCheck.h"
#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Target/TargetModel.h"

using namespace mxgemm;
using namespace mxgemm::runtime;

const EmbeddedFile *runtime::findEmbeddedFile(const EmbeddedFile *table,
                                              size_t count,
                                              const std::string &name) {
  for (size_t i = 0; i < count; ++i)
    if (name == table[i].name)
      return &table[i];
  return nullptr;
}

std::string runtime::checkDataKernel(const EmbeddedFile *code,
                                     const contract::DataKernelDescriptor &d,
                                     const std::string &name,
                                     DataKernelImage &image) {
  if (d.kernel != name)
    return "the descriptor describes " + d.kernel;
  if (d.target != ::mxgemm::target::kGFX950.amdhsaTarget)
    return "the kernel is for " + d.target + ", not " +
           std::string(::mxgemm::target::kGFX950.amdhsaTarget);
  if (contract::sha256Hex(code->data, code->size) != d.codeObjectSha256)
    return "the code object's SHA-256 is not the descriptor's";
  if (contract::ErrorMessage e = contract::checkKernelCodeObject(
          code->data, code->size, d.chip, d.kernel))
    return *e;
  image.codeObject = code->data;
  image.codeObjectSize = code->size;
  return "";
}

void runtime::loadDataKernel(Context &ctx, const DataKernelImage &image,
                             const std::string &kernel, EmbeddedModule &m) {
  std::string corrupted;
  const void *code = image.codeObject;
  if (ctx.corruptCodeObjects) { // the "code_object" test hook
    corrupted.assign(reinterpret_cast<const char *>(image.codeObject), 64);
    corrupted[1] = 'X';
    code = corrupted.data();
  }
  hipError_t e = ctx.hip.hipModuleLoadData(&m.module, code);
  if (e != hipSuccess) {
    m.module = nullptr;
    m.error = "hipModuleLoadData(" + kernel + "): " + ctx.hip.describe(e);
  } else if ((e = ctx.hip.hipModuleGetFunction(
                  &m.function, m.module, ctx.functionName(kernel).c_str())) !=
             hipSuccess) {
    m.function = nullptr;
    m.error = "hipModuleGetFunction(" + kernel + "): " + ctx.hip.describe(e);
  }
}

mxgemm_status runtime::launchDataKernel(Context &ctx, const char *what,
                                        const EmbeddedModule &m,
                                        uint32_t workgroups,
                                        uint32_t workgroupSize, void *args,
                                        size_t argBytes, void *stream) {
  void *extra[] = {hipLaunchParamBufferPointer, args, hipLaunchParamBufferSize,
                   &argBytes, hipLaunchParamEnd};
  return hipCall(ctx, what,
                 ctx.hip.hipModuleLaunchKernel(
                     m.function, workgroups, 1, 1, workgroupSize, 1, 1,
                     /*sharedMemBytes=*/0, stream, nullptr, extra));
}

mxgemm_status runtime::rewriteThroughHost(
    Context &ctx, const void *src, size_t srcBytes, void *dst, size_t dstBytes,
    void *stream, const char *what,
    const std::function<bool(const uint8_t *, uint8_t *)> &rewrite) {
  const HipLibrary &hip = ctx.hip;
  if (mxgemm_status e = hipCall(ctx, "hipStreamSynchronize",
                                hip.hipStreamSynchronize(stream)))
    return e;
  std::vector<uint8_t> from(srcBytes), to(dstBytes);
  if (mxgemm_status e = hipCall(
          ctx, "hipMemcpy(DeviceToHost)",
          hip.hipMemcpy(from.data(), src, srcBytes, hipMemcpyDeviceToHost)))
    return e;
  if (!rewrite(from.data(), to.data()))
    return fail(MXGEMM_STATUS_INTERNAL, what);
  return hipCall(
      ctx, "hipMemcpy(HostToDevice)",
      hip.hipMemcpy(dst, to.data(), dstBytes, hipMemcpyHostToDevice));
}
