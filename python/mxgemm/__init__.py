"""mxgemm: block-scaled MXFP8 GEMMs for AMD gfx950 from Python.

Bindings of the project's C libraries, never a second implementation:

- plan(...): the runtime shim's decision for a problem (mxgemm_query);
  row_split(...): both launches when the shim splits the call by rows
  (mxgemm_query_row_split);
- gemm(x, xs, w, ws, out=None, ...): Y = X . W^T through the shim
  (mxgemm_gemm); NumPy/`__array_interface__` inputs are copied to the device,
  objects with data_ptr() are taken as device memory as they are;
- quantize_device(x, fmt, ...): BF16/FP16/FP32 -> MXFP8 codes + E8M0 scales
  by the runtime's device kernel (mxgemm_quantize);
- pack_weights(w, ...): W in the MFMA-panel layout of kernels with
  stage_w = packed_registers (mxgemm_pack_weights), once per weight tensor;
- pack_scales(scales, layout) / scale_bytes(layout, rows, k): scales in the
  MFMA-native layouts of kernels with x_scale_layout / w_scale_layout
  (mxgemm_pack_scales, mxgemm_scale_bytes);
- kernels(), kernel_descriptor(entry), workgroup_tile(plan, wg),
  workgroup_closure(plans, wgs): the embedded kernels, their descriptors,
  the runtime's tile mapping and the workgroups a part of a grid needs;
- compile(...): runs mxgemm-compile, returns (code object, descriptor);
  without a config the compiler chooses (its M hint is `m=`);
- choose_config(...): that choice alone, from the compiler C API
  (mxgemmProblemChooseConfig in libMXGemmCAPI.so, docs/Compiler.md);
- quantize_mx / dequantize / encode_fp8 / decode_table / random_mx /
  reference_gemm / check_gemm / pack_weight_panels / preshuffle_scales /
  unshuffle_scales: the C++ MX numerics (libmxgemm_numerics.so, docs/Numerics.md).

Submodules: `cases` (the case table), `perf` (the lower bound and the
predictions of the C++ timing simulator mxgemm-sim), `isa` (K-loop facts of an ISA listing), `qualify` and `bench` (the
logic of mxgemm-qualify and mxgemm-bench); `_runtime`, `_numerics` and
`_compiler` are the ctypes layers; `torch` (torch.library operators for
PyTorch callers, docs/Torch.md; it imports torch, so it is not imported
here).

Libraries are found via $MXGEMM_RUNTIME_LIBRARY / $MXGEMM_NUMERICS_LIBRARY,
then the package's lib/, then the build tree of the checkout, then the
loader path; HIP via $MXGEMM_HIP_LIBRARY, then libamdhip64.so, then the
emulator's HIP facade next to the runtime library (see docs/Runtime.md).
"""

from ._api import (CompileError, Context, HipError, IntegerOverflow,
                   InvalidArgument, LoadedKernel, MXGemmError, NotEligible,
                   NotSupported, Plan, compile, descriptor_plan, find_compiler, gemm,
                   kernel_code_object, kernel_descriptor, kernels,
                   pack_scales, pack_weight_panels, pack_weights, plan,
                   quantize_device, row_split, scale_bytes, version,
                   workgroup_closure, workgroup_tile)
from ._compiler import choose_config
from ._numerics import (GemmOperands, bf16_to_float32, check_gemm,
                        decode_e8m0, decode_table, dequantize, encode_fp8,
                        preshuffle_scales, quantize_mx, random_mx,
                        reference_gemm, scale_rows, unshuffle_scales)

__all__ = ["quantize_mx", "dequantize", "bf16_to_float32", "encode_fp8",
           "decode_table", "decode_e8m0", "random_mx", "scale_rows",
           "preshuffle_scales", "unshuffle_scales",
           "GemmOperands", "reference_gemm", "check_gemm", "plan", "row_split", "gemm",
           "compile", "choose_config", "find_compiler", "kernels", "kernel_descriptor",
           "kernel_code_object", "descriptor_plan", "workgroup_tile",
           "workgroup_closure",
           "version", "pack_weights", "pack_scales", "scale_bytes",
           "quantize_device", "pack_weight_panels", "Plan", "Context",
           "LoadedKernel",
           "MXGemmError", "NotEligible", "InvalidArgument", "IntegerOverflow",
           "HipError", "NotSupported", "CompileError"]
