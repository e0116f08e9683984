//===- QuantizeDescriptorTest.cpp - the quantize kernel's sidecar ---------===//

#include "mxgemm/Contract/QuantizeDescriptor.h"

#include "gtest/gtest.h"

#include <string>

using namespace mxgemm::contract;

namespace {

// What mxgemm-compile writes for a quantize kernel (fields in its order).
const std::string kValid = R"({
  "arguments": ["input", "codes", "scales", "m", "k"],
  "blocks_per_workgroup": 256,
  "code_object_sha256": "3b922229d454a5f4e7cdbae1035fa08fe518a76acdc143816e1709d7733427ab",
  "format": "e4m3",
  "in_type": "bf16",
  "kernel": "quantize_bf16_e4m3",
  "kind": "mxgemm-quantize",
  "llvm_version": "22.1.8",
  "mxgemm_version": "0.1.0",
  "resources": {"kernarg_segment_bytes": 32, "scratch_bytes": 0,
                "sgpr_count": 96, "vgpr_count": 156, "vgpr_spill_count": 0},
  "scale_layout": "row_major",
  "target": "amdgcn-amd-amdhsa--gfx950",
  "version": 1,
  "workgroup_size": 256
})";

std::string replaced(const std::string &from, const std::string &to) {
  std::string s = kValid;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(QuantizeDescriptor, ParsesWhatTheCompilerWrites) {
  QuantizeDescriptor d;
  ErrorMessage e = QuantizeDescriptor::parse(kValid, d);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(d.kernel, "quantize_bf16_e4m3");
  EXPECT_EQ(d.inType, "bf16");
  EXPECT_EQ(d.format, "e4m3");
  EXPECT_EQ(d.chip, "gfx950");
  EXPECT_EQ(d.kernargSegmentBytes, 32);
  EXPECT_EQ(d.vgprCount, 156);
  EXPECT_EQ(d.scaleLayout, ScaleLayout::RowMajor);
  for (auto [name, layout] :
       {std::pair{"mfma_16x16x128", ScaleLayout::Mfma16x16x128},
        std::pair{"mfma_32x32x64", ScaleLayout::Mfma32x32x64}}) {
    ASSERT_FALSE(QuantizeDescriptor::parse(
        replaced("\"row_major\"", std::string("\"") + name + "\""), d));
    EXPECT_EQ(d.scaleLayout, layout) << name;
  }
}

TEST(QuantizeDescriptor, RefusesWhatTheRuntimeCannotLaunch) {
  const struct {
    std::string text, message;
  } cases[] = {
      {replaced("\"mxgemm-quantize\"", "\"mxgemm-gemm\""), "kind"},
      {replaced("\"version\": 1", "\"version\": 2"), "version 2"},
      {replaced("\"in_type\": \"bf16\"", "\"in_type\": \"f64\""), "in_type"},
      {replaced("\"format\": \"e4m3\"", "\"format\": \"e2m1\""), "format"},
      {replaced("\"row_major\"", "\"tiled\""),
       "scale_layout 'tiled' is not row_major, mfma_16x16x128 or "
       "mfma_32x32x64"},
      {replaced("\"scales\", \"m\"", "\"m\", \"scales\""), "arguments"},
      {replaced("\"workgroup_size\": 256", "\"workgroup_size\": 128"),
       "workgroup_size"},
      {replaced("\"kernarg_segment_bytes\": 32",
                "\"kernarg_segment_bytes\": 24"),
       "kernarg_segment_bytes"},
      {replaced("\"vgpr_spill_count\": 0", "\"vgpr_spill_count\": 3"),
       "spills"},
      {replaced("\"3b92", "\"XX92"), "SHA-256"},
      {replaced("amdgcn-amd-amdhsa--gfx950", "gfx950"), "target"},
      {replaced("\"version\": 1,", "\"version\": 1, \"extra\": 0,"), "extra"},
      {replaced("\"version\": 1,", "\"version\": 1, \"version\": 1,"),
       "duplicate"},
      {replaced("\"kernel\": \"quantize_bf16_e4m3\",", ""), "kernel"},
      {"not json", "quantize descriptor"},
  };
  for (const auto &c : cases) {
    QuantizeDescriptor d;
    ErrorMessage e = QuantizeDescriptor::parse(c.text, d);
    ASSERT_TRUE(e) << c.message;
    EXPECT_NE(e->find(c.message), std::string::npos) << *e;
  }
}

} // namespace
