//===- TargetModel.h - the one table of gfx950 hardware figures -*- C++ -*-===//
//
// Every figure about the target that a pass, the runtime, the emulator, its
// HIP facade or a performance tool uses lives here, once, with its public
// source beside it. Consumers look a chip up by name (the `chip` option of
// every target-dependent pass) and read the fields; nobody writes 163840 or
// 256 again. Header-only and free of MLIR and LLVM so that the runtime shim
// and the emulator can include it. Figures that no public source gives are
// marked ASSUMPTION and are kept out of anything correctness depends on.
// docs/TargetModel.md lists the table with its sources.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_TARGET_TARGETMODEL_H
#define MXGEMM_TARGET_TARGETMODEL_H

#include <cstdint>
#include <string_view>

namespace mxgemm::target {

/// Scaled-MFMA instruction shapes of gfx950 (v_mfma_scale_f32_*_f8f6f4).
enum class MfmaShape : uint8_t { M32N32K64 = 0, M16N16K128 = 1 };

/// One scaled-MFMA instruction: its extents and issue cost.
struct MfmaInstruction {
  MfmaShape shape;
  std::string_view mnemonic;
  /// Output tile and K elements per instruction.
  int64_t m, n, k;
  /// Cycles the SIMD's matrix pipe is busy per instruction, by operand
  /// format. Source: AMD ROCm blog "Matrix Core Programming on AMD CDNA3 and
  /// CDNA4 architecture" (table of MFMA cycles; 32x32x64: 64 cycles with FP8
  /// operands, 32 with FP6/FP4; 16x16x128: 32 and 16). LLVM's scheduling
  /// model (llvm-mca gfx950.s) gives 4/8 with a FIXME and is not used.
  int64_t cyclesFp8, cyclesFp6Fp4;

  /// K elements of one lane group's operand bytes: the MFMA block size along
  /// rows/columns ("nonK" in docs/Design.md section 9).
  int64_t nonK() const { return m; }
  /// Dense FLOP per instruction (a multiply and an add per MAC).
  int64_t flops() const { return 2 * m * n * k; }
};

/// The hardware figures of one chip.
struct TargetModel {
  std::string_view chip;
  /// amdhsa.target of its code objects (code object v5, any xnack/sramecc).
  std::string_view amdhsaTarget;
  /// hipDeviceProp_t compute capability (gcnArch 9.5 for gfx950).
  int computeCapabilityMajor, computeCapabilityMinor;

  // Compute units. Source: ROCm documentation, "GPU hardware specifications"
  // table (MI355X: 256 CUs, 8 XCDs); AMD CDNA4 ISA reference guide (wave64,
  // 4 SIMDs per CU).
  int64_t numCus, numXcds, simdsPerCu, waveSize;
  /// Wave slots per SIMD and waves per workgroup (1024 work-items).
  /// Source: CDNA4 ISA guide; AMDGPUUsage (max flat workgroup size 1024).
  int64_t maxWavesPerSimd, maxWavesPerWorkgroup;

  // Register file. Source: AMDGPUUsage ("unified VGPR file" of gfx90a+: the
  // AGPRs are allocated after accum_offset inside the same 512-register
  // budget, so .vgpr_count already covers them); ROCm blog "4-wave FP8
  // GEMM" (512 registers per wave at one wave per SIMD).
  int64_t vgprsPerLane;      // arch VGPRs + AGPRs, unified
  int64_t maxArchVgprs;      // v0..v255
  int64_t vgprAllocGranule;  // gfx90a+ allocate VGPRs in blocks of 8
  int64_t maxSgprsPerWave;   // addressable SGPRs (AMDGPUUsage, gfx9: 102)

  // LDS. Source: ROCm blog "FP8 GEMM Optimization on AMD CDNA4" (Table 1:
  // 160 KiB per CU, one workgroup may address all of it, 64 banks of 4
  // bytes); llc -mcpu=gfx950 rejects more than 163840 bytes per workgroup.
  int64_t ldsBytesPerCu, maxLdsBytesPerWorkgroup;
  /// LDS allocation granularity in bytes. Source: AMDGPUUsage (gfx950 LDS
  /// granule of 1280 bytes in the kernel descriptor encoding).
  int64_t ldsAllocationGranule;
  int64_t ldsBanks, ldsBankBytes;

  /// Peak engine clock. Source: AMD Hot Chips 2025 material; HipKittens
  /// paper Table 1 (MI355X 2.4 GHz).
  double peakClockHz;

  // Memory system. Source: HipKittens Table 1 (HBM3E 8.0 TB/s, 288 GB);
  // ROCm "GPU hardware specifications" (4 MB L2 per XCD, 256 MB Infinity
  // Cache).
  double hbmBytesPerSecond;
  int64_t l2BytesPerXcd, mallBytes;
  /// HBM capacity (288 GB, same source; counted in GiB as HIP reports
  /// totalGlobalMem).
  int64_t hbmBytes;

  /// The scaled-MFMA instructions, by MfmaShape.
  MfmaInstruction mfma[2];

  const MfmaInstruction &getMfma(MfmaShape shape) const {
    return mfma[static_cast<int>(shape)];
  }
  /// Dense MXFP8 FLOP per clock of one CU: 4 SIMDs, each retiring one
  /// 32x32x64 FP8 MFMA per 64 cycles (8192 FLOP/clk/CU).
  int64_t mxfp8FlopsPerClockPerCu() const {
    const MfmaInstruction &i = getMfma(MfmaShape::M32N32K64);
    return simdsPerCu * i.flops() / i.cyclesFp8;
  }
  /// Dense MXFP8 peak of the chip at the peak clock (about 5.03 PFLOP/s).
  double peakMxfp8Flops() const {
    return double(mxfp8FlopsPerClockPerCu()) * double(numCus) * peakClockHz;
  }
  int64_t cusPerXcd() const { return numCus / numXcds; }
};

/// AMD Instinct MI350X/MI355X (CDNA4).
inline constexpr TargetModel kGFX950 = {
    /*chip=*/"gfx950",
    /*amdhsaTarget=*/"amdgcn-amd-amdhsa--gfx950",
    /*computeCapabilityMajor=*/9,
    /*computeCapabilityMinor=*/5,
    /*numCus=*/256,
    /*numXcds=*/8,
    /*simdsPerCu=*/4,
    /*waveSize=*/64,
    /*maxWavesPerSimd=*/8,
    /*maxWavesPerWorkgroup=*/16,
    /*vgprsPerLane=*/512,
    /*maxArchVgprs=*/256,
    /*vgprAllocGranule=*/8,
    /*maxSgprsPerWave=*/102,
    /*ldsBytesPerCu=*/163840,
    /*maxLdsBytesPerWorkgroup=*/163840,
    /*ldsAllocationGranule=*/1280,
    /*ldsBanks=*/64,
    /*ldsBankBytes=*/4,
    /*peakClockHz=*/2.4e9,
    /*hbmBytesPerSecond=*/8.0e12,
    /*l2BytesPerXcd=*/4 << 20,
    /*mallBytes=*/int64_t(256) << 20,
    /*hbmBytes=*/int64_t(288) << 30,
    /*mfma=*/
    {{MfmaShape::M32N32K64, "v_mfma_scale_f32_32x32x64_f8f6f4", 32, 32, 64,
      64, 32},
     {MfmaShape::M16N16K128, "v_mfma_scale_f32_16x16x128_f8f6f4", 16, 16, 128,
      32, 16}},
};

/// The model of `chip`, or null if mxgemm does not target it.
inline const TargetModel *findTargetModel(std::string_view chip) {
  if (chip == kGFX950.chip)
    return &kGFX950;
  return nullptr;
}

} // namespace mxgemm::target

#endif // MXGEMM_TARGET_TARGETMODEL_H
