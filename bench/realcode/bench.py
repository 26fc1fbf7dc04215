#!/usr/bin/env python3
"""Native vs ktune-tuned vs torch eager vs torch.compile on SGLang's three
kernels in their real form (sgl-kernel launchers over FlashInfer's headers,
PyTorch types replaced by raw pointers), at the seed paper's shapes, cold
L2; plus what tuning them cost.

    bench.py --realcode R --compile-db DB --tuned-dir T      # on the GPU machine
    bench.py ... --build-only                                # compile the libraries; no GPU
    bench.py ... --dry-run                                   # the plan; no GPU, no torch

R holds sglang/csrc and flashinfer/include; DB is the compile_commands.json
of the three files (run_gpu.sh writes one for R); T/<kernel>/ is what
`ktune run` wrote for each kernel (its dispatch header, results, journals,
and run_gpu.sh's ktune_run.json). Writes realcode_<device>.md/.json to --out.
"""

import argparse
import glob
import json
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))

import ktune_outputs  # noqa: E402
import realcode_kernels as rk  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--realcode", required=True)
    p.add_argument("--compile-db", required=True)
    p.add_argument("--tuned-dir", default=None)
    p.add_argument("--out", default=os.environ.get("OUT") or os.path.join(rk.ROOT, "bench", "results"))
    p.add_argument("--build-dir", default="/tmp/ktune-realcode-build")
    p.add_argument("--kernels", default=",".join(rk.ORDER))
    p.add_argument("--quick", action="store_true", help="two shapes per kernel, fewer repetitions")
    p.add_argument("--nvcc-throughput", default=None, help="nvcc_throughput.jsonl from run_gpu.sh")
    p.add_argument("--tag", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--control", action="store_true",
                   help="time a second copy of the native library too (A/A): what the "
                        "measurement alone makes of two identical programs")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--build-only", action="store_true")
    return p.parse_args(argv)


def tuned_outputs(tuned_dir, name):
    """The dispatch header, its description and the manifest of a ktune run."""
    d = os.path.join(tuned_dir or "", name)
    found = {"dir": d if os.path.isdir(d) else None}
    for key, pattern in (("header", "*.tuned.h"), ("dispatch", "*.tuned.json"), ("manifest", "*.tpl.json")):
        hits = sorted(glob.glob(os.path.join(d, pattern)))
        found[key] = hits[0] if hits else None
    return found


def include_dirs(found):
    """Where the tuned header's includes are: its directory and the
    manifest's include_dirs (the rewritten headers), first, then its
    quote_dirs (the original's directory; SGLang's files include nothing
    there that a -I could confuse with a system header)."""
    dirs = []
    if found["manifest"]:
        with open(found["manifest"]) as f:
            m = json.load(f)
        base = os.path.dirname(os.path.abspath(found["manifest"]))
        dirs += [os.path.normpath(os.path.join(base, d))
                 for d in m.get("include_dirs", []) + m.get("quote_dirs", [])]
    if found["header"]:
        dirs.append(os.path.dirname(os.path.abspath(found["header"])))
    return dirs


def build_kernel(name, a):
    """Both libraries of one kernel: dict(native=..., tuned=...)."""
    k = rk.KERNELS[name]
    spec = rk.load_spec(name)
    source = os.path.join(a.realcode, k["source"])
    flags = rk.project_flags(a.compile_db, source)
    _, nbuf = rk.arg_refs(spec)
    out = {"native": rk.build(name, "native", source, rk.native_call(name, spec), nbuf, flags, [],
                              a.build_dir)}
    if a.control:
        out["native again"] = rk.build(name, "native-again", source, rk.native_call(name, spec), nbuf,
                                       flags, [], a.build_dir)
    found = tuned_outputs(a.tuned_dir, name)
    if found["header"] and found["dispatch"]:
        with open(found["dispatch"]) as f:
            dispatch = json.load(f)
        try:
            call = rk.tuned_call(spec, dispatch)
        except (KeyError, ValueError) as e:
            out["tuned"] = {"lib": None, "error": f"tuned call: {e}"}
        else:
            out["tuned"] = rk.build(name, "tuned", os.path.abspath(found["header"]), call, nbuf,
                                    flags, include_dirs(found), a.build_dir)
    else:
        out["tuned"] = {"lib": None, "error": "no dispatch header in " + str(found["dir"])}
    return out


def tuning_cost(tuned_dir, name):
    """What `ktune run` cost for one kernel: wall time and exit status
    (run_gpu.sh's ktune_run.json), evaluations and compile time over every
    round (results files and journals), and the compiler each round used."""
    d = os.path.join(tuned_dir or "", name)
    cost = {"wall_s": None, "rc": None, "evaluations": 0, "compile_s": 0.0, "rounds": 0,
            "compiler": None, "instantiations": 0, "nvcc_calls": 0}
    run = os.path.join(d, "ktune_run.json")
    if os.path.exists(run):
        with open(run) as f:
            r = json.load(f)
        cost.update(wall_s=r.get("wall_s"), rc=r.get("rc"))
    for res in sorted(glob.glob(os.path.join(d, "round-*", "*results.json"))):
        with open(res) as f:
            r = json.load(f)
        cost["rounds"] += 1
        cost["evaluations"] += sum(s.get("evaluations", 0) for s in r.get("shapes", []))
        c = r.get("compiler") or {}
        if c:
            cost["compiler"] = f"{c.get('backend')} ({c.get('reason')})"
            cost["compile_s"] += c.get("compile_seconds", 0.0)
            cost["instantiations"] += c.get("instantiations", 0)
            cost["nvcc_calls"] += c.get("calls", 0) if c.get("backend") == "nvcc" else 0
    return cost


def shapes_of(resolved, quick):
    shapes = resolved.shapes
    if quick and len(shapes) > 2:
        shapes = [shapes[0], shapes[-1]]
    return shapes


def dry_run(a, names):
    for name in names:
        spec = rk.load_spec(name)
        resolved = ktune_outputs.resolve_spec(rk.spec_path(name))
        found = tuned_outputs(a.tuned_dir, name)
        print(f"{name}: {len(shapes_of(resolved, a.quick))} shapes; native: "
              f"{rk.native_call(name, spec)}")
        if found["dispatch"]:
            with open(found["dispatch"]) as f:
                print(f"  tuned: {rk.tuned_call(spec, json.load(f))}")
        else:
            print(f"  tuned: no dispatch header under {found['dir'] or a.tuned_dir}")
        print(f"  bar: {rk.KERNELS[name]['bar']}")
    return 0


def noise(st):
    return st["iqr_us"] / st["median_us"] if st and st.get("median_us") else 0.0


def judge(name, rows):
    """The issue's bar for this kernel, from the rows."""
    if name == "silu_and_mul":
        bar = [r for r in rows if r["shape"].get("num_tokens") in (4096, 16384)
               and r["shape"].get("d") in (11008, 14336)]
        ok = bool(bar) and all(r.get("speedup") and r["speedup"] >= 1.25 for r in bar)
        return ok, f"{len(bar)} bar shapes, least speedup " + (
            f"{min(r['speedup'] or 0 for r in bar):.3f}x" if bar else "n/a")
    worst = None
    ok = bool(rows)
    for r in rows:
        if not r.get("speedup"):
            ok = False
            continue
        slack = 2 * max(noise(r["times"].get("native")), noise(r["times"].get("tuned")), 0.01)
        if r["speedup"] < 1 - slack:
            ok = False
        worst = r["speedup"] if worst is None else min(worst, r["speedup"])
    return ok, f"least speedup {worst:.3f}x" if worst else "no tuned times"


def fmt(st):
    return "-" if not st else f"{st['median_us']:.2f} ± {st['iqr_us'] / 2:.2f}"


def render(doc):
    lines = [f"# SGLang's kernels in their real form: native vs ktune-tuned vs torch ({doc['device']})", "",
             f"- **Device:** {doc['device']}, {doc['driver']}; {doc['date']}.",
             f"- **Command:** `{doc['command']}`.",
             "- **Timing:** cold L2 (each call reads buffers three L2 sizes away), CUDA graphs of "
             "back-to-back calls replayed interleaved (native, tuned, torch eager, torch.compile), "
             "median ± half the IQR per call. *native* = SGLang's launcher as written; *tuned* = the "
             "dispatch header `ktune run` wrote.",
             f"- **Roofline:** {doc['roofline']['method']} = {doc['roofline']['TBps']:.2f} TB/s.", ""]
    for nv in doc.get("nvcc_throughput", []):
        lines += [f"- **nvcc backend, {nv.get('name')}:** {nv.get('instantiations')} instantiations in "
                  f"{nv.get('wall_s', 0):.1f} s wall on {nv.get('cores')} cores = "
                  f"**{nv.get('per_second', 0):.2f} instantiations/s** (`{nv.get('template')}`, "
                  f"{nv.get('calls')} nvcc calls, empty cache, exit {nv.get('rc')})."]
    lines.append("")
    for k in doc["kernels"]:
        c = k["cost"]
        lines += [f"## {k['name']}", "",
                  f"Tuning cost: `ktune run` exit {c['rc']}, {c['wall_s']} s wall, {c['rounds']} round(s), "
                  f"{c['evaluations']} evaluations, {c['compile_s']:.1f} s of compilation "
                  f"({c['instantiations']} instantiations; compiler {c['compiler']}).", ""]
        if k.get("error"):
            lines += [f"**Not benchmarked:** {k['error']}", ""]
            continue
        lines += ["| shape | native µs | tuned µs | speedup | tuned config | native % roof | tuned % roof "
                  "| eager µs | compile µs | floor µs | check |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in k["rows"]:
            t = r["times"]
            pct = lambda st: "-" if not st else f"{100 * r['floor_us'] / st['median_us']:.1f} %"
            lines.append(
                f"| {' '.join(f'{a}={b}' for a, b in r['shape'].items())} | {fmt(t.get('native'))} | "
                f"{fmt(t.get('tuned'))} | {r['speedup']:.3f}x | {r.get('config', '-')} | "
                f"{pct(t.get('native'))} | {pct(t.get('tuned'))} | {fmt(t.get('torch eager'))} | "
                f"{fmt(t.get('torch.compile'))} | {r['floor_us']:.2f} | {r['check']} |"
                if r.get("speedup") else
                f"| {r['shape']} | {fmt(t.get('native'))} | - | - | - | - | - | "
                f"{fmt(t.get('torch eager'))} | {fmt(t.get('torch.compile'))} | {r['floor_us']:.2f} | {r['check']} |")
        controls = [r["control"] for r in k["rows"] if r.get("control")]
        if controls:
            lines += ["", "A/A control (a second copy of the native library timed in the same "
                      "interleaving; native / copy): " +
                      ", ".join(f"{' '.join(f'{a}={b}' for a, b in r['shape'].items())} {r['control']:.3f}"
                                for r in k["rows"] if r.get("control")) +
                      f"; range {min(controls):.3f}-{max(controls):.3f}."]
        ok, why = k["bar"]
        lines += ["", f"Bar ({rk.KERNELS[k['name']]['bar']}): **{'met' if ok else 'NOT met'}** ({why}).", ""]
    return "\n".join(lines) + "\n"


def tuned_config(found, shape):
    if not found["dispatch"]:
        return None
    with open(found["dispatch"]) as f:
        d = json.load(f)
    for s in d.get("shapes", []):
        if all(str(s["shape"].get(k)) == str(v) for k, v in shape.items()):
            return " ".join(f"{a}={b}" for a, b in s["config"].items())
    return None


def report_tag(a, doc):
    return a.tag or doc["device"].lower().replace(" ", "_")


def write_report(a, doc):
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"realcode_{report_tag(a, doc)}.json"), "w") as f:
        json.dump(doc, f, indent=1, default=str)
    with open(os.path.join(a.out, f"realcode_{report_tag(a, doc)}.md"), "w") as f:
        f.write(render(doc))


def run_gpu(a, names):
    import bench_gpu as g
    torch = g.torch
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    cfg = g.TimingConfig(a.quick, 3e12)
    roof = g.e2e_timing.copy_roofline(cfg)
    cfg.peak_Bps = roof["Bps"]
    doc = {"device": props.name, "driver": f"torch {torch.__version__}, CUDA {torch.version.cuda}",
           "date": time.strftime("%Y-%m-%d"), "command": os.environ.get("KTUNE_REALCODE_COMMAND", " ".join(sys.argv)),
           "roofline": roof, "kernels": []}
    if a.nvcc_throughput and os.path.exists(a.nvcc_throughput):
        with open(a.nvcc_throughput) as f:
            doc["nvcc_throughput"] = [json.loads(line) for line in f if line.strip()]
    for name in names:
        entry = {"name": name, "cost": tuning_cost(a.tuned_dir, name), "rows": []}
        doc["kernels"].append(entry)
        spec = rk.load_spec(name)
        resolved = ktune_outputs.resolve_spec(rk.spec_path(name))
        built = build_kernel(name, a)
        if not built["native"].get("lib"):
            entry["error"] = "native library: " + built["native"].get("error", "?")
            entry["bar"] = (False, "not benchmarked")
            continue
        libs = {"native": g.library(built["native"]["lib"])}
        if built["tuned"].get("lib"):
            libs["tuned"] = g.library(built["tuned"]["lib"])
        else:
            entry["tuned_error"] = built["tuned"].get("error")
        if built.get("native again", {}).get("lib"):
            libs["native again"] = g.library(built["native again"]["lib"])
        found = tuned_outputs(a.tuned_dir, name)
        torch_fns = g.torch_variants(name)
        for shape in shapes_of(resolved, a.quick):
            at = resolved.shape(shape)
            chk = g.check(name, spec, at, libs, g.TORCH[name], a.seed)
            check = ("bitwise" if chk["bitwise"] else "within tol" if chk["within_tolerance"]
                     else "MISMATCH") if "tuned" in libs else "-"
            if chk["torch_rel_err"] is not None:
                check += f"; torch rel err {chk['torch_rel_err']:.1e}"
            times, sets = g.time_shape(spec, at, libs if check != "MISMATCH" else {"native": libs["native"]},
                                       torch_fns, cfg, l2, a.seed)
            row = {"shape": shape, "times": times, "sets": sets, "check": check,
                   "floor_us": at.get("bytes", 0) / roof["Bps"] * 1e6,
                   "config": tuned_config(found, shape)}
            if times.get("tuned"):
                row["speedup"] = times["native"]["median_us"] / times["tuned"]["median_us"]
            if times.get("native again"):
                row["control"] = times["native"]["median_us"] / times["native again"]["median_us"]
            entry["rows"].append(row)
            print(f"{name} {shape}: native {fmt(times.get('native'))} tuned {fmt(times.get('tuned'))} "
                  f"[{check}]", flush=True)
            # What is measured so far survives a run cut short.
            entry["bar"] = judge(name, entry["rows"])
            write_report(a, doc)
        entry["bar"] = judge(name, entry["rows"])
    write_report(a, doc)
    print(f"wrote {a.out}/realcode_{report_tag(a, doc)}.md")
    return 0 if all(k.get("bar", (False,))[0] for k in doc["kernels"]) else 1


def main(argv=None):
    a = parse_args(argv if argv is not None else sys.argv[1:])
    names = [n for n in a.kernels.split(",") if n]
    unknown = [n for n in names if n not in rk.KERNELS]
    if unknown:
        print(f"bench.py: unknown kernel(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    if a.dry_run:
        return dry_run(a, names)
    if a.build_only:
        status = 0
        for name in names:
            for variant, b in build_kernel(name, a).items():
                state = "built" if b.get("lib") else f"FAILED: {b.get('error')}"
                print(f"{name} {variant}: {state} ({b.get('seconds', 0):.1f} s)")
                status |= not b.get("lib") and variant == "native"
        return status
    return run_gpu(a, names)


if __name__ == "__main__":
    sys.exit(main())
