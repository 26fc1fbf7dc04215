#!/usr/bin/env python3
"""End-to-end benchmark of the example kernels: original against tuned, and
both against torch eager and torch.compile.

For every example kernel and every shape of its spec it builds two shared
libraries with nvcc (the example's own launcher `ops::launch_<name>`, and the
tuned dispatch header `launch_<kernel>_tuned` that a ktune run wrote), checks
that both compute what a float64 torch reference computes and that the tuned
output equals the original output within the spec's tolerance, then times the
original, the tuned kernel, the original a second time (the A/A noise
control), torch eager and torch.compile with one function: CUDA graphs of many
back-to-back calls, replayed interleaved, timed with events; medians and
interquartile ranges per call. Warm: every call of the graph uses the same
buffers. Cold: the calls rotate through copies of the buffers that together
touch at least three times the L2 cache.

    bench.py --tuned-dir TUNED [--kernels a,b] [--quick] [--out DIR]
    bench.py --dry-run ...        # the plan of work; no GPU, no torch
    bench.py --build-only ...     # generate and compile the libraries; no GPU

See bench/e2e/README.md.
"""

# The entry point only: the code is in the e2e_*.py modules beside this file,
# and what ktune wrote (the resolved spec, the dispatch header's description,
# results, journals) is read by ktune_outputs.py.

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import e2e_cli  # noqa: E402
from ktune_outputs import find_tuned, read_tuning_cost  # noqa: E402,F401  (the tests call them)


def main(argv=None):
    return e2e_cli.main(argv, description=__doc__)


if __name__ == "__main__":
    sys.exit(main())
