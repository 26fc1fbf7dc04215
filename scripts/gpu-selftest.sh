#!/usr/bin/env bash
# Builds the tuner side (no Clang) and runs everything that needs a GPU: the
# `gpu` tests and the tuner-overhead benchmark, plus the CPU unit tests of the
# same build as a sanity check. Logs go to $OUT when set (else build-gpu/selftest).
# Exit status: non-zero when the build or any test fails.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_BUILD_DIR:-$root/build-gpu}"
out="${OUT:-$build/selftest}"
mkdir -p "$out"
jobs="$(nproc)"
status=0

{
  echo "== $(date -u +%FT%TZ) $(uname -srm)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem \
    --format=csv 2>&1 || echo "nvidia-smi not available"
  command -v nvcc >/dev/null && nvcc --version | tail -2
  g++ --version | head -1
  cmake --version | head -1
} >"$out/environment.txt" 2>&1

echo "== configure and build (log: $out/build.log)"
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
         -DKTUNE_ENABLE_CLANG=OFF -DKTUNE_ENABLE_CUDA=ON &&
       cmake --build "$build" -j "$jobs"; } >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "gpu-selftest: BUILD FAILED"
  exit 1
fi

echo "== unit tests (CPU) of this build (log: $out/ctest-unit.log)"
# The schema test checks plans with python3-jsonschema, which scripts/setup.sh
# installs; a GPU machine set up only for this script may lack it.
unit_exclude=()
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  echo "python3-jsonschema missing: PlanSchema.HeuristicPlansMatchTheSchema left out"
  unit_exclude=(-E 'PlanSchema\.HeuristicPlansMatchTheSchema')
fi
ctest --test-dir "$build" -L unit -LE gpu "${unit_exclude[@]}" -j "$jobs" \
  --output-on-failure >"$out/ctest-unit.log" 2>&1 || status=1
tail -5 "$out/ctest-unit.log"

echo "== gpu tests (log: $out/ctest-gpu.log)"
# One at a time: they time kernels and must not share the GPU.
ctest --test-dir "$build" -L gpu -j 1 -V \
  >"$out/ctest-gpu.log" 2>&1 || status=1
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed" "$out/ctest-gpu.log" | tail -40

echo "== tuner overhead (log: $out/bench.log)"
"$build/bin/ktune-bench-overhead" --out "$out/tuner_overhead.json" \
  >"$out/bench.log" 2>&1 || status=1
cat "$out/bench.log"

echo "== summary"
grep -E "tests passed|tests failed" "$out/ctest-unit.log" "$out/ctest-gpu.log"
if grep -q "Skipped" "$out/ctest-gpu.log" && ! grep -q "Passed" "$out/ctest-gpu.log"; then
  echo "gpu-selftest: every gpu test skipped: no usable GPU?"
  status=1
fi
echo "gpu-selftest: $([[ $status == 0 ]] && echo OK || echo FAILED)"
exit $status
