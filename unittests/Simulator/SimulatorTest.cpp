//===- SimulatorTest.cpp - unit tests of the timing simulator -------------===//
//
// The pieces of mxgemm-sim that the lit calibration record does not pin:
// the LDS bank rule for every width, the target-table hash, occupancy from
// the unified register file, issue arbitration by s_setprio, the L2's
// write-back of stored lines, and a GEMM problem's bounds. Kernels are
// assembled with the configured llvm-mc and ld.lld.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Simulator/Simulator.h"
#include "../../lib/Simulator/CacheModel.h"
#include "../../lib/Simulator/SimulatorImpl.h"
#include "../Emulator/TestUtil.h"
#include "mxgemm/Simulator/GemmLaunch.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mxgemm;

namespace {

TEST(LdsBankRule, Widths) {
  uint32_t addr[64];
  uint64_t all = ~0ull;
  // b128, 16 B per lane, consecutive: each phase of 16 lanes covers the 64
  // banks once: 4 cycles (1 KB at 256 B/clk).
  for (unsigned l = 0; l < 64; ++l)
    addr[l] = 16 * l;
  EXPECT_EQ(sim::ldsServiceCycles(addr, all, 16), 4u);
  // 32 B stride: two lanes per bank group, a two-way conflict.
  for (unsigned l = 0; l < 64; ++l)
    addr[l] = 32 * l;
  EXPECT_EQ(sim::ldsServiceCycles(addr, all, 16), 8u);
  // b64 consecutive: two phases of 32 lanes, conflict-free.
  for (unsigned l = 0; l < 64; ++l)
    addr[l] = 8 * l;
  EXPECT_EQ(sim::ldsServiceCycles(addr, all, 8), 2u);
  // b32: one dword for every lane is a broadcast; one bank, 64 dwords is a
  // 64-way conflict.
  for (unsigned l = 0; l < 64; ++l)
    addr[l] = 0;
  EXPECT_EQ(sim::ldsServiceCycles(addr, all, 4), 1u);
  for (unsigned l = 0; l < 64; ++l)
    addr[l] = 256 * l;
  // 64 cycles, as measured for ds_read_b32 (tingqli/pyhip mem_latency.md).
  EXPECT_EQ(sim::ldsServiceCycles(addr, all, 4), 64u);
  // Inactive lanes cost nothing.
  EXPECT_EQ(sim::ldsServiceCycles(addr, 0, 16), 0u);
}

TEST(TargetHash, EveryTimingFigureCounts) {
  std::string base = sim::targetModelHash(target::kGFX950);
  EXPECT_EQ(base, sim::targetModelHash(target::kGFX950));
  for (const sim::TimingField &f : sim::timingFields()) {
    target::TargetModel t = target::kGFX950;
    f.set(t.timing, f.get(t.timing) * 2 + 1);
    EXPECT_NE(sim::targetModelHash(t), base) << f.name;
  }
}

/// A kernel of `waves` waves that runs `n` VALU adds; optionally the second
/// half of the waves raise their priority first.
std::vector<uint8_t> valuKernel(unsigned vgprs, unsigned accumOffset,
                                bool priority) {
  std::string s = ".amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"\n.text\n"
                  ".globl k\n.p2align 8\nk:\n";
  if (priority) {
    // Waves 4..7 (v0 >= 256) take priority 3.
    s += "  v_cmp_le_u32 vcc, 0x100, v0\n"
         "  s_cbranch_vccz 1f\n"
         "  s_setprio 3\n"
         "1:\n";
  }
  s += "  s_movk_i32 s4, 64\n"
       "2:\n";
  for (unsigned i = 0; i < 16; ++i)
    s += "  v_add_u32 v" + std::to_string(1 + i % 8) + ", 1, v" +
         std::to_string(1 + i % 8) + "\n";
  s += "  s_sub_u32 s4, s4, 1\n"
       "  s_cmp_lg_u32 s4, 0\n"
       "  s_cbranch_scc1 2b\n"
       "  s_endpgm\n"
       ".rodata\n.p2align 6\n.amdhsa_kernel k\n"
       "  .amdhsa_next_free_vgpr " +
       std::to_string(vgprs) +
       "\n"
       "  .amdhsa_next_free_sgpr 16\n"
       "  .amdhsa_accum_offset " +
       std::to_string(accumOffset) +
       "\n"
       "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
       ".end_amdhsa_kernel\n";
  return emu::test::assemble(s);
}

sim::Prediction run(const std::vector<uint8_t> &bytes, unsigned threads,
                    unsigned workgroups) {
  auto co = emu::CodeObject::load(bytes);
  EXPECT_TRUE(bool(co));
  if (!co)
    return {};
  emu::DeviceMemory mem;
  sim::Launch launch;
  launch.grid[0] = workgroups;
  launch.workgroup[0] = threads;
  sim::SimOptions options;
  options.onlyClockHz = 2.4e9;
  auto p = sim::simulate(**co, (*co)->kernels().front(), launch, mem,
                         target::kGFX950, options);
  EXPECT_TRUE(bool(p)) << (p ? "" : llvm::toString(p.takeError()));
  return p ? *p : sim::Prediction();
}

TEST(Occupancy, AgprsShareTheVgprAllocation) {
  // 300 registers with the AGPRs from accum_offset 256: one wave per SIMD
  // (512 / 304), not counted twice.
  sim::Prediction a = run(valuKernel(300, 256, false), 256, 1);
  EXPECT_EQ(a.vgprsAllocated, 304u);
  EXPECT_EQ(a.occupancy, 1u);
  EXPECT_EQ(a.occupancyLimit, "registers");
  // 240 registers: two waves per SIMD, two 4-wave workgroups per CU.
  sim::Prediction b = run(valuKernel(240, 240, false), 256, 1);
  EXPECT_EQ(b.occupancy, 2u);
}

TEST(Arbitration, PriorityBeforeAge) {
  // Eight waves, two per SIMD, all VALU-bound: the wave a SIMD serves first
  // loses no turns. Without s_setprio the older waves (0..3) win; with
  // waves 4..7 at priority 3 those win.
  auto contention = [](const sim::Prediction &p, unsigned w) {
    return p.sustained.stalls.at(w)[sim::StallIssue];
  };
  sim::Prediction plain = run(valuKernel(64, 64, false), 512, 1);
  ASSERT_EQ(plain.sustained.stalls.size(), 8u);
  EXPECT_LT(contention(plain, 0), contention(plain, 4));
  sim::Prediction prio = run(valuKernel(64, 64, true), 512, 1);
  ASSERT_EQ(prio.sustained.stalls.size(), 8u);
  EXPECT_LT(contention(prio, 4), contention(prio, 0));
}

TEST(CacheHierarchy, StoresMergeInTheWriteBackL2) {
  // One wave stores lines 0..3 four times each (four partial-line stores
  // per line, as a store of 16 bytes per row does), then line 4 once: five
  // lines go back to HBM, not 17, and the later stores into a dirty line
  // are marked merged (the CU model charges them no HBM write-back).
  sim::WaveTrace wave;
  auto store = [&](uint64_t line) {
    sim::GlobalOp op;
    op.firstRun = uint32_t(wave.runs.size());
    op.numRuns = 1;
    op.numLines = 1;
    op.activeLanes = 64;
    op.bytesPerLane = 8;
    op.kind = sim::GlobalKind::Store;
    wave.runs.push_back({line, 1});
    wave.globalOps.push_back(op);
  };
  for (unsigned pass = 0; pass < 4; ++pass)
    for (uint64_t line = 0; line < 4; ++line)
      store(line);
  store(4);
  sim::CacheHierarchy caches(target::kGFX950, 1);
  std::vector<sim::CacheHierarchy::Stream> streams = {{0, 0, &wave, true}};
  sim::RoundTraffic traffic = caches.runRound(streams);
  EXPECT_EQ(traffic.storeLines, 17u);
  EXPECT_EQ(traffic.hbmLines, 5u);
  EXPECT_EQ(traffic.cu0HbmLines, 5u);
  ASSERT_EQ(wave.levels.size(), 17u);
  for (size_t i = 0; i < wave.levels.size(); ++i) {
    bool merged = wave.levels[i] & sim::LevelMerged;
    EXPECT_EQ(merged, i >= 4 && i < 16) << "store " << i;
    EXPECT_EQ(wave.levels[i] & sim::LevelMask, sim::LevelStore);
  }
}

// A split-K kernel's two launches: the time is the sum and every rate is
// over that sum (hand-computed figures), so TFLOPS x time = FLOPs again.
TEST(AppendLaunch, RatesOverBothLaunches) {
  sim::Prediction first, second;
  first.flops = 3e9;
  first.hasSustained = second.hasSustained = true;
  first.sustained.cycles = 3000;
  first.sustained.seconds = 3e-6;
  first.sustained.tflops = 1000;      // 3e9 / 3e-6
  first.sustained.percentOfPeak = 20; // of a 5000 TFLOP/s peak
  first.sustained.mfmaUtilisation = 0.4;
  first.sustained.limiter = "barrier";
  second.sustained.cycles = 1000;
  second.sustained.seconds = 1e-6;
  second.sustained.mfmaUtilisation = 0; // the reduction has no MFMAs
  second.sustained.limiter = "hbm";
  sim::appendLaunch(first, second);
  EXPECT_DOUBLE_EQ(first.flops, 3e9);
  EXPECT_DOUBLE_EQ(first.sustained.cycles, 4000);
  EXPECT_DOUBLE_EQ(first.sustained.seconds, 4e-6);
  EXPECT_DOUBLE_EQ(first.sustained.tflops, 750);
  EXPECT_DOUBLE_EQ(first.sustained.percentOfPeak, 15);
  EXPECT_DOUBLE_EQ(first.sustained.mfmaUtilisation, 0.3);
  EXPECT_EQ(first.sustained.limiter, "barrier");
  // No peak-clock prediction in either: nothing to add there.
  EXPECT_FALSE(first.hasPeak);
  EXPECT_DOUBLE_EQ(first.peak.seconds, 0);
}

// wq_b at M = 16 (N = 16384, K = 1280, 32x32-block W scales, BF16 Y), by
// hand: X 20480 B, Xs 640, W 20971520, Ws 512 x 40 = 20480, Y 524288; read
// 21013120 B, all 21537408 B. At 1.58 GHz: memory 21537408 / 8e12 s; compute
// 2 x 16 x 16384 x 1280 / (8192 x 256 x 1.58e9) s; the floor 664 cycles
// (launch 200, kernel arguments 200, L2 300, less 36 fixed cycles of a
// dwordx4: 4 issue, 16 address, 16 return) + 145.833 ns of HBM latency,
// then the read bytes at 8 TB/s (more than the compute), then a store's
// 300 - 36 cycles into the L2.
TEST(GemmBounds, HandComputedForWqB) {
  contract::GemmProblem p;
  p.n = 16384;
  p.k = 1280;
  std::optional<contract::OperandBytes> bytes = contract::operandBytes(p, 16);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->x, 20480u);
  EXPECT_EQ(bytes->xScales, 640u);
  EXPECT_EQ(bytes->w, 20971520u);
  EXPECT_EQ(bytes->wScales, 20480u);
  EXPECT_EQ(bytes->y, 524288u);
  llvm::Expected<sim::GemmBounds> b =
      sim::gemmBounds(p, 16, target::kGFX950, 1.58e9);
  ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
  EXPECT_NEAR(b->memorySeconds * 1e6, 2.692176, 1e-6);
  EXPECT_NEAR(b->computeSeconds * 1e6, 0.202532, 1e-6);
  EXPECT_NEAR(b->latencyFloorSeconds * 1e6,
              664 / 1.58e3 + 0.145833 + 21013120 / 8e6 + 264 / 1.58e3, 1e-6);
  EXPECT_DOUBLE_EQ(b->roofline(), b->memorySeconds);
  // Compute-bound at a large M: the floor is the compute time between the
  // first bytes' latency and the last store's.
  llvm::Expected<sim::GemmBounds> big =
      sim::gemmBounds(p, 16384, target::kGFX950, 1.58e9);
  ASSERT_TRUE(bool(big));
  EXPECT_NEAR(big->latencyFloorSeconds - big->computeSeconds,
              (664 + 264) / 1.58e9 + 145.833e-9, 1e-12);
  // Generic problems and M outside 1..2^31-1 have no bounds.
  EXPECT_FALSE(contract::operandBytes(p, 0));
  llvm::Expected<sim::GemmBounds> none =
      sim::gemmBounds(p, 0, target::kGFX950, 1.58e9);
  EXPECT_FALSE(bool(none));
  llvm::consumeError(none.takeError());
  contract::GemmProblem generic = p;
  generic.n = contract::kDynamicExtent;
  EXPECT_FALSE(contract::operandBytes(generic, 16));
  contract::GemmProblem huge = p;
  huge.n = contract::kMaxProblemExtent + 1;
  EXPECT_FALSE(contract::operandBytes(huge, 16));
}

} // namespace
