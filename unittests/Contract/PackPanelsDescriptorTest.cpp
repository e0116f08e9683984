//===- PackPanelsDescriptorTest.cpp - the packing kernel's sidecar --------===//

#include "mxgemm/Contract/PackPanelsDescriptor.h"

#include "gtest/gtest.h"

#include <string>

using namespace mxgemm::contract;

namespace {

// What mxgemm-compile writes for a packing kernel (fields in its order).
const std::string kValid = R"({
  "arguments": ["w", "packed", "n", "k"],
  "code_object_sha256": "3b922229d454a5f4e7cdbae1035fa08fe518a76acdc143816e1709d7733427ab",
  "k_step": 64,
  "kernel": "mxgemm_pack_panels_32",
  "kind": "mxgemm-pack-panels",
  "llvm_version": "22.1.8",
  "mfma": "m32n32k64",
  "mxgemm_version": "0.1.0",
  "non_k": 32,
  "panels_per_workgroup": 4,
  "resources": {"kernarg_segment_bytes": 24, "scratch_bytes": 0,
                "sgpr_count": 20, "vgpr_count": 12, "vgpr_spill_count": 0},
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

TEST(PackPanelsDescriptor, ParsesWhatTheCompilerWrites) {
  PackPanelsDescriptor d;
  ErrorMessage e = PackPanelsDescriptor::parse(kValid, d);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(d.kernel, "mxgemm_pack_panels_32");
  EXPECT_EQ(d.mfma, "m32n32k64");
  EXPECT_EQ(d.nonK, 32);
  EXPECT_EQ(d.kStep, 64);
  EXPECT_EQ(d.chip, "gfx950");
  EXPECT_EQ(d.kernargSegmentBytes, 24);
  // The other MFMA shape.
  std::string s16 = replaced("\"m32n32k64\"", "\"m16n16k128\"");
  s16.replace(s16.find("\"k_step\": 64"), 12, "\"k_step\": 128");
  s16.replace(s16.find("\"non_k\": 32"), 11, "\"non_k\": 16");
  e = PackPanelsDescriptor::parse(s16, d);
  ASSERT_FALSE(e) << *e;
  EXPECT_EQ(d.nonK, 16);
}

TEST(PackPanelsDescriptor, RefusesWhatTheRuntimeCannotLaunch) {
  const struct {
    std::string text, message;
  } cases[] = {
      {replaced("\"mxgemm-pack-panels\"", "\"mxgemm-quantize\""), "kind"},
      {replaced("\"version\": 1", "\"version\": 2"), "version 2"},
      {replaced("\"m32n32k64\"", "\"m16n16k64\""), "mfma"},
      {replaced("\"non_k\": 32", "\"non_k\": 16"), "non_k 16"},
      {replaced("\"k_step\": 64", "\"k_step\": 128"), "k_step 128"},
      {replaced("\"panels_per_workgroup\": 4", "\"panels_per_workgroup\": 8"),
       "panels_per_workgroup"},
      {replaced("\"packed\", \"n\"", "\"n\", \"packed\""), "arguments"},
      {replaced("\"workgroup_size\": 256", "\"workgroup_size\": 64"),
       "workgroup_size"},
      {replaced("\"kernarg_segment_bytes\": 24",
                "\"kernarg_segment_bytes\": 16"),
       "kernarg_segment_bytes"},
      {replaced("\"scratch_bytes\": 0", "\"scratch_bytes\": 16"), "scratch"},
      {replaced("\"3b92", "\"XX92"), "SHA-256"},
      {replaced("amdgcn-amd-amdhsa--gfx950", "gfx950"), "target"},
      {replaced("\"version\": 1,", "\"version\": 1, \"in_type\": \"bf16\","),
       "in_type"},
      {replaced("\"non_k\": 32,", ""), "non_k"},
      {"[]", "pack-panels descriptor"},
  };
  for (const auto &c : cases) {
    PackPanelsDescriptor d;
    ErrorMessage e = PackPanelsDescriptor::parse(c.text, d);
    ASSERT_TRUE(e) << c.message;
    EXPECT_NE(e->find(c.message), std::string::npos) << *e;
    EXPECT_EQ(e->rfind("pack-panels descriptor: ", 0), 0u) << *e;
  }
}

} // namespace
