//===- GemmLaunch.cpp - GEMM launches for the timing simulator ------------===//
//
// The sidecar is read by contract::KernelDescriptor (no second parser);
// prepareGemmLaunch lays out the section-4 ABI of docs/Design.md from the
// descriptor's problem, grid and arguments.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Simulator/GemmLaunch.h"

#include "mxgemm/Contract/Formats.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::sim;

Expected<contract::KernelDescriptor>
mxgemm::sim::readGemmSidecar(StringRef path) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    return createStringError(inconvertibleErrorCode(),
                             "sidecar '" + path + "': cannot read it");
  contract::KernelDescriptor d;
  if (contract::ErrorMessage e =
          contract::KernelDescriptor::parse((*buf)->getBuffer().str(), d))
    return createStringError(inconvertibleErrorCode(),
                             "sidecar '" + path + "': " + *e);
  return d;
}

Expected<Launch>
mxgemm::sim::prepareGemmLaunch(const contract::KernelDescriptor &d, int64_t m,
                               emu::DeviceMemory &memory, uint32_t phase) {
  auto fail = [](const Twine &msg) -> Error {
    return createStringError(inconvertibleErrorCode(), msg);
  };
  if (d.problem.isGeneric())
    return fail("kernel '" + Twine(d.kernel) +
                "' is generic (N or K \"?\"); the simulator takes kernels "
                "with static N and K");
  std::optional<int64_t> workgroups = d.grid.numWorkgroups(m);
  if (!workgroups)
    return fail("M = " + Twine(m) + " has no grid for this kernel");
  const contract::GemmProblem &p = d.problem;
  std::optional<contract::OperandBytes> bytes =
      contract::operandBytes(p, m, d.xScaleLayout, d.wScaleLayout);
  if (!bytes)
    return fail("M = " + Twine(m) + ": the operands' sizes overflow");
  uint64_t sizes[5] = {bytes->x, bytes->xScales, bytes->w, bytes->wScales,
                       bytes->y};
  std::string_view names[5] = {contract::kArgX, contract::kArgXScales,
                               contract::kArgW, contract::kArgWScales,
                               contract::kArgY};
  Launch l;
  // Split-K: x the tiles, y the K segments. A tail split: 1-D, the whole
  // tiles and the tail units, then the tail units alone.
  if (d.grid.tailSplit) {
    l.grid[0] =
        uint32_t(phase == 1 ? *d.grid.reductionWorkgroups(m) : *workgroups);
    // Whole tiles, then K segments: rounds unlike each other.
    l.alikeWorkgroups = phase == 1;
  } else {
    l.grid[0] = uint32_t(*workgroups / d.grid.kSplits);
    l.grid[1] = uint32_t(d.grid.kSplits);
  }
  l.workgroup[0] = uint32_t(d.workgroupSize);
  auto put = [&](uint32_t off, const void *v, size_t n) {
    if (l.kernargs.size() < off + n)
      l.kernargs.resize(off + n);
    std::memcpy(l.kernargs.data() + off, v, n);
  };
  for (unsigned i = 0; i < 5; ++i) {
    const contract::KernelArgument *a = d.findArgument(names[i]);
    if (!a || a->size != 8)
      return fail("the descriptor has no 8-byte argument " +
                  Twine(std::string(names[i])));
    uint64_t addr = memory.allocate(size_t(sizes[i]));
    if (!addr)
      return fail("out of host memory for the GEMM buffers");
    put(a->offset, &addr, 8);
  }
  const contract::KernelArgument *am = d.findArgument(contract::kArgM);
  if (!am || am->size != 4)
    return fail("the descriptor has no 4-byte argument M");
  uint32_t m32 = uint32_t(m);
  put(am->offset, &m32, 4);
  l.flops = 2.0 * double(m) * double(p.n) * double(p.k);
  l.description = "GEMM M=" + std::to_string(m) + " N=" + std::to_string(p.n) +
                  " K=" + std::to_string(p.k);
  const contract::KernelArgument *aw = d.findArgument(contract::kArgWorkspace);
  const contract::KernelArgument *ap = d.findArgument(contract::kArgPhase);
  if (bool(aw) != bool(ap) || (!ap && phase != 0) || phase > 1)
    return fail("phase " + Twine(phase) + " is not a launch of this kernel");
  if (ap) {
    std::optional<uint64_t> bytes =
        contract::splitWorkspaceBytes(p, d.config, m);
    // (A tail split without tail tiles needs none; the kernel still
    // takes a pointer.)
    uint64_t addr =
        bytes ? memory.allocate(size_t(std::max<uint64_t>(*bytes, 16))) : 0;
    if (!addr)
      return fail("out of host memory for the split-K workspace");
    put(aw->offset, &addr, 8);
    put(ap->offset, &phase, 4);
    if (phase == 1) {
      // The reduction does no MFMA work; its FLOPs belong to phase 0.
      l.flops = 0;
      l.description += " (split-K reduction)";
    }
  }
  return l;
}

Expected<GemmBounds> mxgemm::sim::gemmBounds(const contract::GemmProblem &p,
                                             int64_t m,
                                             const target::TargetModel &target,
                                             double clockHz) {
  std::optional<contract::OperandBytes> bytes = contract::operandBytes(p, m);
  if (!bytes || clockHz <= 0)
    return createStringError(inconvertibleErrorCode(),
                             "no bounds for M = " + Twine(m) +
                                 ", N = " + Twine(p.n) + ", K = " + Twine(p.k));
  const target::TimingModel &t = target.timing;
  const double mfmaFlopsPerSecond = double(target.mxfp8FlopsPerClockPerCu()) *
                                    double(target.numCus) * clockHz;
  GemmBounds b;
  b.memorySeconds = double(bytes->total()) / target.hbmBytesPerSecond;
  b.computeSeconds =
      2.0 * double(m) * double(p.n) * double(p.k) / mfmaFlopsPerSecond;
  // The model's own rules (CuModel): a load's data is ready at the earliest
  // one level latency less the isolated access's fixed cycles after its
  // issue; a store completes one L2 latency less those cycles after its
  // issue, and s_endpgm waits for it. (A latency that --set makes shorter
  // than those cycles counts as none here.)
  const double l2Beyond =
      (double(t.l2HitCycles) - t.isolatedVmemCycles()) / clockHz;
  const double firstBytes =
      double(t.workgroupLaunchCycles + t.smemLatencyCycles) / clockHz +
      std::max(0.0, l2Beyond + t.hbmExtraNs * 1e-9);
  const double lastStore = std::max(0.0, l2Beyond);
  b.latencyFloorSeconds =
      firstBytes +
      std::max(double(bytes->read()) / target.hbmBytesPerSecond,
               b.computeSeconds) +
      lastStore;
  return b;
}

Expected<std::optional<Prediction>> mxgemm::sim::simulateSplitKReduction(
    const emu::CodeObject &object, const emu::KernelInfo &kernel,
    const contract::KernelDescriptor &d, int64_t m,
    const target::TargetModel &target, const SimOptions &options) {
  if (!d.findArgument(contract::kArgPhase))
    return std::nullopt;
  // A tail split whose tiles fill whole rounds has no second launch.
  if (d.grid.tailSplit && d.grid.reductionWorkgroups(m).value_or(0) == 0)
    return std::nullopt;
  emu::DeviceMemory memory;
  Expected<Launch> launch = prepareGemmLaunch(d, m, memory, 1);
  if (!launch)
    return launch.takeError();
  Expected<Prediction> p =
      simulate(object, kernel, *launch, memory, target, options);
  if (!p)
    return p.takeError();
  return std::optional<Prediction>(std::move(*p));
}
