"""bench.py's command line: the settings, the dry run, the CPU self-test, the
build, and the GPU run (e2e_gpu)."""

import argparse
import concurrent.futures
import json
import math
import os
import sys
import tempfile

import e2e_gpu
import e2e_harness as harness
import ktune_outputs
from e2e_kernels import KERNELS, ORDER, ROOT, load_spec, shape_label, spec_shapes


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


def parse_args(argv, description):
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
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
            futures[(k, "original")] = pool.submit(harness.build_one, k, specs[k], "original", None, a.build_dir)
        if "tuned" in variants and tuned[k].get("header"):
            futures[(k, "tuned")] = pool.submit(harness.build_one, k, specs[k], "tuned", tuned[k]["header"],
                                                a.build_dir)
    return futures


def selftest_cpu(kernels, specs):
    """On the CPU, without a GPU: the torch baseline of every kernel agrees
    with its float64 reference on the spec's two smallest shapes, and the
    buffer sets, pointer tables and checks work. Exit status 1 on a mismatch."""
    import e2e_buffers as eb  # noqa: PLC0415
    import e2e_reference as ref_ops  # noqa: PLC0415
    eb.DEVICE = "cpu"
    eb.import_torch()
    torch = eb.torch
    status = 0
    for k in kernels:
        sp = specs[k]
        for shape in spec_shapes(sp, False)[:2]:
            gen = torch.Generator(device=eb.DEVICE)
            gen.manual_seed(1)
            sets = eb.BufferSets(k, sp, shape, 3, gen)
            table = sets.pointer_table(3)
            assert len(table) == 3 * len(sets.names)
            b = sets.get(2)
            ref = ref_ops.reference(k, {n: t.clone() for n, t in b.items()}, shape)
            out = ref_ops.torch_fn(k)(b, shape)
            for n, r in ref.items():
                ok, err, note = ref_ops.compare_ref(k, n, out[n], r)
                same, bitwise, diff = ref_ops.compare_spec(out[n], out[n].clone(), {"rtol": 0, "atol": 0})
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
        print(f"\n{k}: spec {os.path.relpath(sp.path, ROOT)}, kernel {sp.kernel}, {len(shapes)} shapes, "
              f"torch.compile {'yes' if cfg.compile_enabled(k) else 'no (eager only)'}")
        print(f"  original: {harness.original_call(k, sp)}")
        if t.get("header"):
            try:
                call = harness.tuned_call(sp, ktune_outputs.dispatch_description(t["header"]))
                print(f"  tuned:    {call}  [{t['header']}]")
            except (OSError, ValueError) as e:
                print(f"  tuned:    ERROR {e}")
        else:
            print(f"  tuned:    none (no *.tuned.h under {os.path.join(a.tuned_dir or '<no --tuned-dir>', k)})")
        cost = ktune_outputs.read_tuning_cost(t)
        if cost:
            print(f"  tuning cost: {json.dumps(cost)}")
        for s in shapes:
            nbytes = sp.bytes_moved(s)
            print(f"  {shape_label(s):55s} bytes {nbytes:>12d}  cold sets for 3x60MiB L2: "
                  f"{max(1, math.ceil(3 * 60 * 2**20 / nbytes))}")
        print(f"  nvcc: {' '.join(harness.nvcc_command('<generated>.cu', '<lib>.so'))}")
    print(f"\n{total} shapes; variants original, tuned, original again (A/A), torch eager, torch.compile where enabled")


def main(argv=None, description=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv, description)
    kernels = selected_kernels(a)
    cfg = Config(a)
    try:
        specs = {k: load_spec(k) for k in kernels}
    except ktune_outputs.KtuneError as e:
        sys.exit(f"bench.py: error: {e}")
    tuned = {k: ktune_outputs.find_tuned(a.tuned_dir, k, specs[k]) for k in kernels}
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
    status = e2e_gpu.run(a, cfg, kernels, specs, tuned, builds, argv)
    pool.shutdown(wait=False)
    return status
