#!/usr/bin/env bash
# Builds the libFuzzer harnesses of test/fuzz (ASan + UBSan, clang++-19) in a
# build directory of their own and runs each for a bounded time, printing
# its executions and coverage. docs/fuzzing.md explains the setup.
#
#   scripts/fuzz.sh [--seconds N] [--jobs N] [--max-len N] [--only NAME]...
#                   [--build-dir DIR] [--bin-dir DIR] [--no-build]
#
#   --seconds N   fuzzing time per harness (default 60)
#   --jobs N      parallel workers per harness (default 1), sharing a corpus
#   --max-len N   longest input in bytes (default 65536)
#   --only NAME   run only this harness (repeatable): expr, plan, reply, spec,
#                 manifest, t1, t4-results, journal
#   --build-dir   the fuzz build (default build-fuzz, or $KTUNE_FUZZ_BUILD_DIR)
#   --bin-dir     run fuzzers from here instead (binaries copied elsewhere)
#   --no-build    run what is built
#
# New inputs accumulate in <build-dir>/corpus/<harness>; a crash is written
# to <build-dir>/crashes/<harness>/ and the script exits 1 at the end. Keep
# each crash as test/fuzz/regressions/<harness>/<name> once it is fixed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds=60 jobs=1 maxlen=65536 bindir="" dobuild=1
only=()
all=(expr plan reply spec manifest t1 t4-results journal)
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --max-len) maxlen="$2"; shift 2 ;;
    --only) only+=("$2"); shift 2 ;;
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --bin-dir) bindir="$(realpath "$2")"; dobuild=0; shift 2 ;;
    --no-build) dobuild=0; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
((${#only[@]})) || only=("${all[@]}")
cxx="${KTUNE_FUZZ_CXX:-clang++-19}"

if ((dobuild)); then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DKTUNE_FUZZ=ON "${launcher[@]}" >/dev/null
  targets=()
  for h in "${only[@]}"; do targets+=("fuzz-$h"); done
  cmake --build "$build" --target "${targets[@]}"
fi
bindir="${bindir:-$build/bin}"

status=0
printf '%-11s %12s %8s %8s %8s  %s\n' harness executions cov ft corpus result
for h in "${only[@]}"; do
  bin="$bindir/fuzz-$h"
  [[ -x "$bin" ]] || { echo "fuzz.sh: no $bin" >&2; status=1; continue; }
  work="$build/corpus/$h" crashes="$build/crashes/$h" logs="$build/logs/$h"
  mkdir -p "$work" "$crashes" "$logs"
  rm -f "$logs"/*.log
  # Only this run's crashes count (earlier ones stay for the reader).
  before=$(find "$crashes" -type f | wc -l)
  seeds=()
  for d in "$root/test/fuzz/corpus/$h" "$root/test/fuzz/regressions/$h"; do
    [[ -d "$d" ]] && seeds+=("$d")
  done
  # Tokens of the input's language (test/fuzz/dict: expr, else JSON).
  d="$root/test/fuzz/dict/$h.dict"
  [[ -f "$d" ]] || d="$root/test/fuzz/dict/json.dict"
  dict=(-dict="$d")
  flags=(-max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10
         -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="$crashes/"
         "${dict[@]}")
  rc=0
  if ((jobs > 1)); then
    # Each worker fuzzes for the whole time, adding to the shared corpus.
    (cd "$logs" && TMPDIR="$logs" "$bin" "${flags[@]}" -jobs="$jobs" \
       -workers="$jobs" "$work" "${seeds[@]}" >"$logs/main.log" 2>&1) || rc=$?
  else
    (cd "$logs" && TMPDIR="$logs" "$bin" "${flags[@]}" "$work" "${seeds[@]}" \
       >"$logs/fuzz-0.log" 2>&1) || rc=$?
  fi
  # Executions summed over workers; coverage of the best worker.
  read -r execs cov ft < <(cat "$logs"/fuzz-*.log | awk '
    /stat::number_of_executed_units:/ { e += $2 }
    /(DONE|pulse|NEW|REDUCE|INITED) +cov:/ {
      for (i = 1; i < NF; ++i) {
        if ($i == "cov:" && $(i+1) > c) c = $(i+1)
        if ($i == "ft:" && $(i+1) > f) f = $(i+1)
      }
    }
    END { printf "%d %d %d\n", e, c, f }')
  ncorpus=$(find "$work" -type f | wc -l)
  found=$(($(find "$crashes" -type f | wc -l) - before))
  result=ok
  if ((rc != 0 || found > 0)); then
    result="FAILED (exit $rc; $found new crash files in $crashes; log in $logs)"
    status=1
  fi
  printf '%-11s %12s %8s %8s %8s  %s\n' "$h" "$execs" "$cov" "$ft" "$ncorpus" "$result"
done
exit $status
