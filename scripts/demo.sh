#!/usr/bin/env bash
# Sets up a fresh machine, builds ktune and tunes a bundled kernel written
# the way FlashInfer and SGLang write theirs (examples/launcher/): a kernel
# that reads blockDim, launched by a host function that caps the block at
# 1024 threads. The cap is the knob: ktune builds the user's launcher with
# nvcc for each cap (a launch parameter of the bundled template), calls it
# as an application would, checks every output against the native launcher
# and times it with a cold L2, then writes a header whose
# ktune_tuned::silu_and_mul is called as the original is. Without a GPU it
# builds every configuration, checks it against the device limits, says so
# and stops.
#
#   scripts/demo.sh                         # the launcher demo (above)
#   scripts/demo.sh <example> [options]     # `ktune run` on examples/<example>.cu
#
# On a host without internet or LLVM (a GPU machine): KTUNE_DEMO_SETUP=0
# skips the package installation and KTUNE_DEMO_CMAKE_ARGS adds configure
# options, e.g. "-DKTUNE_ENABLE_CLANG=OFF -DKTUNE_BUILD_TESTS=OFF": the
# launcher demo needs only ktune-tune and ktune-worker, which build without
# Clang.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_BUILD_DIR:-$root/build}"
example="${1:-launcher}"
shift || true

[ "${KTUNE_DEMO_SETUP:-1}" = 0 ] || "$root/scripts/setup.sh"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${KTUNE_DEMO_CMAKE_ARGS:-} >/dev/null
if [ "$example" = launcher ]; then
  cmake --build "$build" --target ktune-tune ktune-worker
else
  cmake --build "$build" --target ktune ktune-refactor ktune-tune ktune-worker
fi

cd "$root"
if [ "$example" = launcher ]; then
  ex=examples/launcher
  out=tuned/launcher
  mkdir -p "$out"
  mode=()
  if [ -n "${KTUNE_NO_GPU:-}" ] || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "demo: no GPU here: building and checking every configuration (compile-only)"
    mode=(--compile-only)
  fi
  status=0
  "$build/bin/ktune-tune" $ex/silu_and_mul_launcher.tpl.cu \
    --spec $ex/silu_and_mul_launcher.spec.json --strategy brute_force "${mode[@]}" \
    --out $out/silu_and_mul.results.json --header $out/silu_and_mul.tuned.h \
    --journal $out/silu_and_mul.journal.jsonl "$@" || status=$?
  echo
  if [ $status -ne 0 ]; then
    echo "demo: ktune-tune failed (exit $status)"
    exit $status
  fi
  python3 scripts/demo_summary.py $out/silu_and_mul.results.json
  if [ ${#mode[@]} -eq 0 ]; then
    echo "demo: include $out/silu_and_mul.tuned.h and call ktune_tuned::silu_and_mul(out, in, d, num_tokens, stream)"
  fi
  exit 0
fi
"$build/bin/ktune" run "examples/$example.cu" --spec "examples/$example.spec.json" \
  --out-dir "tuned/$example" "$@"
echo
echo "demo: outputs in tuned/$example/ (open tuned/$example/report.html when a GPU tuned it)"
