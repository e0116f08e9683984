#!/usr/bin/env bash
# Installs the Debian 12 packages mxgemm needs (when missing) and builds it
# into ./build. Sourced by scripts/main.sh and scripts/test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MXGEMM_BUILD_DIR:-$ROOT/build}"

PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools lld-22 liblld-22-dev
  llvm-22-tools clang-22 cmake ninja-build g++ libgtest-dev libgmock-dev
  libbenchmark-dev zlib1g-dev libzstd-dev nlohmann-json3-dev libmd-dev python3
  python3-numpy python3-pytest python3-setuptools python3-venv python3-torch)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== configuring and building in $BUILD"
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" -j"${MXGEMM_JOBS:-2}"
