// Built with -rdc, nvcc names a kernel of internal linkage after its file
// (`__nv_static_<n>__<id>_<len>_<file>_..._Z6kernel...`), so the original's
// and the template's names differ in that prefix alone: both PTX checkers
// read past it (gpu4pyscf's static kernels, built relocatable).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --verify -o %t/out.cu -- -rdc=true 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=VERIFY < %t/stderr.txt
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc -- -rdc=true | FileCheck %s --check-prefix=PTX
// RUN: %nvcc -arch=sm_90 -rdc=true -ptx %s -o %t/orig.ptx
// RUN: FileCheck %s --check-prefix=NAMES < %t/orig.ptx

static __global__ void scale(double *out, const double *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2 * in[i];
}

void launch(double *out, const double *in, int n) {
  scale<<<(n + 127) / 128, 128>>>(out, in, n);
}

// NAMES: .entry __nv_static_{{[0-9]+}}__{{[0-9a-z_]+}}__Z5scalePdPKdi(

// VERIFY: self-check: {{[1-9][0-9]*}} function(s) PTX-identical at the defaults
// VERIFY: wrote {{.*}}: 1 parameter in 1 kernel

// PTX: ptx-identical: {{[1-9][0-9]*}} function(s) identical
