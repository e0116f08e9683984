//===- CodeObjectTest.cpp - the code-object reader on bad input -----------===//
//
// The reader must give the compiler and the emulator the same fields from a
// real code object, and turn every corruption into an llvm::Error: flipped
// bytes anywhere in the file and in the msgpack metadata note (the old
// msgpack::Document reader died in llvm_unreachable on some of them),
// section headers, symbols and notes that point outside the file or whose
// offset + size wraps, truncation at every length, and ELF headers whose
// claims (for images without a size) are inconsistent.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Target/CodeObject.h"
#include "../Emulator/TestUtil.h"

#include "llvm/BinaryFormat/ELF.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mxgemm::target;

namespace {

/// Two kernels with a metadata note: `scale` with a required workgroup size
/// and hidden arguments, `plain` without.
const char *const Kernels = R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl scale
.p2align 8
.type scale,@function
scale:
  s_endpgm
.globl plain
.p2align 8
.type plain,@function
plain:
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel scale
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 40
  .amdhsa_group_segment_fixed_size 4096
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel plain
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
  .amdhsa_kernarg_size 0
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: scale
    .symbol: scale.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 4096
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 32
    .agpr_count: 4
    .max_flat_workgroup_size: 256
    .reqd_workgroup_size: [ 256, 1, 1 ]
    .args:
      - { .name: y, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: m, .offset: 8, .size: 4, .value_kind: by_value }
      - { .offset: 16, .size: 4, .value_kind: hidden_block_count_x }
      - { .offset: 32, .size: 2, .value_kind: hidden_group_size_x }
  - .name: plain
    .symbol: plain.kd
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 8
    .kernarg_segment_align: 4
    .max_flat_workgroup_size: 64
...
.end_amdgpu_metadata
)";

const std::vector<uint8_t> &object() {
  static std::vector<uint8_t> bytes = mxgemm::emu::test::assemble(Kernels);
  return bytes;
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  auto file = CodeObjectFile::parse(bytes);
  if (file)
    return "";
  return llvm::toString(file.takeError());
}

template <typename T>
void put(std::vector<uint8_t> &bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}
template <typename T> T get(const std::vector<uint8_t> &bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

/// File offset of section `name`'s header.
size_t sectionHeaderOffset(const std::vector<uint8_t> &bytes,
                           llvm::StringRef name) {
  auto file = CodeObjectFile::parse(bytes);
  EXPECT_TRUE(bool(file));
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  uint64_t shoff =
      get<uint64_t>(bytes, offsetof(llvm::ELF::Elf64_Ehdr, e_shoff));
  for (size_t i = 0; i < file->sections().size(); ++i)
    if (file->sections()[i].name == name)
      return shoff + i * sizeof(llvm::ELF::Elf64_Shdr);
  ADD_FAILURE() << "no section " << name.str();
  return 0;
}

TEST(CodeObject, ReadsDescriptorsAndMetadata) {
  const auto &bytes = object();
  ASSERT_FALSE(bytes.empty());
  auto file = CodeObjectFile::parse(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->machine(), unsigned(llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950));
  EXPECT_EQ(file->elfType(), llvm::ELF::ET_DYN);
  ASSERT_EQ(file->kernels().size(), 2u);
  const KernelSymbol &scale = file->kernels()[0];
  EXPECT_EQ(scale.name, "scale");
  EXPECT_EQ(scale.descriptor.kernargSize, 40u);
  EXPECT_EQ(scale.descriptor.groupSegmentFixedSize, 4096u);
  EXPECT_EQ(scale.descriptor.accumOffset(), 16u);
  EXPECT_FALSE(scale.descriptor.isWave32());
  const ElfSection *text = file->findSection(".text");
  ASSERT_TRUE(text);
  EXPECT_EQ(scale.entryAddress, text->address);
  EXPECT_EQ(file->kernels()[1].entryAddress, text->address + 256);

  ASSERT_TRUE(file->metadata().has_value());
  const CodeObjectMetadata &md = *file->metadata();
  EXPECT_EQ(md.target, "amdgcn-amd-amdhsa--gfx950");
  EXPECT_EQ(md.version[0], 1u);
  EXPECT_EQ(md.version[1], 2u);
  ASSERT_EQ(md.kernels.size(), 2u);
  const KernelMetadata *k = md.findKernel("scale");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->symbol, "scale.kd");
  EXPECT_EQ(k->vgprCount, 32u);
  EXPECT_EQ(k->agprCount, 4u);
  EXPECT_EQ(k->sgprCount, 16u);
  EXPECT_EQ(k->kernargSegmentSize, 40u);
  EXPECT_EQ(k->groupSegmentFixedSize, 4096u);
  EXPECT_EQ(k->maxFlatWorkgroupSize, 256u);
  EXPECT_EQ(k->wavefrontSize, 64u);
  EXPECT_TRUE(k->hasReqdWorkgroupSize());
  EXPECT_EQ(k->reqdWorkgroupSize[0], 256u);
  EXPECT_EQ(k->reqdWorkgroupSize[2], 1u);
  ASSERT_EQ(k->args.size(), 4u);
  EXPECT_TRUE(k->args[0].isGlobalBuffer());
  EXPECT_EQ(k->args[0].addressSpace, "global");
  EXPECT_EQ(k->args[1].valueKind, "by_value");
  EXPECT_TRUE(k->args[2].isHidden());
  EXPECT_EQ(k->explicitArgumentBytes(), 12u);
  EXPECT_EQ(k->accumOffset, std::optional<uint32_t>(16)) << "from the .kd";
  const KernelMetadata *plain = md.findKernel("plain");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->hasReqdWorkgroupSize());
  EXPECT_EQ(plain->agprCount, 0u) << "absent counts read as 0";

  // The compiler's entry point gives the same record.
  auto direct = readCodeObjectMetadata(llvm::StringRef(
      reinterpret_cast<const char *>(bytes.data()), bytes.size()));
  ASSERT_TRUE(bool(direct)) << llvm::toString(direct.takeError());
  EXPECT_EQ(direct->kernels[0].vgprCount, 32u);
}

TEST(CodeObject, CompilerReaderNeedsANote) {
  auto bytes = mxgemm::emu::test::assemble(R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl f
.p2align 8
f:
  s_endpgm
)" + mxgemm::emu::test::kernelDescriptor("f", 8));
  ASSERT_FALSE(bytes.empty());
  auto md = readCodeObjectMetadata(llvm::StringRef(
      reinterpret_cast<const char *>(bytes.data()), bytes.size()));
  ASSERT_FALSE(bool(md));
  EXPECT_NE(llvm::toString(md.takeError()).find("no AMDGPU metadata note"),
            std::string::npos);
}

TEST(CodeObject, EveryTruncationIsAnError) {
  const auto &bytes = object();
  ASSERT_FALSE(bytes.empty());
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
    EXPECT_NE(parseError(cut), "") << "prefix of " << len << " bytes";
  }
}

// Regression: one flipped byte in the msgpack note used to reach
// llvm_unreachable in msgpack::DocNode (SIGILL in `mxgemm-emu dump` and in
// hipModuleLoadData). Every flip of every note byte must parse or fail.
TEST(CodeObject, FlippedMetadataBytesNeverCrash) {
  const auto &bytes = object();
  ASSERT_FALSE(bytes.empty());
  size_t sh = sectionHeaderOffset(bytes, ".note");
  uint64_t offset = get<uint64_t>(bytes, sh + 0x18);
  uint64_t size = get<uint64_t>(bytes, sh + 0x20);
  ASSERT_GT(size, 100u);
  unsigned rejected = 0;
  for (uint64_t at = offset; at < offset + size; ++at)
    for (uint8_t mask : {0x01, 0x10, 0x80, 0xff}) {
      std::vector<uint8_t> bad = bytes;
      bad[at] ^= mask;
      rejected += !parseError(bad).empty();
    }
  EXPECT_GT(rejected, 0u);
}

TEST(CodeObject, FlippedBytesAnywhereNeverCrash) {
  const auto &bytes = object();
  ASSERT_FALSE(bytes.empty());
  for (size_t at = 0; at < bytes.size(); ++at)
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::vector<uint8_t> bad = bytes;
      bad[at] ^= mask;
      (void)parseError(bad);
    }
}

TEST(CodeObject, MsgpackOfTheWrongShapeIsAnError) {
  struct Case {
    std::string blob, expected;
  } cases[] = {
      {"", "truncated"},
      {"\x91\x01", "root is not a map"},
      // {[]: 1}: an array as a map key (msgpack::Document's assertion).
      {std::string("\x81\x90\x01", 3), "key that is not a string"},
      // {1.5: 1}
      {std::string("\x81\xca\x3f\xc0\x00\x00\x01", 7),
       "key that is not a string"},
      // {"amdhsa.kernels": 5}
      {"\x81\xae"
       "amdhsa.kernels\x05",
       "not an array"},
      // {"amdhsa.kernels": [7]}
      {"\x81\xae"
       "amdhsa.kernels\x91\x07",
       "is not a map"},
      // an array claiming 2^32-1 elements in a few bytes
      {"\x81\xae"
       "amdhsa.kernels" +
           std::string(5, '\xff').replace(0, 1, "\xdd"),
       "exceeds the note"},
      // trailing bytes after the root
      {std::string("\x80\x80", 2), "trailing bytes"},
  };
  for (const Case &c : cases) {
    auto md = parseMetadataNote(c.blob);
    ASSERT_FALSE(bool(md)) << c.expected;
    std::string message = llvm::toString(md.takeError());
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
  // 100000 nested arrays: bounded depth, not a stack overflow.
  std::string deep = "\x81\xae"
                     "amdhsa.kernels" +
                     std::string(100000, '\x91');
  auto md = parseMetadataNote(deep);
  ASSERT_FALSE(bool(md));
  EXPECT_NE(llvm::toString(md.takeError()).find("nested deeper"),
            std::string::npos);
}

TEST(CodeObject, KernelFieldsAreTypeChecked) {
  auto parse = [](const std::string &kernelMap) {
    std::string blob = "\x81\xae"
                       "amdhsa.kernels\x91" +
                       kernelMap;
    auto md = parseMetadataNote(blob);
    return md ? std::string() : llvm::toString(md.takeError());
  };
  // {".name": "k", ".vgpr_count": "x"}
  EXPECT_NE(parse("\x82\xa5.name\xa1k\xab.vgpr_count\xa1x")
                .find(".vgpr_count is not a non-negative integer"),
            std::string::npos);
  // {".name": "k", ".vgpr_count": -1}
  EXPECT_NE(parse("\x82\xa5.name\xa1k\xab.vgpr_count\xff").find("non-negative"),
            std::string::npos);
  // {".name": "k", ".vgpr_count": 2^32}
  EXPECT_NE(parse("\x82\xa5.name\xa1k\xab.vgpr_count" +
                  std::string("\xcf\x00\x00\x00\x01\x00\x00\x00\x00", 9))
                .find("out of range"),
            std::string::npos);
  // {".vgpr_count": 1}: no name
  EXPECT_NE(parse("\x81\xab.vgpr_count\x01").find("has no .name"),
            std::string::npos);
  // {".name": 7}
  EXPECT_NE(parse("\x81\xa5.name\x07").find("not a string"), std::string::npos);
  // {".name": "k", ".reqd_workgroup_size": [1, 2]}
  EXPECT_NE(parse("\x82\xa5.name\xa1k\xb4.reqd_workgroup_size\x92\x01\x02")
                .find("not an array of 3"),
            std::string::npos);
  // {".name": "k", ".args": [{".offset": 8, ".size": 8, ".value_kind":
  //  "by_value"}]} with no .kernarg_segment_size: outside the segment.
  EXPECT_NE(parse("\x82\xa5.name\xa1k\xa5.args\x91\x83\xa7.offset\x08\xa5."
                  "size\x08\xab.value_kind\xa8"
                  "by_value")
                .find("outside the 0-byte kernarg segment"),
            std::string::npos);
  // A well-formed kernel parses.
  EXPECT_EQ(parse("\x82\xa5.name\xa1k\xab.vgpr_count\x10"), "");
}

TEST(CodeObject, SectionRangesAreChecked) {
  const auto &bytes = object();
  ASSERT_FALSE(bytes.empty());
  // A note whose offset + size wraps around 2^64: a naive
  // `offset + size <= file size` accepts it.
  std::vector<uint8_t> bad = bytes;
  size_t note = sectionHeaderOffset(bad, ".note");
  put<uint64_t>(bad, note + 0x18, ~uint64_t(0) - 15);
  put<uint64_t>(bad, note + 0x20, 32);
  EXPECT_NE(parseError(bad).find("lies outside"), std::string::npos);
  // A note entry claiming more desc bytes than its section has.
  bad = bytes;
  uint64_t noteOffset = get<uint64_t>(bad, note + 0x18);
  put<uint32_t>(bad, noteOffset + 4, 0xfffffff0u);
  EXPECT_NE(parseError(bad).find("overruns the section"), std::string::npos);
  // .text past the end of the file.
  bad = bytes;
  size_t text = sectionHeaderOffset(bad, ".text");
  put<uint64_t>(bad, text + 0x20, bytes.size());
  EXPECT_NE(parseError(bad).find("lies outside"), std::string::npos);
  // A symbol name outside the string table.
  bad = bytes;
  size_t symtab = sectionHeaderOffset(bad, ".symtab");
  uint64_t symOffset = get<uint64_t>(bad, symtab + 0x18);
  put<uint32_t>(bad, symOffset + 24, 0x7fffffffu); // symbol 1's st_name
  EXPECT_NE(parseError(bad).find("outside its string table"),
            std::string::npos);
  // The section name table index out of range, a wrong entry size.
  bad = bytes;
  put<uint16_t>(bad, offsetof(llvm::ELF::Elf64_Ehdr, e_shstrndx), 999);
  EXPECT_NE(parseError(bad).find("not a section"), std::string::npos);
  bad = bytes;
  put<uint16_t>(bad, offsetof(llvm::ELF::Elf64_Ehdr, e_shentsize), 32);
  EXPECT_NE(parseError(bad).find("expected 64"), std::string::npos);
}

// The rule for images without a size (hipModuleLoadData): the size is what
// the header claims, checked for consistency, reading the header only.
TEST(CodeObject, ClaimedImageSize) {
  const auto &bytes = object();
  ASSERT_FALSE(bytes.empty());
  const uint64_t limit = 1 << 20;
  auto claimed = claimedImageSize(bytes.data(), limit);
  ASSERT_TRUE(bool(claimed)) << llvm::toString(claimed.takeError());
  EXPECT_EQ(*claimed, bytes.size()) << "section headers end the file";

  auto error = [&](std::vector<uint8_t> header) {
    auto size = claimedImageSize(header.data(), limit);
    return size ? std::string() : llvm::toString(size.takeError());
  };
  const size_t shoff = offsetof(llvm::ELF::Elf64_Ehdr, e_shoff);
  const size_t shnum = offsetof(llvm::ELF::Elf64_Ehdr, e_shnum);
  const size_t phoff = offsetof(llvm::ELF::Elf64_Ehdr, e_phoff);
  std::vector<uint8_t> h(bytes.begin(), bytes.begin() + 64);
  auto with = [&](size_t at, auto value) {
    std::vector<uint8_t> copy = h;
    put(copy, at, value);
    return copy;
  };
  // e_shoff past the limit, wrapping, misaligned, inside the ELF header.
  EXPECT_NE(error(with(shoff, uint64_t(1) << 40)).find("exceeds"),
            std::string::npos);
  EXPECT_NE(error(with(shoff, ~uint64_t(0) - 63)).find("exceeds"),
            std::string::npos);
  EXPECT_NE(error(with(shoff, uint64_t(0x1001))).find("misaligned"),
            std::string::npos);
  EXPECT_NE(error(with(shoff, uint64_t(8))).find("overlaps"),
            std::string::npos);
  // e_shnum: 0, reserved, beyond the limit.
  EXPECT_NE(error(with(shnum, uint16_t(0))).find("no section header"),
            std::string::npos);
  EXPECT_NE(error(with(shnum, uint16_t(0xff00))).find("reserved"),
            std::string::npos);
  // Program headers after the section headers.
  EXPECT_NE(error(with(phoff, uint64_t(bytes.size()))).find("precede"),
            std::string::npos);
  std::vector<uint8_t> notElf = h;
  notElf[0] = 0;
  EXPECT_NE(error(notElf).find("not an ELF"), std::string::npos);

  // Every single-byte corruption of the header gives an error or a size
  // within the limit.
  for (size_t at = 0; at < 64; ++at)
    for (uint8_t mask : {0x01, 0x08, 0x80, 0xff}) {
      std::vector<uint8_t> bad = h;
      bad[at] ^= mask;
      auto size = claimedImageSize(bad.data(), limit);
      if (size)
        EXPECT_LE(*size, limit);
      else
        llvm::consumeError(size.takeError());
    }
}

} // namespace
