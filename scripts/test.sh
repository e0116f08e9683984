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
exit $status
