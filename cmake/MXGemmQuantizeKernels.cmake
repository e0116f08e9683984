# The runtime's quantize kernels (mxgemm_quantize): one code object per
# (input type, format), compiled from the .mlir sources in
# lib/Runtime/QuantizeKernels and embedded (cmake/MXGemmEmbeddedKernels.cmake)
# in the table mxgemm::runtime::quantize::kEmbeddedFiles. M and K are kernel
# arguments, so the six kernels serve every shape.
#
# mxgemm_quantize_kernels(OUT_SOURCE <var> [COMPILER <target>])

include(MXGemmEmbeddedKernels)

function(mxgemm_quantize_kernels)
  cmake_parse_arguments(ARG "" "OUT_SOURCE;COMPILER" "" ${ARGN})
  set(kernels)
  foreach(in bf16 f16 f32)
    foreach(format e4m3 e5m2)
      list(APPEND kernels mxgemm_quantize_${in}_${format})
    endforeach()
  endforeach()
  set(compiler)
  if(ARG_COMPILER)
    set(compiler COMPILER ${ARG_COMPILER})
  endif()
  mxgemm_embedded_kernels(OUT_SOURCE table LABEL quantize
    NAMESPACE mxgemm::runtime::quantize
    SOURCE_DIR ${PROJECT_SOURCE_DIR}/lib/Runtime/QuantizeKernels
    KERNELS ${kernels} ${compiler})
  set(${ARG_OUT_SOURCE} ${table} PARENT_SCOPE)
endfunction()
