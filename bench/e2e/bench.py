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

import argparse
import ast
import concurrent.futures
import ctypes
import datetime
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples")
START = time.monotonic()

# ----------------------------------------------------------------------------
# Expressions of the spec language (dims arithmetic with C integer division)
# ----------------------------------------------------------------------------


def eval_expr(text, env):
    """Evaluates a spec expression (numbers, dims, + - * / %, ceil_div, min,
    max; C semantics: integer division truncates)."""
    if isinstance(text, (int, float)):
        return text
    tree = ast.parse(str(text), mode="eval")

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in env:
                raise ValueError(f"unknown name '{n.id}' in '{text}'")
            return env[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, (ast.Div, ast.FloorDiv)):
                if isinstance(a, int) and isinstance(b, int):
                    q = abs(a) // abs(b)
                    return q if (a >= 0) == (b >= 0) else -q
                return a / b
            if isinstance(n.op, ast.Mod):
                return int(math.fmod(a, b)) if isinstance(a, int) and isinstance(b, int) else math.fmod(a, b)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            args = [ev(a) for a in n.args]
            if n.func.id == "ceil_div" and len(args) == 2:
                return -(-args[0] // args[1])
            if n.func.id == "min":
                return min(args)
            if n.func.id == "max":
                return max(args)
        raise ValueError(f"unsupported expression '{text}'")

    return ev(tree)


def cpp_expr(text):
    """A spec expression as C++ over int64_t locals named after the dims."""
    if isinstance(text, bool):
        return "true" if text else "false"
    if isinstance(text, int):
        return f"{text}LL"
    if isinstance(text, float):
        return repr(text)
    s = str(text)
    s = re.sub(r"\bceil_div\s*\(", "ktb_ceil_div(", s)
    s = re.sub(r"\bmin\s*\(", "ktb_min(", s)
    s = re.sub(r"\bmax\s*\(", "ktb_max(", s)
    return f"({s})"


# ----------------------------------------------------------------------------
# The kernels: how to call each example's launcher, which buffers are shared
# between rotated copies, and (in the GPU part) torch reference and baseline.
# ----------------------------------------------------------------------------

# Placeholders {arg} are the spec's buffer arguments as void*; the dims are
# int64_t locals; `stream` is the stream.
KERNELS = {
    "silu_and_mul": dict(
        spec="silu_and_mul.spec.json",
        original="ops::launch_silu_and_mul({out}, {input}, (int)num_tokens, (int)(2 * d), "
        "ops::ScalarType::kBFloat16, stream)",
        seed=True, compile=True),
    "fused_add_rmsnorm": dict(
        spec="fused_add_rmsnorm.spec.json",
        original="ops::launch_fused_add_rmsnorm({input}, {residual}, {weight}, (int)num_tokens, "
        "(int)hidden, 1e-6f, ops::ScalarType::kBFloat16, stream)",
        seed=True, compile=True),
    "merge_attn_states_lse": dict(
        spec="merge_attn_states_lse.spec.json",
        original="ops::launch_merge_attn_states_lse({v_merged}, (float *){s_merged}, {v_a}, "
        "(const float *){s_a}, {v_b}, (const float *){s_b}, (int)num_tokens, (int)num_heads, "
        "(int)head_dim, ops::ScalarType::kBFloat16, stream)",
        seed=True, compile=True),
    "row_softmax": dict(
        spec="row_softmax.spec.json",
        original="ops::launch_row_softmax({out}, {in}, (int)rows, (int)cols, "
        "ops::ScalarType::kFloat32, stream)",
        compile=True),
    "block_reduce": dict(
        spec="block_reduce.spec.json",
        original="ops::launch_block_reduce((const float *){in}, (float *){out}, (float *){block_sums}, "
        "(unsigned int *){retire_count}, n, stream)",
        shared={"block_sums", "retire_count"}, compile=True),
    "rotary_embedding": dict(
        spec="rotary_embedding.spec.json",
        original="ops::launch_rotary_embedding((const int64_t *){positions}, {query}, {key}, "
        "{cos_sin_cache}, (int)num_tokens, (int)rot_dim, (int64_t)(num_heads * head_size), "
        "(int64_t)(num_kv_heads * head_size), (int)num_heads, (int)num_kv_heads, (int)head_size, "
        "ops::ScalarType::kBFloat16, stream)",
        shared={"cos_sin_cache"}, compile=False),
    "per_token_group_quant_8bit": dict(
        spec="per_token_group_quant_8bit.spec.json",
        original="ops::launch_per_token_group_quant_8bit({input}, {output_q}, (float *){output_s}, "
        "(int)num_tokens, (int)hidden, (int)group_size, 1e-10f, ops::ScalarType::kBFloat16, "
        "ops::QuantType::kInt8, stream)",
        compile=False),
    "tiled_transpose": dict(
        spec="tiled_transpose.spec.json",
        original="ops::launch_tiled_transpose((float *){out}, (const float *){in}, (int)rows, "
        "(int)cols, stream)",
        compile=False),
}
ORDER = ["silu_and_mul", "fused_add_rmsnorm", "merge_attn_states_lse", "row_softmax",
         "block_reduce", "rotary_embedding", "per_token_group_quant_8bit", "tiled_transpose"]
assert set(ORDER) == set(KERNELS)


def load_spec(name):
    path = os.path.join(EXAMPLES, KERNELS[name]["spec"])
    with open(path) as f:
        spec = json.load(f)
    spec["_path"] = path
    return spec


def buffer_args(spec):
    return [(n, a) for n, a in spec["args"].items() if "buffer" in a]


def spec_shapes(spec, quick):
    """The spec's shapes (its list, else the product of its dims, the first
    dim varying fastest), each a dict in the spec's dim order."""
    dims = list(spec["dims"].keys())
    if "shapes" in spec:
        shapes = [{d: s[d] for d in dims} for s in spec["shapes"]]
    else:
        rev = list(reversed(dims))
        shapes = [dict(zip(rev, combo)) for combo in itertools.product(*(spec["dims"][d] for d in rev))]
        shapes = [{d: s[d] for d in dims} for s in shapes]
    if quick:
        # Two shapes: the smallest and a large one (the first dim at 4096 or
        # more), other dims at their first value; for a shape list, its
        # first and middle entries.
        if "shapes" in spec:
            return [shapes[0], shapes[len(shapes) // 2]] if len(shapes) > 1 else shapes
        first = dims[0]
        others = {d: spec["dims"][d][0] for d in dims[1:]}
        cands = sorted((s for s in shapes if all(s[d] == v for d, v in others.items())), key=lambda s: s[first])
        pick = cands[:1]
        large = [s for s in cands[1:] if s[first] >= 4096]
        if large:
            pick.append(large[0])
        shapes = pick
    return shapes


def shape_label(shape):
    return ",".join(f"{k}={v}" for k, v in shape.items())


# ----------------------------------------------------------------------------
# Tuned outputs of a ktune run: <tuned-dir>/<kernel>/ holds <k>.tuned.h,
# <k>.results.json, the journal, and ktune_run.json (written by run_gpu.sh).
# ----------------------------------------------------------------------------


def find_tuned(tuned_dir, name, spec):
    info = {"dir": None, "header": None, "results": None, "journal": None, "run": None}
    if not tuned_dir:
        return info
    d = os.path.join(tuned_dir, name)
    if not os.path.isdir(d):
        return info
    info["dir"] = d
    files = []
    for dp, _, fs in os.walk(d):
        files += [os.path.join(dp, f) for f in fs]
    want = spec["kernel"]

    def matches(f, suffix):
        # `ktune run` names them results.json and journal.jsonl; ktune-tune
        # <kernel>.results.json and <kernel>.results.journal.jsonl.
        return f.endswith(suffix) or os.path.basename(f) == suffix.lstrip(".")

    def rank(f):
        # `ktune run` puts the best round's files at the top of its output
        # directory and every round's under round-N/: the top ones first.
        base = os.path.basename(f)
        exact = base.startswith(want + ".") or base.startswith(name + ".")
        return (os.path.relpath(f, d).count(os.sep), not exact, f)

    def pick(suffix):
        return (sorted((f for f in files if matches(f, suffix)), key=rank) or [None])[0]

    info["header"] = pick(".tuned.h")
    info["results"] = pick(".results.json")
    info["journal"] = pick(".journal.jsonl")
    # The tuning cost counts every round's journal of a `ktune run`.
    rounds = sorted(f for f in files if re.search(r"(^|/)round-[0-9]+/journal\.jsonl$", f))
    info["journals"] = rounds or ([info["journal"]] if info["journal"] else [])
    run = os.path.join(d, "ktune_run.json")
    info["run"] = run if os.path.exists(run) else None
    return info


def read_tuning_cost(info):
    """Wall time and evaluations of the tuning run, from run_gpu.sh's record,
    the results file and the journal."""
    cost = {}
    if info.get("run"):
        try:
            with open(info["run"]) as f:
                cost["run"] = json.load(f)
        except (OSError, ValueError) as e:
            cost["run_error"] = str(e)
    if info.get("results"):
        try:
            with open(info["results"]) as f:
                res = json.load(f)
            cost["strategy"] = res.get("strategy")
            cost["budget"] = res.get("budget")
            cost["shapes"] = len(res.get("shapes", []))
            cost["evaluations"] = sum(int(s.get("evaluations", 0)) for s in res.get("shapes", []))
            counts = {}
            for s in res.get("shapes", []):
                for k, v in (s.get("status_counts") or {}).items():
                    counts[k] = counts.get(k, 0) + int(v)
            cost["status_counts"] = counts
            g = res.get("general") or {}
            if g:
                cost["general"] = {"config": g.get("config"), "geomean_speedup": g.get("geomean_speedup")}
        except (OSError, ValueError) as e:
            cost["results_error"] = str(e)
    journals = info.get("journals") or ([info["journal"]] if info.get("journal") else [])
    if journals:
        try:
            lines, phases, compile_ms, eval_ms, ats = 0, {}, 0.0, 0.0, []
            for path in journals:
                with open(path) as f:
                    for line in f:
                        line = line.strip()
                        if not line:
                            continue
                        try:
                            j = json.loads(line)
                        except ValueError:
                            continue
                        lines += 1
                        p = j.get("phase", "?")
                        phases[p] = phases.get(p, 0) + 1
                        compile_ms += float(j.get("compile_ms") or 0)
                        eval_ms += float(j.get("eval_ms") or 0)
                        if j.get("at"):
                            ats.append(j["at"])
            cost["journal_entries"] = lines
            cost["journal_phases"] = phases
            cost["compile_s"] = round(compile_ms / 1e3, 2)
            cost["eval_s"] = round(eval_ms / 1e3, 2)
            if ats:
                cost["first_at"], cost["last_at"] = min(ats), max(ats)
        except OSError as e:
            cost["journal_error"] = str(e)
    return cost


def tuned_choice(info, shape):
    """The results file's best configuration and speedup at this shape."""
    if not info.get("results"):
        return None
    try:
        with open(info["results"]) as f:
            res = json.load(f)
    except (OSError, ValueError):
        return None
    for s in res.get("shapes", []):
        sh = s.get("shape", {})
        if all(sh.get(k) == v for k, v in shape.items()):
            best = s.get("best") or {}
            dflt = s.get("default") or {}
            return {"config": best.get("config"), "default_config": dflt.get("config"),
                    "speedup": s.get("speedup"),
                    "best_us": (best.get("time_us") or {}).get("median"),
                    "default_us": (dflt.get("time_us") or {}).get("median")}
    return None


# ----------------------------------------------------------------------------
# Code generation and the nvcc build: one translation unit and one shared
# library per (kernel, variant), so the original's and the template's ops::
# symbols never meet. Entry points: ktb_run(bufs, dims, stream) and
# ktb_run_many(table, n_bufs, n_sets, n_calls, dims, stream).
# ----------------------------------------------------------------------------

PRELUDE = r"""
#include <cstdint>
#include <cuda_runtime.h>
#define KTB_EXPORT extern "C" __attribute__((visibility("default")))
static inline int64_t ktb_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t ktb_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t ktb_max(int64_t a, int64_t b) { return a > b ? a : b; }
"""

ENTRY = r"""
KTB_EXPORT int ktb_run(void *const *bufs, const int64_t *dims, void *stream) {
  return static_cast<int>(ktb_call(bufs, dims, static_cast<cudaStream_t>(stream)));
}

// n_calls launches, call i on buffer set i % n_sets (one CUDA graph capture
// without a Python call per launch).
KTB_EXPORT int ktb_run_many(void *const *table, int64_t n_bufs, int64_t n_sets,
                            int64_t n_calls, const int64_t *dims, void *stream) {
  for (int64_t i = 0; i < n_calls; ++i) {
    const int e = ktb_run(table + (i % n_sets) * n_bufs, dims, stream);
    if (e != 0)
      return e;
  }
  return 0;
}

KTB_EXPORT const char *ktb_info() { return KTB_INFO; }
"""


def dim_locals(spec):
    lines = []
    for i, d in enumerate(spec["dims"].keys()):
        lines.append(f"  const int64_t {d} = dims[{i}];\n  (void){d};")
    return "\n".join(lines)


def original_call(name, spec):
    idx = {n: i for i, (n, _) in enumerate(buffer_args(spec))}
    text = KERNELS[name]["original"]

    def sub(m):
        arg = m.group(1)
        if arg not in idx:
            raise ValueError(f"{name}: launcher template names unknown buffer '{arg}'")
        return f"bufs[{idx[arg]}]"

    return re.sub(r"\{(\w+)\}", sub, text)


def split_params(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_tuned_signature(header_text, kernel):
    """[(type, name)] of launch_<kernel>_tuned's parameters."""
    m = re.search(r"cudaError_t\s+launch_" + re.escape(kernel) + r"_tuned\s*\(([^)]*)\)\s*\{",
                  header_text, re.S)
    if not m:
        raise ValueError(f"no launch_{kernel}_tuned(...) definition in the header")
    params = []
    for p in split_params(m.group(1)):
        p = p.split("=")[0].strip()
        pm = re.match(r"(.*?)([A-Za-z_]\w*)$", p, re.S)
        if not pm:
            raise ValueError(f"cannot read parameter '{p}' of launch_{kernel}_tuned")
        params.append((" ".join(pm.group(1).split()), pm.group(2)))
    return params


def cast_type(t):
    """A parameter's type as a static_cast target: no __restrict__, no
    top-level const."""
    t = t.replace("__restrict__", "").replace("__restrict", "")
    t = " ".join(t.split())
    if "*" in t:
        t = re.sub(r"\*\s*const\s*$", "*", t).strip()
        return t
    t = re.sub(r"\b(const|volatile)\b", "", t)
    return " ".join(t.split())


def tuned_call(name, spec, header_text):
    kernel = spec["kernel"]
    params = parse_tuned_signature(header_text, kernel)
    idx = {n: i for i, (n, _) in enumerate(buffer_args(spec))}
    dims = list(spec["dims"].keys())
    args = []
    for t, pname in params:
        if pname == "stream" and "cudaStream_t" in t:
            args.append("stream")
        elif pname in idx:
            args.append(f"static_cast<{cast_type(t)}>(bufs[{idx[pname]}])")
        elif pname in spec["args"]:
            args.append(f"static_cast<{cast_type(t)}>({cpp_expr(spec['args'][pname]['value'])})")
        elif pname in dims:
            args.append(f"static_cast<{cast_type(t)}>({pname})")
        elif pname.startswith("dim_") and pname[4:] in dims:
            args.append(f"static_cast<{cast_type(t)}>({pname[4:]})")
        else:
            raise ValueError(f"launch_{kernel}_tuned: parameter '{pname}' is neither an argument nor a dim of the spec")
    return f"launch_{kernel}_tuned({', '.join(args)})"


def generate_tu(name, spec, variant, header=None):
    example = os.path.join(EXAMPLES, name + ".cu")
    if variant == "original":
        include = example
        body = f"  {original_call(name, spec)};\n  return cudaGetLastError();"
    else:
        include = os.path.abspath(header)
        with open(header) as f:
            call = tuned_call(name, spec, f.read())
        body = (f"  const cudaError_t e = {call};\n"
                "  if (e != cudaSuccess)\n    return e;\n  return cudaGetLastError();")
    info = f"{name} {variant}"
    return (f"// Generated by bench/e2e/bench.py: {info}.\n"
            f"#include \"{include}\"\n{PRELUDE}\n"
            f"#define KTB_INFO \"{info}\"\n\n"
            "static cudaError_t ktb_call(void *const *bufs, const int64_t *dims, cudaStream_t stream) {\n"
            f"{dim_locals(spec)}\n{body}\n}}\n{ENTRY}")


def nvcc_path():
    return os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def nvcc_command(src, lib):
    return [nvcc_path(), "-O3", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC,-fvisibility=hidden",
            "-Xlinker", "--exclude-libs,ALL", "-o", lib, src]


def build_one(name, spec, variant, header, build_dir):
    """Generates and compiles one library; reuses a previous build of the
    same text. Returns dict(lib=..., seconds=..., error=...)."""
    t0 = time.monotonic()
    try:
        src_text = generate_tu(name, spec, variant, header)
    except (OSError, ValueError) as e:
        return {"lib": None, "error": f"generate: {e}", "seconds": 0.0}
    key = hashlib.sha256()
    key.update(src_text.encode())
    deps = [os.path.join(EXAMPLES, name + ".cu")] if variant == "original" else []
    if header:
        hdir = os.path.dirname(os.path.abspath(header))
        deps += [os.path.join(hdir, f) for f in sorted(os.listdir(hdir)) if f.endswith((".h", ".cu", ".cuh"))]
    for d in deps:
        with open(d, "rb") as f:
            key.update(f.read())
    key.update(" ".join(nvcc_command("x", "y")).encode())
    digest = key.hexdigest()[:16]
    os.makedirs(build_dir, exist_ok=True)
    stem = os.path.join(build_dir, f"{name}.{variant}.{digest}")
    src, lib, log = stem + ".cu", stem + ".so", stem + ".log"
    if os.path.exists(lib):
        return {"lib": lib, "src": src, "seconds": 0.0, "cached": True}
    with open(src, "w") as f:
        f.write(src_text)
    tmp = f"{stem}.{os.getpid()}.{threading.get_ident()}.tmp.so"
    cmd = nvcc_command(src, tmp)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        return {"lib": None, "src": src, "error": f"nvcc: {e}", "seconds": time.monotonic() - t0}
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    if p.returncode != 0:
        tail = (p.stdout + p.stderr).strip().splitlines()[-15:]
        return {"lib": None, "src": src, "log": log, "seconds": time.monotonic() - t0,
                "error": f"nvcc exit {p.returncode}: " + " | ".join(tail)}
    os.replace(tmp, lib)
    return {"lib": lib, "src": src, "log": log, "seconds": round(time.monotonic() - t0, 2)}


# ----------------------------------------------------------------------------
# Everything below needs torch and a GPU.
# ----------------------------------------------------------------------------

torch = None
F = None
DEVICE = "cuda"


def import_torch():
    global torch, F
    import torch as _torch  # noqa: PLC0415
    import torch.nn.functional as _F  # noqa: PLC0415
    torch, F = _torch, _F
    try:
        import torch._dynamo  # noqa: F401,PLC0415
    except ImportError:  # an old torch (the CPU self-test): no torch.compile
        return
    # Every shape compiles anew: no fallback to eager after a few recompiles.
    for attr in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                 "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, attr):
            setattr(torch._dynamo.config, attr, 100000)


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
        env = dict(shape)
        self.n_sets = n_sets
        self.names, self.bases, self.dims, self.numels, self.strides = [], [], [], [], []
        shared = KERNELS[kernel].get("shared", set())
        self.alloc_bytes = 0
        for name, arg in buffer_args(spec):
            dims = [int(eval_expr(e, env)) for e in arg["shape"]]
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


# --- torch references (float64) and baselines --------------------------------


def ref_silu_and_mul(b, shape):
    x = b["input"].double()
    d = shape["d"]
    g, u = x[:, :d], x[:, d:]
    return {"out": g * torch.sigmoid(g) * u}


def torch_silu_and_mul(b, shape):
    x = b["input"]
    d = x.shape[-1] // 2
    return {"out": F.silu(x[..., :d]) * x[..., d:]}


def ref_fused_add_rmsnorm(b, shape, eps=1e-6):
    s = b["input"].double() + b["residual"].double()
    r = s.to(torch.bfloat16)  # the kernel stores the rounded residual ...
    inv = torch.rsqrt((s * s).mean(-1, keepdim=True) + eps)  # ... sums unrounded squares
    return {"input": r.double() * inv * b["weight"].double(), "residual": r.double()}


def torch_fused_add_rmsnorm(b, shape, eps=1e-6):
    x, r, w = b["input"], b["residual"], b["weight"]
    r = r + x
    v = r.float().pow(2).mean(-1, keepdim=True)
    return {"input": (r.float() * torch.rsqrt(v + eps)).to(x.dtype) * w, "residual": r}


def ref_merge_attn_states_lse(b, shape):
    sa, sb = b["s_a"].double(), b["s_b"].double()
    m = torch.maximum(sa, sb)
    ea, eb = torch.exp(sa - m), torch.exp(sb - m)
    s = ea + eb
    v = b["v_a"].double() * (ea / s)[..., None] + b["v_b"].double() * (eb / s)[..., None]
    return {"v_merged": v, "s_merged": m + torch.log(s)}


def torch_merge_attn_states_lse(b, shape):
    va, sa, vb, sb = b["v_a"], b["s_a"], b["v_b"], b["s_b"]
    m = torch.maximum(sa, sb)
    ea, eb = torch.exp(sa - m), torch.exp(sb - m)
    s = ea + eb
    out = (va.float() * (ea / s)[..., None] + vb.float() * (eb / s)[..., None]).to(va.dtype)
    return {"v_merged": out, "s_merged": m + torch.log(s)}


def ref_row_softmax(b, shape):
    return {"out": torch.softmax(b["in"].double(), -1)}


def torch_row_softmax(b, shape):
    return {"out": torch.softmax(b["in"], -1)}


def ref_block_reduce(b, shape):
    return {"out": b["in"].double().sum().reshape(1)}


def torch_block_reduce(b, shape):
    return {"out": b["in"].sum().reshape(1)}


def _rotate(x, cos, sin, rot):
    half = rot // 2
    x1, x2 = x[..., :half], x[..., half:rot]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin, x[..., rot:]], dim=-1)


def ref_rotary_embedding(b, shape):
    rot = shape["rot_dim"]
    cs = b["cos_sin_cache"].double()[b["positions"]]
    cos, sin = cs[:, None, : rot // 2], cs[:, None, rot // 2:]
    return {"query": _rotate(b["query"].double(), cos, sin, rot), "key": _rotate(b["key"].double(), cos, sin, rot)}


def torch_rotary_embedding(b, shape):
    rot = shape["rot_dim"]
    cs = b["cos_sin_cache"][b["positions"]]
    cos, sin = cs[:, None, : rot // 2], cs[:, None, rot // 2:]
    return {"query": _rotate(b["query"], cos, sin, rot), "key": _rotate(b["key"], cos, sin, rot)}


def ref_per_token_group_quant_8bit(b, shape, eps=1e-10):
    g = shape["group_size"]
    x = b["input"].float().reshape(-1, g)
    scale = torch.clamp(x.abs().amax(-1), min=eps) / 127.0
    q = torch.round(torch.clamp(x / scale[:, None], -128.0, 127.0))
    return {"output_q": q.reshape(b["input"].shape).double(), "output_s": scale.reshape(b["output_s"].shape).double()}


def torch_per_token_group_quant_8bit(b, shape, eps=1e-10):
    g = shape["group_size"]
    x = b["input"].float().reshape(-1, g)
    scale = torch.clamp(x.abs().amax(-1), min=eps) / 127.0
    q = torch.round(torch.clamp(x / scale[:, None], -128.0, 127.0)).to(torch.int8)
    return {"output_q": q.reshape(b["input"].shape), "output_s": scale.reshape(-1, b["input"].shape[-1] // g)}


def ref_tiled_transpose(b, shape):
    return {"out": b["in"].double().t()}


def torch_tiled_transpose(b, shape):
    return {"out": b["in"].t().contiguous()}


def reference(kernel, b, shape):
    return globals()["ref_" + kernel](b, shape)


def torch_fn(kernel):
    return globals()["torch_" + kernel]


def ref_threshold(kernel, name, dtype):
    """Largest ||out - ref|| / ||ref|| accepted against the float64 reference."""
    if kernel == "tiled_transpose":
        return 0.0
    if dtype in (torch.bfloat16, torch.float16):
        return 1e-2
    if dtype == torch.int8:
        return 1e-2
    return 1e-4


def compare_ref(kernel, name, out, ref):
    o = out.double().reshape(ref.shape)
    r = ref.double()
    if not torch.isfinite(o).all():
        return False, float("nan"), "non-finite values (unwritten or NaN)"
    denom = torch.linalg.vector_norm(r).item()
    err = torch.linalg.vector_norm(o - r).item() / (denom if denom > 0 else 1.0)
    ok = err <= ref_threshold(kernel, name, out.dtype)
    note = ""
    if out.dtype == torch.int8:
        mx = (o - r).abs().max().item()
        ok = ok and mx <= 1.0
        note = f"max |dq| {mx:g}"
    return ok, err, note


def compare_spec(a, b, tol):
    """Elementwise |a - b| <= atol + rtol |b| (the spec's tolerance)."""
    x, y = a.double(), b.double()
    if torch.equal(bits(a), bits(b)):
        return True, True, 0.0
    finite = torch.isfinite(x) & torch.isfinite(y)
    diff = (x - y).abs()
    allowed = float(tol.get("atol", 0)) + float(tol.get("rtol", 0)) * y.abs()
    bad = (~finite) | (diff > allowed)
    nbad = int(bad.sum().item())
    return nbad == 0, False, float(diff[finite].max().item()) if finite.any() else float("nan")


# --- timing -------------------------------------------------------------------


class Variant:
    """One thing to time: enqueue(n_calls, n_sets, keep) launches n_calls
    calls on the current stream, call i on buffer set i % n_sets."""

    def __init__(self, name, enqueue, ours):
        self.name, self.enqueue, self.ours = name, enqueue, ours
        self.host_us_per_call = None
        self.est_us = None


SIDE_STREAM = None


def capture(variant, n_calls, n_sets, keep):
    global SIDE_STREAM
    if SIDE_STREAM is None:
        SIDE_STREAM = torch.cuda.Stream()
    g = torch.cuda.CUDAGraph()
    keep_list = [] if keep else None
    cur = torch.cuda.current_stream()
    SIDE_STREAM.wait_stream(cur)
    with torch.cuda.stream(SIDE_STREAM):
        g.capture_begin()
        try:
            t0 = time.perf_counter()
            variant.enqueue(n_calls, n_sets, keep_list)
            host = time.perf_counter() - t0
        finally:
            g.capture_end()
    cur.wait_stream(SIDE_STREAM)
    return g, keep_list, host


def gpu_sleep(ms):
    try:
        torch.cuda._sleep(int(ms * 1.5e6))
    except (AttributeError, RuntimeError):
        pass


def replay_times(graphs, reps, head_start_ms=20):
    """Interleaved replays (ABCABC...) timed with events; per-replay ms."""
    for g in graphs:
        g.replay()
    torch.cuda.synchronize()
    events = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
              for _ in graphs]
    gpu_sleep(head_start_ms)  # lets the host queue the replays ahead of the device
    for r in range(reps):
        for gi, g in enumerate(graphs):
            s, e = events[gi][r]
            s.record()
            g.replay()
            e.record()
    torch.cuda.synchronize()
    return [[s.elapsed_time(e) for s, e in ev] for ev in events]


def stats(values):
    v = sorted(values)
    if len(v) >= 2:
        q1, _, q3 = statistics.quantiles(v, n=4, method="inclusive")
    else:
        q1 = q3 = v[0]
    return {"median_us": statistics.median(v), "q1_us": q1, "q3_us": q3, "iqr_us": q3 - q1,
            "min_us": v[0], "max_us": v[-1], "reps": len(v)}


def pilot(variant):
    """Host cost per captured call and device time per warm call."""
    n = 8
    g, keep, host = capture(variant, n, 1, False)
    variant.host_us_per_call = host * 1e6 / n
    ms = replay_times([g], 3, head_start_ms=2)[0]
    variant.est_us = max(statistics.median(ms) * 1e3 / n, 0.5)
    del g, keep


def measure_mode(variants, mode, sets, bytes_per_call, l2_bytes, cfg):
    """Times all variants in one mode with interleaved graph replays."""
    plans = []
    for v in variants:
        # Ours are captured by a C loop; torch's by a Python call per op,
        # so its calls per graph are bounded by capture time.
        if v.ours:
            cap = cfg.max_calls_ours
        else:
            cap = min(cfg.max_calls_torch, max(16, int(cfg.host_budget_s * 1e6 / max(v.host_us_per_call, 0.1))))
        if mode == "warm":
            n_calls = max(cfg.min_calls, min(cap, math.ceil(cfg.target_replay_us / v.est_us)))
            n_sets = 1
        else:
            est = max(v.est_us, bytes_per_call / cfg.peak_Bps * 1e6)
            n_calls = min(cap, max(sets.n_sets, cfg.min_calls, math.ceil(cfg.target_replay_us / est)))
            n_sets = min(sets.n_sets, n_calls)
        plans.append((v, n_calls, n_sets))
    graphs, keeps = [], []
    for v, n_calls, n_sets in plans:
        g, keep, _ = capture(v, n_calls, n_sets, keep=(mode == "cold" and not v.ours))
        graphs.append(g)
        keeps.append(keep)
    # Reps: enough for a stable median within the time budget of the mode.
    replay_ms = sum(v.est_us * n / 1e3 for v, n, _ in plans)
    reps = int(max(cfg.min_reps, min(cfg.max_reps, cfg.mode_budget_ms / max(replay_ms, 1e-3))))
    times = replay_times(graphs, reps)
    out = {}
    for (v, n_calls, n_sets), ms in zip(plans, times):
        st = stats([t * 1e3 / n_calls for t in ms])
        st.update({"calls_per_graph": n_calls, "buffer_sets": n_sets,
                   "footprint_over_l2": round(n_sets * bytes_per_call / l2_bytes, 2) if mode == "cold" else None})
        out[v.name] = st
    del graphs, keeps
    return out


def copy_roofline(cfg):
    """The memory ceiling: the faster of a device-to-device memcpy and an
    elementwise copy kernel (torch.neg, 16-byte vector loads and stores) over
    1 GiB. On some GPUs (H100) the memcpy engine path stays well below what
    a streaming kernel reaches, and a ceiling set too low would let kernels
    pass 100 %."""
    a = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    a.normal_()
    b = torch.empty_like(a)
    n_bytes = 2 * a.numel() * a.element_size()
    ways = {"memcpy": lambda: b.copy_(a), "kernel": lambda: torch.neg(a, out=b)}
    found = {}
    for name, fn in ways.items():
        v = Variant("copy-" + name, lambda n, s, k, fn=fn: [fn() for _ in range(n)], False)
        g, _, _ = capture(v, 4, 1, False)
        ms = replay_times([g], 15)[0]
        bws = sorted(n_bytes / (m / 4 / 1e3) for m in ms)
        q1, _, q3 = statistics.quantiles(bws, n=4, method="inclusive")
        found[name] = {"TBps": statistics.median(bws) / 1e12, "iqr_TBps": (q3 - q1) / 1e12}
        del g
    del a, b
    torch.cuda.empty_cache()
    best = max(found, key=lambda k: found[k]["TBps"])
    med = found[best]["TBps"] * 1e12
    return {"Bps": med, "TBps": med / 1e12, "iqr_TBps": found[best]["iqr_TBps"], "bytes_per_copy": n_bytes,
            "ways": found,
            "method": f"1 GiB copy, read + written bytes, the faster of a device-to-device memcpy "
                      f"({found['memcpy']['TBps']:.3f} TB/s) and an elementwise copy kernel "
                      f"({found['kernel']['TBps']:.3f} TB/s); CUDA graphs of 4 copies, median of 15 replays"}


# --- one kernel ---------------------------------------------------------------


class Heartbeat:
    """What the main thread is doing, since when, and for how long that may
    take before the watchdog calls it a hang."""

    def __init__(self):
        self.t = time.monotonic()
        self.what = "start"
        self.allow = 0.0

    def beat(self, what, allow=0.0):
        self.t = time.monotonic()
        self.what = what
        self.allow = allow


HEART = Heartbeat()


def bits(t):
    """The raw bytes of a tensor, for bitwise comparison (NaN included)."""
    return t.contiguous().reshape(-1).view(torch.uint8)


def check_variant(kernel, spec, shape, lib, dims_arr, gen_seed):
    """Runs one library twice on the same fresh inputs, outputs poisoned with
    a different pattern each time; the two runs must agree bit for bit (an
    unwritten element or a race shows). Returns (outputs, inputs before)."""
    results = []
    for attempt, poison in enumerate((float("nan"), -7777.0)):
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(gen_seed)
        sets = BufferSets(kernel, spec, shape, 1, gen)
        b = sets.get(0)
        before = {n: t.clone() for n, t in b.items()}
        for n, arg in buffer_args(spec):
            if arg.get("role", "in") == "out":
                if b[n].dtype.is_floating_point:
                    b[n].fill_(poison)
                else:
                    b[n].fill_((0x55, 0x2A)[attempt])
        table = sets.pointer_table(1)
        lib.run_many(table, len(sets.names), 1, 1, dims_arr, torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        outs = {n: b[n].clone() for n, arg in buffer_args(spec) if arg.get("role", "in") in ("out", "inout")}
        results.append((outs, before))
        del sets, b
    (o1, before), (o2, _) = results
    for n in o1:
        if not torch.equal(bits(o1[n]), bits(o2[n])):
            raise AssertionError(f"output '{n}' differs between two runs with different poisons "
                                 "(unwritten elements or a race)")
    return o1, before


def run_shape(kernel, spec, shape, libs, cfg, l2_bytes, tuned_info):
    env = dict(shape)
    nbytes = int(eval_expr(spec["bytes"], env))
    row = {"shape": shape, "bytes": nbytes, "check": {}, "modes": {}, "errors": []}
    dims_arr = (ctypes.c_int64 * len(shape))(*[int(v) for v in shape.values()])
    stream_of = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    seed = cfg.seed + 7919 * (1 + ORDER.index(kernel)) + sum(int(v) for v in shape.values())
    tol = spec.get("tolerance", {})
    dtype_of = {n: a["buffer"] for n, a in buffer_args(spec)}

    # 1. Correctness: ours against the float64 reference, tuned against
    # original. A failing original ends the shape; a failing tuned library is
    # left out of the timing, and the row says why.
    HEART.beat(f"{kernel} {shape_label(shape)} check")
    outs = {}
    libs = dict(libs)
    for vname in list(libs):
        try:
            o, before = check_variant(kernel, spec, shape, libs[vname], dims_arr, seed)
            ref = reference(kernel, before, shape)
            res = {}
            for n, r in ref.items():
                ok, err, note = compare_ref(kernel, n, o[n], r)
                res[n] = {"ok": ok, "rel_l2": err, "note": note}
            row["check"][vname] = res
            if not all(x["ok"] for x in res.values()):
                raise AssertionError(f"{vname} differs from the float64 torch reference: {res}")
            outs[vname] = o
        except AssertionError as e:
            if vname == "original":
                raise
            row["errors"].append(f"CHECK FAILED, not timed: {e}")
            row["check_failed"] = True
            del libs[vname]
    if "tuned" in outs:
        agree = {}
        for n in outs["original"]:
            t = tol.get(dtype_of[n], {"rtol": 0, "atol": 0})
            ok, bitwise, maxdiff = compare_spec(outs["tuned"][n], outs["original"][n], t)
            agree[n] = {"ok": ok, "bitwise": bitwise, "max_abs_diff": maxdiff, "tolerance": t}
        row["check"]["tuned_vs_original"] = agree
        if not all(x["ok"] for x in agree.values()):
            row["errors"].append(f"CHECK FAILED, tuned not timed: tuned output differs from the original "
                                 f"beyond the spec tolerance: {agree}")
            row["check_failed"] = True
            del libs["tuned"]
    del outs
    for e in row["errors"]:
        print(f"FAIL {kernel} {shape_label(shape)}: {e[:600]}", flush=True)

    # 2. The torch baselines, checked against the same reference.
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(seed)
    chk = BufferSets(kernel, spec, shape, 1, gen).get(0)
    ref = reference(kernel, {n: t.clone() for n, t in chk.items()}, shape)
    fn = torch_fn(kernel)
    torch_variants = {"torch_eager": fn}
    if cfg.compile_enabled(kernel):
        # The first compilation starts inductor's workers: allow it minutes.
        HEART.beat(f"{kernel} {shape_label(shape)} torch.compile", allow=300)
        t0 = time.monotonic()
        try:
            torch._dynamo.reset()
            compiled = torch.compile(fn, dynamic=False, fullgraph=True)
            with torch.no_grad():
                compiled({n: t.clone() for n, t in chk.items()}, shape)
            torch.cuda.synchronize()
            torch_variants["torch_compile"] = compiled
            row["compile_s"] = round(time.monotonic() - t0, 2)
        except Exception as e:  # a baseline that does not compile is reported, not fatal
            row["errors"].append(f"torch.compile: {type(e).__name__}: {e}"[:500])
    for vname, f in torch_variants.items():
        with torch.no_grad():
            o = f({n: t.clone() for n, t in chk.items()}, shape)
        torch.cuda.synchronize()
        res = {}
        for n, r in ref.items():
            ok, err, note = compare_ref(kernel, n, o[n], r)
            res[n] = {"ok": ok, "rel_l2": err, "note": note}
        row["check"][vname] = res
        if not all(x["ok"] for x in res.values()):
            row["errors"].append(f"{vname} differs from the float64 reference: {res}")
    del chk, ref

    # 3. Timing sets: enough copies to touch >= cold_l2_multiple x L2.
    need = max(1, math.ceil(cfg.cold_l2_multiple * l2_bytes / max(nbytes, 1)))
    n_sets = min(need, cfg.max_calls_ours)
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(seed + 1)
    sets = BufferSets(kernel, spec, shape, n_sets, gen)
    row["cold_sets_needed"] = need
    row["buffer_sets"] = n_sets
    table = sets.pointer_table(n_sets)
    nb = len(sets.names)

    variants = []

    def ours_enqueue(lib):
        return lambda n, s, keep: lib.run_many(table, nb, s, n, dims_arr, stream_of())

    order = [("original", "original"), ("tuned", "tuned"), ("original_again", "original")]
    for vname, libname in order:
        if libname in libs:
            variants.append(Variant(vname, ours_enqueue(libs[libname]), True))
    for vname, f in torch_variants.items():
        def enq(n, s, keep, f=f):
            with torch.no_grad():
                for i in range(n):
                    r = f(sets.get(i % s), shape)
                    if keep is not None:
                        keep.append(r)
        variants.append(Variant(vname, enq, False))

    # Every torch variant runs once on the timing buffers (views at an
    # offset) outside any capture, so a guard that would recompile does it
    # here and lazy initialisation never happens inside a capture.
    with torch.no_grad():
        for f in torch_variants.values():
            for i in sorted({0, n_sets - 1}):
                f(sets.get(i), shape)
    torch.cuda.synchronize()
    HEART.beat(f"{kernel} {shape_label(shape)} pilot")
    for v in variants:
        pilot(v)
    for mode in cfg.modes:
        HEART.beat(f"{kernel} {shape_label(shape)} {mode}")
        row["modes"][mode] = measure_mode(variants, mode, sets, nbytes, l2_bytes, cfg)
    choice = tuned_choice(tuned_info, shape)
    if choice:
        row["tuner"] = choice
    del sets, table, variants
    return row


def derive(row, peak_Bps):
    """Speedups, roofline fractions and noise flags of one timed row."""
    for mode, m in row.get("modes", {}).items():
        d = {}
        o, t, o2 = m.get("original"), m.get("tuned"), m.get("original_again")
        c, e = m.get("torch_compile"), m.get("torch_eager")
        if o and t:
            d["speedup"] = o["median_us"] / t["median_us"]
        if o and o2:
            d["aa_rel_diff"] = abs(o2["median_us"] - o["median_us"]) / o["median_us"]
        if o and t:
            noise = max(o["iqr_us"] / o["median_us"], t["iqr_us"] / t["median_us"], d.get("aa_rel_diff", 0.0))
            d["noise_rel"] = noise
            d["within_noise"] = abs(d["speedup"] - 1.0) <= 2 * noise
        best_ours = t or o
        d["ours"] = "tuned" if t else "original"
        if best_ours:
            d["roofline_frac"] = row["bytes"] / (best_ours["median_us"] * 1e-6) / peak_Bps
            if o:
                d["roofline_frac_original"] = row["bytes"] / (o["median_us"] * 1e-6) / peak_Bps
        if best_ours and c:
            d["tuned_vs_compile"] = c["median_us"] / best_ours["median_us"]
        if best_ours and e:
            d["tuned_vs_eager"] = e["median_us"] / best_ours["median_us"]
        m["derived"] = d


# --- report -------------------------------------------------------------------


def fmt_us(st):
    if not st:
        return "—"
    med = st["median_us"]
    prec = 2 if med < 100 else 1
    return f"{med:.{prec}f} ±{st['iqr_us']:.{prec}f}"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def render_md(doc):
    L = []
    dev = doc.get("device", {})
    L.append(f"# End-to-end benchmark: original vs tuned vs torch, {dev.get('name', '?')}")
    L.append("")
    L.append(f"- date: {doc.get('date')}; device: {dev.get('name')} ({dev.get('sm_count')} SMs, "
             f"L2 {dev.get('l2_bytes', 0) / 2**20:.0f} MiB), driver {dev.get('driver')}, CUDA (torch) {dev.get('cuda')}, "
             f"torch {dev.get('torch')}, triton {dev.get('triton')}, nvcc {dev.get('nvcc')}")
    rf = doc.get("roofline") or {}
    if rf:
        L.append(f"- copy roofline: {rf['TBps']:.3f} TB/s (IQR {rf['iqr_TBps']:.3f}; {rf['method']})")
    if doc.get("outer_command"):
        L.append(f"- command: `{doc['outer_command']}`, which ran `{doc.get('command')}`")
    else:
        L.append(f"- command: `{doc.get('command')}`")
    s = doc.get("settings", {})
    L.append(f"- method: CUDA graphs of back-to-back calls, replayed interleaved (original, tuned, original again, "
             f"eager, compile), timed with events; per-call medians ± IQR over the replays, in µs. "
             f"Warm: every call on the same buffers. Cold: calls rotate over buffer copies touching "
             f">= {s.get('cold_l2_multiple')}x L2 (rows marked † touched less: capped at "
             f"{s.get('max_calls_ours')} calls for ours, by capture time for torch). torch.compile: "
             f"`torch.compile(fn, dynamic=False, fullgraph=True)`, default mode, compiled per shape, for: "
             f"{', '.join(s.get('compile_kernels', [])) or 'none'}; elsewhere eager only.")
    L.append("- speedup = original / tuned (the same nvcc build flags for both); `≈` marks a speedup within "
             "2x the noise (the larger of either IQR/median and the A/A difference of the original timed twice). "
             "tuned vs compile = torch.compile time / tuned time (above 1: tuned is faster).")
    noise = doc.get("noise", {})
    if noise:
        L.append(f"- noise: A/A (original timed twice, interleaved) median |Δ| "
                 + ", ".join(f"{m} {v['aa_median_pct']:.2f}% (max {v['aa_max_pct']:.2f}%)" for m, v in noise.items())
                 + "; median IQR/median " + ", ".join(f"{m} {v['iqr_median_pct']:.2f}%" for m, v in noise.items()))
    L.append("")
    L.append("## Summary")
    L.append("")
    L.append("| kernel | shapes | geomean speedup cold | geomean speedup warm | geomean tuned vs compile cold | warm | "
             "tuning wall s | evaluations |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name in doc.get("kernel_order", []):
        k = doc["kernels"].get(name)
        if not k:
            continue
        rows = [r for r in k.get("rows", []) if r.get("modes")]

        def gm(mode, key):
            g = geomean([r["modes"].get(mode, {}).get("derived", {}).get(key) for r in rows])
            return f"{g:.3f}x" if g else "—"

        cost = k.get("tuning_cost", {})
        wall = (cost.get("run") or {}).get("wall_s")
        L.append(f"| {name} | {len(rows)}/{len(k.get('rows', []))} | {gm('cold', 'speedup')} | {gm('warm', 'speedup')} | "
                 f"{gm('cold', 'tuned_vs_compile')} | {gm('warm', 'tuned_vs_compile')} | "
                 f"{wall if wall is not None else '—'} | {cost.get('evaluations', '—')} |")
    L.append("")
    for name in doc.get("kernel_order", []):
        k = doc["kernels"].get(name)
        if not k:
            continue
        L.append(f"## {name}")
        L.append("")
        cost = k.get("tuning_cost", {})
        run = cost.get("run") or {}
        if cost:
            parts = []
            if run:
                parts.append(f"`ktune run` wall {run.get('wall_s')} s (exit {run.get('rc')}, "
                             f"budget {run.get('budget')}, strategy {run.get('strategy')})")
            if "evaluations" in cost:
                parts.append(f"{cost['evaluations']} evaluations over {cost.get('shapes')} shapes "
                             f"({', '.join(f'{a} {b}' for a, b in sorted(cost.get('status_counts', {}).items()))})")
            if "journal_entries" in cost:
                parts.append(f"journal {cost['journal_entries']} entries, compile {cost.get('compile_s')} s, "
                             f"evaluation wall {cost.get('eval_s')} s")
            if cost.get("general"):
                parts.append(f"general config {cost['general'].get('config')} "
                             f"(tuner's geomean {cost['general'].get('geomean_speedup')})")
            L.append("- tuning: " + "; ".join(parts))
        if k.get("tuned_note"):
            L.append(f"- tuned: {k['tuned_note']}")
        for e in k.get("errors", []):
            L.append(f"- **error**: {e}")
        L.append("")
        for mode in ("cold", "warm"):
            rows = [r for r in k.get("rows", []) if mode in r.get("modes", {})]
            if not rows:
                continue
            L.append(f"### {mode}")
            L.append("")
            L.append("| shape | original µs | tuned µs | speedup | % roofline | torch eager µs | torch.compile µs | "
                     "tuned vs compile | tuner said |")
            L.append("|---|---|---|---|---|---|---|---|---|")
            for r in rows:
                m = r["modes"][mode]
                d = m.get("derived", {})
                sp = d.get("speedup")
                sp_s = "—" if sp is None else (("≈" if d.get("within_noise") else "") + f"{sp:.3f}x")
                rfl = d.get("roofline_frac")
                rfl_s = "—" if rfl is None else f"{100 * rfl:.1f}%"
                tvc = d.get("tuned_vs_compile")
                tvc_s = "—" if tvc is None else f"{tvc:.2f}x" + (" (orig)" if d.get("ours") == "original" else "")
                dag = ""
                if mode == "cold":
                    fps = [v.get("footprint_over_l2") for v in m.values() if isinstance(v, dict) and "footprint_over_l2" in v]
                    fps = [f for f in fps if f is not None]
                    if fps and min(fps) < doc["settings"]["cold_l2_multiple"]:
                        dag = f" † ({min(fps):.1f}x L2)"
                tn = r.get("tuner") or {}
                said = f"{tn['speedup']:.3f}x" if tn.get("speedup") else "—"
                L.append(f"| {shape_label(r['shape'])}{dag} | {fmt_us(m.get('original'))} | {fmt_us(m.get('tuned'))} | "
                         f"{sp_s} | {rfl_s} | {fmt_us(m.get('torch_eager'))} | {fmt_us(m.get('torch_compile'))} | "
                         f"{tvc_s} | {said} |")
            L.append("")
        bad = [r for r in k.get("rows", []) if r.get("error") or r.get("errors")]
        for r in bad:
            msg = r.get("error") or "; ".join(r.get("errors", []))
            L.append(f"- {shape_label(r['shape'])}: {msg[:400]}")
        if bad:
            L.append("")
    L.append("% roofline: the spec's `bytes` (least bytes moved) over the tuned time (the original's where no tuned "
             "build), over the copy roofline. In the warm table data can come from L2, so it can pass 100%.")
    L.append("")
    return "\n".join(L)


# Machine paths in a report (they end up in the repository) are written as
# placeholders: longest first.
PATH_NAMES = {}


def set_path_names(a):
    PATH_NAMES.clear()
    for path, name in ((ROOT, "<repo>"), (a.out, "$OUT"), (a.tuned_dir, "<tuned-dir>"),
                       (a.build_dir, "<build-dir>")):
        if path:
            PATH_NAMES[os.path.abspath(path)] = name
            PATH_NAMES[path.rstrip("/")] = name


def without_paths(text):
    for path in sorted(PATH_NAMES, key=len, reverse=True):
        if len(path) > 1:
            text = text.replace(path, PATH_NAMES[path])
    return text


def write_outputs(doc, out_dir, tag):
    os.makedirs(out_dir, exist_ok=True)
    jpath = os.path.join(out_dir, f"e2e_{tag}.json")
    mpath = os.path.join(out_dir, f"e2e_{tag}.md")
    for path, text in ((jpath, without_paths(json.dumps(doc, indent=1, default=str))),
                       (mpath, without_paths(render_md(doc)))):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return jpath, mpath


def noise_summary(doc):
    out = {}
    for mode in ("cold", "warm"):
        aa, iq = [], []
        for k in doc["kernels"].values():
            for r in k.get("rows", []):
                m = r.get("modes", {}).get(mode)
                if not m:
                    continue
                d = m.get("derived", {})
                if "aa_rel_diff" in d:
                    aa.append(100 * d["aa_rel_diff"])
                for v in m.values():
                    if isinstance(v, dict) and "iqr_us" in v and v.get("median_us"):
                        iq.append(100 * v["iqr_us"] / v["median_us"])
        if aa:
            out[mode] = {"aa_median_pct": statistics.median(aa), "aa_max_pct": max(aa),
                         "iqr_median_pct": statistics.median(iq) if iq else 0.0, "rows": len(aa)}
    return out


# ----------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------


class Config:
    def __init__(self, a):
        self.seed = a.seed
        self.quick = a.quick
        self.modes = [m for m in a.modes.split(",") if m]
        self.cold_l2_multiple = a.cold_l2_multiple
        self.max_calls_ours = a.max_calls
        self.max_calls_torch = a.max_calls
        self.host_budget_s = 0.15 if not a.quick else 0.08
        self.target_replay_us = 1500.0
        self.min_calls = 8
        self.min_reps = 5
        self.max_reps = 30 if not a.quick else 10
        self.mode_budget_ms = 120.0 if not a.quick else 40.0
        self.compile_kernels = (set(k for k in ORDER if KERNELS[k].get("compile")) if a.compile == "default"
                                else set(ORDER) if a.compile == "all"
                                else set() if a.compile == "none"
                                else set(a.compile.split(",")))
        self.peak_Bps = 4e12

    def compile_enabled(self, kernel):
        return kernel in self.compile_kernels


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tuned-dir", help="a ktune output folder with one subfolder per kernel")
    p.add_argument("--kernels", default=",".join(ORDER), help="comma-separated, from: " + ", ".join(ORDER))
    p.add_argument("--quick", action="store_true", help="two shapes per kernel, fewer repetitions")
    p.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "bench", "results"),
                   help="folder for e2e_<device>.md/.json (default $OUT, else bench/results)")
    p.add_argument("--build-dir", default=os.path.join(tempfile.gettempdir(), "ktune-e2e-build"))
    p.add_argument("--variants", default="original,tuned", help="which libraries to build")
    p.add_argument("--compile", default="default",
                   help="torch.compile for: default (the seed ops, row_softmax, block_reduce), all, none, or a list")
    p.add_argument("--modes", default="cold,warm")
    p.add_argument("--cold-l2-multiple", type=float, default=3.0)
    p.add_argument("--max-calls", type=int, default=16384, help="most calls in one graph")
    p.add_argument("--max-shapes", type=int, default=0, help="at most this many shapes per kernel (0: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--deadline-s", type=float, default=0, help="stop starting shapes after this many seconds")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    p.add_argument("--tag", default=None, help="file name tag (default: the device name)")
    p.add_argument("--resume", action="store_true", help="keep kernels already in the output JSON")
    p.add_argument("--dry-run", action="store_true", help="print the plan; no GPU, no torch")
    p.add_argument("--build-only", action="store_true", help="generate and compile the libraries; no GPU")
    p.add_argument("--selftest-cpu", action="store_true",
                   help="check the torch baselines against the float64 references on the CPU; no GPU")
    p.add_argument("--watchdog-s", type=float, default=90, help="exit 3 when one step takes longer")
    return p.parse_args(argv)


def progress_line(kernel, row):
    parts = [f"{kernel} {shape_label(row['shape'])}:"]
    for mode, m in row.get("modes", {}).items():
        d = m.get("derived", {})
        cell = [f"{mode}"]
        for v, label in (("original", "orig"), ("tuned", "tuned"), ("torch_eager", "eager"),
                         ("torch_compile", "compile")):
            if v in m:
                cell.append(f"{label} {m[v]['median_us']:.2f}")
        if "speedup" in d:
            cell.append(f"x{d['speedup']:.3f}")
        parts.append(" ".join(cell) + " us")
    return "  ".join(parts) + f"  ({row.get('wall_s')} s)"


def selected_kernels(a):
    ks = [k.strip() for k in a.kernels.split(",") if k.strip()]
    bad = [k for k in ks if k not in KERNELS]
    if bad:
        sys.exit(f"bench.py: error: unknown kernel(s) {', '.join(bad)}; known: {', '.join(ORDER)}")
    return ks


def start_builds(kernels, specs, tuned, a, pool):
    futures = {}
    variants = [v for v in a.variants.split(",") if v]
    for k in kernels:
        if "original" in variants:
            futures[(k, "original")] = pool.submit(build_one, k, specs[k], "original", None, a.build_dir)
        if "tuned" in variants and tuned[k].get("header"):
            futures[(k, "tuned")] = pool.submit(build_one, k, specs[k], "tuned", tuned[k]["header"], a.build_dir)
    return futures


def selftest_cpu(kernels, specs):
    """On the CPU, without a GPU: the torch baseline of every kernel agrees
    with its float64 reference on the spec's two smallest shapes, and the
    buffer sets, pointer tables and checks work. Exit status 1 on a mismatch."""
    global DEVICE
    DEVICE = "cpu"
    import_torch()
    status = 0
    for k in kernels:
        sp = specs[k]
        for shape in spec_shapes(sp, False)[:2]:
            gen = torch.Generator(device=DEVICE)
            gen.manual_seed(1)
            sets = BufferSets(k, sp, shape, 3, gen)
            table = sets.pointer_table(3)
            assert len(table) == 3 * len(sets.names)
            b = sets.get(2)
            ref = reference(k, {n: t.clone() for n, t in b.items()}, shape)
            out = torch_fn(k)(b, shape)
            for n, r in ref.items():
                ok, err, note = compare_ref(k, n, out[n], r)
                same, bitwise, diff = compare_spec(out[n], out[n].clone(), {"rtol": 0, "atol": 0})
                ok = ok and same and bitwise
                status |= 0 if ok else 1
                print(f"{'ok  ' if ok else 'FAIL'} {k} {shape_label(shape)} {n}: rel_l2 {err:.2e} {note}")
    return status


def dry_run(kernels, specs, tuned, a, cfg):
    print(f"plan: {len(kernels)} kernels, modes {','.join(cfg.modes)}, build dir {a.build_dir}")
    total = 0
    for k in kernels:
        sp = specs[k]
        shapes = spec_shapes(sp, a.quick)
        total += len(shapes)
        t = tuned[k]
        print(f"\n{k}: spec {os.path.relpath(sp['_path'], ROOT)}, kernel {sp['kernel']}, {len(shapes)} shapes, "
              f"torch.compile {'yes' if cfg.compile_enabled(k) else 'no (eager only)'}")
        print(f"  original: {original_call(k, sp)}")
        if t.get("header"):
            try:
                with open(t["header"]) as f:
                    print(f"  tuned:    {tuned_call(k, sp, f.read())}  [{t['header']}]")
            except (OSError, ValueError) as e:
                print(f"  tuned:    ERROR {e}")
        else:
            print(f"  tuned:    none (no *.tuned.h under {os.path.join(a.tuned_dir or '<no --tuned-dir>', k)})")
        cost = read_tuning_cost(t)
        if cost:
            print(f"  tuning cost: {json.dumps(cost)}")
        for s in shapes:
            nbytes = eval_expr(sp["bytes"], s)
            print(f"  {shape_label(s):55s} bytes {nbytes:>12d}  cold sets for 3x60MiB L2: "
                  f"{max(1, math.ceil(3 * 60 * 2**20 / nbytes))}")
        print(f"  nvcc: {' '.join(nvcc_command('<generated>.cu', '<lib>.so'))}")
    print(f"\n{total} shapes; variants original, tuned, original again (A/A), torch eager, torch.compile where enabled")


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    kernels = selected_kernels(a)
    cfg = Config(a)
    specs = {k: load_spec(k) for k in kernels}
    tuned = {k: find_tuned(a.tuned_dir, k, specs[k]) for k in kernels}
    if a.dry_run:
        dry_run(kernels, specs, tuned, a, cfg)
        return 0
    if a.selftest_cpu:
        return selftest_cpu(kernels, specs)

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs))
    builds = start_builds(kernels, specs, tuned, a, pool)
    if a.build_only:
        status = 0
        for (k, v), f in builds.items():
            r = f.result()
            if r.get("lib"):
                print(f"built {k} {v}: {r['lib']} ({r['seconds']} s{', cached' if r.get('cached') else ''})")
            else:
                status = 1
                print(f"FAILED {k} {v}: {r.get('error')}")
        return status

    # --- on the GPU machine ---
    set_path_names(a)
    import_torch()
    if not torch.cuda.is_available():
        sys.exit("bench.py: error: no CUDA device (use --dry-run or --build-only without a GPU)")
    props = torch.cuda.get_device_properties(0)
    tag = a.tag or re.sub(r"[^A-Za-z0-9]+", "_", props.name.replace("NVIDIA ", "")).strip("_").lower()
    jpath = os.path.join(a.out, f"e2e_{tag}.json")
    hung_path = os.path.join(a.out, f"e2e_{tag}.hung")
    os.makedirs(a.out, exist_ok=True)
    doc = None
    if a.resume and os.path.exists(jpath):
        try:
            with open(jpath) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            doc = None
    if doc is not None:
        doc.setdefault("resumed_with", []).append(" ".join(sys.argv[1:] if argv is None else argv))
    if doc is None:
        driver = "?"
        try:
            driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                    capture_output=True, text=True, timeout=30).stdout.strip() or "?"
        except (OSError, subprocess.SubprocessError):
            pass
        nvcc_v = "?"
        try:
            nvcc_v = re.findall(r"release ([\d.]+)", subprocess.run([nvcc_path(), "--version"], capture_output=True,
                                                                      text=True, timeout=30).stdout)[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            pass
        try:
            import triton  # noqa: PLC0415
            triton_v = triton.__version__
        except ImportError:
            triton_v = None
        doc = {"ktune": "e2e-bench/1",
               "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "command": " ".join(["python3", "bench/e2e/bench.py"] + (sys.argv[1:] if argv is None else argv)),
               "device": {"name": props.name, "sm_count": props.multi_processor_count,
                          "l2_bytes": props.L2_cache_size, "memory_bytes": props.total_memory,
                          "driver": driver, "cuda": torch.version.cuda, "torch": torch.__version__,
                          "triton": triton_v, "nvcc": nvcc_v},
               "settings": {}, "kernels": {}, "kernel_order": []}
        if os.environ.get("KTUNE_E2E_COMMAND"):
            doc["outer_command"] = os.environ["KTUNE_E2E_COMMAND"]
    l2 = int(doc["device"]["l2_bytes"])
    doc["settings"] = {"quick": a.quick, "modes": cfg.modes, "cold_l2_multiple": cfg.cold_l2_multiple,
                       "max_calls_ours": cfg.max_calls_ours, "host_budget_s": cfg.host_budget_s,
                       "target_replay_us": cfg.target_replay_us, "min_reps": cfg.min_reps,
                       "max_reps": cfg.max_reps, "compile_kernels": sorted(cfg.compile_kernels & set(kernels)),
                       "seed": cfg.seed, "nvcc_flags": nvcc_command("<tu>.cu", "<lib>.so")[1:-3]}
    if "roofline" not in doc:
        HEART.beat("roofline")
        doc["roofline"] = copy_roofline(cfg)
    cfg.peak_Bps = doc["roofline"]["Bps"]
    print(f"device {props.name}, L2 {l2 / 2**20:.0f} MiB, copy roofline {doc['roofline']['TBps']:.3f} TB/s", flush=True)

    # Watchdog: a hung kernel must not take the other kernels' results with it.
    def watchdog():
        while True:
            time.sleep(5)
            limit = max(a.watchdog_s, HEART.allow)
            if time.monotonic() - HEART.t > limit:
                print(f"bench.py: watchdog: no progress for {limit:.0f} s during '{HEART.what}'; "
                      "exiting (rerun with --resume)", flush=True)
                cur = HEART.what.split(" ")[0]
                try:  # the marker survives even if the report cannot be written now
                    with open(hung_path, "a") as f:
                        f.write(cur + "\n")
                except OSError:
                    pass
                if cur in doc["kernels"]:
                    doc["kernels"][cur].setdefault("errors", []).append(f"watchdog: hung during '{HEART.what}'")
                    doc["kernels"][cur]["done"] = True
                try:
                    write_outputs(doc, a.out, tag)
                finally:
                    os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()

    # Kernels a watchdog ended in an earlier run are not tried again.
    if a.resume and os.path.exists(hung_path):
        with open(hung_path) as f:
            for name in {line.strip() for line in f if line.strip()}:
                if name in doc["kernels"] and not doc["kernels"][name].get("done"):
                    doc["kernels"][name]["done"] = True
                    doc["kernels"][name].setdefault("errors", []).append("watchdog: hung in an earlier run")
    elif os.path.exists(hung_path):
        os.remove(hung_path)

    exit_code = 0
    for k in kernels:
        if k not in doc["kernel_order"]:
            doc["kernel_order"].append(k)
        if doc["kernels"].get(k, {}).get("done"):
            print(f"{k}: kept from the previous run", flush=True)
            continue
        sp = specs[k]
        kd = {"spec": os.path.relpath(sp["_path"], ROOT), "kernel": sp["kernel"], "rows": [], "errors": [],
              "tuned_files": {x: y for x, y in tuned[k].items() if y}, "tuning_cost": read_tuning_cost(tuned[k])}
        doc["kernels"][k] = kd
        HEART.beat(f"{k} build")
        libs = {}
        for v in ("original", "tuned"):
            f = builds.get((k, v))
            if f is None:
                if v == "tuned":
                    kd["tuned_note"] = "no tuned header found: original and torch only"
                continue
            while not f.done():  # a build is no hang: keep the watchdog quiet
                HEART.beat(f"{k} build")
                time.sleep(0.5)
            r = f.result()
            kd.setdefault("build", {})[v] = {x: r.get(x) for x in ("lib", "seconds", "error", "cached")}
            if r.get("lib"):
                try:
                    libs[v] = Lib(r["lib"])
                except OSError as e:
                    kd["errors"].append(f"load {v}: {e}")
            else:
                kd["errors"].append(f"build {v}: {r.get('error')}")
                exit_code = 1
        if "original" not in libs:
            kd["errors"].append("no original library: kernel skipped")
            kd["done"] = True
            write_outputs(doc, a.out, tag)
            continue
        if "tuned" in kd.get("build", {}) and "tuned" not in libs:
            kd["tuned_note"] = "tuned build failed: original and torch only"
        shapes = spec_shapes(sp, a.quick)
        if a.max_shapes:
            shapes = shapes[:a.max_shapes]
        for shape in shapes:
            if a.deadline_s and time.monotonic() - START > a.deadline_s:
                kd["rows"].append({"shape": shape, "error": "skipped: deadline", "modes": {}})
                continue
            t0 = time.monotonic()
            try:
                row = run_shape(k, sp, shape, libs, cfg, l2, tuned[k])
                derive(row, cfg.peak_Bps)
            except Exception as e:  # one shape failing must not lose the others
                row = {"shape": shape, "error": f"{type(e).__name__}: {e}"[:2000], "modes": {},
                       "traceback": traceback.format_exc()[-4000:]}
                exit_code = 1
                print(f"FAIL {k} {shape_label(shape)}: {row['error'][:500]}", flush=True)
                try:
                    torch.cuda.synchronize()
                except Exception:  # a sticky CUDA error: the context is gone
                    kd["rows"].append(row)
                    kd["errors"].append("CUDA context lost; rest of this kernel skipped (rerun with --resume)")
                    kd["done"] = True
                    write_outputs(doc, a.out, tag)
                    print("bench.py: CUDA context lost; exiting with 3 so the caller can resume", flush=True)
                    return 3
            row["wall_s"] = round(time.monotonic() - t0, 2)
            if row.get("check_failed"):
                exit_code = 1
            kd["rows"].append(row)
            if row.get("modes"):
                print(progress_line(k, row), flush=True)
            torch.cuda.empty_cache()
            write_outputs(doc, a.out, tag)
            HEART.beat(f"{k} next")
        kd["done"] = True
        doc["noise"] = noise_summary(doc)
        write_outputs(doc, a.out, tag)
    doc["noise"] = noise_summary(doc)
    doc["elapsed_s"] = round(time.monotonic() - START, 1)
    if any(doc["kernels"].get(k, {}).get("errors") or
           any(r.get("error") or r.get("errors") or r.get("check_failed")
               for r in doc["kernels"].get(k, {}).get("rows", []))
           for k in kernels):
        exit_code = max(exit_code, 1)
    jp, mp = write_outputs(doc, a.out, tag)
    print(f"wrote {jp} and {mp} in {doc['elapsed_s']} s", flush=True)
    pool.shutdown(wait=False)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
