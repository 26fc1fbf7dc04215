// A virtual member function defined in its class cannot become a template:
// its body moves to a member template of another name (`ktune_forward`,
// without `virtual` and `override`), and the virtual function calls it with
// the defaults, so calls through the base class reach the same code. Its
// callers call it as before. Refused, with a note: a virtual member defined
// out of its class with an unnamed parameter (no forwarder can pass it on;
// refactor/virtual-out-of-class.cu has one with its parameters named), and
// one whose `override` a macro spells.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// Another block size compiles.
// RUN: printf '#include "%t/out.cu"\ntemplate float *ScaleOp::ktune_forward<128>(float *, int, void *);\n' > %t/other.cu
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/other.cu -o %t/other.o
#include <cuda_runtime.h>
#define OVERRIDE override
#define LAUNCH_THREADS 512
#define linear_launch(kernel, stream, num, ...)                                \
  do {                                                                         \
    size_t n_ = (size_t)(num);                                                 \
    kernel<<<(n_ + LAUNCH_THREADS - 1) / LAUNCH_THREADS, LAUNCH_THREADS, 0,   \
             stream>>>(n_, __VA_ARGS__);                                       \
  } while (false)

__global__ void scale(size_t n, float *x) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

__global__ void shift(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

__global__ void negate(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = -x[i];
}

class Op {
public:
  virtual ~Op() = default;
  virtual float *forward(float *x, int n, void *stream) = 0;
};

class ScaleOp : public Op {
public:
  virtual float *forward(float *x, int n, void *stream) override {
    linear_launch(scale, static_cast<cudaStream_t>(stream), n, x);
    return x;
  }
};

class ShiftOp : public Op {
public:
  float *forward(float *x, int n, void *stream) override;
};

float *ShiftOp::forward(float *x, int n, void *) {
  shift<<<(n + 255) / 256, 256>>>(x, n);
  return x;
}

class NegateOp : public Op {
public:
  float *forward(float *x, int n, void *) OVERRIDE {
    negate<<<(n + 127) / 128, 128>>>(x, n);
    return x;
  }
};

float *run(Op &op, float *x, int n) { return op.forward(x, n, nullptr); }

// CHECK-DAG: note: {{.*}}: the launch of shift in ShiftOp::forward keeps the default configuration: ShiftOp::forward cannot become a template (no forwarding overload can keep its symbol (unnamed parameters, or a deduced return type))
// CHECK-DAG: note: {{.*}}: the launch of negate in NegateOp::forward keeps the default configuration: NegateOp::forward cannot become a template (it is a virtual member function whose `virtual`, `override` or `final` a macro spells)
// CHECK: wrote {{.*}}out.cu
// TPL:      kernel<<<(n_ + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0,
// TPL:      class ScaleOp : public Op {
// TPL:        template <int BLOCK_SIZE = 512>
// TPL-NEXT:    float *ktune_forward(float *x, int n, void *stream)  {
// TPL:          linear_launch(scale, static_cast<cudaStream_t>(stream), n, x);
// TPL:        virtual float *forward(float *x, int n, void *stream) override {
// TPL-NEXT:     return ktune_forward<512>(x, n, stream);
// TPL:      shift<<<(n + 255) / 256, 256>>>(x, n);
// TPL:      negate<<<(n + 127) / 128, 128>>>(x, n);
// TPL:      float *run(Op &op, float *x, int n) { return op.forward(x, n, nullptr); }
// PTX: ptx-identical: 3 function(s) identical
