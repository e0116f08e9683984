//===- LoaderTest.cpp - code-object loader robustness and errors ----------===//
//
// The loader must turn every malformed input into an llvm::Error: objects
// truncated at many offsets, flipped bytes, foreign machines and targets,
// missing kernel descriptors, and instructions the emulator does not model
// (the message must name the instruction). Run under ASan for full value.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "mxgemm/Emulator/Emulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

using namespace mxgemm::emu;

namespace {

const char *const SimpleKernel = R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v0, s[4:5]
  s_endpgm
)";

std::vector<uint8_t> simpleObject() {
  static std::vector<uint8_t> bytes = test::assemble(
      std::string(SimpleKernel) + test::kernelDescriptor("k", 8));
  return bytes;
}

TEST(Loader, LoadsDescriptorAndRuns) {
  auto bytes = simpleObject();
  ASSERT_FALSE(bytes.empty());
  auto co = CodeObject::load(bytes);
  ASSERT_TRUE(bool(co)) << llvm::toString(co.takeError());
  ASSERT_EQ((*co)->kernels().size(), 1u);
  const KernelInfo &k = (*co)->kernels()[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.descriptor.kernargSize, 8u);
  EXPECT_EQ(k.descriptor.userSgprCount(), 2u);
  EXPECT_TRUE(k.descriptor.workgroupIdEnabled(0));
  DeviceMemory mem;
  uint64_t out = mem.allocate(256);
  LaunchConfig cfg;
  cfg.workgroup[0] = 64;
  cfg.kernargs.resize(8);
  std::memcpy(cfg.kernargs.data(), &out, 8);
  auto r = launch(**co, k, cfg, mem);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->totalFindings, 0u);
  uint32_t v[64];
  mem.copyFromDevice(v, out, 256);
  for (unsigned i = 0; i < 64; ++i)
    EXPECT_EQ(v[i], i);
}

TEST(Loader, TruncationNeverCrashes) {
  auto bytes = simpleObject();
  ASSERT_FALSE(bytes.empty());
  unsigned rejected = 0;
  for (size_t len = 0; len < bytes.size(); len += 7) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
    auto co = CodeObject::load(cut);
    if (!co) {
      ++rejected;
      llvm::consumeError(co.takeError());
    }
  }
  // Section headers sit at the end: every proper prefix is invalid.
  EXPECT_EQ(rejected, (bytes.size() + 6) / 7);
}

TEST(Loader, ByteFlipsNeverCrash) {
  auto bytes = simpleObject();
  ASSERT_FALSE(bytes.empty());
  std::mt19937 rng(7);
  DeviceMemory mem;
  uint64_t out = mem.allocate(256);
  for (unsigned trial = 0; trial < 500; ++trial) {
    std::vector<uint8_t> bad = bytes;
    unsigned flips = 1 + rng() % 4;
    for (unsigned f = 0; f < flips; ++f)
      bad[rng() % bad.size()] ^= uint8_t(1u << (rng() % 8));
    auto co = CodeObject::load(bad);
    if (!co) {
      llvm::consumeError(co.takeError());
      continue;
    }
    // Whatever loads must also launch without crashing (errors are fine).
    LaunchConfig cfg;
    cfg.workgroup[0] = 64;
    cfg.kernargs.resize(8);
    std::memcpy(cfg.kernargs.data(), &out, 8);
    cfg.maxInstructionsPerWorkgroup = 10000;
    for (const KernelInfo &k : (*co)->kernels()) {
      if (k.descriptor.groupSegmentFixedSize > 163840)
        continue;
      auto r = launch(**co, k, cfg, mem);
      if (!r)
        llvm::consumeError(r.takeError());
    }
  }
}

// Regression: one flipped byte in the msgpack metadata note reached
// llvm_unreachable in msgpack::DocNode (SIGILL in `mxgemm-emu dump`). Every
// flip of every note byte must load or fail with an error.
TEST(Loader, MetadataNoteFlipsNeverCrash) {
  const std::vector<uint8_t> &bytes = test::addObject();
  ASSERT_FALSE(bytes.empty());
  auto file = mxgemm::target::CodeObjectFile::parse(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const mxgemm::target::ElfSection *note = file->findSection(".note");
  ASSERT_TRUE(note);
  unsigned rejected = 0;
  for (uint64_t at = note->offset; at < note->offset + note->size; ++at)
    for (uint8_t mask : {0x01, 0xff}) {
      std::vector<uint8_t> bad = bytes;
      bad[at] ^= mask;
      auto co = CodeObject::load(bad);
      if (!co) {
        ++rejected;
        llvm::consumeError(co.takeError());
      }
    }
  EXPECT_GT(rejected, 0u);
}

std::string loadError(std::vector<uint8_t> bytes) {
  auto co = CodeObject::load(bytes);
  if (co)
    return "";
  return llvm::toString(co.takeError());
}

TEST(Loader, RejectsForeignObjects) {
  auto bytes = simpleObject();
  ASSERT_FALSE(bytes.empty());
  EXPECT_NE(loadError({}).find("not an ELF"), std::string::npos);
  auto wrongMachine = bytes;
  wrongMachine[18] = 62; // EM_X86_64
  EXPECT_NE(loadError(wrongMachine).find("EM_AMDGPU"), std::string::npos);
  auto wrongArch = bytes;
  wrongArch[48] = 0x40; // EF_AMDGPU_MACH_AMDGCN_GFX942 = 0x4c; 0x40 = gfx1030
  EXPECT_NE(loadError(wrongArch).find("not gfx950"), std::string::npos);
  auto wrongClass = bytes;
  wrongClass[4] = 1; // ELFCLASS32
  EXPECT_NE(loadError(wrongClass).find("64-bit"), std::string::npos);
}

TEST(Loader, MissingKernelDescriptor) {
  auto bytes = test::assemble(R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl f
f:
  s_endpgm
)");
  ASSERT_FALSE(bytes.empty());
  EXPECT_NE(loadError(bytes).find("no kernel descriptor"), std::string::npos);
}

TEST(Loader, UnknownOpcodeIsNamedAtLoad) {
  auto bytes = test::assemble(R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl k
.p2align 8
.type k,@function
k:
  v_sin_f32 v1, v0
  s_endpgm
)" + test::kernelDescriptor("k", 0));
  ASSERT_FALSE(bytes.empty());
  std::string err = loadError(bytes);
  EXPECT_NE(err.find("V_SIN_F32"), std::string::npos) << err;
  EXPECT_NE(err.find("not modelled"), std::string::npos) << err;
}

// Hidden arguments are filled from the note's value kinds; the dimension
// letter comes from the (untrusted) note and used to index the grid
// unchecked: hidden_block_count_w read grid[-1].
TEST(Loader, HiddenArgumentKindsAreChecked) {
  auto bytes = test::assemble(R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  v_mov_b32 v1, 0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s6
  global_store_dword v1, v2, s[4:5]
  s_endpgm
)" + test::kernelDescriptor("k", 16) +
                              R"(
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 32
    .vgpr_count: 128
    .max_flat_workgroup_size: 64
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .offset: 8, .size: 4, .value_kind: hidden_block_count_x }
...
.end_amdgpu_metadata
)");
  ASSERT_FALSE(bytes.empty());
  auto hiddenValue = [](const std::vector<uint8_t> &object) -> uint32_t {
    auto co = CodeObject::load(object);
    if (!co) {
      ADD_FAILURE() << llvm::toString(co.takeError());
      return ~0u;
    }
    DeviceMemory mem;
    uint64_t out = mem.allocate(4);
    LaunchConfig cfg;
    cfg.grid[0] = 3;
    cfg.workgroup[0] = 64;
    cfg.workgroupsToRun = {0};
    cfg.kernargs.resize(8);
    std::memcpy(cfg.kernargs.data(), &out, 8);
    auto r = launch(**co, (*co)->kernels()[0], cfg, mem);
    if (!r) {
      ADD_FAILURE() << llvm::toString(r.takeError());
      return ~0u;
    }
    uint32_t v = ~0u;
    mem.copyFromDevice(&v, out, 4);
    return v;
  };
  EXPECT_EQ(hiddenValue(bytes), 3u) << "hidden_block_count_x = grid x";
  // The same note with an unknown dimension letter: the argument stays 0.
  std::string kind = "hidden_block_count_x";
  auto at = std::search(bytes.begin(), bytes.end(), kind.begin(), kind.end());
  ASSERT_NE(at, bytes.end());
  std::vector<uint8_t> bad = bytes;
  bad[(at - bytes.begin()) + kind.size() - 1] = 'w';
  EXPECT_EQ(hiddenValue(bad), 0u);
}

TEST(Sampling, IncludesFirstLastAndEdges) {
  auto ids = sampleWorkgroups(100, 5, [](uint64_t i) { return i == 42; });
  EXPECT_EQ(ids.front(), 0u);
  EXPECT_EQ(ids.back(), 99u);
  EXPECT_NE(std::find(ids.begin(), ids.end(), 42u), ids.end());
}

} // namespace
