#!/usr/bin/env bash
# The launcher-mode benchmark on a GPU host: builds the tuner (no Clang),
# tunes examples/launcher/silu_and_mul_launcher (launcher mode: nvcc modules,
# brute force over the host block cap, cold L2, medians) and the same kernel
# in kernel mode (launch parameter, NVRTC), builds an app against the
# dispatch header and checks it bit for bit, then times torch eager and
# torch.compile at the same shapes. Everything lands in $OUT (default:
# bench-out) as bench.tgz, with the results and logs beside it.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
final="${OUT:-$root/bench-out}"
out="$(mktemp -d)"
build="$root/build-gpu"
mkdir -p "$out"
cd "$root"
start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKTUNE_ENABLE_CLANG=OFF \
  -DKTUNE_BUILD_TESTS=OFF >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j16 --target ktune-tune ktune-worker >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/device.txt"
export KTUNE_CACHE_DIR="$out/cache"
ex=examples/launcher
t0=$(date +%s)
"$build/bin/ktune-tune" $ex/silu_and_mul_launcher.tpl.cu --spec $ex/silu_and_mul_launcher.spec.json \
  --strategy brute_force --budget 64 --top-k 3 --out "$out/launcher.results.json" \
  --header "$out/silu_and_mul_launcher.tuned.h" --journal "$out/launcher.journal" 2>&1 | tee "$out/launcher.log" | tail -25
echo "launcher-mode tuning wall: $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
"$build/bin/ktune-tune" $ex/act_and_mul_kernel.tpl.cu --spec $ex/act_and_mul_kernel.spec.json \
  --strategy brute_force --budget 64 --out "$out/kernel.results.json" \
  --header "$out/act_and_mul_kernel.tuned.h" --journal "$out/kernel.journal" 2>&1 | tee "$out/kernel.log" | tail -8
echo "kernel-mode tuning wall: $(( $(date +%s) - t0 )) s"
rm -rf "$out/cache"
if [ -f "$out/silu_and_mul_launcher.tuned.h" ]; then
  nvcc -std=c++17 -O3 -arch=sm_90 -I$ex -I"$out" bench/launcher/app_check.cu -o "$build/app_check" 2>&1 | tail -5 &&
    "$build/app_check" | tee "$out/app.log"
fi
python3 bench/launcher/torch_silu_and_mul.py 1,64,256,4096,16384 11008,14336 2>&1 | grep -v Warning | tee "$out/torch.log" | tail -12
rm -rf "$out/cache"
mkdir -p "$final"
tar -C "$out" -czf "$final/bench.tgz" .
cp "$out/launcher.results.json" "$out/torch_silu_and_mul.json" "$out/silu_and_mul_launcher.tuned.h" \
  "$out/device.txt" "$out/app.log" "$final/" 2>/dev/null
