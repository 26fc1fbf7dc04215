// The mirror of device-bodies-on-host.cu: attributes that exist only where
// __CUDA_ARCH__ is defined make a vector's constructors `__device__` alone
// on the device side (InfiniTAM's `_CPU_AND_GPU_CODE_`), so there a launcher
// cannot build the parameter struct holding one. nvcc's device pass never
// compiles a host function's body; the analysis carries on, with a note,
// and the launcher's block is lifted. An error in the launcher on the host
// side still refuses the file.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>%t/cands-stderr.txt | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// RUN: not ktune-refactor %s -o %t/h.cu --extra-arg=-DBREAK_LAUNCHER 2>&1 | FileCheck %s --check-prefix=LAUNCHER
// RUN: not test -e %t/h.cu

#if defined(__CUDACC__) && defined(__CUDA_ARCH__)
#define CPU_AND_GPU __device__
#else
#define CPU_AND_GPU
#endif

struct Vec2 {
  float x, y;
  CPU_AND_GPU Vec2() {}
  CPU_AND_GPU Vec2(float a, float b) : x(a), y(b) {}
};

struct Params {
  float *out;
  Vec2 scale;
  int n;
};

// A host constructor: its members' constructors are `__device__` alone on
// the device side (reported at its name).
struct Window {
  Vec2 size;
  Window() { size.x = size.y = 16.f; }
};

__global__ void apply(Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    p.out[i] = p.out[i] * p.scale.x + p.scale.y;
}

void launch_apply(float *out, int n) {
  Window w;
  Params p;
  p.out = out;
  p.scale = Vec2(2.f, 1.f);
  p.n = n;
#ifdef BREAK_LAUNCHER
  p.n = undeclared_in_launcher;
#endif
  dim3 block(256);
  apply<<<(n + block.x - 1) / block.x, block>>>(p);
}

// CAND:      CAND block_size apply value=256 spelling=256
// CAND-NEXT:   SITE 58:14 launch_block '256' -> {P}

// NOTE: error: constructor for 'Window' must explicitly initialize the member 'size' which does not have a default constructor [{{[0-9]+}} errors on the device side, all in host code outside the kernels, the functions they call and their launchers, in device code's bodies on the host side or host code's on the device side
// NOTE: wrote

// PTX: identical

// LAUNCHER: cannot parse ({{.*}}host side): {{.*}}undeclared identifier 'undeclared_in_launcher' (in 'launch_apply', which launches a kernel)
