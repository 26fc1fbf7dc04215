// A launch whose block is a braced list (`<<<grid, {bx, by, 1}, 0, s>>>`,
// NVIDIA's multi-GPU Jacobi samples' form), which nvcc accepts and Clang's
// parser does not: read as the dims it lists, so the file parses and the
// host constants passed as the kernel's template arguments are lifted. The
// kernel is overloaded (a second copy with other parameters), so it cannot
// gain template parameters: its launches' host constants still can be.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <int BX, int BY>
__global__ void relax(float *out, const float *in, int nx, int ny) {
  int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
  if (x < nx && y < ny)
    out[y * nx + x] = 0.5f * in[y * nx + x];
}

template <int BX, int BY>
__global__ void relax(float *out, const float *in, int nx, int ny, float w) {
  int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
  if (x < nx && y < ny)
    out[y * nx + x] = w * in[y * nx + x];
}

void solve(float *out, const float *in, int nx, int ny, cudaStream_t s) {
  constexpr int bx = 32;
  constexpr int by = 8;
  dim3 grid((nx + bx - 1) / bx, (ny + by - 1) / by, 1);
  relax<bx, by><<<grid, {bx, by, 1}, 0, s>>>(out, in, nx, ny);
  relax<bx, by><<<grid, dim3(bx, by), 0, s>>>(out, in, nx, ny, 0.25f);
  relax<bx, by><<<grid, dim3{bx, by}, 0, s>>>(out, in, nx, ny);
}

// Each overload's candidates hold the same host sites: lifted together.
// CAND:     CAND other relax@17 value=32 spelling=bx high
// CAND-NEXT:  SITE 31:22 definition '32' -> {P} shared
// CAND:     CAND other relax@17 value=8 spelling=by high
// CAND-NEXT:  SITE 32:22 definition '8' -> {P} shared
// CAND:     CAND other relax@24 value=32 spelling=bx high
// CAND-NEXT:  SITE 31:22 definition '32' -> {P} shared
// TPL:      template <int [[X:[A-Z_0-9]+]] = 32, int [[Y:[A-Z_0-9]+]] = 8>
// TPL-NEXT: void solve(
// TPL:      constexpr int bx = [[X]];
// TPL-NEXT: constexpr int by = [[Y]];
// TPL:      relax<bx, by><<<grid, {bx, by, 1}, 0, s>>>(out, in, nx, ny);
// TPL:      relax<bx, by><<<grid, dim3{bx, by}, 0, s>>>(out, in, nx, ny);
// MANIFEST: LAUNCH grid=['(nx + BX - 1) / BX', '(ny + BY - 1) / BY', '1'] block=['BX', 'BY', '1'] smem=0
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
