// A kernel template overloaded by a non-template kernel of the same name
// (DeepSpeed's dequantize_kernel): neither gains a parameter, their
// launchers' block sizes are lifted as launch parameters, the output
// compiles, and the PTX checker pairs the template's instances with the
// original's, not with the non-template overload.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

__global__ void dequantize(float *out, const signed char *in, float scale, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = scale * in[i];
}

template <typename T>
__global__ void dequantize(T *out, const signed char *in, const float *scales, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = T(scales[blockIdx.x] * in[blockIdx.x * n + i]);
}

__global__ void fill(float *x) { x[blockIdx.x * 128 + threadIdx.x] = 0.f; }

template <typename T>
void launch(T *out, const signed char *in, const float *scales, int rows, int n) {
  unsigned threads = 1024;
  dequantize<<<rows, threads>>>(out, in, scales, n);
}
template void launch<float>(float *, const signed char *, const float *, int, int);
template void launch<double>(double *, const signed char *, const float *, int, int);

void launch_plain(float *out, const signed char *in, float scale, int n) {
  dequantize<<<1, 512>>>(out, in, scale, n);
  fill<<<4, 128>>>(out);
}

// NOTE: kernel dequantize cannot become a template (it is an overloaded kernel
// NOTE: wrote {{.*}}: 3 parameters in 3 kernels
// TPL:      template <typename T, unsigned int BLOCK_SIZE = 1024>
// TPL-NEXT: void launch(
// TPL:        dequantize<<<rows, threads>>>(out, in, scales, n);
// TPL:      template <int DEQUANTIZE_BLOCK_SIZE = 512, int FILL_BLOCK_SIZE = 128>
// TPL-NEXT: void launch_plain(
// TPL:        dequantize<<<1, DEQUANTIZE_BLOCK_SIZE>>>(out, in, scale, n);
// PTX: ptx-identical: 4 function(s) identical
