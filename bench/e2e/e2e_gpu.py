"""The benchmark on the GPU: per shape, the correctness checks of the
original and tuned libraries and the torch baselines, then the interleaved
timing of every variant; the driver that goes over the kernels, writes the
report after every shape and guards against hangs."""

import ctypes
import datetime
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
import traceback

import e2e_buffers as eb
import e2e_harness as harness
import e2e_reference as ref_ops
import e2e_report as report
import e2e_timing as timing
import ktune_outputs
from e2e_buffers import bits, torch
from e2e_kernels import ORDER, ROOT, shape_label, spec_shapes

START = time.monotonic()


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


def check_variant(kernel, spec, shape, lib, dims_arr, gen_seed):
    """Runs one library twice on the same fresh inputs, outputs poisoned with
    a different pattern each time; the two runs must agree bit for bit (an
    unwritten element or a race shows). Returns (outputs, inputs before)."""
    results = []
    for attempt, poison in enumerate((float("nan"), -7777.0)):
        gen = torch.Generator(device=eb.DEVICE)
        gen.manual_seed(gen_seed)
        sets = eb.BufferSets(kernel, spec, shape, 1, gen)
        b = sets.get(0)
        before = {n: t.clone() for n, t in b.items()}
        for arg in spec.buffers:
            n = arg["name"]
            if arg["role"] == "out":
                if b[n].dtype.is_floating_point:
                    b[n].fill_(poison)
                else:
                    b[n].fill_((0x55, 0x2A)[attempt])
        table = sets.pointer_table(1)
        lib.run_many(table, len(sets.names), 1, 1, dims_arr, torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        outs = {a["name"]: b[a["name"]].clone() for a in spec.buffers if a["role"] in ("out", "inout")}
        results.append((outs, before))
        del sets, b
    (o1, before), (o2, _) = results
    for n in o1:
        if not torch.equal(bits(o1[n]), bits(o2[n])):
            raise AssertionError(f"output '{n}' differs between two runs with different poisons "
                                 "(unwritten elements or a race)")
    return o1, before


def reference_check(kernel, outputs, ref):
    """Each output against its float64 reference: {name: ok, rel_l2, note}."""
    res = {}
    for n, r in ref.items():
        ok, err, note = ref_ops.compare_ref(kernel, n, outputs[n], r)
        res[n] = {"ok": ok, "rel_l2": err, "note": note}
    return res


def run_shape(kernel, spec, shape, libs, cfg, l2_bytes, tuned_info):
    nbytes = int(spec.bytes_moved(shape))
    row = {"shape": shape, "bytes": nbytes, "check": {}, "modes": {}, "errors": []}
    dims_arr = (ctypes.c_int64 * len(shape))(*[int(v) for v in shape.values()])
    stream_of = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731
    seed = cfg.seed + 7919 * (1 + ORDER.index(kernel)) + sum(int(v) for v in shape.values())
    tol = spec.tolerance
    dtype_of = {a["name"]: a["buffer"] for a in spec.buffers}

    # 1. Correctness: ours against the float64 reference, tuned against
    # original. A failing original ends the shape; a failing tuned library is
    # left out of the timing, and the row says why.
    HEART.beat(f"{kernel} {shape_label(shape)} check")
    outs = {}
    libs = dict(libs)
    for vname in list(libs):
        try:
            o, before = check_variant(kernel, spec, shape, libs[vname], dims_arr, seed)
            res = reference_check(kernel, o, ref_ops.reference(kernel, before, shape))
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
            ok, bitwise, maxdiff = ref_ops.compare_spec(outs["tuned"][n], outs["original"][n], t)
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
    gen = torch.Generator(device=eb.DEVICE)
    gen.manual_seed(seed)
    chk = eb.BufferSets(kernel, spec, shape, 1, gen).get(0)
    ref = ref_ops.reference(kernel, {n: t.clone() for n, t in chk.items()}, shape)
    fn = ref_ops.torch_fn(kernel)
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
        res = reference_check(kernel, o, ref)
        row["check"][vname] = res
        if not all(x["ok"] for x in res.values()):
            row["errors"].append(f"{vname} differs from the float64 reference: {res}")
    del chk, ref

    # 3. Timing sets: enough copies to touch >= cold_l2_multiple x L2.
    need = max(1, math.ceil(cfg.cold_l2_multiple * l2_bytes / max(nbytes, 1)))
    n_sets = min(need, cfg.max_calls_ours)
    gen = torch.Generator(device=eb.DEVICE)
    gen.manual_seed(seed + 1)
    sets = eb.BufferSets(kernel, spec, shape, n_sets, gen)
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
            variants.append(timing.Variant(vname, ours_enqueue(libs[libname]), True))
    for vname, f in torch_variants.items():
        def enq(n, s, keep, f=f):
            with torch.no_grad():
                for i in range(n):
                    r = f(sets.get(i % s), shape)
                    if keep is not None:
                        keep.append(r)
        variants.append(timing.Variant(vname, enq, False))

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
        timing.pilot(v)
    for mode in cfg.modes:
        HEART.beat(f"{kernel} {shape_label(shape)} {mode}")
        row["modes"][mode] = timing.measure_mode(variants, mode, sets, nbytes, l2_bytes, cfg)
    choice = ktune_outputs.tuned_choice(tuned_info, shape)
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


def new_report(props, argv):
    """The report's document before any kernel: the device, versions, the
    command."""
    driver = "?"
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        pass
    nvcc_v = "?"
    try:
        out = subprocess.run([harness.nvcc_path(), "--version"], capture_output=True, text=True,
                             timeout=30).stdout
        nvcc_v = re.findall(r"release ([\d.]+)", out)[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    try:
        import triton  # noqa: PLC0415
        triton_v = triton.__version__
    except ImportError:
        triton_v = None
    doc = {"ktune": "e2e-bench/1",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "command": " ".join(["python3", "bench/e2e/bench.py"] + argv),
           "device": {"name": props.name, "sm_count": props.multi_processor_count,
                      "l2_bytes": props.L2_cache_size, "memory_bytes": props.total_memory,
                      "driver": driver, "cuda": torch.version.cuda, "torch": torch.__version__,
                      "triton": triton_v, "nvcc": nvcc_v},
           "settings": {}, "kernels": {}, "kernel_order": []}
    if os.environ.get("KTUNE_E2E_COMMAND"):
        doc["outer_command"] = os.environ["KTUNE_E2E_COMMAND"]
    return doc


def start_watchdog(a, doc, tag, hung_path):
    """Ends the process with status 3 when the main thread makes no progress
    for --watchdog-s (longer where it said so), after writing the report and
    marking the kernel that hung (`--resume` skips it)."""

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
                    report.write_outputs(doc, a.out, tag)
                finally:
                    os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()


def run(a, cfg, kernels, specs, tuned, builds, argv):
    """Benchmarks every kernel on the GPU; returns the exit status."""
    report.set_path_names(a)
    eb.import_torch()
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
        doc.setdefault("resumed_with", []).append(" ".join(argv))
    if doc is None:
        doc = new_report(props, argv)
    l2 = int(doc["device"]["l2_bytes"])
    doc["settings"] = {"quick": a.quick, "modes": cfg.modes, "cold_l2_multiple": cfg.cold_l2_multiple,
                       "max_calls_ours": cfg.max_calls_ours, "host_budget_s": cfg.host_budget_s,
                       "target_replay_us": cfg.target_replay_us, "min_reps": cfg.min_reps,
                       "max_reps": cfg.max_reps, "compile_kernels": sorted(cfg.compile_kernels & set(kernels)),
                       "seed": cfg.seed, "nvcc_flags": harness.nvcc_command("<tu>.cu", "<lib>.so")[1:-3]}
    if "roofline" not in doc:
        HEART.beat("roofline")
        doc["roofline"] = timing.copy_roofline(cfg)
    cfg.peak_Bps = doc["roofline"]["Bps"]
    print(f"device {props.name}, L2 {l2 / 2**20:.0f} MiB, copy roofline {doc['roofline']['TBps']:.3f} TB/s", flush=True)

    # A hung kernel must not take the other kernels' results with it.
    start_watchdog(a, doc, tag, hung_path)

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
        kd = {"spec": os.path.relpath(sp.path, ROOT), "kernel": sp.kernel, "rows": [], "errors": [],
              "tuned_files": {x: y for x, y in tuned[k].items() if y},
              "tuning_cost": ktune_outputs.read_tuning_cost(tuned[k])}
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
                    libs[v] = eb.Lib(r["lib"])
                except OSError as e:
                    kd["errors"].append(f"load {v}: {e}")
            else:
                kd["errors"].append(f"build {v}: {r.get('error')}")
                exit_code = 1
        if "original" not in libs:
            kd["errors"].append("no original library: kernel skipped")
            kd["done"] = True
            report.write_outputs(doc, a.out, tag)
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
                    report.write_outputs(doc, a.out, tag)
                    print("bench.py: CUDA context lost; exiting with 3 so the caller can resume", flush=True)
                    return 3
            row["wall_s"] = round(time.monotonic() - t0, 2)
            if row.get("check_failed"):
                exit_code = 1
            kd["rows"].append(row)
            if row.get("modes"):
                print(report.progress_line(k, row), flush=True)
            torch.cuda.empty_cache()
            report.write_outputs(doc, a.out, tag)
            HEART.beat(f"{k} next")
        kd["done"] = True
        doc["noise"] = report.noise_summary(doc)
        report.write_outputs(doc, a.out, tag)
    doc["noise"] = report.noise_summary(doc)
    doc["elapsed_s"] = round(time.monotonic() - START, 1)
    if any(doc["kernels"].get(k, {}).get("errors") or
           any(r.get("error") or r.get("errors") or r.get("check_failed")
               for r in doc["kernels"].get(k, {}).get("rows", []))
           for k in kernels):
        exit_code = max(exit_code, 1)
    jp, mp = report.write_outputs(doc, a.out, tag)
    print(f"wrote {jp} and {mp} in {doc['elapsed_s']} s", flush=True)
    return exit_code

