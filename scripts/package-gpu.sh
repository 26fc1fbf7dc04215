#!/usr/bin/env bash
# Builds ktune for a GPU host that has the CUDA toolkit and a driver but no
# LLVM/Clang, and lays it out in .carry/ (git-ignored) so it can be copied
# there as it is:
#
#   .carry/bin/ktune, ktune-tune, ktune-worker   stripped; Clang and LLVM
#                                                 linked statically
#   .carry/lib/clang/19/include                  Clang's builtin headers for
#                                                 parsing CUDA (x86 host, NVPTX
#                                                 device); found beside the
#                                                 binary, no variable needed
#   .carry/share/ktune/{cuda-compat,cuda-shim,nvrtc-compat}
#   .carry/share/ktune/templates, schemas         the text ktune fills in
#
#   scripts/package-gpu.sh [--no-build] [--no-smoke]
#
# Environment: KTUNE_STATIC_BUILD_DIR (default build-static), KTUNE_CARRY_DIR
# (default .carry), JOBS (default 2), KTUNE_CARRY_MAX_MB (default 60).
# Checks before it finishes: no shared LLVM/Clang/curl library among the
# binaries' dependencies, the total size, and (unless --no-smoke) a
# compile-only `ktune run` of an example with the packaged files only.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KTUNE_STATIC_BUILD_DIR:-$root/build-static}"
carry="${KTUNE_CARRY_DIR:-$root/.carry}"
jobs="${JOBS:-2}"
max_mb="${KTUNE_CARRY_MAX_MB:-60}"
do_build=1
do_smoke=1
for arg in "$@"; do
  case "$arg" in
    --no-build) do_build=0 ;;
    --no-smoke) do_smoke=0 ;;
    *) echo "package-gpu: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

clang_resource="$(/usr/lib/llvm-19/bin/clang -print-resource-dir)"
clang_major="$(basename "$clang_resource")"

if [ "$do_build" = 1 ]; then
  # libstdc++ and libgcc linked statically too (the GPU host's may be older);
  # unused sections dropped (LLVM's archives are built one section per
  # function), which keeps .carry small.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKTUNE_STATIC_CLANG=ON -DKTUNE_ENABLE_CLANG=ON -DKTUNE_ENABLE_CUDA=ON \
    -DKTUNE_BUILD_TESTS=OFF -DKTUNE_ENABLE_CURL=OFF -DKTUNE_ENABLE_MPI=OFF \
    "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc -Wl,--gc-sections"
  ninja -C "$build" -j "$jobs" ktune ktune-tune ktune-worker
fi

rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/share/ktune/templates" "$carry/share/ktune/schemas" \
  "$carry/lib/clang/$clang_major"
for tool in ktune ktune-tune ktune-worker; do
  cp "$build/bin/$tool" "$carry/bin/$tool"
  strip --strip-all "$carry/bin/$tool"
done
for dir in cuda-compat cuda-shim nvrtc-compat; do
  cp -r "$root/share/ktune/$dir" "$carry/share/ktune/"
done
cp "$root"/templates/* "$carry/share/ktune/templates/"
cp "$root/docs/schemas/plan.schema.json" "$carry/share/ktune/schemas/"

# Clang's builtin headers, less those of other targets and runtimes (CUDA
# parsing needs the __clang_cuda_* wrappers, cuda_wrappers/, the freestanding
# C headers and the x86 intrinsics a host header may include).
cp -r "$clang_resource/include" "$carry/lib/clang/$clang_major/"
(
  cd "$carry/lib/clang/$clang_major/include"
  rm -rf ppc_wrappers openmp_wrappers llvm_libc_wrappers zos_wrappers fuzzer \
    orc profile sanitizer xray
  rm -f arm_*.h arm64intr.h armintr.h riscv_*.h sifive_*.h hexagon*.h hvx_*.h \
    altivec.h htmintrin.h htmxlintrin.h msa.h vecintrin.h s390intrin.h \
    lsxintrin.h lasxintrin.h larchintrin.h wasm_simd128.h velintrin*.h \
    opencl-c.h opencl-c-base.h __clang_hip_*.h ISO_Fortran_binding.h
)

# Dependencies: nothing from LLVM, Clang or curl; report the rest.
status=0
for tool in ktune ktune-tune ktune-worker; do
  deps="$(ldd "$carry/bin/$tool" | awk '{print $1}' | sort -u | tr '\n' ' ')"
  echo "package-gpu: $tool needs: $deps"
  if echo "$deps" | grep -Eq 'libclang|libLLVM|libcurl|libz3|libxml2'; then
    echo "package-gpu: ERROR: $tool links a shared library the GPU host lacks" >&2
    status=1
  fi
done

size_kb="$(du -sk "$carry" | cut -f1)"
echo "package-gpu: $carry: $(( size_kb / 1024 )) MB"
du -sh "$carry"/bin/* "$carry/lib" "$carry/share" | sed 's/^/package-gpu:   /'
if [ "$size_kb" -gt $(( max_mb * 1024 )) ]; then
  echo "package-gpu: ERROR: more than $max_mb MB" >&2
  status=1
fi

if [ "$do_smoke" = 1 ] && [ "$status" = 0 ]; then
  # The packaged files only: no source tree to fall back on for data files,
  # the packaged Clang headers, a fresh cache.
  smoke="$(mktemp -d)"
  trap 'rm -rf "$smoke"' EXIT
  cp "$root/examples/silu_and_mul.cu" "$root/examples/silu_and_mul.spec.json" "$smoke/"
  if (cd "$smoke" && env -u KTUNE_DATA_DIR -u KTUNE_SHARE_DIR -u KTUNE_CLANG_RESOURCE_DIR \
        KTUNE_CACHE_DIR="$smoke/cache" "$carry/bin/ktune" run silu_and_mul.cu \
        --spec silu_and_mul.spec.json --out-dir out --compile-only --quiet \
        > "$smoke/out.txt" 2> "$smoke/err.txt") &&
     [ -s "$smoke/out/report.html" ]; then
    echo "package-gpu: smoke test passed (compile-only ktune run of silu_and_mul)"
  else
    echo "package-gpu: ERROR: smoke test failed:" >&2
    tail -20 "$smoke/err.txt" >&2
    status=1
  fi
fi
exit "$status"
