# Sanitized builds. Each gets its own build directory and clang-22
# (CC=clang-22 CXX=clang++-22): scripts/sanitize.sh (docs/Emulator.md) and
# scripts/fuzz.sh (docs/Fuzzing.md) configure them.
#
#   -DMXGEMM_SANITIZE=thread|address|undefined|address,undefined
#       every mxgemm target built with these -fsanitize checks;
#   -DMXGEMM_ENABLE_FUZZERS=ON
#       the fuzz/ targets become libFuzzer binaries, and everything they
#       link of ours is built with -fsanitize=fuzzer-no-link,address,undefined.
#
# Only our code is instrumented: Debian's shared libLLVM/libMLIR are used
# as they are (their memory is still checked when our code touches it).
# ThreadSanitizer uses the shared runtime (-shared-libsan, its directory in
# the rpath), so that our shared libraries (the HIP facade, the runtime,
# the C API) still link with --no-undefined and share one runtime with the
# executable that dlopens them. ASan and UBSan use the static runtimes
# (ASan's shared one must precede libLLVM in the load order, which the link
# does not give); with them, build executables (fuzz targets, tests), not
# our shared libraries.

set(MXGEMM_SANITIZE "" CACHE STRING
  "Comma list of -fsanitize= checks for every mxgemm target (clang)")
option(MXGEMM_ENABLE_FUZZERS
  "Build fuzz/ targets as libFuzzer binaries with ASan and UBSan (clang)" OFF)

set(_mxgemm_sanitize "${MXGEMM_SANITIZE}")
if(MXGEMM_ENABLE_FUZZERS)
  if(MXGEMM_SANITIZE)
    message(FATAL_ERROR "MXGEMM_ENABLE_FUZZERS chooses its own sanitizers; "
      "do not combine it with MXGEMM_SANITIZE")
  endif()
  set(_mxgemm_sanitize "address,undefined")
endif()

if(_mxgemm_sanitize)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "sanitized builds need clang: configure a separate "
      "build directory with CC=clang-22 CXX=clang++-22")
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-runtime-dir
    OUTPUT_VARIABLE _mxgemm_rt_dir OUTPUT_STRIP_TRAILING_WHITESPACE)
  add_compile_options(-fsanitize=${_mxgemm_sanitize}
    -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${_mxgemm_sanitize})
  if(_mxgemm_sanitize MATCHES "thread")
    add_link_options(-shared-libsan -Wl,-rpath,${_mxgemm_rt_dir})
  endif()
  if(MXGEMM_ENABLE_FUZZERS)
    # Coverage feedback everywhere; libFuzzer's main only in fuzz targets.
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  message(STATUS "mxgemm: -fsanitize=${_mxgemm_sanitize} "
    "(runtimes from ${_mxgemm_rt_dir})")
endif()
