#pragma once

// Every kernel of the project, by #include only.
#include "kernels/gemm_naive.cuh"