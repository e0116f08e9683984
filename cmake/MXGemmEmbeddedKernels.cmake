# Data-movement kernels the runtime embeds (quantize, weight packing): each
# kernel is compiled by mxgemm-compile from <SOURCE_DIR>/<kernel>.mlir and
# embedded, with its descriptor, into a C++ source whose table is
# <NAMESPACE>::kEmbeddedFiles ("<kernel>.hsaco", "<kernel>.hsaco.json").
# The shapes are kernel arguments, so one code object serves every shape.
# The runtime checks each descriptor and code object (SHA-256, ELF, kernel
# symbol) before first use.
#
# mxgemm_embedded_kernels(OUT_SOURCE <var> LABEL <label> NAMESPACE <ns>
#                         SOURCE_DIR <dir> KERNELS <kernel>...
#                         [COMPILER <target>])
# LABEL names the work directory (<label>-kernels) and the generated
# source (<label>-kernels.generated.cpp) in the current binary directory.

function(mxgemm_embedded_kernels)
  cmake_parse_arguments(ARG "" "OUT_SOURCE;LABEL;NAMESPACE;SOURCE_DIR;COMPILER"
    "KERNELS" ${ARGN})
  if(NOT ARG_COMPILER)
    set(ARG_COMPILER mxgemm-compile)
  endif()
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${ARG_LABEL}-kernels)
  set(files)
  set(outputs)
  foreach(name IN LISTS ARG_KERNELS)
    set(hsaco ${work}/${name}.hsaco)
    add_custom_command(
      OUTPUT ${hsaco} ${hsaco}.json
      COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
      COMMAND $<TARGET_FILE:${ARG_COMPILER}> ${ARG_SOURCE_DIR}/${name}.mlir
              -o ${hsaco}
      DEPENDS ${ARG_SOURCE_DIR}/${name}.mlir ${ARG_COMPILER}
      COMMENT "Compiling ${ARG_LABEL} kernel ${name}"
      VERBATIM)
    list(APPEND files "${name}.hsaco=${hsaco}" "${name}.hsaco.json=${hsaco}.json")
    list(APPEND outputs ${hsaco} ${hsaco}.json)
  endforeach()
  set(table ${CMAKE_CURRENT_BINARY_DIR}/${ARG_LABEL}-kernels.generated.cpp)
  add_custom_command(
    OUTPUT ${table}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${table}
            -DNAMESPACE=${ARG_NAMESPACE} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/MXGemmEmbedFiles.cmake
    DEPENDS ${outputs} ${PROJECT_SOURCE_DIR}/cmake/MXGemmEmbedFiles.cmake
    COMMENT "Embedding the ${ARG_LABEL} kernels"
    VERBATIM)
  set(${ARG_OUT_SOURCE} ${table} PARENT_SCOPE)
endfunction()
