#!/usr/bin/env bash
# Build one fuzz target as a libFuzzer binary (clang-22, ASan + UBSan, in
# its own build directory) and fuzz it for SECONDS on one core, starting
# from its committed seed corpus. docs/Fuzzing.md.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#   scripts/fuzz.sh code-object 600
#
# New inputs go to $BUILD/fuzz-work/TARGET/corpus (the committed seeds are
# only read), crashes to $BUILD/fuzz-work/TARGET/artifacts/. Environment:
# MXGEMM_FUZZ_BUILD_DIR (default ./build-fuzz), MXGEMM_JOBS (build, 2).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 2 ]; then
  echo "usage: $0 TARGET SECONDS [libFuzzer flags...]" >&2
  echo "targets: $(ls "$ROOT/fuzz/corpus" | tr '\n' ' ')" >&2
  exit 2
fi
TARGET="$1"
SECONDS_TO_RUN="$2"
shift 2
BUILD="${MXGEMM_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SEEDS="$ROOT/fuzz/corpus/$TARGET"
[ -d "$SEEDS" ] || { echo "no seed corpus $SEEDS" >&2; exit 2; }

LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$ROOT" -B "$BUILD" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMXGEMM_ENABLE_FUZZERS=ON \
  "${LAUNCHER[@]}" >/dev/null
ninja -C "$BUILD" -j"${MXGEMM_JOBS:-2}" "fuzz-$TARGET"

WORK="$BUILD/fuzz-work/$TARGET"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
# One process on one core; the first corpus directory receives new inputs.
exec "$BUILD/bin/fuzz-$TARGET" "$WORK/corpus" "$SEEDS" \
  -max_total_time="$SECONDS_TO_RUN" -artifact_prefix="$WORK/artifacts/" \
  -print_final_stats=1 "$@"
