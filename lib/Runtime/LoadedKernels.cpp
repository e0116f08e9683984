//===- LoadedKernels.cpp - launching kernels compiled elsewhere -----------===//
//
// mxgemm_kernel_load / _query / _launch / _unload: a code object from
// mxgemm-compile (or the compiler's C API) with its kernel descriptor,
// launched through the same argument, pointer and grid rules as the
// embedded kernels. Nothing reaches HIP before the descriptor has been
// parsed and checked (contract::KernelDescriptor::parse) and the bytes have
// been shown to be the code object it describes (its SHA-256, an AMDGPU ELF
// for gfx950 that defines its kernel: contract/CodeObjectCheck.h). A
// launch then must pass the problem the kernel was compiled for.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "mxgemm/Contract/CodeObjectCheck.h"
#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Target/TargetModel.h"

#include <algorithm>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

const char *typeName(int type) {
  return contract::elementTypeName(contract::ElementType(type)).data();
}

/// The rules for a loaded kernel: the arguments, then the problem must be
/// the kernel's, then the shape rules the kernel cannot serve, the pointer
/// rule and the grid. HIP and the device were checked when it was loaded.
mxgemm_status decideLoaded(const LoadedKernel &k, const mxgemm_problem *p,
                           const mxgemm_tensors *tensors, Decision &d,
                           mxgemm_reason &reason, MessageBuilder &msg) {
  reason = MXGEMM_REASON_NONE;
  const contract::KernelDescriptor &desc = k.descriptor;
  d.wLayout = desc.wLayout == contract::WeightLayout::MfmaPanels
                  ? MXGEMM_WEIGHTS_MFMA_PANELS
                  : MXGEMM_WEIGHTS_ROW_MAJOR;
  StridedOperands strided;
  if (mxgemm_status s = checkArguments(p, tensors, msg, strided))
    return s;

  // The problem is the one the kernel was compiled for (format names in
  // the contract's one spelling).
  // A generic kernel ("?") takes any N, and any K a multiple of 32.
  const contract::GemmProblem &want = desc.problem;
  if ((!want.dynamicN() && p->n != want.n) ||
      (!want.dynamicK() && p->k != want.k)) {
    msg << "the problem (N = " << p->n << ", K = " << p->k
        << ") does not match kernel '" << desc.kernel
        << "', compiled for N = " << want.n << ", K = " << want.k;
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (want.isGeneric() &&
      contract::validateProblem(want.withExtents(p->n, p->k))) {
    msg << "the problem (N = " << p->n << ", K = " << p->k
        << ") is outside what generic kernel '" << desc.kernel
        << "' takes (N and K in 1.." << contract::kMaxProblemExtent
        << ", K a multiple of 32)";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (p->x_type != int(want.xType) || p->w_type != int(want.wType) ||
      p->out_type != int(want.outType)) {
    msg << "the problem's formats (x " << typeName(p->x_type) << ", w "
        << typeName(p->w_type) << ", out " << typeName(p->out_type)
        << ") do not match kernel '" << desc.kernel << "', compiled for x "
        << typeName(int(want.xType)) << ", w " << typeName(int(want.wType))
        << ", out " << typeName(int(want.outType));
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (p->w_scale != int(want.wScale)) {
    msg << "the problem's w_scale ("
        << contract::scaleGranularityName(
               contract::ScaleGranularity(p->w_scale))
               .data()
        << ") does not match kernel '" << desc.kernel << "', compiled for "
        << contract::scaleGranularityName(want.wScale).data();
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (p->w_layout != d.wLayout) {
    msg << "the problem's w_layout ("
        << (p->w_layout == MXGEMM_WEIGHTS_MFMA_PANELS ? "mfma_panels"
                                                      : "row_major")
        << ") does not match kernel '" << desc.kernel << "', which reads "
        << contract::weightLayoutName(desc.wLayout).data();
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!scaleLayoutsMatch(*p, desc, d, msg))
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  // A generic kernel takes views of X, its scales and Y (row strides).
  if (const char *operand = operandNotTaken(strided, k.packing)) {
    reason = MXGEMM_REASON_NOT_CONTIGUOUS;
    msg << operand
        << " is not contiguous (leading dimension != row length); the "
           "kernel takes row-major contiguous operands";
    if (operand == strided.activations && k.packing.rowStrides)
      msg << " (its row strides are i32: at most 2^31 - 1)";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (p->m > contract::kMaxM) {
    reason = MXGEMM_REASON_M_OUT_OF_RANGE;
    msg << "M = " << p->m << " is above " << contract::kMaxM
        << ", the largest M a kernel takes (M is an i32 kernel argument)";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (tensors)
    if (mxgemm_status s = checkAlignment(*tensors, reason, msg))
      return s;
  d.descriptor = &desc;
  if (mxgemm_status s = computeGrid(d, p->m, p->n, msg)) {
    d.descriptor = nullptr;
    return s;
  }
  d.function = k.function;
  d.packing = &k.packing;
  d.kernel = desc.kernel.c_str();
  d.config = k.configText.c_str();
  d.mMin = 1;
  d.mMax = contract::kMaxM;
  d.kind = MXGEMM_PLAN_KIND_LOADED_KERNEL;
  return MXGEMM_STATUS_OK;
}

/// The loaded kernel for a query or launch, or INVALID_ARGUMENT with the
/// plan (if any) and the last error saying why.
mxgemm_status resolve(mxgemm_context *context, mxgemm_loaded_kernel *kernel,
                      mxgemm_plan *plan, Context *&ctx, LoadedKernel *&k) {
  char *message = plan ? plan->message : nullptr;
  const size_t size = plan ? sizeof(plan->message) : 0;
  ctx = resolveContext(context, message, size);
  k = ctx ? resolveLoadedKernel(*ctx, kernel, message, size) : nullptr;
  if (k)
    return MXGEMM_STATUS_OK;
  if (plan)
    fillPlan(plan, MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
             Decision());
  return MXGEMM_STATUS_INVALID_ARGUMENT;
}

} // namespace

extern "C" {

mxgemm_status mxgemm_kernel_load(mxgemm_context *context,
                                 const void *code_object,
                                 size_t code_object_bytes,
                                 const char *descriptor_json,
                                 mxgemm_loaded_kernel **kernel) {
  if (kernel)
    *kernel = nullptr;
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  if (!kernel)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "kernel output pointer is NULL");
  if (!code_object || code_object_bytes == 0)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "code object is NULL or empty");
  if (!descriptor_json)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "kernel descriptor is NULL");
  return guarded([&] {
    auto k = std::make_unique<LoadedKernel>();
    contract::KernelDescriptor &d = k->descriptor;
    // 1. The descriptor, alone: schema, versions, derived fields.
    if (contract::ErrorMessage e =
            contract::KernelDescriptor::parse(descriptor_json, d))
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT, *e);
    if (d.chip != target::kGFX950.chip)
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "kernel descriptor: chip '" + d.chip +
                      "' is not gfx950, the chip this runtime runs");
    // 2. The bytes are the code object it describes.
    if (contract::ErrorMessage e =
            contract::checkCodeObjectAgainst(d, code_object, code_object_bytes))
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT, *e);
    // 3. This runtime can pass its arguments.
    if (contract::ErrorMessage e = ArgumentPacking::build(d, k->packing))
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "kernel descriptor: " + *e);
    // 4. The device.
    ctx->ensureInitialized();
    if (!ctx->hipReady)
      return fail(MXGEMM_STATUS_HIP_ERROR, "HIP unavailable: " + ctx->hipError);
    if (!ctx->archMatches)
      return fail(MXGEMM_STATUS_NOT_ELIGIBLE,
                  "device '" + std::string(ctx->deviceName) +
                      "' has compute capability " +
                      std::to_string(ctx->ccMajor) + "." +
                      std::to_string(ctx->ccMinor) + "; kernel '" + d.kernel +
                      "' is for gfx950 (9.5)");
    // 5. HIP loads it from our copy.
    const auto *bytes = static_cast<const unsigned char *>(code_object);
    k->codeObject.assign(bytes, bytes + code_object_bytes);
    if (ctx->corruptCodeObjects) // test hook: not an ELF any more
      k->codeObject[1] = 'X';
    k->configText = contract::formatConfigBody(d.config);
    const HipLibrary &hip = ctx->hip;
    hipError_t e = hip.hipModuleLoadData(&k->module, k->codeObject.data());
    if (e != hipSuccess)
      return hipCall(*ctx, ("hipModuleLoadData(" + d.kernel + ")").c_str(), e);
    e = hip.hipModuleGetFunction(&k->function, k->module,
                                 ctx->functionName(d.kernel).c_str());
    if (e != hipSuccess) {
      hip.hipModuleUnload(k->module);
      return hipCall(*ctx, ("hipModuleGetFunction(" + d.kernel + ")").c_str(),
                     e);
    }
    k->owner = ctx;
    std::lock_guard<std::mutex> lock(ctx->loadedMutex);
    k->handle = gLoadedKernels.insert(k.get());
    if (!k->handle) {
      hip.hipModuleUnload(k->module);
      return fail(MXGEMM_STATUS_NOT_SUPPORTED,
                  "too many loaded kernels (" +
                      std::to_string(LoadedKernelTable::capacity()) +
                      "): unload one first");
    }
    ctx->loaded.push_back(k->handle);
    *kernel = reinterpret_cast<mxgemm_loaded_kernel *>(k.release()->handle);
    return MXGEMM_STATUS_OK;
  });
}

mxgemm_status mxgemm_kernel_query(mxgemm_context *context,
                                  mxgemm_loaded_kernel *kernel,
                                  const mxgemm_problem *problem,
                                  mxgemm_plan *plan) {
  if (!plan)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "plan is NULL");
  Context *ctx;
  LoadedKernel *k;
  if (mxgemm_status s = resolve(context, kernel, plan, ctx, k))
    return s;
  return guarded([&] {
    return decideIntoPlan(
        *plan, [&](Decision &d, mxgemm_reason &reason, MessageBuilder &msg) {
          return decideLoaded(*k, problem, nullptr, d, reason, msg);
        });
  });
}

mxgemm_status mxgemm_descriptor_query(const char *descriptor_json,
                                      const mxgemm_problem *problem,
                                      mxgemm_plan *plan) {
  if (!plan)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "plan is NULL");
  // The rules of mxgemm_kernel_query, on a descriptor that is only parsed
  // and checked: no context, no HIP, no code object.
  auto refuse = [&](const std::string &message) {
    fillPlan(plan, MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
             Decision());
    MessageBuilder(plan->message, sizeof(plan->message)) << message.c_str();
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, message);
  };
  if (!descriptor_json)
    return refuse("kernel descriptor is NULL");
  return guarded([&] {
    LoadedKernel k;
    contract::KernelDescriptor &d = k.descriptor;
    if (contract::ErrorMessage e =
            contract::KernelDescriptor::parse(descriptor_json, d))
      return refuse(*e);
    if (d.chip != target::kGFX950.chip)
      return refuse("kernel descriptor: chip '" + d.chip +
                    "' is not gfx950, the chip this runtime runs");
    if (contract::ErrorMessage e = ArgumentPacking::build(d, k.packing))
      return refuse("kernel descriptor: " + *e);
    mxgemm_status s = decideIntoPlan(
        *plan, [&](Decision &dec, mxgemm_reason &reason, MessageBuilder &msg) {
          return decideLoaded(k, problem, nullptr, dec, reason, msg);
        });
    // The strings would point into `k`: the caller has the descriptor.
    plan->entry = plan->kernel = plan->config = plan->note = "";
    return s;
  });
}

mxgemm_status mxgemm_kernel_launch(mxgemm_context *context,
                                   mxgemm_loaded_kernel *kernel,
                                   const mxgemm_problem *problem,
                                   const mxgemm_tensors *tensors, void *stream,
                                   mxgemm_plan *plan) {
  Context *ctx;
  LoadedKernel *k;
  if (mxgemm_status s = resolve(context, kernel, plan, ctx, k))
    return s;
  if (!tensors) {
    if (plan)
      MessageBuilder(plan->message, sizeof(plan->message)) << "tensors is NULL";
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT, "tensors is NULL");
  }
  return decideAndLaunch(
      *ctx, problem, tensors, stream, plan,
      [&](Decision &d, mxgemm_reason &reason, MessageBuilder &msg) {
        return decideLoaded(*k, problem, tensors, d, reason, msg);
      });
}

mxgemm_status mxgemm_kernel_unload(mxgemm_context *context,
                                   mxgemm_loaded_kernel *kernel) {
  Context *ctx = resolveContext(context);
  if (!ctx || !resolveLoadedKernel(*ctx, kernel, nullptr, 0))
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  return guarded([&] {
    HandleState state;
    const uintptr_t handle = reinterpret_cast<uintptr_t>(kernel);
    std::unique_ptr<LoadedKernel> k(gLoadedKernels.remove(handle, state));
    if (!k) // another thread unloaded it in between
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                  "kernel was unloaded by another call");
    {
      std::lock_guard<std::mutex> lock(ctx->loadedMutex);
      ctx->loaded.erase(
          std::remove(ctx->loaded.begin(), ctx->loaded.end(), handle),
          ctx->loaded.end());
    }
    return hipCall(*ctx, "hipModuleUnload",
                   ctx->hip.hipModuleUnload(k->module));
  });
}

} // extern "C"
