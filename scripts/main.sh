#!/usr/bin/env bash
# The README's main command: install, build, show the registered passes,
# compile the case table's kernels, then run the qualification.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MXGEMM_BUILD_DIR:-$ROOT/build}"
source "$ROOT/scripts/setup.sh"

CASES="${MXGEMM_CASES:-$ROOT/data/cases/deepseek_v4_flash_tp2.tsv}"

echo "== registered mxgemm passes and pipelines"
"$BUILD/bin/mxgemm-opt" --help | grep -E -- "--(convert-)?mxgemm-" || true
# Debian's interpreter (python3-numpy is installed for it, not necessarily
# for the first python3 on PATH) and this checkout's mxgemm package.
PYTHON="${MXGEMM_PYTHON:-/usr/bin/python3}"
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
echo "== tuned gfx950 kernels of the case-table families (tuning/gfx950.json; median of 3 cold compiles)"
"$PYTHON" "$ROOT/scripts/compile_case_table.py" "$BUILD" "$CASES" "$BUILD/kernels"
echo "== qualification: 21 cases x 3 seeds on the emulator's HIP facade (docs/Qualification.md)"
"$PYTHON" "$ROOT/tools/mxgemm-qualify/mxgemm_qualify.py" --build "$BUILD" \
  --cases "$CASES" --out "$ROOT"
