//===- MfmaTest.cpp - MFMA register layouts against docs/Design.md section 9
//----===//
//
// Runs v_mfma_scale_f32_{32x32x64,16x16x128}_f8f6f4 (and the unscaled forms)
// on random non-uniform FP8 data with a different random scale byte in every
// lane and byte, for all four format pairs and every op_sel byte select, and
// compares with an independent scalar evaluation of the section-9 formulas
// written here (long double sums; the data ranges are chosen so that the sum
// is exact and the single rounding to FP32 is the only one).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "mxgemm/Emulator/Emulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mxgemm::emu;

namespace {

/// Independent FP8 decoder (no numerics library on the expected side).
long double fp8(uint8_t bits, int format) {
  int sign = bits >> 7;
  int expBits = format == 0 ? 4 : 5, manBits = 7 - expBits;
  int bias = format == 0 ? 7 : 15;
  int e = (bits >> manBits) & ((1 << expBits) - 1);
  int man = bits & ((1 << manBits) - 1);
  long double v = e == 0 ? std::ldexp((long double)man, 1 - bias - manBits)
                         : std::ldexp((long double)((1 << manBits) | man),
                                      e - bias - manBits);
  return sign ? -v : v;
}

/// Random finite FP8 codes; E5M2 exponents are kept in [10, 20] so that the
/// expected sums stay exact in a long double.
uint8_t randomFp8(std::mt19937 &rng, int format) {
  while (true) {
    uint8_t b = uint8_t(rng());
    if (format == 0) {
      if ((b & 0x7f) != 0x7f)
        return b;
    } else {
      int e = (b >> 2) & 31;
      if (e >= 10 && e <= 20)
        return b;
    }
  }
}

struct Case {
  unsigned nonK;
  int fmtA, fmtB;
  unsigned selA, selB;
  bool scaled;
  std::string name() const {
    return "k" + std::to_string(nonK) + "_" + std::to_string(fmtA) +
           std::to_string(fmtB) + "_" + std::to_string(selA) +
           std::to_string(selB) + (scaled ? "" : "_unscaled");
  }
};

// Buffer layout (bytes): A lane-major 32 B/lane at 0, B at 2048, scale A
// dword per lane at 4096, scale B at 4352, C lane-major 64 B/lane at 4608.
constexpr unsigned OffB = 2048, OffSA = 4096, OffSB = 4352, OffC = 4608,
                   InBytes = 4608 + 4096;

std::string kernelSource(const std::vector<Case> &cases) {
  std::string s = ".amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"\n.text\n";
  for (const Case &c : cases) {
    unsigned outRegs = c.nonK == 32 ? 16 : 4;
    std::string n = c.name();
    s +=
        ".globl " + n + "\n.p2align 8\n.type " + n + ",@function\n" + n + ":\n";
    s += "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n"
         "  v_lshlrev_b32 v40, 5, v0\n" // lane * 32
         "  v_lshlrev_b32 v41, 2, v0\n" // lane * 4
         "  v_lshlrev_b32 v42, 6, v0\n" // lane * 64
         "  s_waitcnt lgkmcnt(0)\n"
         "  global_load_dwordx4 v[16:19], v40, s[4:5]\n"
         "  global_load_dwordx4 v[20:23], v40, s[4:5] offset:16\n"
         "  v_add_u32 v43, 2048, v40\n"
         "  global_load_dwordx4 v[24:27], v43, s[4:5]\n"
         "  global_load_dwordx4 v[28:31], v43, s[4:5] offset:16\n"
         "  v_add_u32 v44, 4096, v41\n"
         "  global_load_dword v32, v44, s[4:5]\n"
         "  global_load_dword v33, v44, s[4:5] offset:256\n"
         "  v_add_u32 v45, 4608, v42\n";
    for (unsigned i = 0; i < outRegs; i += 4)
      s += "  global_load_dwordx4 v[" + std::to_string(i) + ":" +
           std::to_string(i + 3) +
           "], v45, s[4:5] offset:" + std::to_string(4 * i) + "\n";
    s += "  s_waitcnt vmcnt(0)\n";
    std::string d = "v[0:" + std::to_string(outRegs - 1) + "]";
    std::string shape = c.nonK == 32 ? "32x32x64" : "16x16x128";
    std::string mods =
        " cbsz:" + std::to_string(c.fmtA) + " blgp:" + std::to_string(c.fmtB);
    if (c.scaled) {
      s += "  v_mfma_scale_f32_" + shape + "_f8f6f4 " + d +
           ", v[16:23], v[24:31], " + d + ", v32, v33 op_sel:[" +
           std::to_string(c.selA & 1) + "," + std::to_string(c.selB & 1) +
           ",0] op_sel_hi:[" + std::to_string(c.selA >> 1) + "," +
           std::to_string(c.selB >> 1) + ",0]" + mods + "\n";
    } else {
      s += "  v_mfma_f32_" + shape + "_f8f6f4 " + d + ", v[16:23], v[24:31], " +
           d + mods + "\n";
    }
    s += "  s_nop 15\n";
    for (unsigned i = 0; i < outRegs; i += 4)
      s += "  global_store_dwordx4 v42, v[" + std::to_string(i) + ":" +
           std::to_string(i + 3) + "], s[6:7] offset:" + std::to_string(4 * i) +
           "\n";
    s += "  s_endpgm\n";
    s += mxgemm::emu::test::kernelDescriptor(n, 16);
  }
  return s;
}

/// The section-9 formulas, evaluated directly.
std::vector<float> expected(const Case &c, const std::vector<uint8_t> &in) {
  unsigned nonK = c.nonK, K = 2048 / nonK, blocks = K / 32;
  unsigned outRegs = nonK == 32 ? 16 : 4;
  std::vector<long double> A(nonK * K), B(nonK * K);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned r = l % nonK, g = l / nonK;
    for (unsigned e = 0; e < 32; ++e) {
      unsigned k = nonK == 32 ? 32 * (e >> 4) + 16 * g + (e & 15)
                              : 64 * (e >> 4) + 16 * g + (e & 15);
      A[r * K + k] = fp8(in[l * 32 + e], c.fmtA);
      B[r * K + k] = fp8(in[OffB + l * 32 + e], c.fmtB); // B[k][r]
    }
  }
  auto scale = [&](unsigned off, unsigned row, unsigned b, unsigned sel) {
    if (!c.scaled)
      return 0;
    return int(in[off + 4 * (b * nonK + row) + sel]) - 127;
  };
  std::vector<float> out(64 * outRegs);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned r = l % nonK, g = l / nonK;
    for (unsigned i = 0; i < outRegs; ++i) {
      unsigned m = nonK == 32 ? 8 * (i >> 2) + 4 * g + (i & 3) : 4 * g + i;
      unsigned n = r;
      float cval;
      std::memcpy(&cval, &in[OffC + l * 64 + 4 * i], 4);
      long double sum = cval;
      for (unsigned b = 0; b < blocks; ++b) {
        long double dot = 0;
        for (unsigned k = 32 * b; k < 32 * b + 32; ++k)
          dot += A[m * K + k] * B[n * K + k];
        sum += std::ldexp(dot, scale(OffSA, m, b, c.selA) +
                                   scale(OffSB, n, b, c.selB));
      }
      out[l * outRegs + i] = float(sum);
    }
  }
  return out;
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (unsigned nonK : {32u, 16u})
    for (int fa = 0; fa < 2; ++fa)
      for (int fb = 0; fb < 2; ++fb) {
        for (unsigned sa = 0; sa < 4; ++sa)
          for (unsigned sb = 0; sb < 4; ++sb)
            cases.push_back({nonK, fa, fb, sa, sb, true});
        cases.push_back({nonK, fa, fb, 0, 0, false});
      }
  return cases;
}

TEST(Mfma, LayoutsFormatsAndByteSelects) {
  std::vector<Case> cases = allCases();
  std::vector<uint8_t> bytes = test::assemble(kernelSource(cases));
  ASSERT_FALSE(bytes.empty());
  auto co = CodeObject::load(bytes);
  ASSERT_TRUE(bool(co)) << llvm::toString(co.takeError());
  std::mt19937 rng(1234);
  unsigned checked = 0;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name());
    std::vector<uint8_t> in(InBytes);
    for (unsigned i = 0; i < 2048; ++i) {
      in[i] = randomFp8(rng, c.fmtA);
      in[OffB + i] = randomFp8(rng, c.fmtB);
    }
    // A different scale in every byte of every lane: a wrong lane, block or
    // byte select changes the result.
    for (unsigned i = OffSA; i < OffC; ++i)
      in[i] = uint8_t(124 + rng() % 7);
    for (unsigned i = 0; i < 64 * 16; ++i) {
      float cv = std::ldexp(float(int(rng() % (1 << 21)) - (1 << 20)), -18);
      std::memcpy(&in[OffC + 4 * i], &cv, 4);
    }
    DeviceMemory mem;
    uint64_t dIn = mem.allocate(in.size()), dOut = mem.allocate(64 * 64);
    mem.copyToDevice(dIn, in.data(), in.size());
    LaunchConfig cfg;
    cfg.workgroup[0] = 64;
    cfg.kernargs.resize(16);
    std::memcpy(cfg.kernargs.data(), &dIn, 8);
    std::memcpy(cfg.kernargs.data() + 8, &dOut, 8);
    const KernelInfo *k = (*co)->findKernel(c.name());
    ASSERT_NE(k, nullptr);
    auto r = launch(**co, *k, cfg, mem);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    EXPECT_EQ(r->totalFindings, 0u);
    EXPECT_EQ(r->stats.mfmaCount, 1u);
    unsigned outRegs = c.nonK == 32 ? 16 : 4;
    std::vector<float> got(64 * outRegs), raw(64 * 16);
    mem.copyFromDevice(raw.data(), dOut, raw.size() * 4);
    for (unsigned l = 0; l < 64; ++l) // the kernel stores 64 bytes per lane
      for (unsigned i = 0; i < outRegs; ++i)
        got[l * outRegs + i] = raw[l * 16 + i];
    std::vector<float> want = expected(c, in);
    unsigned bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (std::memcmp(&got[i], &want[i], 4) && bad++ < 3)
        ADD_FAILURE() << "lane " << i / outRegs << " reg " << i % outRegs
                      << ": got " << got[i] << " want " << want[i];
    EXPECT_EQ(bad, 0u);
    ++checked;
  }
  EXPECT_EQ(checked, 2u * 4u * 17u);
}

} // namespace
