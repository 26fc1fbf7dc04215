#!/usr/bin/env bash
# Sets up a fresh machine, builds ktune and runs it on a bundled kernel:
#   ktune run examples/silu_and_mul.cu --spec examples/silu_and_mul.spec.json --out-dir tuned/
# With a GPU the kernel is tuned and tuned/ gets silu_and_mul.tuned.h and
# report.html; without one ktune stops after a compile-only pass over the
# whole space and says so.
#
#   scripts/demo.sh [example-name] [extra ktune run options]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_BUILD_DIR:-$root/build}"
example="${1:-silu_and_mul}"
shift || true

"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target ktune ktune-refactor ktune-tune ktune-worker

cd "$root"
"$build/bin/ktune" run "examples/$example.cu" --spec "examples/$example.spec.json" \
  --out-dir "tuned/$example" "$@"
echo
echo "demo: outputs in tuned/$example/ (open tuned/$example/report.html when a GPU tuned it)"
