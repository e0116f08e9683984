//===- TestUtil.cpp - assemble gfx950 kernels for emulator tests
//-----------===//
//
// Runs llvm-mc and ld.lld from the LLVM the project was configured with in a
// private temporary directory.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace llvm;

std::vector<uint8_t> mxgemm::emu::test::assemble(const std::string &source) {
  SmallString<128> dir;
  if (sys::fs::createUniqueDirectory("mxgemm-emu-test", dir)) {
    ADD_FAILURE() << "cannot create a temporary directory";
    return {};
  }
  std::string s = (dir + "/k.s").str(), o = (dir + "/k.o").str(),
              h = (dir + "/k.hsaco").str(), log = (dir + "/log").str();
  {
    std::error_code ec;
    raw_fd_ostream os(s, ec);
    os << source;
  }
  std::string tools = MXGEMM_LLVM_TOOLS_DIR;
  std::string cmd = tools +
                    "/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 "
                    "-filetype=obj " +
                    s + " -o " + o + " 2>" + log + " && " + tools +
                    "/ld.lld -shared " + o + " -o " + h + " 2>>" + log;
  std::vector<uint8_t> bytes;
  if (std::system(cmd.c_str()) != 0) {
    auto err = MemoryBuffer::getFile(log);
    ADD_FAILURE() << "assembling failed:\n"
                  << (err ? (*err)->getBuffer().str() : std::string());
  } else if (auto buf = MemoryBuffer::getFile(h)) {
    StringRef b = (*buf)->getBuffer();
    bytes.assign(b.begin(), b.end());
  }
  sys::fs::remove_directories(dir);
  return bytes;
}

std::string mxgemm::emu::test::kernelDescriptor(const std::string &name,
                                                unsigned kernargBytes,
                                                unsigned ldsBytes) {
  return ".rodata\n.p2align 6\n.amdhsa_kernel " + name +
         "\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 32\n"
         "  .amdhsa_accum_offset 64\n"
         "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
         "  .amdhsa_system_sgpr_workgroup_id_x 1\n"
         "  .amdhsa_kernarg_size " +
         std::to_string(kernargBytes) +
         "\n  .amdhsa_group_segment_fixed_size " + std::to_string(ldsBytes) +
         "\n.end_amdhsa_kernel\n.text\n";
}
