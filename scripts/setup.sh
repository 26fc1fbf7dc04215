#!/usr/bin/env bash
# Installs what ktune needs to build and test on Debian 12 / Ubuntu 24.04.
# The CUDA toolkit (nvcc, NVRTC) is not a Debian package: it is expected at
# /usr/local/cuda (or wherever CMake's FindCUDAToolkit finds it).
set -euo pipefail

packages=(
  cmake ninja-build g++ python3 python3-jsonschema
  libclang-19-dev llvm-19-dev llvm-19-tools clang-19 clang-tidy-19 clang-tools-19
  nlohmann-json3-dev libgtest-dev libssl-dev zlib1g-dev libeigen3-dev
  libcurl4-openssl-dev libcli11-dev
  # scripts/fuzz.sh: libFuzzer and the sanitizers' runtimes for clang++-19
  libclang-rt-19-dev
  # scripts/package-gpu.sh: static LLVM needs libzstd.a
  libzstd-dev
  # ktune-tune across hosts (mpirun) and its loopback test
  libopenmpi-dev openmpi-bin
  # bench/e2e's CPU paths (test/lit/e2e/bench-cpu.test)
  python3-torch
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ktune setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
