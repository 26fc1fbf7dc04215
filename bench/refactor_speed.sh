#!/usr/bin/env bash
# Measures how long ktune-refactor takes on a ~250-line file that includes
# cuda_bf16.h and cub (both parse sides, 6 kernels, the built-in plan):
#   cold  - empty preamble cache (first run on a file, or headers changed)
#   warm  - cached preamble (every later run while the #include block and
#           the headers are unchanged)
#   plain - --no-cache (no preamble at all; header bodies still skipped)
# Prints wall-clock and CPU seconds per run and the medians. The machine
# load is printed too: on a shared machine wall time follows it.
#
#   bench/refactor_speed.sh [build-dir] [runs]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
runs="${2:-5}"
tool="$build/bin/ktune-refactor"
input="$root/bench/inputs/refactor_speed.cu"
[[ -x "$tool" ]] || { echo "build ktune-refactor first: $tool" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

measure() { # label, then the command
  local label=$1; shift
  local t
  t=$( { /usr/bin/time -f "%e %U %S" "$@" >/dev/null 2>"$work/err"; } 2>&1 ) || {
    cat "$work/err" >&2; exit 1; }
  # /usr/bin/time writes its line last on stderr.
  t=$(tail -n 1 "$work/err")
  echo "$label $t"
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input:   $input ($(wc -l < "$input") lines)"
echo "runs:    $runs"
echo "kind  wall_s user_s sys_s"
{
  for i in $(seq "$runs"); do
    rm -rf "$work/cache"
    measure cold env KTUNE_CACHE_DIR="$work/cache" "$tool" "$input" -o "$work/out.cu"
  done
  for i in $(seq "$runs"); do
    measure warm env KTUNE_CACHE_DIR="$work/cache" "$tool" "$input" -o "$work/out.cu"
  done
  for i in $(seq "$runs"); do
    measure plain "$tool" "$input" --no-cache -o "$work/out.cu"
  done
} | tee "$work/times.txt"
echo "medians (wall_s, cpu_s = user + sys):"
for kind in cold warm plain; do
  grep "^$kind " "$work/times.txt" | awk -v k="$kind" '
    { wall[NR] = $2; cpu[NR] = $3 + $4 }
    END {
      n = asort(wall); m = asort(cpu)
      mid = int((n + 1) / 2)
      printf "  %-5s wall %.2f s   cpu %.2f s\n", k, wall[mid], cpu[mid]
    }'
done
