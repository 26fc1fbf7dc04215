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
# With FLASHINFER_INCLUDE set to a FlashInfer include/ directory (not part
# of this repository), the same four situations are measured on the real-
# header case: the file with FlashInfer's activation.cuh, attention/
# cascade.cuh, norm.cuh and sampling.cuh included at the top and the
# launchers of bench/inputs/refactor_speed_flashinfer.inc appended (they
# instantiate FlashInfer's kernels).
#
#   [FLASHINFER_INCLUDE=dir] bench/refactor_speed.sh [build-dir] [runs]
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

# Waits (up to 5 minutes) until both sides' preambles are in the cache.
wait_for_cache() {
  for _ in $(seq 600); do
    [[ $(ls "$1" 2>/dev/null | grep -cE '^[0-9a-f]{64}[.]pch$') == 2 ]] && return
    sleep 0.5
  done
  echo "the background preamble build did not finish" >&2
  exit 1
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Runs the four situations on one input; prints the runs and the medians.
#   bench_input <tag> <input> [-- extra clang args]
bench_input() {
  local tag=$1 input=$2
  shift 2
  local t="$work/times-$tag.txt"
  {
    for _ in $(seq "$runs"); do
      rm -rf "$work/cache-$tag"
      measure first "$tool" "$input" --cache-dir "$work/cache-$tag" \
        --preamble-build=background --out-dir "$work/out" "$@"
      wait_for_cache "$work/cache-$tag"
    done
    for _ in $(seq "$runs"); do
      measure warm "$tool" "$input" --cache-dir "$work/cache-$tag" \
        --out-dir "$work/out" "$@"
    done
    for _ in $(seq "$runs"); do
      measure plain "$tool" "$input" --no-cache --out-dir "$work/out" "$@"
    done
    for _ in $(seq "$runs"); do
      rm -rf "$work/cold-$tag"
      measure cold "$tool" "$input" --cache-dir "$work/cold-$tag" \
        --preamble-build=foreground --out-dir "$work/out" "$@"
    done
  } | tee "$t"
  echo
  echo "median    wall_s  cpu_s"
  for kind in first warm plain cold; do
    wall=$(awk -v k="$kind" '$1 == k { print $2 }' "$t" | median)
    cpu=$(awk -v k="$kind" '$1 == k { print $3 + $4 }' "$t" | median)
    printf "%-9s %6s  %6s\n" "$kind" "$wall" "$cpu"
  done
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input:   ${input#"$root"/} ($(wc -l <"$input") lines)"
echo "runs:    $runs per situation"
echo
echo "situation wall_s user_s sys_s"
bench_input base "$input"

if [[ -n "${FLASHINFER_INCLUDE:-}" ]]; then
  real="$work/refactor_speed_flashinfer.cu"
  {
    for h in activation.cuh attention/cascade.cuh norm.cuh sampling.cuh; do
      echo "#include <flashinfer/$h>"
    done
    cat "$input" "$root/bench/inputs/refactor_speed_flashinfer.inc"
  } >"$real"
  echo
  echo "real-header case: FlashInfer headers from $FLASHINFER_INCLUDE" \
    "($(wc -l <"$real") lines in the file)"
  echo "situation wall_s user_s sys_s"
  bench_input flashinfer "$real" -- -I"$FLASHINFER_INCLUDE"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
