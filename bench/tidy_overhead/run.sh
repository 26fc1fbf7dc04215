#!/usr/bin/env bash
# Cost of the ktune clang-tidy checks: clang-tidy with every ktune-* check
# against clang-tidy with one cheap built-in check, on each example kernel.
# Both runs parse the same file with the same flags, so the difference is what
# the checks add: loading the module, detection, planning and the fix-its.
# The runs alternate (ktune, baseline, ktune, ...) so that load on the
# machine affects both alike. Reports the median of N runs of each, and their
# ratio. The bar is a ratio below 1.3.
#
#   bench/tidy_overhead/run.sh [-n N] [-o results.md] [build-dir]
#
# Needs clang-tidy-19, the CUDA toolkit headers and build/lib/KtuneTidy.so.
set -euo pipefail

runs=5
out=""
while getopts "n:o:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-n N] [-o results.md] [build-dir]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
plugin=$build/lib/KtuneTidy.so
tidy=${CLANG_TIDY:-clang-tidy-19}
cuda=${CUDA_PATH:-/usr/local/cuda}
baseline_check=readability-braces-around-statements

[[ -f $plugin ]] || { echo "error: $plugin not found (ninja -C $build KtuneTidy)" >&2; exit 2; }
command -v "$tidy" >/dev/null || { echo "error: $tidy not found" >&2; exit 2; }
[[ -f $cuda/include/cuda_runtime.h ]] || { echo "error: no CUDA headers under $cuda" >&2; exit 2; }

args=(-x cuda -std=c++17 "--cuda-path=$cuda" -Wno-unknown-cuda-version
      -isystem "$root/share/ktune/cuda-compat" -isystem "$cuda/include/cccl"
      --cuda-host-only -I "$root/examples")

seconds() { # command... -> wall seconds, output discarded
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "error: failed: $*" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }'
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

table="| example | ktune-* (s) | $baseline_check (s) | ratio |
|---|---:|---:|---:|"
worst=0
for src in "$root"/examples/*.cu; do
  name=$(basename "$src" .cu)
  ktune_times=() base_times=()
  # One warm-up of each: file cache, dynamic loader.
  seconds "$tidy" "--load=$plugin" "-checks=-*,ktune-*" "$src" -- "${args[@]}" >/dev/null
  seconds "$tidy" "-checks=-*,$baseline_check" "$src" -- "${args[@]}" >/dev/null
  for ((i = 0; i < runs; i++)); do
    ktune_times+=("$(seconds "$tidy" "--load=$plugin" "-checks=-*,ktune-*" "$src" -- "${args[@]}")")
    base_times+=("$(seconds "$tidy" "-checks=-*,$baseline_check" "$src" -- "${args[@]}")")
  done
  k=$(printf '%s\n' "${ktune_times[@]}" | median)
  b=$(printf '%s\n' "${base_times[@]}" | median)
  ratio=$(awk -v k="$k" -v b="$b" 'BEGIN { printf "%.6f", k / b }')
  worst=$(awk -v r="$ratio" -v w="$worst" 'BEGIN { print (r > w) ? r : w }')
  row=$(printf '| %s | %.3f | %.3f | %.3f |' "$name" "$k" "$b" "$ratio")
  table+=$'\n'"$row"
  echo "$row"
done

verdict=$(awk -v w="$worst" 'BEGIN { print (w < 1.3) ? 1 : 0 }')
summary=$(printf 'worst ratio %.3f (bar: < 1.3): %s' "$worst" "$([[ $verdict == 1 ]] && echo pass || echo FAIL)")
echo "$summary"

if [[ -n $out ]]; then
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  cat > "$out" <<MD
# clang-tidy overhead of the ktune checks

Wall time of \`clang-tidy-19\` on each example kernel (host pass). It
compares every \`ktune-*\` check (module loaded with \`--load\`) against
one cheap built-in check, \`$baseline_check\`, without the module. The
figures are the median of $runs runs of each, alternating, after one
warm-up run of each. Both runs parse the file the same way, so the ratio is
what the checks add on top of parsing: loading the module, detection,
planning and the fix-its.

Command: \`bench/tidy_overhead/run.sh -n $runs -o bench/results/tidy_overhead.md\`

Machine: $(nproc) cores ($cpu), $(uname -sr), $("$tidy" --version | grep -m1 -o 'LLVM version [0-9.]*'),
CUDA headers from $cuda. The machine was shared with other jobs while
this ran; alternating the runs keeps that load from favouring either side.

$table

Result: $summary.
MD
  echo "wrote $out"
fi
[[ $verdict == 1 ]]
