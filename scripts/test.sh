#!/usr/bin/env bash
# Sets up a fresh machine, builds ktune and runs every test (unit, lit; GPU
# tests skip themselves without a GPU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
mkdir -p "$build/test-results"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" \
  --output-junit "$build/test-results/ctest.xml"
# Only GPU tests may skip; the summary says how many did.
python3 "$root/scripts/test-summary.py" "$build/test-results/ctest.xml" \
  "$build/test-results/lit.xml" "$root"

# Every fuzz harness for a bounded time (docs/fuzzing.md); 0 skips it.
fuzz_seconds="${KTUNE_CI_FUZZ_SECONDS:-20}"
if ((fuzz_seconds > 0)); then
  "$root/scripts/fuzz.sh" --seconds "$fuzz_seconds" \
    --build-dir "${KTUNE_FUZZ_BUILD_DIR:-$build-fuzz}"
fi
