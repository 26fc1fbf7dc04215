#!/usr/bin/env bash
# Two GPUs against one, on one host: the same brute-force search of the
# hand-written silu_and_mul template over examples/silu_and_mul.spec.json
# (15 shapes, 59 configurations x 5 register caps), once with --gpus 0 and
# once with --gpus 0,1, each sized to take about TARGET_S seconds on one GPU;
# then report.py compares evaluations per second (bar: >= 1.8x) and the
# quality of the results, and writes multi_gpu_<device>.md.
#
#   bench/multi_gpu/run_gpu.sh [BIN_DIR]
#
# BIN_DIR holds ktune-tune and ktune-worker (e.g. .carry/bin from
# scripts/package-gpu.sh); without it the tuner side is built here (no
# Clang, no MPI) into $BUILD_DIR (default build-gpu). About 5 minutes in all
# on a 16-core host: the build, a compile-only pass that warms the compile
# cache, a short calibration run, then the two measured runs.
#
# Environment (all optional):
#   OUT          logs and each run's results, journal and log in runs/
#                (default bench-out/multi_gpu); the report goes to
#                $RESULTS_DIR (default $OUT when OUT is set, else
#                bench/results). The compile cache stays in a temporary
#                directory.
#   TARGET_S     seconds of the one-GPU run (default 75)
#   GPUS_ONE     --gpus of the first run (default 0)
#   GPUS_TWO     --gpus of the second (default 0,1); with one GPU,
#                GPUS_TWO=0 KTUNE_WORKERS_PER_GPU=2 exercises the script
#   SIMULATE     a T4 recording: replay it with 1 and 2 virtual devices
#                instead (--devices), SIMULATE_DELAY_MS per evaluation
#                (default 20): the script's test, no GPU needed
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
out="${OUT:-$root/bench-out/multi_gpu}"
results_dir="${RESULTS_DIR:-${OUT:+$out}}"
results_dir="${results_dir:-$root/bench/results}"
target_s="${TARGET_S:-75}"
gpus_one="${GPUS_ONE:-0}"
gpus_two="${GPUS_TWO:-0,1}"
python="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ktune-multi-gpu.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$results_dir"
t_start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - t_start )) s"; }

bin="${1:-}"
if [ -z "$bin" ]; then
  build="${BUILD_DIR:-$root/build-gpu}"
  echo "== build the tuner side into $build (log: $out/build.log)"
  if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
           -DKTUNE_ENABLE_CLANG=OFF -DKTUNE_BUILD_TESTS=OFF \
           -DKTUNE_ENABLE_MPI=OFF &&
         cmake --build "$build" -j "$(nproc)" --target ktune-tune ktune-worker
       } >"$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    echo "run_gpu: BUILD FAILED"
    exit 1
  fi
  bin="$build/bin"
  echo "built ($(elapsed))"
fi
tune="$bin/ktune-tune"
[ -x "$tune" ] || { echo "run_gpu: no ktune-tune in $bin" >&2; exit 1; }

# What to tune, and how each run names its devices.
if [ -n "${SIMULATE:-}" ]; then
  base=("$tune" --simulate "$SIMULATE" --simulate-delay-ms "${SIMULATE_DELAY_MS:-20}")
  devices() { echo --devices "$(tr ',' '\n' <<<"$1" | wc -l)"; }
  device="simulated $(basename "$SIMULATE" | sed 's/_T4.*//; s/\.json.*//')"
else
  names="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
  count="$(grep -c . <<<"$names")"
  echo "$names" | nl -v0 | sed 's/^/GPU /'
  needed="$(tr ',' '\n' <<<"$gpus_two" | sort -n | tail -1)"
  if [ -z "$names" ] || (( count <= needed )); then
    echo "run_gpu: --gpus $gpus_two needs $((needed + 1)) GPU(s); found $count" >&2
    exit 1
  fi
  device="$(head -1 <<<"$names")"
  cp examples/handwritten/silu_and_mul.tpl.cu examples/handwritten/silu_and_mul.tpl.json "$work/"
  base=("$tune" "$work/silu_and_mul.tpl.cu" --spec examples/silu_and_mul.spec.json)
  devices() { echo --gpus "$1"; }
  export KTUNE_CACHE_DIR="$work/cache"
  echo "== warm the compile cache: every configuration, compile-only ($(elapsed))"
  "${base[@]}" --compile-only -q --out "$work/compile.results.json" \
    --journal "$work/compile.journal.jsonl" >"$out/compile.log" 2>&1 ||
    { tail -20 "$out/compile.log"; echo "run_gpu: compile-only pass failed"; exit 1; }
fi
slug="$(tr 'A-Z' 'a-z' <<<"$device" | sed 's/^nvidia //; s/[^a-z0-9]\{1,\}/_/g; s/_$//')"

# One search: NAME GPUS BUDGET; its files and wall time in $work/NAME.
run() {
  local dir="$work/$1"
  mkdir -p "$dir"
  echo "$2" >"$dir/gpus.txt"
  local extra=()
  [ -z "${SIMULATE:-}" ] && extra=(--header "$dir/tuned.h")
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  "${base[@]}" $(devices "$2") --strategy brute_force --budget "$3" \
    --out "$dir/results.json" --journal "$dir/journal.jsonl" "${extra[@]}" \
    >"$dir/stdout.log" 2>"$dir/stderr.log"
  local rc=$?
  t1=$(date +%s.%N)
  "$python" -c "print($t1 - $t0)" >"$dir/wall.txt"
  echo "$1: --gpus $2, budget $3: exit $rc, $(cat "$dir/wall.txt") s"
  [ $rc = 0 ] || { tail -20 "$dir/stderr.log"; return 1; }
}

echo "== calibrate ($(elapsed))"
run calibration "$gpus_one" 10 || { cp -r "$work/calibration" "$out/"; exit 1; }
budget="$("$python" bench/multi_gpu/report.py budget --calibration "$work/calibration" \
  --target-seconds "$target_s")"
echo "budget $budget per shape (about $target_s s on one GPU)"

echo "== one GPU ($(elapsed))"
run one "$gpus_one" "$budget" || { cp -r "$work/one" "$out/"; exit 1; }
echo "== two GPUs ($(elapsed))"
run two "$gpus_two" "$budget" || { cp -r "$work/two" "$out/"; exit 1; }

# What each run wrote, beside the logs (not the compile cache).
rm -rf "$out/runs"
mkdir -p "$out/runs"
for name in calibration one two; do
  cp -r "$work/$name" "$out/runs/"
done
report="$results_dir/multi_gpu_${slug}.md"
"$python" bench/multi_gpu/report.py write --one "$work/one" --two "$work/two" \
  --device "$device" --out "$report" \
  --command "bench/multi_gpu/run_gpu.sh${1:+ $1} (TARGET_S=$target_s, budget $budget per shape)"
status=$?
echo "done ($(elapsed))"
exit $status
