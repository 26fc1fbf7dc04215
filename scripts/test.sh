#!/usr/bin/env bash
# Sets up a fresh machine, builds ktune and runs every test (unit, lit; GPU
# tests skip themselves without a GPU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
