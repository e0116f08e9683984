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

/// The timing figures of the cycle-approximate simulator (lib/Simulator,
/// docs/Simulator.md). Each field names its public source; a field marked
/// ASSUMPTION has none, and docs/Simulator.md gives how far changing it by
/// +-50% moves the case-table predictions. Cycles are engine-clock cycles;
/// off-die latencies are in nanoseconds so that they scale with the clock.
struct TimingModel {
  // Issue. Source: ROCm Compute Profiler, "Pipeline descriptions: Scheduler"
  // (each cycle the scheduler considers one SIMD, round robin, and issues up
  // to one instruction per wave and one per category: VALU, VMEM, SALU/SMEM,
  // LDS, branch), so a SIMD issues every simdsPerCu = 4 cycles.
  int64_t issueIntervalCycles;
  /// Wave64 VALU op on a 16-lane SIMD: 4 cycles. Source: same page (four
  /// 16-wide SIMDs); gfx950-gluon-tutorials docs/lds_throughput.md 1.1.
  int64_t valuCycles;
  /// Quarter-rate VALU ops (transcendentals, conversions): 16 cycles.
  /// Source: LLVM SISchedule.td (WriteTrans32/WriteQuarterRate32 = 4
  /// passes); tingqli/pyhip docs/mfma-valu-coissue.md (v_exp/v_rcp 16.0
  /// cycles measured on gfx942).
  int64_t valuQuarterRateCycles;
  /// An MFMA holds the VALU issue port for one issue interval; independent
  /// VALU ops issue in its shadow. Source: pyhip mfma-valu-coissue.md ("VALU
  /// enters issue about 4 cycles after the MFMA starts"; 3 VALUs hidden under
  /// a 16-cycle MFMA).
  int64_t mfmaIssueCycles;
  /// Wait states (issue intervals) after an XDL MFMA of P passes before a
  /// VALU, memory op or another MFMA's SrcA/B reads its result: P + 3;
  /// SrcC of an MFMA overlapping it partially: P + 1; SrcC exactly the same
  /// registers: 0 (back-to-back accumulation). Source: CDNA3 ISA guide 7.6
  /// as encoded in LLVM GCNHazardRecognizer (GFX940_XDL_N_Pass* functions).
  int64_t mfmaReadExtraPasses, mfmaSrcCPartialExtraPasses;
  /// Cycles per pass of an MFMA (P passes = P * 4 cycles). Source: ROCm
  /// matrix-core blog (32x32x64 FP8: 64 cycles = 16 passes).
  int64_t mfmaPassCycles;
  /// Scalar memory (s_load) latency. ASSUMPTION.
  int64_t smemLatencyCycles;
  /// Extra cycles before a wave issues after a taken branch (instruction
  /// fetch of the target). ASSUMPTION.
  int64_t takenBranchCycles;
  /// s_sleep N: about 64 * N cycles. Source: CDNA3/CDNA4 ISA guide, S_SLEEP.
  int64_t sleepCyclesPerUnit;
  /// From the last wave's arrival at s_barrier to the release. ASSUMPTION.
  int64_t barrierCycles;
  /// From a workgroup slot becoming free to its next workgroup's first issue
  /// (dispatch and wave launch). ASSUMPTION.
  int64_t workgroupLaunchCycles;

  // LDS. Source: gfx950-gluon-tutorials docs/lds_throughput.md (64 banks x
  // 4 B = 256 B/clk service; each SIMD pair has a 128 B/clk bus in each
  // direction and an 8-entry request FIFO shared by reads and writes; first
  // data 50-70 cycles after issue); ROCm blog "FP8 GEMM Optimization on AMD
  // CDNA4" (256 B/clk read); facebookexperimental/triton PR 2507 (69
  // cycles measured).
  int64_t ldsServiceBytesPerCycle, ldsPortBytesPerCycle, ldsQueueEntries;
  /// Issue to data of an isolated, conflict-free ds_read_b128.
  int64_t ldsLatencyCycles;

  // Vector memory through the CU's address unit (TA) and L1 (TCP). Source:
  // gfx950-gluon-tutorials kernels/gemm/intra_wave/a16w16/v8_sliceMN
  // README section 4 (32 KB TCP bounds the bytes in flight per CU; a
  // ~12-entry per-CU request queue; processing time 16 cycles for dwordx4 and
  // dwordx2, 4 for dword, i.e. 4 lanes/clk for 8-16 B lanes and 16 lanes/clk
  // for <= 4 B lanes, longer when uncoalesced).
  int64_t vmemQueueEntries, tcpInflightBytes;
  int64_t tcpLanesPerCycleNarrow, tcpLanesPerCycleWide;
  /// Distinct cache lines the TCP looks up per cycle (uncoalesced
  /// accesses). ASSUMPTION.
  double tcpLinesPerCycle;
  /// Source: ROCm Compute Profiler, L2 cache (TCC) page (128 B lines on
  /// MI200/MI300); the L1 uses the same line (ASSUMPTION).
  int64_t cacheLineBytes;
  /// L1 capacity. Source: gluon v8 README section 4.1 (32 KB TCP).
  int64_t l1Bytes;
  /// Associativity of the L1, the L2 and the MALL. ASSUMPTION (LRU).
  int64_t l1Ways, l2Ways, mallWays;
  /// Data return to VGPRs: 64 B/clk per CU. Derived from the TCP processing
  /// rate above (1 KB dwordx4 in 16 cycles).
  int64_t returnBytesPerCycle;
  /// L1 fill bandwidth from L2 per CU. ASSUMPTION.
  int64_t l1FillBytesPerCycle;
  /// Issue-to-data latency of a load served by L1 or by L2. ASSUMPTION.
  int64_t l1HitCycles, l2HitCycles;
  /// L2 channels per XCD and bytes per channel per clock. Source: ROCm
  /// Compute Profiler (16 channels of 256 KB on MI300; L2 speed-of-light
  /// peak = channels x 128 B x sclk on MI300/MI350).
  int64_t l2Channels, l2ChannelBytesPerCycle;
  /// Infinity Cache (MALL) bandwidth. ASSUMPTION: MI300X's published
  /// 17.2 TB/s peak (no gfx950 figure is public).
  double mallBytesPerSecond;
  /// Latency a MALL hit adds to an L2 miss. ASSUMPTION.
  double mallExtraNs;
  /// Latency an HBM access adds to an L2 miss. Derived: a global load from
  /// HBM takes 500-800 cycles (tingqli/pyhip docs/mem_latency.md, MI308X);
  /// 650 cycles at 2.4 GHz minus l2HitCycles.
  double hbmExtraNs;
  /// Sustained MFMA clock (docs/Simulator.md, "The sustained clock"):
  /// the median of the published per-tensor FP8 GEMM results on MI355X
  /// (3204, 3233, 3327, 3383 TFLOP/s) divided by 8192 FLOP/clk/CU x 256 CUs
  /// x 0.99 main-loop MFMA utilisation.
  double sustainedClockHz;

  /// Cycles of an isolated dwordx4 load besides its level's latency: one
  /// issue interval, 16 in the address unit and 16 returning 1 KB. The
  /// level latencies above are issue-to-data, so the simulator takes these
  /// off the latency of every vector-memory access.
  double isolatedVmemCycles() const {
    return double(issueIntervalCycles) + 64.0 / double(tcpLanesPerCycleWide) +
           1024.0 / double(returnBytesPerCycle);
  }
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
  int64_t vgprsPerLane;     // arch VGPRs + AGPRs, unified
  int64_t maxArchVgprs;     // v0..v255
  int64_t vgprAllocGranule; // gfx90a+ allocate VGPRs in blocks of 8
  int64_t maxSgprsPerWave;  // addressable SGPRs (AMDGPUUsage, gfx9: 102)

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

  /// Figures of the timing simulator.
  TimingModel timing;

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
    {{MfmaShape::M32N32K64, "v_mfma_scale_f32_32x32x64_f8f6f4", 32, 32, 64, 64,
      32},
     {MfmaShape::M16N16K128, "v_mfma_scale_f32_16x16x128_f8f6f4", 16, 16, 128,
      32, 16}},
    /*timing=*/
    {
        /*issueIntervalCycles=*/4,
        /*valuCycles=*/4,
        /*valuQuarterRateCycles=*/16,
        /*mfmaIssueCycles=*/4,
        /*mfmaReadExtraPasses=*/3,
        /*mfmaSrcCPartialExtraPasses=*/1,
        /*mfmaPassCycles=*/4,
        /*smemLatencyCycles=*/200,
        /*takenBranchCycles=*/8,
        /*sleepCyclesPerUnit=*/64,
        /*barrierCycles=*/16,
        /*workgroupLaunchCycles=*/200,
        /*ldsServiceBytesPerCycle=*/256,
        /*ldsPortBytesPerCycle=*/128,
        /*ldsQueueEntries=*/8,
        /*ldsLatencyCycles=*/64,
        /*vmemQueueEntries=*/12,
        /*tcpInflightBytes=*/32768,
        /*tcpLanesPerCycleNarrow=*/16,
        /*tcpLanesPerCycleWide=*/4,
        /*tcpLinesPerCycle=*/1.0,
        /*cacheLineBytes=*/128,
        /*l1Bytes=*/32768,
        /*l1Ways=*/16,
        /*l2Ways=*/16,
        /*mallWays=*/16,
        /*returnBytesPerCycle=*/64,
        /*l1FillBytesPerCycle=*/64,
        /*l1HitCycles=*/120,
        /*l2HitCycles=*/300,
        /*l2Channels=*/16,
        /*l2ChannelBytesPerCycle=*/128,
        /*mallBytesPerSecond=*/17.2e12,
        /*mallExtraNs=*/80.0,
        /*hbmExtraNs=*/(650.0 - 300.0) / 2.4,
        /*sustainedClockHz=*/1.58e9,
    },
};

/// The model of `chip`, or null if mxgemm does not target it.
inline const TargetModel *findTargetModel(std::string_view chip) {
  if (chip == kGFX950.chip)
    return &kGFX950;
  return nullptr;
}

} // namespace mxgemm::target

#endif // MXGEMM_TARGET_TARGETMODEL_H
