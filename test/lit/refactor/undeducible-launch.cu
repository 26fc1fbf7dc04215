// A launch whose implicit template argument cannot be spelled (T of
// Args<T>, deduced by nvcc) keeps its values, with a note; the file's other
// launches are still lifted, and the defaults give the same PTX.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

template <typename T> struct Args { T *out; const T *in; int n; };

template <typename T>
__global__ void __launch_bounds__(256) copy_kernel(Args<T> a) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < a.n) a.out[i] = a.in[i];
}

template <typename T>
__global__ void __launch_bounds__(128) twice_kernel(T *out, const T *in, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

template <typename T> void run(T *out, const T *in, int n) {
  Args<T> a{out, in, n};
  copy_kernel<<<(n + 255) / 256, 256>>>(a);
  twice_kernel<<<(n + 127) / 128, 128>>>(out, in, n);
}
template void run<float>(float *, const float *, int);

// NOTE: note: {{.*}}undeducible-launch.cu:26: the launch of copy_kernel in run keeps the default configuration: cannot tell the argument for template parameter 'T' at this call
// NOTE: wrote {{.*}}: 2 parameters in 2 kernels

// TPL:      template <typename T, int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) copy_kernel(Args<T> a) {
// TPL:      template <typename T, int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) twice_kernel(
// TPL:      template <typename T, int TWICE_KERNEL_BLOCK_SIZE = 128> void run(
// TPL:        copy_kernel<<<(n + 255) / 256, 256>>>(a);
// TPL-NEXT:   twice_kernel<T, TWICE_KERNEL_BLOCK_SIZE><<<(n + (TWICE_KERNEL_BLOCK_SIZE - 1)) / TWICE_KERNEL_BLOCK_SIZE, TWICE_KERNEL_BLOCK_SIZE>>>(out, in, n);

// REQUIRES: nvcc
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// PTX: ptx-identical: {{[1-9][0-9]*}} function(s) identical
