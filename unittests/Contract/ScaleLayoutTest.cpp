//===- ScaleLayoutTest.cpp - MFMA-native scale layouts
//---------------------===//
//
// Offsets worked out by hand from the lane layout of the scaled MFMAs
// (lane l = g * R + r reads row r, block g of a step; a dword holds four
// steps), the contiguity a wave's load relies on, the padded sizes with
// checked arithmetic, and the config and problem rules.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/ScaleLayout.h"
#include "mxgemm/Contract/KernelConfig.h"
#include "mxgemm/Contract/Problem.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace mxgemm::contract;
using mxgemm::target::kGFX950;
using mxgemm::target::MfmaShape;

TEST(ScaleLayoutTest, NamesRoundTrip) {
  for (ScaleLayout l : {ScaleLayout::RowMajor, ScaleLayout::Mfma16x16x128,
                        ScaleLayout::Mfma32x32x64})
    EXPECT_EQ(parseScaleLayout(scaleLayoutName(l)), l);
  EXPECT_EQ(parseScaleLayout("mfma"), std::nullopt);
  EXPECT_EQ(mfmaScaleLayout(MfmaShape::M16N16K128), ScaleLayout::Mfma16x16x128);
  EXPECT_EQ(scaleLayoutMfma(ScaleLayout::Mfma32x32x64), MfmaShape::M32N32K64);
  EXPECT_EQ(scaleLayoutMfma(ScaleLayout::RowMajor), std::nullopt);
}

TEST(ScaleLayoutTest, HandWorkedOffsets16x16x128) {
  // K = 1280: 40 blocks, 16 per chunk (4 steps of 4), so 3 chunks per
  // group of 16 rows.
  const ScaleLayout l = ScaleLayout::Mfma16x16x128;
  EXPECT_EQ(scaleByteOffset(l, 40, 0, 0), 0u);
  EXPECT_EQ(scaleByteOffset(l, 40, 1, 0), 4u);    // lane 1
  EXPECT_EQ(scaleByteOffset(l, 40, 0, 1), 64u);   // lane 16 (g = 1)
  EXPECT_EQ(scaleByteOffset(l, 40, 0, 4), 1u);    // step 1: byte 1
  EXPECT_EQ(scaleByteOffset(l, 40, 0, 16), 256u); // chunk 1
  EXPECT_EQ(scaleByteOffset(l, 40, 16, 0), 768u); // row group 1
  // Row 17 (group 1, r = 1), block 5 (step 1, g = 1): lane 17, byte 1.
  EXPECT_EQ(scaleByteOffset(l, 40, 17, 5), 768u + 17 * 4 + 1);
  EXPECT_EQ(scaleByteOffset(ScaleLayout::RowMajor, 40, 17, 5), 17u * 40 + 5);
}

TEST(ScaleLayoutTest, HandWorkedOffsets32x32x64) {
  // K = 1152: 36 blocks, 8 per chunk (4 steps of 2): 5 chunks.
  const ScaleLayout l = ScaleLayout::Mfma32x32x64;
  EXPECT_EQ(scaleByteOffset(l, 36, 31, 0), 124u); // lane 31
  EXPECT_EQ(scaleByteOffset(l, 36, 0, 1), 128u);  // lane 32 (g = 1)
  EXPECT_EQ(scaleByteOffset(l, 36, 0, 6), 3u);    // step 3: byte 3
  EXPECT_EQ(scaleByteOffset(l, 36, 0, 35), 4u * 256 + 128 + 1);
  EXPECT_EQ(scaleByteOffset(l, 36, 32, 0), 5u * 256);
}

TEST(ScaleLayoutTest, OneStepOfAWaveIsOneContiguousRun) {
  for (ScaleLayout l :
       {ScaleLayout::Mfma16x16x128, ScaleLayout::Mfma32x32x64}) {
    const int64_t rows = scaleLayoutRowGroup(l);
    const int64_t g = scaleLayoutBlocksPerStep(l);
    const int64_t kBlocks = 160;
    for (int64_t step : {0, 1, 3, 4, 9}) {
      const uint64_t base = scaleByteOffset(l, kBlocks, rows, step * g);
      for (int64_t lane = 0; lane < 64; ++lane)
        EXPECT_EQ(scaleByteOffset(l, kBlocks, rows + lane % rows,
                                  step * g + lane / rows),
                  base + 4 * uint64_t(lane))
            << scaleLayoutName(l) << " step " << step << " lane " << lane;
    }
  }
}

TEST(ScaleLayoutTest, PaddedSizesAndOverflow) {
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::Mfma16x16x128, 1, 40), 768u);
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::Mfma32x32x64, 33, 36), 2560u);
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::RowMajor, 3, 40), 120u);
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::Mfma16x16x128, 0, 40), std::nullopt);
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::RowMajor, 5, -1), std::nullopt);
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::RowMajor, big, big), std::nullopt);
  EXPECT_EQ(scaleTensorBytes(ScaleLayout::Mfma32x32x64, big, big),
            std::nullopt);
}

TEST(ScaleLayoutTest, PreshuffleRoundTripsAndRefusesShortBuffers) {
  std::mt19937 rng(7);
  for (ScaleLayout l :
       {ScaleLayout::Mfma16x16x128, ScaleLayout::Mfma32x32x64}) {
    const int64_t rows = 37, kBlocks = 36, ld = 40;
    std::vector<uint8_t> src(size_t(rows * ld));
    for (uint8_t &b : src)
      b = uint8_t(rng() % 255);
    std::vector<uint8_t> native(*scaleTensorBytes(l, rows, kBlocks));
    ASSERT_TRUE(preshuffleScales(l, src.data(), rows, kBlocks, ld,
                                 native.data(), native.size()));
    // Padding reads as 1.0 (127).
    EXPECT_EQ(native.back(), 127);
    std::vector<uint8_t> back(size_t(rows * kBlocks));
    ASSERT_TRUE(unshuffleScales(l, native.data(), native.size(), rows, kBlocks,
                                back.data(), back.size()));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t b = 0; b < kBlocks; ++b)
        ASSERT_EQ(back[size_t(r * kBlocks + b)], src[size_t(r * ld + b)]);
    std::vector<uint8_t> small(native.size() - 1, 0xab);
    EXPECT_FALSE(preshuffleScales(l, src.data(), rows, kBlocks, ld,
                                  small.data(), small.size()));
    EXPECT_EQ(small.front(), 0xab);
    EXPECT_FALSE(preshuffleScales(l, src.data(), rows, kBlocks, kBlocks - 1,
                                  native.data(), native.size()));
  }
}

namespace {
KernelConfig r2() {
  KernelConfig c;
  c.tileM = 128;
  c.tileN = 256;
  c.wavesM = 2;
  c.wavesN = 4;
  c.mfma = MfmaShape::M16N16K128;
  c.stageX = c.stageW = Staging::LdsAsync;
  c.stages = 3;
  c.ldsLayout = LdsLayout::Xor;
  c.schedule = Schedule::PingPong;
  return c;
}
} // namespace

TEST(ScaleLayoutTest, ConfigRules) {
  KernelConfig c = r2();
  c.xScaleLayout = ScaleLayout::Mfma16x16x128;
  EXPECT_EQ(verifyConfig(c, kGFX950), std::nullopt);
  c.xScaleLayout = ScaleLayout::Mfma32x32x64;
  ErrorMessage e = verifyConfig(c, kGFX950);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("use mfma_16x16x128"), std::string::npos) << *e;
  c.xScaleLayout = ScaleLayout::Mfma16x16x128;
  c.unrollK = 2;
  e = verifyConfig(c, kGFX950);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("unroll_k = 1"), std::string::npos) << *e;
  // The text form names the field only where it is set.
  c.unrollK = 1;
  EXPECT_NE(formatConfigBody(c).find("x_scale_layout = mfma_16x16x128"),
            std::string::npos);
  EXPECT_EQ(formatConfigBody(r2()).find("scale_layout"), std::string::npos);
}

TEST(ScaleLayoutTest, ProblemRules) {
  GemmProblem p;
  p.n = 2304;
  p.k = 5120;
  KernelConfig c = r2();
  c.wScaleLayout = ScaleLayout::Mfma16x16x128;
  ErrorMessage e = verifyProblemConfig(p, c); // block32x32 weight scales
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("per-row"), std::string::npos) << *e;
  p.wScale = ScaleGranularity::PerRow;
  EXPECT_EQ(verifyProblemConfig(p, c), std::nullopt);
  // The operand bytes count the padded tensors: 2304 rows are 144 groups
  // of 16, 160 blocks 10 chunks; 33 X rows are 3 groups.
  std::optional<OperandBytes> b =
      operandBytes(p, 33, ScaleLayout::Mfma16x16x128, c.wScaleLayout);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->xScales, 3u * 10 * 256);
  EXPECT_EQ(b->wScales, 144u * 10 * 256);
  EXPECT_EQ(operandBytes(p, 33)->xScales, 33u * 160);
}
