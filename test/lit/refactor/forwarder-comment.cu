// The original entry point kept beside a launcher that became a template
// copies the definition's signature up to its body; a line comment between
// the parameters and the brace (DualSPHysics' `//,tdouble3 domposmin,...`)
// must not swallow the forwarder's brace: the output compiles.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %nvcc -arch=sm_90 -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

void launch_scale(float *out, const float *in, int n);

__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.f * in[i];
}

void launch_scale(float *out, const float *in, int n)
  //, float factor)
{
  scale<<<(n + 255) / 256, 256>>>(out, in, n);
}

// TPL:      // The original entry point: the default configuration.
// TPL-NEXT: void launch_scale(float *out, const float *in, int n)
// TPL-NEXT:   //, float factor)
// TPL-NEXT: {
// TPL-NEXT:   return launch_scale<256>(out, in, n);
// PTX: identical
