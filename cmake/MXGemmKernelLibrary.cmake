# The AOT kernel library: compile every entry of a tuning database with
# mxgemm-compile (which reads and checks the database with the contract's
# reader) and embed the database, the code objects and their kernel
# descriptors into a C++ source (see docs/Runtime.md). The runtime reads the
# embedded files with the same readers it uses for anything else.
#
# mxgemm_kernel_library(OUT_SOURCE <var> DB <file> [COMPILER <target>])
#   Sets <var> to the generated .cpp (add it to the runtime library).
#
# Incremental rebuilds: the entry names are read at configure time (the
# database is a configure dependency, so adding or removing an entry
# re-runs CMake); each entry is one compile command depending on the
# database, and the embedding is rewritten only when a byte changed.

function(mxgemm_kernel_library)
  cmake_parse_arguments(ARG "" "OUT_SOURCE;DB;COMPILER" "" ${ARGN})
  if(NOT ARG_COMPILER)
    set(ARG_COMPILER mxgemm-compile)
  endif()
  set(work ${CMAKE_CURRENT_BINARY_DIR}/kernels)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_DB})

  file(READ ${ARG_DB} db)
  string(JSON count ERROR_VARIABLE err LENGTH "${db}" entries)
  if(err)
    message(FATAL_ERROR "tuning database ${ARG_DB}: ${err}")
  endif()
  set(files "tuning-database.json=${ARG_DB}")
  set(outputs)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON name ERROR_VARIABLE err GET "${db}" entries ${i} name)
      if(err OR NOT name MATCHES "^[a-z][a-z0-9_]*$")
        message(FATAL_ERROR "tuning database ${ARG_DB}: entry ${i} has no "
                            "valid name (${err})")
      endif()
      set(hsaco ${work}/${name}.hsaco)
      add_custom_command(
        OUTPUT ${hsaco} ${hsaco}.json
        COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
        COMMAND $<TARGET_FILE:${ARG_COMPILER}> --tuning-db ${ARG_DB}
                --entry ${name} -o ${hsaco}
        DEPENDS ${ARG_DB} ${ARG_COMPILER}
        COMMENT "Compiling tuned kernel ${name}"
        VERBATIM)
      list(APPEND files "${name}.hsaco=${hsaco}" "${name}.hsaco.json=${hsaco}.json")
      list(APPEND outputs ${hsaco} ${hsaco}.json)
    endforeach()
  endif()

  # Generic kernels (run-time N and K, docs/Runtime.md "Generic kernels"):
  # E4M3 x E4M3 with both weight-scale kinds, BF16 out, one per M range of
  # contract::kGenericBuckets (the M hint picks genericConfig's structure).
  foreach(wscale block32x32 per_row)
    foreach(bucket "m1_16;16" "m17_64;64" "m65_up;0")
      list(GET bucket 0 range)
      list(GET bucket 1 hint)
      set(name generic_e4m3_e4m3_${wscale}_${range})
      set(hsaco ${work}/${name}.hsaco)
      add_custom_command(
        OUTPUT ${hsaco} ${hsaco}.json
        COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
        COMMAND $<TARGET_FILE:${ARG_COMPILER}> --dynamic-n --dynamic-k
                --x-format e4m3 --w-format e4m3 --w-scale ${wscale}
                --out-type bf16 --m ${hint} --name ${name} -o ${hsaco}
        DEPENDS ${ARG_COMPILER}
        COMMENT "Compiling generic kernel ${name}"
        VERBATIM)
      list(APPEND files "${name}.hsaco=${hsaco}" "${name}.hsaco.json=${hsaco}.json")
      list(APPEND outputs ${hsaco} ${hsaco}.json)
    endforeach()
  endforeach()

  set(table ${CMAKE_CURRENT_BINARY_DIR}/EmbeddedFiles.generated.cpp)
  add_custom_command(
    OUTPUT ${table}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${table}
            -DNAMESPACE=mxgemm::runtime "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/MXGemmEmbedFiles.cmake
    DEPENDS ${outputs} ${ARG_DB} ${PROJECT_SOURCE_DIR}/cmake/MXGemmEmbedFiles.cmake
    COMMENT "Embedding the tuned kernel library"
    VERBATIM)
  set(${ARG_OUT_SOURCE} ${table} PARENT_SCOPE)
endfunction()
