//===- MXGemmDialect.td - the mxgemm dialect ---------------*- tablegen -*-===//
//
// The dialect definition shared by the attribute and op files.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_DIALECT_MXGEMM_IR_MXGEMMDIALECT_TD
#define MXGEMM_DIALECT_MXGEMM_IR_MXGEMMDIALECT_TD

include "mlir/IR/OpBase.td"

def MXGemm_Dialect : Dialect {
  let name = "mxgemm";
  let cppNamespace = "::mxgemm";
  let summary = "Block-scaled MXFP8 GEMMs for AMD gfx950 (CDNA4)";
  let description = [{
    The `mxgemm` dialect describes an OCP Microscaling (MX v1.0) FP8 GEMM
    `Y = X . W^T` with one E8M0 scale per 32 K-elements (docs/Design.md section 1)
    and the tuning configuration that decides how it is compiled for the
    gfx950 matrix cores (`v_mfma_scale_f32_*_f8f6f4`).

    The problem-level op `mxgemm.scaled_matmul` carries a `#mxgemm.config`;
    the `mxgemm-to-gfx950` pipeline tiles it into a `gpu.func` kernel, lowers
    the wave-level matrix multiply to `amdgpu.scaled_mfma` and hands the
    result to the upstream ROCDL conversion.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::amdgpu::AMDGPUDialect"
  ];
}

class MXGemm_Op<string mnemonic, list<Trait> traits = []>
    : Op<MXGemm_Dialect, mnemonic, traits>;

#endif // MXGEMM_DIALECT_MXGEMM_IR_MXGEMMDIALECT_TD
