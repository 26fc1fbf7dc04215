// Written for the evaluation harness test: nvcc rejects it.
__global__ void broken(float *x) { x[threadIdx.x] = }
