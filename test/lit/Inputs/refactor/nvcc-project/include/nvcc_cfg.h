// Written for the cli-nvcc-flags test.
#pragma once
#define SCALE_THREADS 128
