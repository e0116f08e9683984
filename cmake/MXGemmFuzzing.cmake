# mxgemm_add_fuzzer(NAME SOURCES src... LINK libs... CORPUS dir)
#
# One fuzz target: a source file defining
#   extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
# built as bin/fuzz-NAME, and a test `fuzz-NAME-corpus` that runs it over
# the committed seed corpus `dir` (so ctest replays every seed and every
# regression input in each build).
#  - Normal build (any compiler, no sanitizers): bin/fuzz-NAME is a replay
#    driver (fuzz/ReplayMain.cpp) that feeds every file of the directories
#    and files on its command line to the target once.
#  - -DMXGEMM_ENABLE_FUZZERS=ON (clang, separate build dir): a libFuzzer
#    binary with ASan and UBSan; scripts/fuzz.sh NAME SECONDS runs it.
# docs/Fuzzing.md has the details.
function(mxgemm_add_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS" "SOURCES;LINK" ${ARGN})
  if(NOT ARG_SOURCES OR NOT ARG_CORPUS)
    message(FATAL_ERROR "mxgemm_add_fuzzer(${name}): SOURCES and CORPUS "
      "are required")
  endif()
  set(target fuzz-${name})
  if(MXGEMM_ENABLE_FUZZERS)
    # SanitizerOptions.cpp: no manual poisoning (partly instrumented LLVM).
    add_executable(${target} ${ARG_SOURCES}
      ${PROJECT_SOURCE_DIR}/fuzz/SanitizerOptions.cpp)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
    # -runs=0: execute the corpus once, then exit.
    add_test(NAME ${target}-corpus COMMAND ${target} -runs=0 ${ARG_CORPUS})
  else()
    add_executable(${target} ${ARG_SOURCES}
      ${PROJECT_SOURCE_DIR}/fuzz/ReplayMain.cpp)
    add_test(NAME ${target}-corpus COMMAND ${target} ${ARG_CORPUS})
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_LINK})
  set_target_properties(${target} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()
