"""torch, the benchmark's buffers and the compiled libraries.

torch is imported on first use, so the dry run and the build (no GPU, maybe
no torch) never import it. Buffer extents, dtypes, roles and initial values
come from ktune's resolution of the spec (ktune_outputs.ResolvedSpec)."""

import ctypes
import importlib
import math
import os

from e2e_kernels import KERNELS


class _Lazy:
    """A module imported at its first attribute access."""

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)


torch = _Lazy("torch")
F = _Lazy("torch.nn.functional")
# "cuda" on the GPU machine; the CPU self-test and mock_run.py set "cpu".
DEVICE = "cuda"


def import_torch():
    importlib.import_module("torch")
    try:
        dynamo = importlib.import_module("torch._dynamo")
    except ImportError:  # an old torch (the CPU self-test): no torch.compile
        return
    # Every shape compiles anew: no fallback to eager after a few recompiles.
    for attr in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                 "accumulated_cache_size_limit"):
        if hasattr(dynamo.config, attr):
            setattr(dynamo.config, attr, 100000)


DTYPES = {}


def torch_dtype(name):
    if not DTYPES:
        # uint32 (block_reduce's zeroed ticket counter) is held as int32: same bytes.
        DTYPES.update({"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32,
                       "fp64": torch.float64, "int8": torch.int8, "uint8": torch.uint8,
                       "int32": torch.int32, "uint32": torch.int32, "int64": torch.int64})
        for key, attr in (("fp8e4m3", "float8_e4m3fn"), ("fp8e5m2", "float8_e5m2")):
            if hasattr(torch, attr):
                DTYPES[key] = getattr(torch, attr)
    if name not in DTYPES:
        raise ValueError(f"buffer type '{name}' is not supported by this torch")
    return DTYPES[name]


def fill_init(t, arg, name, kernel, shape, gen):
    """Fills a buffer as the spec's init says (normal by default), never with
    zeros except where the kernel needs zeroed workspace."""
    init = arg.get("init", "normal")
    if kernel == "rotary_embedding" and name == "positions":
        t.copy_(torch.randint(0, int(shape["max_position"]), t.shape, generator=gen, device=t.device))
        return
    if init == "zeros":
        t.zero_()
    elif init == "ones":
        t.fill_(1)
    elif init == "arange":
        t.copy_(torch.arange(t.numel(), device=t.device).reshape(t.shape).to(t.dtype))
    elif init == "uniform":
        lo, hi = float(arg.get("low", 0.0)), float(arg.get("high", 1.0))
        tmp = torch.empty(t.shape, dtype=torch.float32, device=t.device)
        tmp.uniform_(lo, hi, generator=gen)
        t.copy_(tmp.to(t.dtype))
    else:
        if t.dtype.is_floating_point and t.element_size() >= 2:
            t.normal_(generator=gen)
        else:
            tmp = torch.empty(t.shape, dtype=torch.float32, device=t.device)
            tmp.normal_(generator=gen)
            t.copy_((tmp * 8).clamp(-100, 100).to(t.dtype))


class BufferSets:
    """n_sets copies of every rotated buffer (one allocation per argument,
    each copy 256-byte aligned) and one copy of each shared buffer. Views are
    made on demand: a cold run may use thousands of copies."""

    def __init__(self, kernel, spec, shape, n_sets, gen):
        resolved = spec.shape(shape)["buffers"]
        self.n_sets = n_sets
        self.names, self.bases, self.dims, self.numels, self.strides = [], [], [], [], []
        shared = KERNELS[kernel].get("shared", set())
        self.alloc_bytes = 0
        for arg in spec.buffers:
            name = arg["name"]
            dims = [int(e) for e in resolved[name]["extents"]]
            dtype = torch_dtype(arg["buffer"])
            numel = max(1, math.prod(dims))
            esize = torch.empty((), dtype=dtype).element_size()
            pad = -(-numel * esize // 256) * 256 // esize
            copies = 1 if name in shared else n_sets
            base = torch.empty((copies, pad), dtype=dtype, device=DEVICE)
            self.alloc_bytes += base.numel() * esize
            fill_init(base, arg, name, kernel, shape, gen)
            self.names.append(name)
            self.bases.append(base)
            self.dims.append(dims)
            self.numels.append(numel)
            self.strides.append(pad * esize)

    def get(self, i):
        out = {}
        for n, base, dims, numel in zip(self.names, self.bases, self.dims, self.numels):
            out[n] = base[i % base.shape[0], :numel].view(dims)
        return out

    def pointer_table(self, n_sets):
        """void* [n_sets][n_bufs]: the buffers of set i in spec order."""
        firsts = [b.data_ptr() for b in self.bases]
        ptrs = []
        for i in range(n_sets):
            for p0, b, stride in zip(firsts, self.bases, self.strides):
                ptrs.append(p0 + (i % b.shape[0]) * stride)
        return (ctypes.c_void_p * len(ptrs))(*ptrs)


def bits(t):
    """The raw bytes of a tensor, for bitwise comparison (NaN included)."""
    return t.contiguous().reshape(-1).view(torch.uint8)


class Lib:
    def __init__(self, path):
        self.path = path
        self.dll = ctypes.CDLL(path)
        self.dll.ktb_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.dll.ktb_run.restype = ctypes.c_int
        self.dll.ktb_run_many.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                          ctypes.c_void_p, ctypes.c_void_p]
        self.dll.ktb_run_many.restype = ctypes.c_int
        self.dll.ktb_info.restype = ctypes.c_char_p

    def run_many(self, table, n_bufs, n_sets, n_calls, dims, stream):
        rc = self.dll.ktb_run_many(ctypes.cast(table, ctypes.c_void_p), n_bufs, n_sets, n_calls,
                                   ctypes.cast(dims, ctypes.c_void_p), ctypes.c_void_p(stream))
        if rc != 0:
            raise RuntimeError(f"{os.path.basename(self.path)}: launch failed with CUDA error {rc}")
