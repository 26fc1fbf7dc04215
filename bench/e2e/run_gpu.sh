#!/usr/bin/env bash
# One command on the GPU machine: tune every example kernel with `ktune run`,
# then benchmark original, tuned, torch eager and torch.compile (bench.py).
#
#   bench/e2e/run_gpu.sh [BIN_DIR]
#
# BIN_DIR holds a static `ktune` and `ktune-worker` (default $KTUNE_BIN_DIR,
# else .carry/bin, as scripts/package-gpu.sh lays it out: the binaries find
# Clang's headers in BIN_DIR/../lib/clang/19 and their data in
# BIN_DIR/../share/ktune); $KTUNE_CLANG_RESOURCE_DIR, else
# BIN_DIR/clang-resource when it exists, overrides the headers.
# Everything goes to $OUT (default bench/results/run): logs/, tuned/<kernel>/
# (what each ktune run wrote, plus ktune_run.json: exit status, wall time,
# budget), and bench.py's e2e_<device>.md / .json.
#
# Environment (all optional):
#   KERNELS        comma-separated subset (default: all eight, seed ops first)
#   QUICK=1        bench.py --quick (two shapes per kernel)
#   SKIP_TUNE=1    reuse $OUT/tuned from an earlier run
#   TUNE_ONLY=1    tune with the whole TOTAL_S and stop (benchmark in a later
#                  call with SKIP_TUNE=1), when tuning needs more time than one
#                  command may take
#   TOTAL_S        wall-clock budget of the whole script (default 530)
#   TUNE_S_SEED    wall limit of one seed kernel's ktune run (default 50)
#   TUNE_S_OTHER   wall limit of any other kernel's ktune run (default 22)
#   BUDGET_SEED    --budget for the seed kernels (default 20)
#   BUDGET_OTHER   --budget for the others (default 10)
#   STRATEGY       --strategy (default bayes)
#   KTUNE_RUN_ARGS extra arguments for every `ktune run`
#   BENCH_ARGS     extra arguments for bench.py
#   PYTHON         the interpreter (default python3); BENCH_SCRIPT the benchmark
#                  script (default bench/e2e/bench.py; mock_run.py tests this script)
# A step that fails is logged and reported; the other steps still run.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }

bin="${1:-${KTUNE_BIN_DIR:-$root/.carry/bin}}"
out="${OUT:-$root/bench/results/run}"
mkdir -p "$out/logs" "$out/tuned"
log="$out/logs"
build_dir="${TMPDIR:-/tmp}/ktune-e2e-build"
total_s="${TOTAL_S:-530}"
seed_kernels="silu_and_mul fused_add_rmsnorm merge_attn_states_lse"
all_kernels="silu_and_mul,fused_add_rmsnorm,merge_attn_states_lse,row_softmax,block_reduce,rotary_embedding,per_token_group_quant_8bit,tiled_transpose"
kernels="${KERNELS:-$all_kernels}"
quick=()
py="${PYTHON:-python3}"
bench_script="${BENCH_SCRIPT:-bench/e2e/bench.py}"
[ "${QUICK:-0}" = 1 ] && quick=(--quick)

echo "run_gpu: root $root, bin $bin, out $out, budget ${total_s} s"
# Recorded in the report as the command that produced it.
export KTUNE_E2E_COMMAND="bench/e2e/run_gpu.sh ${bin#"$root"/} (KERNELS=${KERNELS:-all} QUICK=${QUICK:-0} TOTAL_S=$total_s)"

# --- facts about the machine -------------------------------------------------
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
  "${NVCC:-nvcc}" --version 2>&1 | tail -2
  "$py" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' 2>&1
  echo "cores $(nproc)"
  ls -la "$bin" 2>&1
} > "$log/env.txt" 2>&1
head -3 "$log/env.txt" | sed 's/^/run_gpu: /'

# bench.py takes shapes, buffer sizes and launcher signatures from ktune
# (ktune-tune --describe, <kernel>.tuned.json): the carried ktune-tune.
if [ -z "${KTUNE_TUNE:-}" ] && [ -x "$bin/ktune-tune" ]; then
  export KTUNE_TUNE="$bin/ktune-tune"
fi

# --- 1. compile the original kernels' libraries while the tuner runs --------
nice -n 5 "$py" bench/e2e/bench.py --build-only --variants original --kernels "$kernels" \
  --build-dir "$build_dir" > "$log/build-original.log" 2>&1 &
build_pid=$!

# --- 2. tune ------------------------------------------------------------------
export KTUNE_CACHE_DIR="${KTUNE_CACHE_DIR:-${TMPDIR:-/tmp}/ktune-cache}"
# templates/ (the dispatch header's text) wherever the binaries were carried.
export KTUNE_DATA_DIR="${KTUNE_DATA_DIR:-$root}"
if [ -z "${KTUNE_CLANG_RESOURCE_DIR:-}" ] && [ -d "$bin/clang-resource" ]; then
  export KTUNE_CLANG_RESOURCE_DIR="$bin/clang-resource"
fi
if [ -x "$bin/ktune-worker" ]; then
  export KTUNE_WORKER="$bin/ktune-worker"
fi

json_str() { "$py" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

if [ "${SKIP_TUNE:-0}" = 1 ]; then
  echo "run_gpu: SKIP_TUNE=1: using $out/tuned as it is"
elif [ ! -x "$bin/ktune" ]; then
  echo "run_gpu: ERROR: no executable $bin/ktune: nothing tuned; the benchmark runs original and torch only" \
    | tee "$log/tune-missing.txt"
else
  # Where `ktune run` takes --time-limit, the tuner shares the time among the
  # shapes itself; the wall limit below stays as a backstop.
  has_time_limit=0
  timeout 30 "$bin/ktune" run --help 2>&1 | grep -q -- '--time-limit' && has_time_limit=1
  for k in ${kernels//,/ }; do
    spec="examples/$k.spec.json"
    if [[ " $seed_kernels " == *" $k "* ]]; then
      budget="${BUDGET_SEED:-20}"; limit="${TUNE_S_SEED:-50}"
    else
      budget="${BUDGET_OTHER:-10}"; limit="${TUNE_S_OTHER:-22}"
    fi
    # Keep at least half of the whole budget for the benchmark (all of it
    # goes to tuning with TUNE_ONLY=1).
    if [ "${TUNE_ONLY:-0}" = 1 ]; then
      left=$(( total_s - 10 - $(elapsed) ))
    else
      left=$(( total_s / 2 - $(elapsed) ))
    fi
    if [ "$left" -lt 10 ]; then
      echo "run_gpu: tune $k: skipped, the tuning share of the time is spent"
      echo "{\"rc\": null, \"skipped\": \"time\"}" > "$out/tuned/$k.skipped.json"
      continue
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    dir="$out/tuned/$k"
    mkdir -p "$dir"
    cmd=("$bin/ktune" run "examples/$k.cu" --spec "$spec" --out-dir "$dir" --budget "$budget" \
         --strategy "${STRATEGY:-bayes}")
    [ "$has_time_limit" = 1 ] && [ "$limit" -gt 15 ] && cmd+=(--time-limit $(( limit - 8 )))
    # shellcheck disable=SC2206
    extra=(${KTUNE_RUN_ARGS:-})
    cmd+=("${extra[@]}")
    cmd_text="${cmd[*]}"
    t0=$(date +%s.%N)
    # SIGINT first: the tuner stops searching and writes what it found.
    timeout -s INT -k 15 "$limit" "${cmd[@]}" > "$log/tune-$k.log" 2>&1
    rc=$?
    wall=$("$py" -c "import sys; print(round($(date +%s.%N) - $t0, 2))")
    cat > "$dir/ktune_run.json" <<EOF
{"rc": $rc, "wall_s": $wall, "limit_s": $limit, "budget": $budget, "strategy": "${STRATEGY:-bayes}",
 "timed_out": $([ "$rc" = 124 ] || [ "$rc" = 130 ] || [ "$rc" = 137 ] && echo true || echo false),
 "command": $(json_str "${cmd_text//$root\//}")}
EOF
    hdr=$(find "$dir" -name '*.tuned.h' | head -1)
    echo "run_gpu: tune $k: exit $rc in ${wall} s (limit ${limit} s, budget $budget), header: ${hdr:-NONE}"
    [ "$rc" = 0 ] || tail -5 "$log/tune-$k.log" | sed "s/^/run_gpu:   $k: /"
  done
fi

if [ "${TUNE_ONLY:-0}" = 1 ]; then
  kill "$build_pid" 2>/dev/null
  echo "run_gpu: TUNE_ONLY=1: tuned in $(elapsed) s; benchmark later with SKIP_TUNE=1 and the same OUT"
  exit 0
fi

# --- 3. benchmark -------------------------------------------------------------
wait "$build_pid"
brc=$?
echo "run_gpu: original libraries built (exit $brc) at $(elapsed) s"
[ "$brc" = 0 ] || tail -5 "$log/build-original.log" | sed 's/^/run_gpu:   build: /'

resume=()
# shellcheck disable=SC2206
bench_extra=(${BENCH_ARGS:-})
for attempt in 1 2 3; do
  deadline=$(( total_s - $(elapsed) - 25 ))
  if [ "$deadline" -lt 20 ]; then
    echo "run_gpu: no time left for the benchmark (attempt $attempt)"
    break
  fi
  "$py" "$bench_script" --tuned-dir "$out/tuned" --out "$out" --build-dir "$build_dir" \
    --kernels "$kernels" --deadline-s "$deadline" "${quick[@]}" "${resume[@]}" "${bench_extra[@]}" \
    2>&1 | tee -a "$log/bench.log"
  rc=${PIPESTATUS[0]}
  echo "run_gpu: bench.py exit $rc at $(elapsed) s"
  # 3: a hung kernel or a lost CUDA context; the rest resumes in a new process.
  [ "$rc" = 3 ] || break
  resume=(--resume)
done

echo "run_gpu: done in $(elapsed) s; files in $out"
md=$(ls "$out"/e2e_*.md 2>/dev/null | head -1)
if [ -n "$md" ]; then
  # The summary table (the reply carries the end of the output).
  sed -n '/^## Summary/,/^## [a-z]/p' "$md" | sed '$d'
fi
