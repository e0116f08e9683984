//===- KernelConfigTest.cpp - the config contract without MLIR ------------===//
//
// The verifier's arithmetic on hostile values (no wrap, no division by
// zero), the field table's round trip, and the text form the IR printer
// and the runtime's plans share.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mxgemm::contract;
using mxgemm::target::kGFX950;

namespace {
std::string verify(const KernelConfig &c) {
  ErrorMessage e = verifyConfig(c, kGFX950);
  return e ? *e : "";
}
} // namespace

TEST(KernelConfigTest, DefaultsAreTheNaiveKernel) {
  KernelConfig c;
  EXPECT_EQ(verify(c), "");
  EXPECT_EQ(c.workgroupSize(kGFX950), 256);
  EXPECT_EQ(c.ldsBytes(), 0);
  EXPECT_EQ(c.accumulatorRegsPerLane(kGFX950), 64);
  EXPECT_EQ(formatConfigBody(c), "tile_m = 128, tile_n = 128, tile_k = 128, "
                                 "waves_m = 2, waves_n = 2, mfma = m32n32k64");
}

TEST(KernelConfigTest, HostileIntegersAreRangeErrorsNotWraps) {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  for (int field = 0; field < kNumConfigFields; ++field) {
    if (configFieldKind(field) != ConfigFieldKind::Integer)
      continue;
    for (int64_t v : {huge, int64_t(1) << 62, int64_t(-1),
                      std::numeric_limits<int64_t>::min()}) {
      KernelConfig c;
      ASSERT_FALSE(setConfigInteger(c, field, v));
      EXPECT_NE(verify(c), "") << configFieldName(field) << " = " << v;
    }
  }
  KernelConfig c;
  c.wavesM = int64_t(1) << 62; // waves_m * waves_n wrapped to 0 before
  c.wavesN = 4;
  EXPECT_EQ(verify(c), "waves_m and waves_n must be in 1..16, got "
                       "4611686018427387904 x 4");
}

TEST(KernelConfigTest, FieldTableRoundTrips) {
  KernelConfig c;
  c.tileN = 256;
  c.mfma = MfmaShape::M16N16K128;
  c.xcdRemap = true;
  c.stageW = Staging::PackedRegisters;
  c.ldsLayout = LdsLayout::Xor;
  c.schedule = Schedule::Interleave;
  c.tailSplit = true;
  KernelConfig back;
  for (int f = 0; f < kNumConfigFields; ++f) {
    std::string value = configFieldValue(c, f);
    ErrorMessage e = configFieldKind(f) == ConfigFieldKind::Integer
                         ? setConfigInteger(back, f, std::stoll(value))
                         : setConfigKeyword(back, f, value);
    ASSERT_FALSE(e) << *e;
    EXPECT_EQ(findConfigField(configFieldName(f)), f);
  }
  EXPECT_EQ(back, c);
  EXPECT_EQ(findConfigField("tile_q"), -1);
  EXPECT_TRUE(setConfigKeyword(back, findConfigField("mfma"), "m8n8k8"));
  EXPECT_TRUE(setConfigInteger(back, findConfigField("mfma"), 3));
}

TEST(ProblemTest, LimitsAndRules) {
  GemmProblem p{16384, 1280};
  EXPECT_FALSE(validateProblem(p));
  EXPECT_EQ(p.weightScaleRows(), 512);
  EXPECT_EQ(p.scaleColumns(), 40);
  GemmProblem zero{0, 1280};
  EXPECT_TRUE(validateProblem(zero));
  GemmProblem huge{int64_t(9223372036854775680ull), 128};
  EXPECT_TRUE(validateProblem(huge));
  GemmProblem odd{4096, 100};
  EXPECT_TRUE(validateProblem(odd));
  GemmProblem bf16In{4096, 128, ElementType::BF16};
  EXPECT_TRUE(validateProblem(bf16In));
  KernelConfig c;
  // N = 100 leaves the last tile column partial: masked for row-major W,
  // refused for MFMA panels. A K tail is masked on direct loads only.
  EXPECT_FALSE(verifyProblemConfig(GemmProblem{100, 256}, c));
  EXPECT_FALSE(verifyProblemConfig(GemmProblem{256, 192}, c));
  KernelConfig staged;
  staged.stageX = Staging::LdsAsync;
  EXPECT_TRUE(verifyProblemConfig(GemmProblem{256, 192}, staged));
  KernelConfig packed;
  packed.stageX = Staging::LdsAsync;
  packed.stageW = Staging::PackedRegisters;
  EXPECT_TRUE(verifyProblemConfig(GemmProblem{100, 256}, packed));
  EXPECT_FALSE(verifyProblemConfig(GemmProblem{256, 256}, c));
}

// Without an LDS ring, stages counts K tiles of register loads in flight
// (mxgemm-prefetch-registers): any depth of 1..4 verifies, and no LDS.
TEST(KernelConfigTest, StagesWithoutLdsArePrefetchDepth) {
  KernelConfig c;
  for (int64_t stages : {2, 3, 4}) {
    c.stages = stages;
    EXPECT_EQ(verify(c), "");
    EXPECT_EQ(c.ldsBytes(), 0);
  }
  c.stageW = Staging::PackedRegisters;
  EXPECT_EQ(verify(c), "");
  c.stages = 5;
  EXPECT_EQ(verify(c), "stages must be in 1..4, got 5");
}

// unroll_k unrolls the LDS ring's pipelined loop: 1..4, only with a ring.
TEST(KernelConfigTest, UnrollKNeedsAPipelinedRing) {
  KernelConfig c;
  c.unrollK = 2;
  EXPECT_NE(verify(c).find("unroll_k = 2 needs a pipelined LDS ring"),
            std::string::npos)
      << verify(c);
  c.stageW = Staging::LdsAsync;
  c.stages = 2;
  EXPECT_EQ(verify(c), "");
  c.unrollK = 4;
  EXPECT_EQ(verify(c), "");
  c.unrollK = 0;
  EXPECT_EQ(verify(c), "unroll_k must be in 1..4, got 0");
  c.unrollK = 5;
  EXPECT_EQ(verify(c), "unroll_k must be in 1..4, got 5");
  // In the text form only where it is not 1.
  c.unrollK = 2;
  EXPECT_NE(formatConfigBody(c).find("unroll_k = 2"), std::string::npos);
  c.unrollK = 1;
  EXPECT_EQ(formatConfigBody(c).find("unroll_k"), std::string::npos);
}

// tail_split splits the last round's tiles: it needs k_splits and a ring
// (its K loop's trip count is a run-time value).
TEST(KernelConfigTest, TailSplitNeedsKSplitsAndARing) {
  KernelConfig c;
  c.tailSplit = true;
  const std::string rule =
      "tail_split needs k_splits > 1, a pipelined LDS ring (stage_x or "
      "stage_w through LDS, stages >= 2), persistent = 0 and unroll_k = 1";
  EXPECT_EQ(verify(c), rule);
  c.kSplits = 2;
  EXPECT_EQ(verify(c), rule);
  c.stageX = c.stageW = Staging::LdsAsync;
  c.stages = 2;
  EXPECT_EQ(verify(c), "");
  c.unrollK = 2;
  EXPECT_EQ(verify(c), rule);
  c.unrollK = 1;
  c.kSplits = 1;
  EXPECT_EQ(verify(c), rule);
  c.kSplits = 4;
  EXPECT_NE(formatConfigBody(c).find("k_splits = 4, tail_split = true"),
            std::string::npos)
      << formatConfigBody(c);
  // Words other than true and false are refused.
  EXPECT_EQ(*setConfigKeyword(c, findConfigField("tail_split"), "yes"),
            "config field 'tail_split' expects true or false, got 'yes'");
}

TEST(KernelConfigTest, LdsAsyncStagesAreWholeCopies) {
  // global_load_lds_dwordx4 fills 1024 LDS bytes per wave instruction: 32
  // padded rows of 128 + 16 bytes (4608) are not whole copies, 32 plain or
  // XOR rows (4096) and 128 padded rows (18432) are.
  KernelConfig c;
  c.tileM = 32;
  c.wavesM = 1;
  c.stageX = Staging::LdsAsync;
  c.stages = 2;
  c.ldsLayout = LdsLayout::Padded;
  EXPECT_NE(verify(c).find("a stage of X (32 rows of 144 bytes"),
            std::string::npos)
      << verify(c);
  c.ldsLayout = LdsLayout::Xor;
  EXPECT_EQ(verify(c), "");
  c.tileM = 128;
  c.wavesM = 2;
  c.ldsLayout = LdsLayout::Padded;
  EXPECT_EQ(verify(c), "");
  c.stageW = Staging::LdsAsync;
  c.tileN = 32;
  c.wavesN = 1;
  EXPECT_NE(verify(c).find("a stage of W"), std::string::npos) << verify(c);
  c.stageW = Staging::LdsSync; // through VGPRs: no 1024-byte rule
  EXPECT_EQ(verify(c), "");
}
