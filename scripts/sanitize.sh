#!/usr/bin/env bash
# Sanitizer runs, each in its own clang-22 build directory (docs/Emulator.md).
#
#   scripts/sanitize.sh tsan   ThreadSanitizer: the HIP facade and the
#                              emulator built with -fsanitize=thread, then the
#                              facade's multithreaded stress test
#                              (MXGemmFacadeThreadTests) and the facade's API
#                              test. Any report fails the run.
#
# The stress test also drives the facade through the runtime shim's C API;
# that library is taken from the normal build (it embeds kernels compiled by
# mxgemm-compile, which the sanitizer build would otherwise have to build),
# so its own code is not instrumented (docs/Runtime.md has its TSan run).
#
# Environment: MXGEMM_TSAN_BUILD_DIR (default ./build-tsan), MXGEMM_BUILD_DIR
# (the normal build, default ./build), MXGEMM_JOBS (2).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODE="${1:-}"
case "$MODE" in
tsan)
  BUILD="${MXGEMM_TSAN_BUILD_DIR:-$ROOT/build-tsan}"
  LAUNCHER=()
  if command -v ccache >/dev/null; then
    LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMXGEMM_SANITIZE=thread \
    "${LAUNCHER[@]}" >/dev/null
  ninja -C "$BUILD" -j"${MXGEMM_JOBS:-2}" MXGemmFacadeThreadTests \
    MXGemmEmulatorTests mxgemm_hip_emu
  NORMAL="${MXGEMM_BUILD_DIR:-$ROOT/build}"
  [ -f "$NORMAL/build.ninja" ] || {
    echo "$0: needs the normal build in $NORMAL (scripts/test.sh)" >&2
    exit 2
  }
  ninja -C "$NORMAL" -j"${MXGEMM_JOBS:-2}" mxgemm_runtime
  export MXGEMM_RUNTIME_LIBRARY="$NORMAL/lib/libmxgemm_runtime.so"
  # halt_on_error: the first report ends the run with a failure.
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
  echo "== ThreadSanitizer: facade stress test"
  "$BUILD/bin/MXGemmFacadeThreadTests"
  echo "== ThreadSanitizer: facade API test"
  "$BUILD/bin/MXGemmEmulatorTests" --gtest_filter='HipFacade.*'
  echo "== ThreadSanitizer: no reports"
  ;;
*)
  echo "usage: $0 tsan" >&2
  exit 2
  ;;
esac
