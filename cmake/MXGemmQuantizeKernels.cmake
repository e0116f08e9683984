# The runtime's quantize kernels (mxgemm_quantize): one code object per
# (input type, format), compiled by mxgemm-compile from the .mlir sources in
# lib/Runtime/QuantizeKernels and embedded, with their descriptors, into a
# C++ source whose table is mxgemm::runtime::quantize::kEmbeddedFiles
# ("<kernel>.hsaco", "<kernel>.hsaco.json"). M and K are kernel arguments,
# so the six kernels serve every shape. The runtime checks each descriptor
# and code object (SHA-256, ELF, kernel symbol) before first use.
#
# mxgemm_quantize_kernels(OUT_SOURCE <var> [COMPILER <target>])

function(mxgemm_quantize_kernels)
  cmake_parse_arguments(ARG "" "OUT_SOURCE;COMPILER" "" ${ARGN})
  if(NOT ARG_COMPILER)
    set(ARG_COMPILER mxgemm-compile)
  endif()
  set(src ${PROJECT_SOURCE_DIR}/lib/Runtime/QuantizeKernels)
  set(work ${CMAKE_CURRENT_BINARY_DIR}/quantize-kernels)
  set(files)
  set(outputs)
  foreach(in bf16 f16 f32)
    foreach(format e4m3 e5m2)
      set(name mxgemm_quantize_${in}_${format})
      set(hsaco ${work}/${name}.hsaco)
      add_custom_command(
        OUTPUT ${hsaco} ${hsaco}.json
        COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
        COMMAND $<TARGET_FILE:${ARG_COMPILER}> ${src}/${name}.mlir -o ${hsaco}
        DEPENDS ${src}/${name}.mlir ${ARG_COMPILER}
        COMMENT "Compiling quantize kernel ${name}"
        VERBATIM)
      list(APPEND files "${name}.hsaco=${hsaco}" "${name}.hsaco.json=${hsaco}.json")
      list(APPEND outputs ${hsaco} ${hsaco}.json)
    endforeach()
  endforeach()
  set(table ${CMAKE_CURRENT_BINARY_DIR}/QuantizeKernels.generated.cpp)
  add_custom_command(
    OUTPUT ${table}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${table}
            -DNAMESPACE=mxgemm::runtime::quantize "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/MXGemmEmbedFiles.cmake
    DEPENDS ${outputs} ${PROJECT_SOURCE_DIR}/cmake/MXGemmEmbedFiles.cmake
    COMMENT "Embedding the quantize kernels"
    VERBATIM)
  set(${ARG_OUT_SOURCE} ${table} PARENT_SCOPE)
endfunction()
