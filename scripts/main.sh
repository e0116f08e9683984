#!/usr/bin/env bash
# The README's main command: install, build, then show the registered
# pipeline and round-trip the sample kernel spec of examples/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MXGEMM_BUILD_DIR:-$ROOT/build}"
source "$ROOT/scripts/setup.sh"

echo "== registered mxgemm passes and pipelines"
"$BUILD/bin/mxgemm-opt" --help | grep -E -- "--mxgemm-" || true
echo "== round trip of examples/wq_b.mlir"
"$BUILD/bin/mxgemm-opt" "$ROOT/examples/wq_b.mlir"
