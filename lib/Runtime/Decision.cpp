//===- Decision.cpp - the rules every launch goes through -----------------===//
//
// The argument, device and pointer rules of docs/Design.md section 5, the
// grid, the argument packing and the launch, shared by the embedded kernels
// (mxgemm_query / mxgemm_gemm) and the loaded ones (mxgemm_kernel_query /
// mxgemm_kernel_launch). Nothing here allocates or locks on the success
// path: these run on every call.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "mxgemm/Contract/Problem.h"
#include "mxgemm/Contract/ScaleLayout.h"

#include <cstddef>
#include <cstdint>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

int64_t elementBytes(mxgemm_dtype t) {
  switch (t) {
  case MXGEMM_DTYPE_E4M3:
  case MXGEMM_DTYPE_E5M2:
    return 1;
  case MXGEMM_DTYPE_BF16:
  case MXGEMM_DTYPE_F16:
    return 2;
  case MXGEMM_DTYPE_F32:
    return 4;
  }
  return 0;
}

bool validDtype(int t) {
  return t >= MXGEMM_DTYPE_E4M3 && t <= MXGEMM_DTYPE_F32;
}

/// ceil(x / 32) for x >= 0, without the overflow of (x + 31) / 32.
int64_t ceilDiv32(int64_t x) { return x / 32 + (x % 32 != 0); }

/// rows x ld elements of `bytes` each must fit comfortably in int64/size_t.
bool sizeFits(int64_t rows, int64_t ld, int64_t bytes) {
  int64_t elems, total;
  return !__builtin_mul_overflow(rows, ld, &elems) &&
         !__builtin_mul_overflow(elems, bytes, &total) &&
         uint64_t(total) <= uint64_t(SIZE_MAX / 2);
}

} // namespace

mxgemm_status runtime::checkArguments(const mxgemm_problem *p,
                                      const mxgemm_tensors *tensors,
                                      MessageBuilder &msg,
                                      StridedOperands &strided) {
  strided = StridedOperands();
  if (!p) {
    msg << "problem is NULL";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (p->m <= 0 || p->n <= 0 || p->k <= 0) {
    msg << "M, N and K must be positive (M = " << p->m << ", N = " << p->n
        << ", K = " << p->k << ")";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!validDtype(p->x_type) || !validDtype(p->w_type) ||
      !validDtype(p->out_type) ||
      (p->w_scale != MXGEMM_SCALE_BLOCK32X32 &&
       p->w_scale != MXGEMM_SCALE_PER_ROW)) {
    msg << "unknown element type or weight-scale granularity value";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const bool panels = p->w_layout == MXGEMM_WEIGHTS_MFMA_PANELS;
  if (!panels && p->w_layout != MXGEMM_WEIGHTS_ROW_MAJOR) {
    msg << "unknown weight layout value " << int64_t(p->w_layout);
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (panels && p->ld_w != 0 && p->ld_w != p->k) {
    msg << "W packed in MFMA panels has no leading dimension: ld_w must be "
           "0 or K, got "
        << p->ld_w;
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  if (!validScaleLayout(p->x_scale_layout) ||
      !validScaleLayout(p->w_scale_layout)) {
    msg << "unknown scale layout value (x_scale_layout "
        << int64_t(int(p->x_scale_layout)) << ", w_scale_layout "
        << int64_t(int(p->w_scale_layout)) << ")";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  const int64_t kBlocks = ceilDiv32(p->k);
  const int64_t wsRows =
      p->w_scale == MXGEMM_SCALE_PER_ROW ? p->n : ceilDiv32(p->n);
  // MFMA-native scales are whole 256-byte chunks: no leading dimension.
  const struct {
    const char *name, *ldName;
    mxgemm_scale_layout layout;
    int64_t rows, ld;
  } scales[] = {{"Xs", "ld_xs", p->x_scale_layout, p->m, p->ld_xs},
                {"Ws", "ld_ws", p->w_scale_layout, wsRows, p->ld_ws}};
  for (const auto &s : scales) {
    if (s.layout == MXGEMM_SCALES_ROW_MAJOR)
      continue;
    if (s.ld != 0) {
      msg << s.name
          << " in an MFMA-native layout has no leading dimension: " << s.ldName
          << " must be 0, got " << s.ld;
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    if (!contract::scaleTensorBytes(contract::ScaleLayout(s.layout), s.rows,
                                    kBlocks)) {
      msg << "size of " << s.name << " (" << s.rows << " rows of " << kBlocks
          << " blocks, MFMA-native) overflows";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
  }
  struct Operand {
    const char *name;
    int64_t rows, rowLength, ld, bytes;
    bool weights;
  } operands[] = {
      {"X", p->m, p->k, p->ld_x, elementBytes(p->x_type), false},
      {"Xs", p->m, kBlocks, p->ld_xs, 1, false},
      {"W", p->n, p->k, p->ld_w, elementBytes(p->w_type), true},
      {"Ws", wsRows, kBlocks, p->ld_ws, 1, true},
      {"Y", p->m, p->n, p->ld_y, elementBytes(p->out_type), false},
  };
  for (const Operand &o : operands) {
    int64_t ld = o.ld ? o.ld : o.rowLength;
    if (ld < o.rowLength) {
      msg << "leading dimension of " << o.name << " (" << o.ld
          << ") is smaller than its row length (" << o.rowLength << ")";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    if (!sizeFits(o.rows, ld, o.bytes)) {
      msg << "size of " << o.name << " (" << o.rows << " x " << ld
          << " elements) overflows";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    if (ld == o.rowLength)
      continue;
    const char *&first = o.weights ? strided.weights : strided.activations;
    if (!first)
      first = o.name;
    if (!o.weights && ld > INT32_MAX)
      strided.beyondI32 = true;
  }
  if (tensors && (!tensors->x || !tensors->xs || !tensors->w || !tensors->ws ||
                  !tensors->y)) {
    msg << "a tensor pointer (X, Xs, W, Ws or Y) is NULL";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  return MXGEMM_STATUS_OK;
}

const char *runtime::operandNotTaken(const StridedOperands &strided,
                                     const ArgumentPacking &packing) {
  if (strided.weights)
    return strided.weights;
  if (strided.activations && (!packing.rowStrides || strided.beyondI32))
    return strided.activations;
  return nullptr;
}

mxgemm_status runtime::checkDevice(Context &ctx, mxgemm_reason &reason,
                                   MessageBuilder &msg) {
  ctx.ensureInitialized();
  const bool strict = ctx.options.strict != 0;
  if (!ctx.hipReady) {
    reason = MXGEMM_REASON_HIP_UNAVAILABLE;
    msg << "HIP unavailable: " << ctx.hipError;
    return strict ? MXGEMM_STATUS_HIP_ERROR : MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  if (!ctx.archMatches) {
    reason = MXGEMM_REASON_ARCH_MISMATCH;
    msg << "device '" << ctx.deviceName << "' has compute capability "
        << int64_t(ctx.ccMajor) << "." << int64_t(ctx.ccMinor)
        << "; the kernels are for gfx950 (9.5)";
    return MXGEMM_STATUS_NOT_ELIGIBLE;
  }
  return MXGEMM_STATUS_OK;
}

mxgemm_status runtime::checkAlignment(const mxgemm_tensors &t,
                                      mxgemm_reason &reason,
                                      MessageBuilder &msg) {
  const struct {
    const char *name;
    const void *ptr;
  } ptrs[] = {{"X", t.x}, {"Xs", t.xs}, {"W", t.w}, {"Ws", t.ws}, {"Y", t.y}};
  for (const auto &q : ptrs)
    if (reinterpret_cast<uintptr_t>(q.ptr) % 16 != 0) {
      reason = MXGEMM_REASON_MISALIGNED;
      msg << q.name << " is not 16-byte aligned";
      return MXGEMM_STATUS_NOT_ELIGIBLE;
    }
  return MXGEMM_STATUS_OK;
}

mxgemm_status runtime::computeGrid(Decision &d, int64_t m, int64_t n,
                                   MessageBuilder &msg) {
  // Checked in the contract: M in 1..2^31-1 and at most 2^32-1 workgroups.
  // A generic kernel's tile columns come from the call's N.
  const contract::TileGrid grid = d.descriptor->problem.dynamicN()
                                      ? d.descriptor->grid.forN(n)
                                      : d.descriptor->grid;
  d.numTilesN = uint32_t(grid.numTilesN);
  std::optional<int64_t> workgroups = grid.numWorkgroups(m);
  if (!workgroups) {
    msg << "M = " << m << " needs more workgroups than a HIP grid holds ("
        << int64_t(UINT32_MAX) << ")";
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  }
  d.kSplits = uint32_t(grid.kSplits);
  if (grid.tailSplit) {
    // 1-D grids: whole tiles, then kSplits workgroups per tail tile; the
    // reduction has the tail's (docs/Design.md, "Tail split").
    d.gridY = 1;
    d.gridX = uint32_t(*workgroups);
    d.tailTiles = uint32_t(grid.tailTiles(m)->tail);
    d.reductionGridX = uint32_t(*grid.reductionWorkgroups(m));
    return MXGEMM_STATUS_OK;
  }
  d.gridY = uint32_t(grid.kSplits);
  d.gridX = uint32_t(*workgroups / d.gridY);
  d.tailTiles = 0;
  d.reductionGridX = grid.kSplits > 1 ? d.gridX : 0;
  return MXGEMM_STATUS_OK;
}

mxgemm_status runtime::launch(Context &ctx, const KernelLaunch &d,
                              const mxgemm_problem &p, const mxgemm_tensors &t,
                              void *stream, MessageBuilder &msg) {
  // The kernel ABI (docs/Design.md section 4), at the offsets of the kernel
  // descriptor (ArgumentPacking::build checked them when the kernel was
  // accepted).
  using Source = ArgumentPacking::Source;
  alignas(16) unsigned char args[ArgumentPacking::kMaxBytes] = {};
  const ArgumentPacking &packing = *d.packing;
  // Split-K: an FP32 workspace (k_splits x M x N, or a tail split's
  // k_splits partial tiles per tail tile), allocated and freed in stream
  // order around the two launches (docs/Runtime.md, "Split-K"); a tail split
  // without tail tiles needs none.
  void *workspace = nullptr;
  if (packing.splitK && d.reductionGridX > 0 && !ctx.options.dry_run) {
    std::optional<uint64_t> bytes = contract::splitWorkspaceBytes(
        d.descriptor->problem, d.descriptor->config, p.m);
    if (!bytes || *bytes > uint64_t(SIZE_MAX)) {
      msg << "the split-K workspace for M = " << p.m
          << " does not fit the address space";
      return MXGEMM_STATUS_INVALID_ARGUMENT;
    }
    if (!ctx.hip.hipMallocAsync) {
      msg << "the kernel splits K and needs a workspace, but the HIP library "
             "has no hipMallocAsync / hipFreeAsync (HIP 5.2 or later)";
      return MXGEMM_STATUS_HIP_ERROR;
    }
    hipError_t e = ctx.hip.hipMallocAsync(&workspace, size_t(*bytes), stream);
    if (e != hipSuccess) {
      msg << "hipMallocAsync of the " << int64_t(*bytes)
          << "-byte split-K workspace: " << ctx.hip.describe(e);
      return MXGEMM_STATUS_HIP_ERROR;
    }
  }
  const ArgumentPacking::Slot *phaseSlot = nullptr;
  for (uint32_t i = 0; i < packing.count; ++i) {
    const ArgumentPacking::Slot &slot = packing.slots[i];
    uint64_t value = 0;
    switch (slot.source) {
    case Source::X:
      value = reinterpret_cast<uintptr_t>(t.x);
      break;
    case Source::XScales:
      value = reinterpret_cast<uintptr_t>(t.xs);
      break;
    case Source::W:
      value = reinterpret_cast<uintptr_t>(t.w);
      break;
    case Source::WScales:
      value = reinterpret_cast<uintptr_t>(t.ws);
      break;
    case Source::Y:
      value = reinterpret_cast<uintptr_t>(t.y);
      break;
    case Source::M:
      value = uint64_t(p.m); // 1..2^31-1: checked by computeGrid
      break;
    case Source::Workspace:
      value = reinterpret_cast<uintptr_t>(workspace);
      break;
    case Source::Phase:
      value = 0;
      phaseSlot = &slot;
      break;
    case Source::N:
      value = uint64_t(p.n); // 1..2^24 for a generic kernel: checked
      break;
    case Source::K:
      value = uint64_t(p.k);
      break;
    // Row strides: the call's leading dimensions (0 = contiguous), at most
    // 2^31 - 1 (operandNotTaken refused larger ones).
    case Source::LdX:
      value = uint64_t(p.ld_x ? p.ld_x : p.k);
      break;
    case Source::LdXScales:
      value = uint64_t(p.ld_xs ? p.ld_xs : p.k / 32);
      break;
    case Source::LdY:
      value = uint64_t(p.ld_y ? p.ld_y : p.n);
      break;
    }
    std::memcpy(args + slot.offset, &value, slot.size); // little-endian
  }
  if (ctx.options.dry_run)
    return MXGEMM_STATUS_OK;
  size_t argBytes = packing.bytes;
  void *extra[] = {hipLaunchParamBufferPointer, args, hipLaunchParamBufferSize,
                   &argBytes, hipLaunchParamEnd};
  // The kernels' LDS is static (the code object's group segment); passing
  // it again as dynamic shared memory would double it.
  hipError_t e = ctx.hip.hipModuleLaunchKernel(
      d.function, d.gridX, d.gridY, 1, uint32_t(d.descriptor->workgroupSize), 1,
      1,
      /*sharedMemBytes=*/0, stream, nullptr, extra);
  // Split-K's second launch adds the partials (a tail split's: those of
  // its tail tiles, if any); HIP copies the argument buffer at launch, so
  // it can be rewritten.
  if (e == hipSuccess && phaseSlot && d.reductionGridX > 0) {
    const uint32_t one = 1;
    std::memcpy(args + phaseSlot->offset, &one, 4);
    e = ctx.hip.hipModuleLaunchKernel(d.function, d.reductionGridX, d.gridY, 1,
                                      uint32_t(d.descriptor->workgroupSize), 1,
                                      1, /*sharedMemBytes=*/0, stream, nullptr,
                                      extra);
  }
  if (workspace) {
    hipError_t freed = ctx.hip.hipFreeAsync(workspace, stream);
    if (e == hipSuccess && freed != hipSuccess) {
      msg << "hipFreeAsync of the split-K workspace: "
          << ctx.hip.describe(freed);
      return MXGEMM_STATUS_HIP_ERROR;
    }
  }
  if (e == hipSuccess)
    return MXGEMM_STATUS_OK;
  msg << "hipModuleLaunchKernel: " << ctx.hip.describe(e);
  return MXGEMM_STATUS_HIP_ERROR;
}

mxgemm_status runtime::launchAll(Context &ctx, const Decision &d,
                                 const mxgemm_problem &p,
                                 const mxgemm_tensors &t, void *stream,
                                 MessageBuilder &msg) {
  if (!d.firstRows)
    return launch(ctx, d, p, t, stream, msg);
  // Row split: rows [0, firstRows) by the base kernel, the others by the
  // tail's, on the same stream (so in order).
  mxgemm_problem first = p, rest = p;
  first.m = d.firstRows;
  rest.m = p.m - d.firstRows;
  if (mxgemm_status s = launch(ctx, d, first, t, stream, msg))
    return s;
  return launch(ctx, d.tail, rest, tensorsFromRow(t, p, d.firstRows), stream,
                msg);
}

mxgemm_tensors runtime::tensorsFromRow(const mxgemm_tensors &t,
                                       const mxgemm_problem &p, int64_t row) {
  // Tuned kernels take contiguous operands only, so the row strides are K,
  // K / 32 and N; checkArguments proved that M x K, M x K / 32 and M x N
  // outputs fit.
  mxgemm_tensors from = t;
  const uint64_t rows = uint64_t(row);
  from.x = static_cast<const uint8_t *>(t.x) + rows * uint64_t(p.k);
  from.xs = static_cast<const uint8_t *>(t.xs) + rows * uint64_t(p.k / 32);
  from.y = static_cast<uint8_t *>(t.y) +
           rows * uint64_t(p.n) * uint64_t(elementBytes(p.out_type));
  return from;
}

// The 0.3.0 layouts (LP64); a change is an ABI change: a new minor
// version (the SONAME is major.minor).
static_assert(sizeof(void *) != 8 || (offsetof(mxgemm_plan, kind) == 100 &&
                                      offsetof(mxgemm_plan, m_min) == 112 &&
                                      offsetof(mxgemm_plan, k_splits) == 128 &&
                                      sizeof(mxgemm_plan) == 464),
              "mxgemm_plan changed layout");
static_assert(sizeof(void *) != 8 ||
                  (offsetof(mxgemm_problem, x_scale_layout) == 84 &&
                   sizeof(mxgemm_problem) == 96),
              "mxgemm_problem changed layout");

bool runtime::validScaleLayout(int layout) {
  return layout >= MXGEMM_SCALES_ROW_MAJOR &&
         layout <= MXGEMM_SCALES_MFMA_32X32X64;
}

bool runtime::scaleLayoutsMatch(const mxgemm_problem &p,
                                const contract::KernelDescriptor &k,
                                KernelLaunch &d, MessageBuilder &msg) {
  d.xScaleLayout = mxgemm_scale_layout(k.xScaleLayout);
  d.wScaleLayout = mxgemm_scale_layout(k.wScaleLayout);
  const struct {
    const char *field;
    mxgemm_scale_layout given, read;
  } operands[] = {{"x_scale_layout", p.x_scale_layout, d.xScaleLayout},
                  {"w_scale_layout", p.w_scale_layout, d.wScaleLayout}};
  for (const auto &o : operands) {
    if (o.given == o.read)
      continue;
    msg << "the problem's " << o.field << " is "
        << contract::scaleLayoutName(contract::ScaleLayout(o.given)).data()
        << ", but kernel '" << k.kernel << "' reads "
        << contract::scaleLayoutName(contract::ScaleLayout(o.read)).data()
        << " scales";
    if (o.read != MXGEMM_SCALES_ROW_MAJOR)
      msg << " (mxgemm_pack_scales makes them)";
    return false;
  }
  return true;
}

void runtime::fillPlan(mxgemm_plan *plan, mxgemm_status status,
                       mxgemm_reason reason, const KernelLaunch &d) {
  plan->status = status;
  plan->reason = reason;
  const contract::KernelDescriptor *k = d.descriptor;
  plan->entry = d.entry;
  plan->kernel = d.kernel;
  plan->config = d.config;
  plan->note = d.note;
  plan->grid_x = d.gridX;
  plan->grid_y = d.gridY; // split-K segments
  plan->grid_z = 1;
  plan->block_x = k ? uint32_t(k->workgroupSize) : 0;
  plan->block_y = plan->block_z = 1;
  plan->lds_bytes = 0;
  plan->program_tile_m = k ? uint32_t(k->grid.programTileM) : 0;
  plan->tile_n = k ? uint32_t(k->grid.tileN) : 0;
  plan->num_tiles_n = k ? d.numTilesN : 0;
  plan->k_step = k ? uint32_t(k->mfma.kStep) : 0;
  plan->group_m = k ? uint32_t(k->grid.groupM) : 0;
  plan->group_n = k ? uint32_t(k->grid.groupN) : 0;
  plan->xcd_remap = k ? uint32_t(k->grid.xcdRemap) : 0;
  plan->w_layout = d.wLayout;
  plan->x_scale_layout = d.xScaleLayout;
  plan->w_scale_layout = d.wScaleLayout;
  plan->kind = d.descriptor ? d.kind : MXGEMM_PLAN_KIND_NONE;
  plan->m_min = d.mMin;
  plan->m_max = d.mMax;
  plan->k_splits = k ? d.kSplits : 0;
  plan->tail_tiles = k ? d.tailTiles : 0;
  plan->reduction_grid_x = k ? d.reductionGridX : 0;
}

mxgemm_status runtime::hipCall(Context &ctx, const char *what,
                               hipError_t error) {
  if (error == hipSuccess)
    return MXGEMM_STATUS_OK;
  return fail(MXGEMM_STATUS_HIP_ERROR,
              std::string(what) + ": " + ctx.hip.describe(error));
}
