#!/usr/bin/env bash
# Compares ktune's search strategies in simulation on the shared convolution
# spaces (six devices), beside Kernel Tuner 1.4's published figures; writes
# bench/results/strategies_convolution.md (seeds 1..10) and
# bench/results/strategies_convolution_fresh_seeds.md (seeds 101..110).
#
#   bench/strategies/run.sh [build-dir] [extra ktune-bench-strategies options]
#
# KTUNE_BENCH_FULL=1 adds two ablations of bayes, the same spaces with
# shuffled value order and two synthetic spaces (about four times longer).
# Needs only a CPU: configure with -DKTUNE_ENABLE_CLANG=OFF
# -DKTUNE_ENABLE_CUDA=OFF and build the ktune-bench-strategies target.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
shift || true
cd "$root"
data=${KTUNE_TEST_DATA_DIR:-test/data}
spaces=$data/t4/convolution
bench=$build/bin/ktune-bench-strategies
[ -x "$bench" ] || { echo "run.sh: $bench not built (ninja -C $build ktune-bench-strategies)" >&2; exit 1; }

args=(--t1 "$spaces/T1_input.json")
for device in A100 A4000 A6000 MI250X W6600 W7800; do
  args+=(--t4 "$spaces/${device}_T4.json.gz")
done
args+=(--budget 220 --tolerance 0.03 --per-seed)
strategies="random,annealing,genetic,ils,bayes"
command="bench/strategies/run.sh $build${*:+ $*}"
if [ "${KTUNE_BENCH_FULL:-0}" = 1 ]; then
  # Two ablations of bayes: expected improvement instead of the confidence
  # bound, and the textbook setup (index coordinates, log times, expected
  # improvement, no local steps).
  strategies+=",bayes_ei=bayes,bayes_textbook=bayes"
  args+=(--options '{"bayes_ei": {"acquisition": "ei"},
                     "bayes_textbook": {"encoding": "index", "output": "log", "acquisition": "ei", "local_every": 0}}'
         --permuted --synthetic)
  command="KTUNE_BENCH_FULL=1 $command"
fi
args+=(--strategies "$strategies")
args+=("$@")

# The headline: seeds 1..10, beside Kernel Tuner's published figures.
out=bench/results/strategies_convolution.md
"$bench" "${args[@]}" --seeds 10 --first-seed 1 \
  --baseline "$data/baselines/kerneltuner_strategies_convolution.md" \
  --command "$command" --output "$out"
echo "wrote $out"
# The same on seeds never used while choosing the defaults: an estimate
# free of the selection made on seeds 1..10 and 201..220.
out=bench/results/strategies_convolution_fresh_seeds.md
"$bench" "${args[@]}" --seeds 10 --first-seed 101 \
  --baseline "$data/baselines/kerneltuner_strategies_convolution.md" \
  --command "$command" --output "$out"
echo "wrote $out"
