//===- KernelDescriptorTest.cpp - the v2 kernel descriptor ----------------===//
//
// A descriptor survives a JSON round trip; one that a person or another
// build edited (derived fields that disagree with the config, an unknown
// field, a bad hash, a duplicate key) is refused with a message.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/KernelDescriptor.h"

#include <gtest/gtest.h>

using namespace mxgemm::contract;
using mxgemm::target::kGFX950;

namespace {
/// The descriptor of `c` for wq_b's problem, with a compiler's resources.
KernelDescriptor described(const KernelConfig &c) {
  KernelDescriptor d =
      KernelDescriptor::describe("mxgemm_wq_b", {16384, 1280}, c, kGFX950);
  d.resources.vgprCount = 240;
  d.resources.kernargSegmentBytes = 44;
  d.codeObjectSha256 = std::string(64, 'a');
  d.mxgemmVersion = "0.1.0";
  d.llvmVersion = "22.1.8";
  return d;
}

KernelDescriptor sample() {
  KernelConfig c;
  c.tileN = 256;
  c.wavesM = 1;
  c.wavesN = 4;
  c.stageX = Staging::LdsAsync;
  c.stageW = Staging::PackedRegisters;
  c.stages = 2;
  c.groupM = 8;
  c.groupN = 4;
  c.xcdRemap = true;
  return described(c);
}

std::string parseError(const std::string &json) {
  KernelDescriptor d;
  ErrorMessage e = KernelDescriptor::parse(json, d);
  return e ? *e : "";
}

std::string replace(std::string s, const std::string &from,
                    const std::string &to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}
} // namespace

TEST(KernelDescriptorTest, DescribeDerivesGridMfmaArgumentsAndLayouts) {
  KernelDescriptor d = sample();
  EXPECT_EQ(d.mfma.kStep, 64);
  EXPECT_EQ(d.mfma.nonK, 32);
  EXPECT_EQ(d.workgroupSize, 256);
  EXPECT_EQ(d.grid.numTilesN, 64);
  EXPECT_EQ(d.grid.numXcds, 8);
  EXPECT_EQ(d.wLayout, WeightLayout::MfmaPanels);
  ASSERT_EQ(d.arguments.size(), 6u);
  EXPECT_EQ(d.findArgument("M")->offset, 40u);
  EXPECT_EQ(explicitArgumentBytes(d.arguments), 44u);
}

TEST(KernelDescriptorTest, RoundTrips) {
  KernelDescriptor d = sample();
  KernelDescriptor back;
  ErrorMessage e = KernelDescriptor::parse(d.toJson(), back);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(back.toJson(), d.toJson());
  EXPECT_EQ(back.config, d.config);
  EXPECT_EQ(back.problem, d.problem);
}

// A persistent kernel's grid cap is derived from its config: written only
// when set, refused when it disagrees.
TEST(KernelDescriptorTest, PersistentGridRoundTripsAndIsChecked) {
  KernelDescriptor d = sample();
  EXPECT_EQ(d.toJson().find("max_workgroups"), std::string::npos);
  EXPECT_EQ(d.toJson().find("persistent"), std::string::npos);
  d.config.persistent = 2;
  d.grid.maxWorkgroups = 512;
  const std::string json = d.toJson();
  EXPECT_NE(json.find("\"max_workgroups\": 512"), std::string::npos);
  EXPECT_NE(json.find("\"persistent\": 2"), std::string::npos);
  KernelDescriptor back;
  ErrorMessage e = KernelDescriptor::parse(json, back);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(back.grid.maxWorkgroups, 512);
  EXPECT_EQ(back.config, d.config);
  EXPECT_EQ(parseError(replace(json, "\"max_workgroups\": 512",
                               "\"max_workgroups\": 256")),
            "kernel descriptor: grid disagrees with the problem and config "
            "(expected what this build derives from them)");
  EXPECT_NE(parseError(replace(json, ",\n    \"max_workgroups\": 512", "")),
            "");
}

// unroll_k is written only when set, and read back.
TEST(KernelDescriptorTest, UnrollKRoundTrips) {
  KernelDescriptor d = sample();
  EXPECT_EQ(d.toJson().find("unroll_k"), std::string::npos);
  d.config.stageX = Staging::LdsAsync;
  d.config.stages = 2;
  d.config.unrollK = 4;
  const std::string json = d.toJson();
  EXPECT_NE(json.find("\"unroll_k\": 4"), std::string::npos);
  KernelDescriptor back;
  ErrorMessage e = KernelDescriptor::parse(json, back);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(back.config.unrollK, 4);
}

// A tail split's grid fields are written only when set and checked
// against the config.
TEST(KernelDescriptorTest, TailSplitGridRoundTripsAndIsChecked) {
  KernelDescriptor d = sample();
  EXPECT_EQ(d.toJson().find("tail_split"), std::string::npos);
  KernelConfig c = d.config;
  c.kSplits = 2;
  c.tailSplit = true;
  d = described(c);
  d.resources.kernargSegmentBytes = 64; // Work and Phase after M
  EXPECT_TRUE(d.grid.tailSplit);
  EXPECT_EQ(d.grid.roundWorkgroups, 256);
  const std::string json = d.toJson();
  EXPECT_NE(json.find("\"tail_split\": true"), std::string::npos);
  EXPECT_NE(json.find("\"round_workgroups\": 256"), std::string::npos);
  KernelDescriptor back;
  ErrorMessage e = KernelDescriptor::parse(json, back);
  ASSERT_FALSE(e) << *e;
  EXPECT_TRUE(back.config.tailSplit);
  EXPECT_EQ(back.grid.roundWorkgroups, 256);
  EXPECT_EQ(parseError(replace(json, "\"round_workgroups\": 256",
                               "\"round_workgroups\": 128")),
            "kernel descriptor: grid disagrees with the problem and config "
            "(expected what this build derives from them)");
}

// A boolean config field (xcd_remap, tail_split) takes true or false only.
TEST(KernelDescriptorTest, BooleanConfigFieldsRefuseOtherJson) {
  const std::string json = sample().toJson();
  for (const char *field : {"xcd_remap", "tail_split"}) {
    // The config's xcd_remap is the first one written.
    const std::string bad = replace(json, "\"xcd_remap\": true",
                                    "\"" + std::string(field) + "\": 1");
    EXPECT_EQ(parseError(bad), "kernel descriptor: config: field '" +
                                   std::string(field) +
                                   "': expected true or false, got number");
  }
}

TEST(KernelDescriptorTest, ConfigSourceIsOptional) {
  KernelDescriptor d = sample();
  EXPECT_EQ(d.toJson().find("config_source"), std::string::npos);
  d.configSource = "database:wq_b";
  EXPECT_NE(d.toJson().find("\"config_source\": \"database:wq_b\""),
            std::string::npos);
  KernelDescriptor back;
  ErrorMessage e = KernelDescriptor::parse(d.toJson(), back);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(back.configSource, "database:wq_b");
}

TEST(KernelDescriptorTest, EditedDescriptorsAreRefused) {
  const std::string json = sample().toJson();
  EXPECT_NE(
      parseError(replace(json, "\"num_tiles_n\": 64", "\"num_tiles_n\": 65")),
      "");
  EXPECT_NE(parseError(replace(json, "\"program_tile_m\": 128",
                               "\"program_tile_m\": 64")),
            "");
  EXPECT_NE(parseError(replace(json, "\"offset\": 40", "\"offset\": 44")), "");
  EXPECT_NE(parseError(replace(json, "\"w_layout\": \"mfma_panels\"",
                               "\"w_layout\": \"row_major\"")),
            "");
  EXPECT_NE(parseError(replace(json, "\"format_version\": 2",
                               "\"format_version\": 1")),
            "");
  EXPECT_NE(
      parseError(replace(json, "\"chip\": \"gfx950\"", "\"chip\": \"gfx942\"")),
      "");
  EXPECT_NE(parseError(replace(json, std::string(64, 'a'), "abc")), "");
  EXPECT_NE(parseError(replace(json, "\"waves_n\": 4", "\"waves_n\": 3")), "");
  EXPECT_NE(parseError(replace(json, "\"k\": 1280", "\"k\": 1290")), "");
  EXPECT_EQ(parseError(replace(json, "\"kernel\": \"mxgemm_wq_b\",",
                               "\"kernel\": \"mxgemm_wq_b\", \"kernel\": "
                               "\"other\",")),
            "kernel descriptor: not valid JSON: duplicate key 'kernel'");
  EXPECT_EQ(parseError(replace(json, "\"format_version\": 2,",
                               "\"format_version\": 2, \"extra\": 1,")),
            "kernel descriptor: field 'extra': not a known field (allowed: "
            "format_version, kernel, chip, target, problem, config, "
            "config_source, mfma, "
            "grid, arguments, w_layout, x_scale_layout, w_scale_layout, "
            "k_segments, resources, code_object, code_object_sha256, "
            "compiler)");
  EXPECT_EQ(parseError("[]"),
            "kernel descriptor: top level: expected an object, got array");
  EXPECT_NE(parseError(""), "");
  EXPECT_NE(parseError(std::string(100000, '[')), "");
}

// A generic kernel (run-time N and K): N and K are "?" in the JSON, the
// arguments N and K follow M, then the row strides of X, its scales and
// Y, the grid's tile columns wait for a call's N,
// and the problem rules that need static extents refuse what it cannot do.
TEST(KernelDescriptorTest, GenericKernelRoundTripsWithItsArguments) {
  GemmProblem p{kDynamicExtent, kDynamicExtent};
  ASSERT_FALSE(validateProblem(p, /*allowDynamic=*/true));
  EXPECT_TRUE(validateProblem(p)); // a call or a tuned key is never generic
  KernelConfig c;                  // direct loads, row-major order
  ASSERT_FALSE(verifyProblemConfig(p, c));
  KernelDescriptor d = KernelDescriptor::describe("g", p, c, kGFX950);
  EXPECT_EQ(d.grid.numTilesN, 0);
  EXPECT_EQ(d.grid.forN(1000).numTilesN, 8);
  EXPECT_EQ(*d.grid.forN(1000).numWorkgroups(333), 3 * 8);
  EXPECT_FALSE(d.grid.forN(0).numWorkgroups(1));
  ASSERT_EQ(d.arguments.size(), 11u);
  EXPECT_EQ(d.findArgument("N")->offset, 44u);
  EXPECT_EQ(d.findArgument("K")->offset, 48u);
  EXPECT_EQ(d.findArgument("ldX")->offset, 52u);
  EXPECT_EQ(d.findArgument("ldXs")->offset, 56u);
  EXPECT_EQ(d.findArgument("ldY")->offset, 60u);
  EXPECT_EQ(d.findArgument("ldY")->kind, ArgumentKind::I32);
  EXPECT_EQ(explicitArgumentBytes(d.arguments), 64u);
  // A static kernel's ABI is unchanged: no extents, no row strides.
  EXPECT_EQ(KernelDescriptor::describe("s", {4096, 1280}, c, kGFX950)
                .arguments.size(),
            6u);
  d.resources.kernargSegmentBytes = 64;
  d.codeObjectSha256 = std::string(64, 'a');
  const std::string json = d.toJson();
  EXPECT_NE(json.find("\"n\": \"?\""), std::string::npos);
  KernelDescriptor back;
  ErrorMessage e = KernelDescriptor::parse(json, back);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(back.problem, p);
  EXPECT_EQ(back.toJson(), json);
  // Only "?" stands for a run-time extent.
  EXPECT_NE(parseError(replace(json, "\"n\": \"?\"", "\"n\": \"any\"")), "");

  KernelConfig packed = c;
  packed.stageW = Staging::PackedRegisters;
  EXPECT_TRUE(verifyProblemConfig(p, packed));
  KernelConfig grouped = c;
  grouped.groupM = 8;
  EXPECT_TRUE(verifyProblemConfig(p, grouped));
  KernelConfig split = c;
  split.kSplits = 2;
  EXPECT_TRUE(verifyProblemConfig(p, split));
  // Register prefetch needs a K loop whose trip count is compiled in: a
  // run-time N alone is fine, a run-time K is not.
  KernelConfig prefetch = c;
  prefetch.stages = 2;
  EXPECT_EQ(verifyProblemConfig(p, prefetch).value_or(""),
            "a dynamic K cannot prefetch K tiles into registers (stages = 1)");
  EXPECT_FALSE(
      verifyProblemConfig(GemmProblem{kDynamicExtent, 1280}, prefetch));
}
