"""The GPU side of the realcode benchmark: buffers, checks and timing.

Every variant (native and tuned libraries, torch eager, torch.compile) is
timed the way bench/e2e times the examples (e2e_timing: CUDA graphs of
back-to-back calls, replayed interleaved, events around each replay), with
a cold L2: the calls rotate through copies of every buffer that together
touch at least three L2 sizes."""

import ctypes
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))

import e2e_timing  # noqa: E402
from e2e_buffers import torch  # noqa: E402  (imported on first use)

DTYPES = {"bf16": "bfloat16", "fp32": "float32", "fp16": "float16"}


class TimingConfig:
    """e2e_timing.measure_mode's settings."""

    def __init__(self, quick, peak_Bps):
        self.max_calls_ours = 16384
        self.max_calls_torch = 16384
        self.host_budget_s = 0.08 if quick else 0.15
        self.target_replay_us = 1500.0
        self.min_calls = 8
        self.min_reps = 5
        self.max_reps = 10 if quick else 30
        self.mode_budget_ms = 40.0 if quick else 120.0
        self.peak_Bps = peak_Bps


class Buffers:
    """n_sets copies of every buffer of one shape, in the spec's order."""

    def __init__(self, spec, resolved, n_sets, seed):
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        self.names, self.sets = [], [[] for _ in range(n_sets)]
        self.n_sets = n_sets
        for name, arg in spec["args"].items():
            if "buffer" not in arg:
                continue
            extents = [int(e) for e in resolved["buffers"][name]["extents"]]
            dtype = getattr(torch, DTYPES[arg["buffer"]])
            self.names.append(name)
            for s in self.sets:
                t = torch.randn(extents, dtype=torch.float32, device="cuda", generator=g)
                s.append(t.to(dtype))
        flat = [t.data_ptr() for s in self.sets for t in s]
        self.table = (ctypes.c_void_p * len(flat))(*flat)

    def get(self, i):
        return dict(zip(self.names, self.sets[i % self.n_sets]))

    def clone(self, i):
        return {k: v.clone() for k, v in self.get(i).items()}


def library(path):
    lib = ctypes.CDLL(path)
    lib.ktb_enqueue.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p]
    lib.ktb_enqueue.restype = ctypes.c_int
    return lib


def call(lib, n_calls, n_sets, table, scalars):
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    rc = lib.ktb_enqueue(n_calls, n_sets, table, scalars, stream)
    if rc != 0:
        raise RuntimeError(f"CUDA error {rc} from the library")


def scalar_array(spec, resolved):
    values = [float(resolved["scalars"][n]) for n, a in spec["args"].items()
              if "buffer" not in a and not a.get("stream")]
    return (ctypes.c_double * max(1, len(values)))(*values)


def outputs_of(spec, bufs):
    return {n: bufs[n] for n, a in spec["args"].items()
            if "buffer" in a and a.get("role") in ("out", "inout")}


def check(name, spec, resolved, libs, torch_fn, seed):
    """Native and tuned on the same fresh inputs: equal within the spec's
    tolerance (bitwise noted); torch eager against native: relative L2
    error. Returns a dict for the report."""
    base = Buffers(spec, resolved, 1, seed)
    scalars = scalar_array(spec, resolved)
    outs = {}
    for variant, lib in libs.items():
        bufs = base.clone(0)
        for n in bufs:
            if spec["args"][n].get("role") == "out":
                bufs[n].fill_(float("nan"))
        ptrs = (ctypes.c_void_p * len(bufs))(*[bufs[n].data_ptr() for n in base.names])
        call(lib, 1, 1, ptrs, scalars)
        torch.cuda.synchronize()
        outs[variant] = outputs_of(spec, bufs)
    result = {"bitwise": True, "within_tolerance": True, "torch_rel_err": None}
    tol = spec.get("tolerance", {})
    if "tuned" in outs:
        for n, want in outs["native"].items():
            got = outs["tuned"][n]
            same = torch.equal(got.contiguous().view(torch.uint8), want.contiguous().view(torch.uint8))
            result["bitwise"] &= bool(same)
            t = tol.get(spec["args"][n]["buffer"], {"rtol": 0, "atol": 0})
            ok = torch.allclose(got.float(), want.float(), rtol=t["rtol"], atol=t["atol"], equal_nan=False)
            result["within_tolerance"] &= bool(ok)
    if torch_fn:
        fresh = base.clone(0)
        got = torch_fn(fresh)
        errs = []
        for n, ref in zip(outs["native"], got):
            a, b = ref.float(), outs["native"][n].float()
            errs.append(float((a - b).norm() / max(b.norm(), 1e-30)))
        result["torch_rel_err"] = max(errs) if errs else None
    return result


def cold_sets(bytes_per_call, l2_bytes, free_bytes):
    want = math.ceil(3 * l2_bytes / max(bytes_per_call, 1))
    most = max(1, int(0.4 * free_bytes // max(bytes_per_call, 1)))
    return max(1, min(want, most, 4096))


def time_shape(spec, resolved, libs, torch_fns, cfg, l2_bytes, seed):
    """Cold-L2 medians of every variant at one shape."""
    nbytes = sum(b["bytes"] for b in resolved["buffers"].values())
    free, _ = torch.cuda.mem_get_info()
    n_sets = cold_sets(nbytes, l2_bytes, free)
    bufs = Buffers(spec, resolved, n_sets, seed)
    scalars = scalar_array(spec, resolved)
    variants = []
    for name, lib in libs.items():
        variants.append(e2e_timing.Variant(
            name, lambda n, s, keep, lib=lib: call(lib, n, s, bufs.table, scalars), True))
    for name, fn in torch_fns.items():
        def enqueue(n, s, keep, fn=fn):
            for i in range(n):
                out = fn(bufs.get(i))
                if keep is not None:
                    keep.append(out)
        variants.append(e2e_timing.Variant(name, enqueue, False))
    # torch.compile compiles on a shape's first call: outside any capture.
    for fn in torch_fns.values():
        fn(bufs.get(0))
    torch.cuda.synchronize()
    for v in variants:
        e2e_timing.pilot(v)
    stats = e2e_timing.measure_mode(variants, "cold", bufs, resolved.get("bytes", nbytes),
                                    l2_bytes, cfg)
    del bufs
    torch.cuda.empty_cache()
    return stats, n_sets


# The torch baselines: what a user would write instead (functional: they
# return what the kernel writes, in the spec's order of its outputs).

def torch_silu_and_mul(b):
    x = b["input"]
    d = x.shape[-1] // 2
    return (torch.nn.functional.silu(x[..., :d]) * x[..., d:],)


def torch_fused_add_rmsnorm(b, eps=1e-6):
    r = b["residual"] + b["input"]
    v = r.float().pow(2).mean(-1, keepdim=True)
    return ((r.float() * torch.rsqrt(v + eps)).to(r.dtype) * b["weight"], r)


def torch_merge_attn_states(b):
    # lse: [heads, tokens], as SGLang lays it out.
    sa, sb = b["prefix_lse"].t(), b["suffix_lse"].t()
    m = torch.maximum(sa, sb)
    ea, eb = torch.exp(sa - m), torch.exp(sb - m)
    s = ea + eb
    out = (b["prefix_output"].float() * (ea / s)[..., None]
           + b["suffix_output"].float() * (eb / s)[..., None]).to(b["prefix_output"].dtype)
    return (out, (m + torch.log(s)).t().contiguous())


TORCH = {"silu_and_mul": torch_silu_and_mul,
         "fused_add_rmsnorm": torch_fused_add_rmsnorm,
         "merge_attn_states": torch_merge_attn_states}


def torch_variants(name):
    """torch eager and torch.compile (default mode, one compile per shape)."""
    import torch._dynamo as dynamo
    for attr in ("recompile_limit", "cache_size_limit"):
        if hasattr(dynamo.config, attr):
            setattr(dynamo.config, attr, 100000)
    fn = TORCH[name]
    compiled = torch.compile(fn, dynamic=False)
    return {"torch eager": fn, "torch.compile": compiled}
