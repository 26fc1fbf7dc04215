"""Timing: CUDA graphs of back-to-back calls, replayed interleaved and timed
with CUDA events; statistics per call; the memory roofline."""

import math
import statistics
import time

from e2e_buffers import torch

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
