//===- GFX950.h - hardware facts of gfx950 (CDNA4) ----------------*- C++
//-*-===//
//
// The limits the config verifier, the passes and the performance model agree
// on (DESIGN.md section 2). Header-only so that the runtime and the emulator
// can use it without linking MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_SUPPORT_GFX950_H
#define MXGEMM_SUPPORT_GFX950_H

#include <cstdint>

namespace mxgemm::gfx950 {
constexpr int64_t kWaveSize = 64;
constexpr int64_t kMaxLdsBytesPerWorkgroup = 163840;
constexpr int64_t kLdsAllocationGranule = 1280;
constexpr int64_t kLdsBanks = 64;
constexpr int64_t kVgprsPerLane = 512; // arch VGPRs + AGPRs
constexpr int64_t kMaxWavesPerWorkgroup = 16;
constexpr int64_t kMaxWavesPerSimd = 8;
constexpr int64_t kSimdsPerCu = 4;
constexpr int64_t kCus = 256;
constexpr int64_t kXcds = 8;
constexpr double kClockHz = 2.4e9;
constexpr int64_t kScaleBlock = 32; // K elements per E8M0 scale
} // namespace mxgemm::gfx950

#endif // MXGEMM_SUPPORT_GFX950_H
