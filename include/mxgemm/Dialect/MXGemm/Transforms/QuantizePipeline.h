//===- QuantizePipeline.h - the mxgemm-quantize-to-gfx950 pipeline -*- C++
//-*-===//
//
// The pass pipeline from mxgemm.quantize to the LLVM/ROCDL dialects, shared
// by mxgemm-opt and the compiler library like mxgemm-to-gfx950.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_TRANSFORMS_QUANTIZEPIPELINE_H
#define MXGEMM_DIALECT_MXGEMM_TRANSFORMS_QUANTIZEPIPELINE_H

#include "mxgemm/Dialect/MXGemm/Transforms/Pipelines.h"

namespace mxgemm {

/// mxgemm-lower-quantize, cleanup, the upstream
/// convert-gpu-to-rocdl{chipset, use-bare-ptr-memref-call-conv}, then
/// reconcile-unrealized-casts and rocdl-attach-target{chip, abi, O}. Takes
/// the options of mxgemm-to-gfx950.
void buildMXGemmQuantizeToGFX950Pipeline(OpPassManager &pm,
                                         const MXGemmToGFX950Options &options);

/// Registers `mxgemm-quantize-to-gfx950`.
void registerMXGemmQuantizePipeline();

} // namespace mxgemm

#endif // MXGEMM_DIALECT_MXGEMM_TRANSFORMS_QUANTIZEPIPELINE_H
