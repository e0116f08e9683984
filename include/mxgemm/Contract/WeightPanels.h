//===- WeightPanels.h - MFMA panel layout of packed weights -----*- C++ -*-===//
//
// The one definition of the packed weight layout that kernels with
// `stage_w = packed_registers` read (docs/Design.md sections 5 and 9). W[N, K]
// (row-major FP8) is cut into panels of `nonK` rows x `kStep` K elements,
// one per MFMA step of one MFMA block (32 x 64 for 32x32x64, 16 x 128 for
// 16x16x128, 2048 bytes either way). Inside a panel, lane l's 32 bytes are
// exactly its B operand bytes e = 0..31 (section 9):
//
//   panel byte 32 * l + e = W[nb * nonK + l % nonK][ks * kStep + kOff]
//   kOff = (kStep / 2) * (e >> 4) + 16 * (l / nonK) + (e & 15)
//
// and panels are ordered [N / nonK][K / kStep], so one wave reads a whole
// panel with one contiguous, fully coalesced 32-byte load per lane and walks
// memory linearly along K. The packed tensor has the same N * K bytes as W;
// the weight scales keep their natural layout. The compiler (mxgemm-lower-
// mma), the runtime's mxgemm_pack_weights and the emulator tools all use
// these functions.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_WEIGHTPANELS_H
#define MXGEMM_CONTRACT_WEIGHTPANELS_H

#include <cstdint>

namespace mxgemm::contract {

/// Bytes of one panel: 64 lanes x 32 operand bytes.
constexpr int64_t kPanelBytes = 2048;

/// K elements per panel for MFMA blocks of `nonK` rows (32 -> 64, 16 -> 128).
constexpr int64_t panelKStep(int64_t nonK) { return kPanelBytes / nonK; }

/// True if W[n, k] can be packed into panels of `nonK` rows.
constexpr bool canPackWeightPanels(int64_t n, int64_t k, int64_t nonK) {
  return (nonK == 32 || nonK == 16) && n > 0 && k > 0 && n % nonK == 0 &&
         k % panelKStep(nonK) == 0;
}

/// Index into row-major W[n, k] of packed byte `packedIndex`.
constexpr int64_t weightPanelSource(int64_t packedIndex, int64_t k,
                                    int64_t nonK) {
  const int64_t kStep = panelKStep(nonK), stepsK = k / kStep;
  const int64_t panel = packedIndex / kPanelBytes;
  const int64_t lane = (packedIndex % kPanelBytes) / 32;
  const int64_t e = packedIndex % 32;
  const int64_t nb = panel / stepsK, ks = panel % stepsK;
  const int64_t row = nb * nonK + lane % nonK;
  const int64_t col =
      ks * kStep + (kStep / 2) * (e >> 4) + 16 * (lane / nonK) + (e & 15);
  return row * k + col;
}

/// Packs row-major W[n, k] into `packed` (n * k bytes, not aliasing `w`).
/// Requires canPackWeightPanels(n, k, nonK). Copies 16-byte runs: bytes
/// e = 0..15 and 16..31 of a lane are contiguous in W.
inline void packWeightPanels(const uint8_t *w, uint8_t *packed, int64_t n,
                             int64_t k, int64_t nonK) {
  for (int64_t i = 0, e = n * k; i < e; i += 16) {
    const uint8_t *src = w + weightPanelSource(i, k, nonK);
    for (int64_t t = 0; t < 16; ++t)
      packed[i + t] = src[t];
  }
}

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_WEIGHTPANELS_H
