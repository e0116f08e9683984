# The AOT kernel library: compile every entry of a tuning database with
# mxgemm-compile and generate the C++ dispatch table that embeds the code
# objects (tuning/mxgemm_tuning.py does the work, see docs/Runtime.md).
#
# mxgemm_kernel_library(OUT_SOURCE <var> DB <file> [COMPILER <target>])
#   Sets <var> to the generated .cpp (add it to the runtime library).
#
# Incremental rebuilds: the entry list is read at configure time (the
# database is a configure dependency, so adding or removing an entry
# re-runs CMake); at build time one command checks the database and rewrites
# only the per-entry JSON files whose content changed, one command per entry
# compiles it, and Ninja's restat of custom commands keeps untouched entries
# (and the table, when no code object changed) from being rebuilt.

find_package(Python3 REQUIRED COMPONENTS Interpreter)

function(mxgemm_kernel_library)
  cmake_parse_arguments(ARG "" "OUT_SOURCE;DB;COMPILER" "" ${ARGN})
  if(NOT ARG_COMPILER)
    set(ARG_COMPILER mxgemm-compile)
  endif()
  set(tool ${PROJECT_SOURCE_DIR}/tuning/mxgemm_tuning.py)
  set(work ${CMAKE_CURRENT_BINARY_DIR}/kernels)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${ARG_DB} ${tool})

  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${tool} list ${ARG_DB}
    OUTPUT_VARIABLE names ERROR_VARIABLE err RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tuning database check failed:\n${err}")
  endif()
  string(REPLACE "\n" ";" names "${names}")

  set(entry_files)
  foreach(name IN LISTS names)
    list(APPEND entry_files ${work}/${name}.json)
  endforeach()
  add_custom_command(
    OUTPUT ${entry_files}
    COMMAND ${Python3_EXECUTABLE} ${tool} check ${ARG_DB} --out-dir ${work}
    DEPENDS ${ARG_DB} ${tool}
    COMMENT "Checking the tuning database ${ARG_DB}"
    VERBATIM)

  set(hsacos)
  foreach(name IN LISTS names)
    set(hsaco ${work}/${name}.hsaco)
    add_custom_command(
      OUTPUT ${hsaco} ${hsaco}.json
      COMMAND ${Python3_EXECUTABLE} ${tool} compile ${work}/${name}.json
              --db ${ARG_DB} --compiler $<TARGET_FILE:${ARG_COMPILER}>
              -o ${hsaco}
      DEPENDS ${work}/${name}.json ${ARG_COMPILER} ${tool}
      COMMENT "Compiling tuned kernel ${name}"
      VERBATIM)
    list(APPEND hsacos ${hsaco})
  endforeach()

  set(table ${CMAKE_CURRENT_BINARY_DIR}/KernelTable.generated.cpp)
  add_custom_command(
    OUTPUT ${table}
    COMMAND ${Python3_EXECUTABLE} ${tool} table --out ${table}
            --kernel-dir ${work} ${entry_files}
    DEPENDS ${hsacos} ${entry_files} ${tool}
    COMMENT "Generating the embedded kernel table"
    VERBATIM)
  set(${ARG_OUT_SOURCE} ${table} PARENT_SCOPE)
endfunction()
