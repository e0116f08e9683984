//===- Mfma.cpp - block-scaled FP8 MFMA handlers
//---------------------------===//
//
// v_mfma_scale_f32_{32x32x64,16x16x128}_f8f6f4 and their unscaled forms for
// FP8 operands (E4M3/E5M2 via cbsz/blgp). The register layouts are exactly
// those of docs/Design.md section 9: the handler first gathers the A rows, B
// columns and per-32-block scale bytes into dense K-ordered arrays, then
// computes the whole tile with numerics::mxMfmaTile (bit-identical to the
// per-element numerics::mxStepAccumulate the CPU reference uses), so a
// correct kernel matches the reference bit for bit.
// Everything lives on the stack: this is the emulator's hot path.
//
//===----------------------------------------------------------------------===//

#include "EmulatorImpl.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include <cstring>

using namespace mxgemm::emu;
using mxgemm::numerics::FP8Format;

namespace {

/// Shape parameters: NonK x NonK outputs, K per instruction.
template <unsigned NonK> struct Shape {
  static constexpr unsigned K = 2048 / NonK; // 64 or 128
  static constexpr unsigned Groups = WaveSize / NonK;
  static constexpr unsigned Blocks = K / 32;
  static constexpr unsigned OutRegs = NonK * NonK / WaveSize; // 16 or 4
};

/// Decode-time parameter: bit 0 = scaled form.
template <unsigned NonK> Status mfma(ExecContext &ctx, Wave &w, const Inst &I) {
  using S = Shape<NonK>;
  if (ctx.skipMfma) { // timing-only mode: count, do not compute
    if (ctx.stats) {
      ++ctx.wg.mfmaCount;
      ctx.wg.mfmaMacs += uint64_t(NonK) * NonK * S::K;
    }
    return Status::Continue;
  }
  const Operand &d = I.vals[0], &a = I.vals[1], &b = I.vals[2], &c = I.vals[3];
  bool scaled = I.param & 1;
  int64_t cbsz = I.imms[0], blgp = I.imms[1];
  if (cbsz > 1 || blgp > 1)
    return ctx.fail(I, "MFMA operand format cbsz=" + std::to_string(cbsz) +
                           " blgp=" + std::to_string(blgp) +
                           " is not modelled (FP8 E4M3=0 / E5M2=1 only)");
  if (a.width != 8 || b.width != 8 || a.kind != OpKind::Vgpr ||
      b.kind != OpKind::Vgpr)
    return ctx.fail(I, "MFMA A/B operands must be 8-register VGPR tuples");
  if (c.kind != OpKind::Vgpr && c.kind != OpKind::Imm)
    return ctx.fail(I, "MFMA with an SGPR C operand is not modelled");
  // Dense operands: A[m][k], Bt[n][k] (B column n along K), scales [row][b].
  alignas(64) uint8_t A[NonK][S::K], Bt[NonK][S::K];
  uint8_t sA[NonK][S::Blocks], sB[NonK][S::Blocks];
  for (unsigned lane = 0; lane < WaveSize; ++lane) {
    unsigned r = lane % NonK, g = lane / NonK;
    uint8_t bytesA[32], bytesB[32];
    for (unsigned j = 0; j < 8; ++j) {
      std::memcpy(bytesA + 4 * j, &w.v[a.reg + j][lane], 4);
      std::memcpy(bytesB + 4 * j, &w.v[b.reg + j][lane], 4);
    }
    // Byte e holds k = (K/2)*(e>>4) + 16*g + (e&15): two runs of 16.
    for (unsigned half = 0; half < 2; ++half) {
      unsigned k0 = (S::K / 2) * half + 16 * g;
      std::memcpy(&A[r][k0], bytesA + 16 * half, 16);
      std::memcpy(&Bt[r][k0], bytesB + 16 * half, 16);
    }
  }
  if (scaled) {
    const Operand &scA = I.vals[4], &scB = I.vals[5];
    if (scA.kind != OpKind::Vgpr || scB.kind != OpKind::Vgpr)
      return ctx.fail(I, "MFMA scale operands must be VGPRs (the hardware "
                         "misreads SGPR and constant scales)");
    // Byte select = 2 * op_sel_hi + op_sel, from mods bits 3 and 2.
    unsigned selA = ((I.imms[2] >> 2) & 1) | (((I.imms[2] >> 3) & 1) << 1);
    unsigned selB = ((I.imms[3] >> 2) & 1) | (((I.imms[3] >> 3) & 1) << 1);
    for (unsigned row = 0; row < NonK; ++row)
      for (unsigned blk = 0; blk < S::Blocks; ++blk) {
        sA[row][blk] = uint8_t(w.v[scA.reg][blk * NonK + row] >> (8 * selA));
        sB[row][blk] = uint8_t(w.v[scB.reg][blk * NonK + row] >> (8 * selB));
      }
  } else {
    std::memset(sA, 127, sizeof(sA));
    std::memset(sB, 127, sizeof(sB));
  }
  // Gather C (an inline constant C is that value in every element) into a
  // dense [m][n] tile, run the whole step at once, scatter D (C may alias D).
  alignas(64) float acc[NonK][NonK];
  for (unsigned lane = 0; lane < WaveSize; ++lane) {
    unsigned n = lane % NonK, g = lane / NonK;
    for (unsigned i = 0; i < S::OutRegs; ++i) {
      unsigned m = NonK == 32 ? 8 * (i >> 2) + 4 * g + (i & 3) : 4 * g + i;
      acc[m][n] =
          asFloat(c.kind == OpKind::Imm ? c.imm[0] : w.v[c.reg + i][lane]);
    }
  }
  mxgemm::numerics::mxMfmaTile(&acc[0][0], NonK, NonK, NonK, &A[0][0], S::K,
                               FP8Format(cbsz), &Bt[0][0], S::K,
                               FP8Format(blgp), &sA[0][0], S::Blocks, &sB[0][0],
                               S::Blocks, S::Blocks);
  for (unsigned lane = 0; lane < WaveSize; ++lane) {
    unsigned n = lane % NonK, g = lane / NonK;
    for (unsigned i = 0; i < S::OutRegs; ++i) {
      unsigned m = NonK == 32 ? 8 * (i >> 2) + 4 * g + (i & 3) : 4 * g + i;
      w.v[d.reg + i][lane] = asBits(acc[m][n]);
    }
  }
  if (ctx.stats) {
    ++ctx.wg.mfmaCount;
    ctx.wg.mfmaMacs += uint64_t(NonK) * NonK * S::K;
  }
  return Status::Continue;
}

} // namespace

void mxgemm::emu::registerMfmaHandlers(void (*add)(llvm::StringRef, Handler,
                                                   uint32_t, uint16_t)) {
  add("V_MFMA_SCALE_F32_32X32X64_F8F6F4_f8_f8", mfma<32>, 1, 0);
  add("V_MFMA_SCALE_F32_16X16X128_F8F6F4_f8_f8", mfma<16>, 1, 0);
  add("V_MFMA_F32_32X32X64_F8F6F4_f8_f8", mfma<32>, 0, 0);
  add("V_MFMA_F32_16X16X128_F8F6F4_f8_f8", mfma<16>, 0, 0);
}
