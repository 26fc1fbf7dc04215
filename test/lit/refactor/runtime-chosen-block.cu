// A block size chosen on the host at run time by a condition on the device
// (llm.c's `block_size = maxThreadsPerMultiProcessor == 1536 ? 768 : 1024`),
// read through a dim3's z: each branch's literal is a parameter of its own
// and the condition stays, so every device keeps its value at the defaults.
// A choice made in device code by the thread is no tunable: refused.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

__global__ void bias_grad(float *dbias, const float *dout, int rows,
                          int cols) {
  int col = blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x +
            threadIdx.x;
  if (col >= cols)
    return;
  float acc = 0.f;
  for (int r = threadIdx.z + blockIdx.y * blockDim.z; r < rows;
       r += blockDim.z * gridDim.y)
    acc += dout[r * cols + col];
  atomicAdd(&dbias[col], acc);
}

void launch_bias_grad(float *dbias, const float *dout, int rows, int cols,
                      int sm_threads, int sms) {
  const int block_size = sm_threads == 1536 ? 768 : 1024;
  dim3 block_dim = {4, 8, (unsigned)block_size / 32};
  const int grid_x = (cols + 31) / 32;
  const int grid_y = sm_threads * sms / (block_size * grid_x);
  bias_grad<<<dim3(grid_x, grid_y > 0 ? grid_y : 1), block_dim>>>(dbias, dout,
                                                                   rows, cols);
}

__global__ void lanes(float *out, const float *in, int n) {
  const int width = threadIdx.x < 16 ? 4 : 8;
  float acc = 0.f;
  for (int k = 0; k < width; ++k)
    acc += in[(blockIdx.x * blockDim.x + threadIdx.x) * 8 + k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

void launch_lanes(float *out, const float *in, int n) {
  lanes<<<n / 128, 128>>>(out, in, n);
}

// CAND:      CAND block_size bias_grad value=768 spelling=block_size
// CAND-NEXT:   SITE 29:{{[0-9]+}} definition '768' -> {P}
// CAND:      CAND block_size bias_grad value=1024 spelling=block_size
// CAND-NEXT:   SITE 29:{{[0-9]+}} definition '1024' -> {P}
// CAND-NOT:  value=4 spelling=width
// CAND-NOT:  value=8 spelling=width
// TPL:      const int block_size = sm_threads == 1536 ? BLOCK_SIZE : BLOCK_SIZE_2;
// TPL:      dim3 block_dim = {BLOCK_SIZE_3, BLOCK_SIZE_4, (unsigned)block_size / 32};
// PTX: identical
