#!/usr/bin/env bash
# Builds examples/check/check_examples.cu with every example kernel and runs
# it on the local GPU: correctness of every launcher against a CPU reference,
# every configuration of the hand-written silu_and_mul template, and the
# planted faults (the illegal address and the hang each in their own process).
# Needs nvcc and one sm_90 GPU. BUILD_DIR overrides the build folder.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build/examples-check}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$build"

pids=()
for source in "$root"/examples/*.cu "$root"/examples/check/check_examples.cu; do
  "$nvcc" -std=c++17 -arch=sm_90 -O2 -c "$source" \
    -o "$build/$(basename "$source" .cu).o" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "build failed"; exit 1; }
done
"$nvcc" -arch=sm_90 -o "$build/check_examples" "$build"/*.o || exit 1

status=0
"$build/check_examples" all "${SEED:-}" || status=1

"$build/check_examples" fault 4
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "ok   planted fault 4: illegal address reported and sticky"
else
  echo "FAIL planted fault 4: exit $rc"
  status=1
fi

timeout 15 "$build/check_examples" fault 5
rc=$?
if [ "$rc" -eq 124 ]; then
  echo "ok   planted fault 5: hang ended by the 15 s timeout"
else
  echo "FAIL planted fault 5: exit $rc (expected a timeout)"
  status=1
fi

# TIME_TEMPLATE=1 also times the hand-written template's space.
if [ "${TIME_TEMPLATE:-0}" = 1 ]; then
  "$build/check_examples" time-template || status=1
fi

[ "$status" -eq 0 ] && echo "run-gpu-checks: all passed" || echo "run-gpu-checks: FAILED"
exit "$status"
