#!/usr/bin/env python3
"""Runs bench.py's whole GPU path on the CPU: CUDA graphs, events and streams
are replaced by host stand-ins, and each "library" computes its kernel with
the torch baseline, writing into the buffers its pointer table names. It
checks the driver (checks, graph sizing, interleaved timing, statistics,
resume, the report) without a GPU; the times it prints mean nothing.

    python3 bench/e2e/mock_run.py [bench.py options]    # needs torch (any version, CPU)

Options of interest: --kernels, --quick, --tuned-dir (a tuned library
is emulated wherever a header is found), --compile none (old torch).
Set MOCK_BREAK=<kernel> to make that kernel's tuned library write a wrong
value (the check must catch it), MOCK_HANG=<kernel> to make its original
hang (the watchdog must end the process with status 3).
"""

import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import e2e_buffers  # noqa: E402
import e2e_harness  # noqa: E402
import e2e_reference  # noqa: E402
import e2e_timing  # noqa: E402

REGISTRY = []  # every BufferSets made, to map a pointer back to its tensors
SPECS = {}  # kernel -> the resolved spec its libraries were "built" for


class FakeEvent:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


class FakeGraph:
    current = None

    def __init__(self):
        self.work = None

    def capture_begin(self, *a, **k):
        FakeGraph.current = self

    def capture_end(self):
        FakeGraph.current = None

    def replay(self):
        if self.work:
            self.work()


class FakeStream:
    cuda_stream = 0

    def wait_stream(self, other):
        pass


class StreamCtx:
    def __init__(self, s):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class Props:
    name = "Mock GPU"
    multi_processor_count = 132
    L2_cache_size = 1 << 20  # small, so the cold sets stay small on the CPU
    total_memory = 1 << 34


def patch_torch():
    torch = e2e_buffers.torch
    cuda = torch.cuda
    cuda.is_available = lambda: True
    cuda.get_device_properties = lambda i=0: Props()
    cuda.synchronize = lambda *a: None
    cuda.empty_cache = lambda: None
    cuda.current_stream = lambda *a: FakeStream()
    cuda.Stream = lambda *a, **k: FakeStream()
    cuda.stream = StreamCtx
    cuda.Event = FakeEvent
    cuda.CUDAGraph = FakeGraph
    cuda._sleep = lambda cycles: None

    # capture(): the work of a graph is its enqueue, run again at each replay.
    def capture(variant, n_calls, n_sets, keep):
        g = FakeGraph()
        keep_list = [] if keep else None
        t0 = time.perf_counter()
        variant.enqueue(n_calls, n_sets, keep_list)
        host = time.perf_counter() - t0
        g.work = lambda: variant.enqueue(n_calls, n_sets, None)
        return g, keep_list, host

    e2e_timing.capture = capture
    e2e_timing.copy_roofline = lambda cfg: {"Bps": 4e12, "TBps": 4.0, "iqr_TBps": 0.0, "bytes_per_copy": 0,
                                            "method": "mock"}
    orig_init = e2e_buffers.BufferSets.__init__

    def init(self, *a, **k):
        orig_init(self, *a, **k)
        REGISTRY.append(self)

    e2e_buffers.BufferSets.__init__ = init


class FakeLib:
    """A library whose kernel is the torch baseline, run on the buffers its
    pointer table names (found back through the registry of buffer sets)."""

    def __init__(self, path):
        self.path = path
        _, self.kernel, self.variant = path.split(":")
        self.dims = SPECS[self.kernel].dims

    def run_many(self, table, n_bufs, n_sets, n_calls, dims, stream):
        torch = e2e_buffers.torch
        shape = dict(zip(self.dims, list(dims)))
        first = ctypes.cast(table, ctypes.POINTER(ctypes.c_void_p))[0]
        owner = next(s for s in reversed(REGISTRY)
                     if any(b.data_ptr() <= first < b.data_ptr() + b.numel() * b.element_size() for b in s.bases))
        if self.variant == "original" and os.environ.get("MOCK_HANG") == self.kernel:
            time.sleep(3600)
        for i in range(n_calls):
            bufs = owner.get(i % n_sets)
            with torch.no_grad():
                out = e2e_reference.torch_fn(self.kernel)(bufs, shape)
            for n, t in out.items():
                if self.variant == "tuned" and os.environ.get("MOCK_BREAK") == self.kernel:
                    t = t + 1
                bufs[n].copy_(t.reshape(bufs[n].shape).to(bufs[n].dtype))


def main():
    e2e_buffers.import_torch()
    e2e_buffers.DEVICE = "cpu"
    patch_torch()
    e2e_buffers.import_torch = lambda: None

    def build_one(name, spec, variant, header, build_dir):
        SPECS[name] = spec
        return {"lib": f"fake:{name}:{variant}", "seconds": 0.0, "cached": True}

    e2e_harness.build_one = build_one
    e2e_buffers.Lib = FakeLib
    return bench.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
