#!/usr/bin/env bash
# Measures ktune-refactor on bench/inputs/refactor_speed.cu: ~300 lines that
# include cuda_bf16.h and cub, 7 kernels, both parse sides, built-in plan,
# template and manifest written. Four situations:
#   first  - default settings, no cached preamble: parse without one (a
#            detached process then builds it; the script waits for it)
#   warm   - cached preamble (every later run while the #include block and
#            the headers it reads are unchanged)
#   plain  - --no-cache: no preamble at all (header bodies still skipped)
#   cold   - --preamble-build=foreground with an empty cache: build the
#            preamble, then parse
# Prints wall-clock and CPU (user + sys) seconds per run and the medians,
# and the machine load: on a shared machine wall time follows the load,
# CPU time much less so.
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

# Prints "<label> <wall> <user> <sys>" for one run of the command.
measure() {
  local label=$1
  shift
  if ! /usr/bin/time -o "$work/time" -f "%e %U %S" "$@" >/dev/null 2>"$work/err"; then
    cat "$work/err" >&2
    exit 1
  fi
  echo "$label $(cat "$work/time")"
}

# Waits (up to 2 minutes) until both sides' preambles are in the cache.
wait_for_cache() {
  for _ in $(seq 240); do
    [[ $(ls "$1" 2>/dev/null | grep -cE '^[0-9a-f]{64}[.]pch$') == 2 ]] && return
    sleep 0.5
  done
  echo "the background preamble build did not finish" >&2
  exit 1
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input:   ${input#"$root"/} ($(wc -l <"$input") lines)"
echo "runs:    $runs per situation"
echo
echo "situation wall_s user_s sys_s"
{
  for _ in $(seq "$runs"); do
    rm -rf "$work/cache"
    measure first "$tool" "$input" --cache-dir "$work/cache" \
      --preamble-build=background -o "$work/out.cu"
    wait_for_cache "$work/cache"
  done
  for _ in $(seq "$runs"); do
    measure warm "$tool" "$input" --cache-dir "$work/cache" -o "$work/out.cu"
  done
  for _ in $(seq "$runs"); do
    measure plain "$tool" "$input" --no-cache -o "$work/out.cu"
  done
  for _ in $(seq "$runs"); do
    rm -rf "$work/cold"
    measure cold "$tool" "$input" --cache-dir "$work/cold" \
      --preamble-build=foreground -o "$work/out.cu"
  done
} | tee "$work/times.txt"
echo
echo "median    wall_s  cpu_s"
for kind in first warm plain cold; do
  wall=$(awk -v k="$kind" '$1 == k { print $2 }' "$work/times.txt" | median)
  cpu=$(awk -v k="$kind" '$1 == k { print $3 + $4 }' "$work/times.txt" | median)
  printf "%-9s %6s  %6s\n" "$kind" "$wall" "$cpu"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
