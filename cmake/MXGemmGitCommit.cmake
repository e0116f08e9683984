# Script mode: cmake -DSOURCE_DIR=... -DOUTPUT=... -P MXGemmGitCommit.cmake
# Writes `#define MXGEMM_GIT_COMMIT "<short hash>"` into OUTPUT, touching it
# only when the value changes, so that only lib/Support/Version.cpp is
# rebuilt after a commit.
execute_process(
  COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
execute_process(
  COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT dirty STREQUAL "" AND NOT commit STREQUAL "unknown")
  set(commit "${commit}-dirty")
endif()
set(text "#define MXGEMM_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUTPUT}" "${text}")
endif()
