#!/usr/bin/env bash
# Sets up a fresh machine, builds ktune and tunes a bundled kernel written
# the way FlashInfer and SGLang write theirs (examples/launcher/): a kernel
# that reads blockDim, launched by a host function that caps the block at
# 1024 threads. The cap is the knob: `ktune run` refactors the original
# file (the cap becomes a launch parameter of the launcher), builds the
# user's launcher with nvcc for each cap, calls it as an application would,
# checks every output against the native launcher and times it with a cold
# L2, then writes a header whose ktune_tuned::silu_and_mul is called as the
# original is. Without a GPU it builds every configuration, checks it
# against the device limits, says so and stops. Built without Clang (a GPU
# host without LLVM), ktune-tune tunes the bundled template instead.
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
with_clang=1
grep -q '^KTUNE_ENABLE_CLANG:BOOL=OFF' "$build/CMakeCache.txt" && with_clang=0
if [ "$example" = launcher ] && [ $with_clang = 0 ]; then
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
  if [ $with_clang = 1 ]; then
    # Refactor the original, then tune (ktune run compiles only without a GPU).
    results=$out/results.json header=$out/silu_and_mul_launcher.tuned.h
    rm -rf "$out"
    "$build/bin/ktune" run $ex/silu_and_mul_launcher.cu \
      --spec $ex/silu_and_mul_launcher.spec.json --strategy brute_force \
      --out-dir $out "$@" || status=$?
  else
    results=$out/silu_and_mul.results.json header=$out/silu_and_mul.tuned.h
    "$build/bin/ktune-tune" $ex/silu_and_mul_launcher.tpl.cu \
      --spec $ex/silu_and_mul_launcher.spec.json --strategy brute_force "${mode[@]}" \
      --out $results --header $header \
      --journal $out/silu_and_mul.journal.jsonl "$@" || status=$?
  fi
  echo
  if [ $status -ne 0 ]; then
    echo "demo: tuning failed (exit $status)"
    exit $status
  fi
  python3 scripts/demo_summary.py $results
  if [ ${#mode[@]} -eq 0 ]; then
    echo "demo: include $header and call ktune_tuned::silu_and_mul(out, in, d, num_tokens, stream)"
  fi
  exit 0
fi
"$build/bin/ktune" run "examples/$example.cu" --spec "examples/$example.spec.json" \
  --out-dir "tuned/$example" "$@"
echo
echo "demo: outputs in tuned/$example/ (open tuned/$example/report.html when a GPU tuned it)"
