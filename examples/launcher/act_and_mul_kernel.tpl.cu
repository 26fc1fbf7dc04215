// act_and_mul_kernel.tpl.cu: the kernel alone (no launch site in this file),
// tuned in kernel mode: its block cap is a launch parameter, and its launch
// geometry comes from the manifest (the launcher's expressions).
#include "act_and_mul.cuh"
