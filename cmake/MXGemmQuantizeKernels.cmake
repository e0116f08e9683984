# The runtime's quantize kernels (mxgemm_quantize): one code object per
# (input type, format, scale layout), embedded (cmake/MXGemmEmbeddedKernels.cmake)
# in the table mxgemm::runtime::quantize::kEmbeddedFiles. M and K are kernel
# arguments, so the kernels serve every shape.
#
# The row-major kernels are compiled from lib/Runtime/QuantizeKernels/
# mxgemm_quantize_<in>_<format>.mlir. The kernels that write the scales in
# an MFMA-native layout (mxgemm_quantize_<in>_<format>_<layout>) are the
# same source with the op's scale_layout set and flat scales, derived here
# at configure time so that each (in, format) has one source.
#
# mxgemm_quantize_kernels(OUT_SOURCE <var> [COMPILER <target>])

include(MXGemmEmbeddedKernels)

set(MXGEMM_QUANTIZE_SCALE_LAYOUTS mfma_16x16x128 mfma_32x32x64)

function(mxgemm_quantize_kernels)
  cmake_parse_arguments(ARG "" "OUT_SOURCE;COMPILER" "" ${ARGN})
  set(sources ${PROJECT_SOURCE_DIR}/lib/Runtime/QuantizeKernels)
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/quantize-sources)
  file(MAKE_DIRECTORY ${generated})
  set(kernels)
  foreach(in bf16 f16 f32)
    foreach(format e4m3 e5m2)
      set(base mxgemm_quantize_${in}_${format})
      list(APPEND kernels ${base})
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
        ${sources}/${base}.mlir)
      file(READ ${sources}/${base}.mlir text)
      configure_file(${sources}/${base}.mlir ${generated}/${base}.mlir
        COPYONLY)
      foreach(layout IN LISTS MXGEMM_QUANTIZE_SCALE_LAYOUTS)
        set(native "${text}")
        set(edits
          "@${base}(" "@${base}_${layout}("
          "memref<?x?xf8E8M0FNU>" "memref<?xf8E8M0FNU>"
          "into %codes, %scales\n"
          "into %codes, %scales\n      {scale_layout = #mxgemm.scale_layout<${layout}>}\n")
        while(edits)
          list(POP_FRONT edits from to)
          string(FIND "${native}" "${from}" at)
          if(at EQUAL -1)
            message(FATAL_ERROR "${sources}/${base}.mlir: no '${from}' to "
              "derive the ${layout} kernel from")
          endif()
          string(REPLACE "${from}" "${to}" native "${native}")
        endwhile()
        # Rewritten only when it changes, so that nothing recompiles.
        file(WRITE ${generated}/${base}_${layout}.mlir.tmp "${native}")
        configure_file(${generated}/${base}_${layout}.mlir.tmp
          ${generated}/${base}_${layout}.mlir COPYONLY)
        list(APPEND kernels ${base}_${layout})
      endforeach()
    endforeach()
  endforeach()
  set(compiler)
  if(ARG_COMPILER)
    set(compiler COMPILER ${ARG_COMPILER})
  endif()
  mxgemm_embedded_kernels(OUT_SOURCE table LABEL quantize
    NAMESPACE mxgemm::runtime::quantize
    SOURCE_DIR ${generated}
    KERNELS ${kernels} ${compiler})
  set(${ARG_OUT_SOURCE} ${table} PARENT_SCOPE)
endfunction()
