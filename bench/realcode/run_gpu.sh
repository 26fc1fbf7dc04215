#!/usr/bin/env bash
# One command on the GPU machine: SGLang's three kernels in their real form
# (sgl-kernel launchers over FlashInfer's headers, PyTorch types replaced by
# raw pointers) go through `ktune run` end to end (refactor, compile every
# configuration, verify, tune, dispatch header), then native, tuned, torch
# eager and torch.compile are timed side by side at the seed paper's shapes
# with a cold L2 (bench.py), with each kernel's tuning cost and the nvcc
# backend's instantiations per second.
#
#   REALCODE=/path/to/realcode bench/realcode/run_gpu.sh [BIN_DIR]
#
# REALCODE holds sglang/csrc (activation.cu, fused_add_rms_norm_kernel.cu,
# merge_attn_states.cu, utils.h), sglang/build/compile_commands.json and
# flashinfer/include; default: shared/realcode beside this checkout's root.
# BIN_DIR holds a static `ktune`, `ktune-tune` and `ktune-worker` (default
# $KTUNE_BIN_DIR, else .carry/bin: scripts/package-gpu.sh builds them).
# Everything goes to $OUT (default bench/results/realcode-run): logs/,
# build/compile_commands.json (REALCODE's, its paths moved there),
# tuned/<kernel>/ (what each `ktune run` wrote, plus ktune_run.json: exit
# status, wall time, command), nvcc_throughput.jsonl, and bench.py's
# realcode_<device>.md / .json.
#
# Environment (all optional):
#   KERNELS     comma-separated subset of silu_and_mul,fused_add_rmsnorm,merge_attn_states
#   STRATEGY    --strategy (default brute_force: the spaces are small)
#   BUDGET      --budget per shape and round (default 32)
#   ROUNDS      --rounds (default 2)
#   TUNE_S      wall limit of one kernel's `ktune run` (default 150; SIGINT
#               first, so the tuner writes what it found)
#   QUICK=1     bench.py --quick (two shapes per kernel)
#   SKIP_TUNE=1 reuse $OUT/tuned from an earlier call
#   SKIP_BENCH=1 stop after steps 2 and 3 (tune in one call, time in the
#               next with SKIP_TUNE=1: each call stays under a time limit)
#   NVCC_THROUGHPUT=0  skip step 3 (when one call per kernel measured it)
#   TAG         the report's file name tag (default: the device's name)
#   CONTROL=1   bench.py --control: a second copy of the native library
#               timed beside it (A/A), the measurement's own bias
#   SYNTHETIC=1 no GPU: `ktune run --synthetic-times` (bench/realcode/
#               synthetic/) instead of timing, and bench.py --build-only:
#               checks this script's steps on a machine without a GPU
# A step that fails is logged and reported; the other steps still run.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }

bin="${1:-${KTUNE_BIN_DIR:-$root/.carry/bin}}"
out="${OUT:-$root/bench/results/realcode-run}"
realcode="${REALCODE:-$root/shared/realcode}"
kernels="${KERNELS:-silu_and_mul,fused_add_rmsnorm,merge_attn_states}"
py="${PYTHON:-python3}"
mkdir -p "$out/logs" "$out/tuned" "$out/build"
log="$out/logs"
synthetic="${SYNTHETIC:-0}"
export KTUNE_REALCODE_COMMAND="bench/realcode/run_gpu.sh (KERNELS=$kernels STRATEGY=${STRATEGY:-brute_force} BUDGET=${BUDGET:-32} ROUNDS=${ROUNDS:-2} QUICK=${QUICK:-0})"

if [ ! -f "$realcode/sglang/build/compile_commands.json" ]; then
  echo "run_gpu: no $realcode/sglang/build/compile_commands.json: set REALCODE" >&2
  exit 2
fi
for tool in ktune ktune-tune; do
  if [ ! -x "$bin/$tool" ]; then
    echo "run_gpu: no executable $bin/$tool (scripts/package-gpu.sh builds it)" >&2
    exit 2
  fi
done
[ -x "$bin/ktune-worker" ] && export KTUNE_WORKER="$bin/ktune-worker"
export KTUNE_TUNE="$bin/ktune-tune"
export KTUNE_DATA_DIR="${KTUNE_DATA_DIR:-$root}"
export KTUNE_CACHE_DIR="${KTUNE_CACHE_DIR:-${TMPDIR:-/tmp}/ktune-realcode-cache}"

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
  "${NVCC:-nvcc}" --version 2>&1 | tail -2
  "$py" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' 2>&1
  echo "cores $(nproc)"
} > "$log/env.txt" 2>&1
echo "run_gpu: $(head -3 "$log/env.txt" | tail -1)"

# --- 1. the project's compile commands, moved to where REALCODE is --------
"$py" - "$realcode" "$out/build/compile_commands.json" "${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}" <<'PY'
import json, sys
realcode, dest, nvcc = sys.argv[1:4]
db = json.load(open(f"{realcode}/sglang/build/compile_commands.json"))
old = db[0]["file"].split("/sglang/")[0]
def move(s):
    return s.replace(old, realcode)
for e in db:
    e["file"], e["directory"] = move(e["file"]), move(e["directory"])
    e["arguments"] = [nvcc] + [move(a) for a in e["arguments"][1:]]
json.dump(db, open(dest, "w"), indent=1)
PY

source_of() {
  case "$1" in
    silu_and_mul) echo "$realcode/sglang/csrc/elementwise/activation.cu" ;;
    fused_add_rmsnorm) echo "$realcode/sglang/csrc/elementwise/fused_add_rms_norm_kernel.cu" ;;
    merge_attn_states) echo "$realcode/sglang/csrc/attention/merge_attn_states.cu" ;;
  esac
}

# --- 2. ktune run on each kernel ---------------------------------------------
if [ "${SKIP_TUNE:-0}" != 1 ]; then
  for k in ${kernels//,/ }; do
    dir="$out/tuned/$k"
    rm -rf "$dir"
    mkdir -p "$dir"
    limit="${TUNE_S:-150}"
    cmd=("$bin/ktune" run "$(source_of "$k")" --spec "bench/realcode/specs/$k.spec.json"
         --out-dir "$dir" -p "$out/build" --strategy "${STRATEGY:-brute_force}"
         --budget "${BUDGET:-32}" --rounds "${ROUNDS:-2}")
    if [ "$synthetic" = 1 ]; then
      cmd+=(--synthetic-times "bench/realcode/synthetic/$k.synthetic.json")
    else
      cmd+=(--time-limit $(( limit - 15 )))
    fi
    t0=$(date +%s.%N)
    timeout -s INT -k 20 "$limit" "${cmd[@]}" > "$log/tune-$k.log" 2>&1
    rc=$?
    wall=$("$py" -c "print(round($(date +%s.%N) - $t0, 2))")
    "$py" -c 'import json, sys; json.dump({"rc": int(sys.argv[1]), "wall_s": float(sys.argv[2]), "limit_s": int(sys.argv[3]), "command": sys.argv[4]}, open(sys.argv[5], "w"))' \
      "$rc" "$wall" "$limit" "${cmd[*]//$root\//}" "$dir/ktune_run.json"
    hdr=$(ls "$dir"/*.tuned.h 2>/dev/null | head -1)
    echo "run_gpu: ktune run $k: exit $rc in ${wall} s, header: ${hdr:-NONE}"
    [ "$rc" = 0 ] || tail -3 "$log/tune-$k.log" | sed "s/^/run_gpu:   $k: /"
  done
fi

# --- 3. the nvcc backend's instantiations per second (cold cache) ------------
# On the hand-written silu_and_mul template forced to nvcc (59
# configurations: enough to fill the cores with batches), and on
# merge_attn_states' template where its run wrote one (NVRTC cannot compile
# it: `uint`), each with an empty cache and every core.
"$py" -c "import json; s=json.load(open('examples/silu_and_mul.spec.json')); s.pop('max_registers', None); s['dims']={'num_tokens':[4096],'d':[4096]}; json.dump(s, open('$out/build/silu_and_mul.spec.json','w'))"
: > "$out/nvcc_throughput.jsonl"
throughput=("silu_and_mul_handwritten|examples/handwritten/silu_and_mul.tpl.cu|$out/build/silu_and_mul.spec.json|")
mas="$out/tuned/merge_attn_states/round-1"
[ -f "$mas/merge_attn_states.tpl.cu" ] && [ -f "$mas/merge_attn_states_kernel.spec.json" ] &&
  throughput+=("merge_attn_states|$mas/merge_attn_states.tpl.cu|$mas/merge_attn_states_kernel.spec.json|$out/build")
[ "${NVCC_THROUGHPUT:-1}" = 0 ] && throughput=()
for entry in "${throughput[@]}"; do
  IFS='|' read -r name tpl spec build <<< "$entry"
  project=()
  [ -n "$build" ] && project=(-p "$build")
  cold=$(mktemp -d)
  t0=$(date +%s.%N)
  "$bin/ktune-tune" "$tpl" --spec "$spec" --compile-only --compiler nvcc "${project[@]}" \
    --cache-dir "$cold" --jobs "$(nproc)" --out "$cold/results.json" \
    --journal "$cold/journal.jsonl" > "$log/nvcc-throughput-$name.log" 2>&1
  rc=$?
  wall=$("$py" -c "print(round($(date +%s.%N) - $t0, 2))")
  "$py" - "$cold/results.json" "$wall" "$(nproc)" "${tpl//$root\//}" "$rc" "$name" >> "$out/nvcc_throughput.jsonl" <<'PY'
import json, os, sys
res, wall, cores, tpl, rc, name = sys.argv[1:7]
doc = {"name": name, "template": tpl, "wall_s": float(wall), "cores": int(cores), "rc": int(rc)}
if os.path.exists(res):
    c = json.load(open(res)).get("compiler", {})
    doc.update(instantiations=c.get("instantiations"), calls=c.get("calls"),
               compile_s=c.get("compile_seconds"), backend=c.get("backend"))
    if c.get("instantiations"):
        doc["per_second"] = c["instantiations"] / float(wall)
print(json.dumps(doc))
PY
  rm -rf "$cold"
  tail -1 "$out/nvcc_throughput.jsonl" | "$py" -c 'import json, sys; d = json.load(sys.stdin); print("run_gpu: nvcc backend on %s: %s instantiations in %s s on %s cores (%.2f/s), exit %s" % (d["name"], d.get("instantiations"), d["wall_s"], d["cores"], d.get("per_second", 0), d["rc"]))'
done

# --- 4. native vs tuned vs torch -----------------------------------------------
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  echo "run_gpu: SKIP_BENCH=1: tuned in $(elapsed) s; files in $out"
  exit 0
fi
bench=("$py" bench/realcode/bench.py --realcode "$realcode" --compile-db "$out/build/compile_commands.json"
       --tuned-dir "$out/tuned" --out "$out" --build-dir "$out/build/libs" --kernels "$kernels"
       --nvcc-throughput "$out/nvcc_throughput.jsonl")
[ "${QUICK:-0}" = 1 ] && bench+=(--quick)
[ -n "${TAG:-}" ] && bench+=(--tag "$TAG")
[ "${CONTROL:-0}" = 1 ] && bench+=(--control)
[ "$synthetic" = 1 ] && bench+=(--build-only)
"${bench[@]}" 2>&1 | tee "$log/bench.log"
rc=${PIPESTATUS[0]}
echo "run_gpu: bench.py exit $rc; done in $(elapsed) s; files in $out"
md=$(ls "$out"/realcode_*.md 2>/dev/null | head -1)
[ -n "$md" ] && grep -E "^(#|Tuning cost|Bar|- \*\*nvcc)" "$md"
exit "$rc"
