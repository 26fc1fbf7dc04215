#!/usr/bin/env bash
# Batch strategies in simulation: 4 virtual devices against one on the
# shared convolution spaces (seeds 1..10); writes
# bench/results/batch_strategies_convolution.md.
#
#   bench/strategies/batch.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
cd "$root"
data=${KTUNE_TEST_DATA_DIR:-test/data}
spaces=$data/t4/convolution
bench=$build/bin/ktune-bench-strategies
[ -x "$bench" ] || { echo "batch.sh: $bench not built" >&2; exit 1; }
args=(--t1 "$spaces/T1_input.json")
for device in A100 A4000 A6000 MI250X W6600 W7800; do
  args+=(--t4 "$spaces/${device}_T4.json.gz")
done
out=bench/results/batch_strategies_convolution.md
"$bench" "${args[@]}" --budget 220 --seeds 10 --first-seed 1 --devices 4 \
  --strategies random,annealing,genetic,ils,bayes \
  --command "bench/strategies/batch.sh $build" --output "$out"
echo "wrote $out"
