#!/usr/bin/env bash
# Sets up a fresh machine, builds ktune and runs it on a bundled kernel:
#   ktune run examples/silu_and_mul.cu --spec examples/silu_and_mul.spec.json --out-dir tuned/
# With a GPU the kernel is tuned and tuned/ gets silu_and_mul.tuned.h and
# report.html; without one ktune stops after a compile-only pass over the
# whole space and says so.
#
#   scripts/demo.sh [example-name] [extra ktune run options]
#   scripts/demo.sh launcher [extra ktune-tune options]
# `launcher` tunes examples/launcher/: a kernel that reads blockDim, launched
# by a host function that caps the block at 1024 threads. The cap is a launch
# parameter; ktune calls the user's launcher (built by nvcc) for each value,
# checks it against the original and writes a header whose
# ktune_tuned::silu_and_mul is called as the original is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${KTUNE_BUILD_DIR:-$root/build}"
example="${1:-silu_and_mul}"
shift || true

"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target ktune ktune-refactor ktune-tune ktune-worker

cd "$root"
if [ "$example" = launcher ]; then
  ex=examples/launcher
  out=tuned/launcher
  mkdir -p "$out"
  status=0
  "$build/bin/ktune-tune" $ex/silu_and_mul_launcher.tpl.cu \
    --spec $ex/silu_and_mul_launcher.spec.json --strategy brute_force \
    --out $out/silu_and_mul.results.json --header $out/silu_and_mul.tuned.h \
    --journal $out/silu_and_mul.journal "$@" || status=$?
  echo
  if [ $status -ne 0 ]; then
    echo "demo: ktune-tune failed (exit $status)"
    exit $status
  fi
  python3 - "$out/silu_and_mul.results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r.get("compile_only"):
    print("demo: no GPU here: every block cap was built by nvcc and checked "
          "against the device limits; run it on a GPU to time them.")
    sys.exit(0)
best = max(r["shapes"], key=lambda s: s.get("speedup", 1))
print(f"demo: on {r['device']}, the host's block cap 1024 was not the best "
      f"at {sum(s['speedup'] > 1.02 for s in r['shapes'])} of "
      f"{len(r['shapes'])} shapes; best gain {best['speedup']:.2f}x at "
      + ", ".join(f"{k}={v}" for k, v in best["shape"].items())
      + f" with BLOCK_CAP={best['best']['config']['BLOCK_CAP']}.")
PY
  echo "demo: include $out/silu_and_mul.tuned.h and call ktune_tuned::silu_and_mul(out, in, d, num_tokens, stream)"
  exit 0
fi
"$build/bin/ktune" run "examples/$example.cu" --spec "examples/$example.spec.json" \
  --out-dir "tuned/$example" "$@"
echo
echo "demo: outputs in tuned/$example/ (open tuned/$example/report.html when a GPU tuned it)"
