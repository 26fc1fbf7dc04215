#!/usr/bin/env bash
# Compiles every example kernel with nvcc (-c and -ptx, sm_90), checks every
# spec against its kernel, and compiles every valid configuration of each
# hand-written template (nvcc -cubin). Needs nvcc and python3, no GPU.
# NVCC=/path/to/nvcc overrides the compiler.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
examples="$root/examples"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
flags=(-std=c++17 -arch=sm_90)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

count=0
for source in "$examples"/*.cu; do
  name="$(basename "$source" .cu)"
  "$nvcc" "${flags[@]}" -c "$source" -o "$tmp/$name.o"
  "$nvcc" "${flags[@]}" -ptx "$source" -o "$tmp/$name.ptx"
  echo "compiled: $name.cu (-c, -ptx)"
  count=$((count + 1))
done

python3 "$root/scripts/examples_check.py" specs "$examples"

templates=0
for manifest in "$examples"/handwritten/*.tpl.json; do
  name="$(basename "$manifest" .tpl.json)"
  python3 "$root/scripts/examples_check.py" manifest "$manifest"
  # Every valid configuration for bf16 (or no type), the default for the
  # other element types.
  python3 "$root/scripts/examples_check.py" instantiate "$manifest" \
    --type T=__nv_bfloat16 > "$tmp/$name.all.cu"
  python3 "$root/scripts/examples_check.py" instantiate "$manifest" \
    --type T=__half --type T=float --default-only > "$tmp/$name.default.cu"
  for unit in all default; do
    "$nvcc" "${flags[@]}" -cubin "$tmp/$name.$unit.cu" -o "$tmp/$name.$unit.cubin"
  done
  echo "compiled: $name.tpl.cu ($(grep -c '(void \*)&' "$tmp/$name.all.cu") configurations)"
  templates=$((templates + 1))
done

echo "check-examples: $count kernels and $templates templates compiled"
