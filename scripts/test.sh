#!/usr/bin/env bash
# The README's test command: install, build, run every test suite.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MXGEMM_BUILD_DIR:-$ROOT/build}"
source "$ROOT/scripts/setup.sh"

status=0
echo "== lit regression tests"
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" || status=1
echo "== unit tests (ctest)"
(cd "$BUILD" && ctest --output-on-failure -j2) || status=1
echo "== Python package (pytest, on the emulator's HIP facade)"
# Debian's interpreter: python3-numpy/python3-pytest are installed for it.
PYTHON="${MXGEMM_PYTHON:-/usr/bin/python3}"
PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
  MXGEMM_RUNTIME_LIBRARY="$BUILD/lib/libmxgemm_runtime.so" \
  MXGEMM_HIP_LIBRARY="$BUILD/lib/libmxgemm_hip_emu.so" \
  MXGEMM_COMPILE="$BUILD/bin/mxgemm-compile" \
  "$PYTHON" -m pytest -q "$ROOT/python/tests" || status=1
exit $status
