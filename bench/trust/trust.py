#!/usr/bin/env python3
"""Can a user trust what `ktune run` measured? Two checks on SGLang's kernels
in their real form (bench/realcode/README.md), on the GPU machine:

flags      silu_and_mul's default configuration timed at every shape of its
           spec three ways: the project's flags from a compilation database
           (`-p`), the same flags after `--`, and the same after `--` less
           `-use_fast_math`. The first two must agree within the noise; the
           third shows that the comparison can tell a flag apart.
agreement  the same `ktune run` command, each time in a fresh output
           directory (no journal to read back), RUNS times per kernel: per
           shape, do the choices agree, and if not, how far apart in time
           are the configurations chosen (each run's own times of them).

    bench/trust/trust.py --realcode DIR --bin DIR [--out DIR] [--steps flags,agreement]
        [--kernels silu_and_mul,...] [--runs 3] [--tag h200] [--merge JSON] [--synthetic]

Writes trust_<tag>.md and .json in --out (default bench/results/trust-run),
with every command and its log under --out/logs."""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "realcode"))
import realcode_kernels  # noqa: E402

# The same tuning command for every run (run_gpu.sh's, one round).
TUNE_OPTIONS = ["--strategy", "brute_force", "--budget", "32", "--rounds", "1"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--realcode", required=True)
    p.add_argument("--bin", required=True, help="holds ktune and ktune-tune")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "trust-run"))
    p.add_argument("--steps", default="flags,agreement")
    p.add_argument("--kernels", default=",".join(realcode_kernels.ORDER))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--time-limit", type=int, default=120, help="seconds per ktune run")
    p.add_argument("--tag", default="")
    p.add_argument("--synthetic", action="store_true",
                   help="no GPU: ktune run --synthetic-times (checks the steps)")
    p.add_argument("--merge", metavar="JSON",
                   help="start from the results an earlier call wrote (its trust_<tag>.json)")
    return p.parse_args(argv)


def moved_compile_db(realcode, dest):
    """REALCODE's compile_commands.json with its paths moved to REALCODE."""
    db = json.load(open(os.path.join(realcode, "sglang", "build", "compile_commands.json")))
    old = db[0]["file"].split("/sglang/")[0]
    for e in db:
        e["file"] = e["file"].replace(old, realcode)
        e["directory"] = e["directory"].replace(old, realcode)
        e["arguments"] = [a.replace(old, realcode) for a in e["arguments"]]
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    json.dump(db, open(dest, "w"), indent=1)
    return db


def project_flags(db, source):
    """The file's flags as a user types them after `--`: no compiler, no
    -c, -o or input."""
    for e in db:
        if os.path.basename(e["file"]) == os.path.basename(source):
            out, skip = [], False
            for w in e["arguments"][1:]:
                if skip:
                    skip = False
                elif w == "-o":
                    skip = True
                elif w != "-c" and w != e["file"] and not w.endswith(".cu"):
                    out.append(w)
            return out
    raise SystemExit(f"trust: no compile command for {source}")


def run_ktune(args, name, cmd, env):
    log = os.path.join(args.out, "logs", name + ".log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    t0 = time.time()
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env,
                                timeout=args.time_limit + 30).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    wall = time.time() - t0
    print(f"trust: {name}: exit {rc} in {wall:.1f} s", flush=True)
    return {"name": name, "rc": rc, "wall_s": round(wall, 1),
            "command": " ".join(c.replace(ROOT + "/", "") for c in cmd)}


def results_of(out_dir):
    paths = sorted(glob.glob(os.path.join(out_dir, "*results.json")))
    return json.load(open(paths[0])) if paths else None


def shape_key(shape):
    return " ".join(f"{k}={v}" for k, v in sorted(shape.items()))


def config_text(config):
    return ",".join(f"{k}={v}" for k, v in sorted(config.items()))


def default_registers(shape):
    fin = shape.get("finalists") or []
    return (fin[0].get("resources") or {}).get("registers") if fin else None


def tune_command(args, kernel, out_dir, extra):
    spec = realcode_kernels.spec_path(kernel)
    source = os.path.join(args.realcode, realcode_kernels.KERNELS[kernel]["source"])
    cmd = [os.path.join(args.bin, "ktune"), "run", source, "--spec", spec, "--out-dir", out_dir]
    if args.synthetic:
        cmd += ["--synthetic-times",
                os.path.join(ROOT, "bench", "realcode", "synthetic", f"{kernel}.synthetic.json")]
    else:
        cmd += ["--time-limit", str(args.time_limit - 15)]
    return cmd + extra


def flags_step(args, db, env, build):
    kernel = "silu_and_mul"
    source = realcode_kernels.KERNELS[kernel]["source"]
    flags = project_flags(db, source)
    precise = [f for f in flags if f not in ("-use_fast_math", "--use_fast_math")]
    ways = [("-p", ["-p", build]),
            ("--", ["--"] + flags),
            ("-- without -use_fast_math", ["--"] + precise)]
    runs, by_way = [], {}
    for i, (way, extra) in enumerate(ways):
        out_dir = os.path.join(args.out, "flags", f"way-{i}")
        cmd = tune_command(args, kernel, out_dir,
                           ["--budget", "1", "--rounds", "1"] + extra)
        runs.append(dict(run_ktune(args, f"flags-{i}", cmd, env), way=way))
        res = results_of(out_dir)
        by_way[way] = res
        runs[-1]["compile_command"] = ((res or {}).get("compiler") or {}).get("command")
    rows = []
    ref = by_way.get("-p")
    for s in (ref or {}).get("shapes", []):
        row = {"shape": shape_key(s["shape"])}
        for way, res in by_way.items():
            match = [t for t in (res or {}).get("shapes", []) if t["shape"] == s["shape"]]
            if match and match[0].get("default", {}).get("time_us"):
                t = match[0]["default"]["time_us"]
                row[way] = {"median": t["median"], "iqr": t.get("iqr", 0),
                            "registers": default_registers(match[0])}
        a, b = row.get("-p"), row.get("--")
        if a and b:
            row["ratio"] = b["median"] / a["median"]
            row["noise"] = max(0.01, a["iqr"] / a["median"], b["iqr"] / b["median"])
            row["within_noise"] = abs(row["ratio"] - 1) <= row["noise"]
        c = row.get("-- without -use_fast_math")
        if a and c:
            row["precise_ratio"] = c["median"] / a["median"]
        rows.append(row)
    return {"kernel": kernel, "flags": flags, "runs": runs, "shapes": rows}


def journal_times(out_dir):
    """(shape key, config text) -> search or default median, of one run."""
    times = {}
    for path in glob.glob(os.path.join(out_dir, "round-*", "*journal*.jsonl")):
        for line in open(path):
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("status") == "ok" and e.get("phase") in ("default", "search") \
                    and e.get("time_us"):
                key = (shape_key(e["key"]["shape"]), config_text(e["key"]["config"]))
                times[key] = e["time_us"]["median"]
    return times


def agreement_step(args, env, build, kernel):
    runs, results, journals = [], [], []
    for r in range(args.runs):
        out_dir = os.path.join(args.out, "agreement", kernel, f"run-{r + 1}")
        cmd = tune_command(args, kernel, out_dir, TUNE_OPTIONS + ["-p", build])
        runs.append(run_ktune(args, f"agreement-{kernel}-{r + 1}", cmd, env))
        results.append(results_of(out_dir))
        journals.append(journal_times(out_dir))
    rows = []
    first = next((res for res in results if res), None)
    for s in (first or {}).get("shapes", []):
        key = shape_key(s["shape"])
        choices, margins, kept = [], [], []
        for res in results:
            match = [t for t in (res or {}).get("shapes", []) if t["shape"] == s["shape"]]
            if not match or not match[0].get("best"):
                choices.append(None)
                continue
            choices.append(config_text(match[0]["best"]["config"]))
            margins.append((match[0].get("choice") or {}).get("margin"))
            kept.append((match[0].get("choice") or {}).get("kept_within_noise"))
        row = {"shape": key, "choices": choices, "margins": margins, "kept_within_noise": kept,
               "agree": None not in choices and len(set(choices)) == 1}
        if not row["agree"]:
            # Each run's own times of every chosen configuration: how much
            # slower the slowest choice is than the fastest, median over runs.
            distinct = sorted({c for c in choices if c})
            gaps = []
            for times in journals:
                ts = [times.get((key, c)) for c in distinct]
                if all(ts):
                    gaps.append(max(ts) / min(ts) - 1)
            row["apart"] = statistics.median(gaps) if gaps else None
        rows.append(row)
    return {"kernel": kernel, "runs": runs, "shapes": rows}


def pct(x):
    return "–" if x is None else f"{100 * x:.1f} %"


def markdown(doc):
    lines = ["# Trust: the user's flags, and the same choice from the same command"
             f" ({doc.get('device', '?')})", "",
             f"- **Device:** {doc.get('device')}; {doc.get('date')}.",
             "- **Commands:** " + "; ".join(f"`{c}`" for c in doc.get("commands", [])) + ".",
             "- **Timing:** `ktune run`'s own (cold L2, CUDA graphs, median of the"
             " interleaved re-timing); the real forms of bench/realcode/README.md.", ""]
    f = doc.get("flags")
    if f:
        lines += ["## silu_and_mul: the default configuration, flags from `-p` vs after `--`", "",
                  "Project flags: `" + " ".join(f["flags"]) + "`.", ""]
        for r in f["runs"]:
            lines.append(f"- `{r['way']}`: exit {r['rc']}, {r['wall_s']} s; compiles as "
                         f"`{r.get('compile_command') or '?'}`")
        lines += ["", "| shape | `-p` µs (regs) | `--` µs (regs) | `--`/`-p` | noise | within |"
                  " `--` less fast math µs (regs) | ratio |", "|---|---|---|---|---|---|---|---|"]
        for row in f["shapes"]:
            def cell(w):
                c = row.get(w)
                return f"{c['median']:.2f} ± {c['iqr'] / 2:.2f} ({c['registers']})" if c else "–"
            lines.append(
                f"| {row['shape']} | {cell('-p')} | {cell('--')} | "
                f"{row.get('ratio', 0):.3f} | {pct(row.get('noise'))} | "
                f"{'yes' if row.get('within_noise') else 'NO'} | "
                f"{cell('-- without -use_fast_math')} | {row.get('precise_ratio', 0):.3f} |")
        within = sum(1 for r in f["shapes"] if r.get("within_noise"))
        lines += ["", f"`--` gives the `-p` default time within the noise at **{within} of "
                  f"{len(f['shapes'])}** shapes.", ""]
    for a in doc.get("agreement", []):
        n = len(a["runs"])
        lines += [f"## {a['kernel']}: the same command {n} times", ""]
        for r in a["runs"]:
            lines.append(f"- run: exit {r['rc']}, {r['wall_s']} s")
        lines += ["", "`" + a["runs"][0]["command"] + "`", "",
                  "| shape | choices | agree | margins over the default | kept within noise |"
                  " apart |", "|---|---|---|---|---|---|"]
        for row in a["shapes"]:
            lines.append(
                f"| {row['shape']} | {' / '.join(c or '–' for c in row['choices'])} | "
                f"{'yes' if row['agree'] else 'no'} | "
                f"{', '.join(pct(m) for m in row['margins'])} | "
                f"{', '.join('yes' if k else 'no' for k in row['kept_within_noise'])} | "
                f"{'' if row['agree'] else pct(row.get('apart'))} |")
        agree = sum(1 for r in a["shapes"] if r["agree"])
        lines += ["", f"Choices agree at **{agree} of {len(a['shapes'])}** shapes; *apart*: how"
                  " much slower the slowest choice is than the fastest, in each run's own"
                  " times, median over the runs.", ""]
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    args.realcode = os.path.abspath(args.realcode)
    args.bin = os.path.abspath(args.bin)
    os.makedirs(args.out, exist_ok=True)
    build = os.path.join(args.out, "build")
    db = moved_compile_db(args.realcode, os.path.join(build, "compile_commands.json"))
    env = dict(os.environ)
    env.setdefault("KTUNE_CACHE_DIR", os.path.join(args.out, "cache"))
    for tool, var in (("ktune-tune", "KTUNE_TUNE"), ("ktune-worker", "KTUNE_WORKER")):
        if os.path.exists(os.path.join(args.bin, tool)):
            env[var] = os.path.join(args.bin, tool)
    try:
        device = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                capture_output=True, text=True).stdout.strip().splitlines()
    except OSError:
        device = []
    tag = args.tag or (device[0].split()[-1].lower() if device else "nodevice")
    json_path = os.path.join(args.out, f"trust_{tag}.json")
    doc = json.load(open(args.merge)) if args.merge else {}
    doc.update(device=device[0] if device else None, date=time.strftime("%Y-%m-%d"))
    commands = doc.setdefault("commands", [doc.pop("command")] if "command" in doc else [])
    commands.append("bench/trust/trust.py " + " ".join(
        a.replace(ROOT + "/", "") for a in (argv or sys.argv[1:])))
    steps = args.steps.split(",")
    if "flags" in steps:
        doc["flags"] = flags_step(args, db, env, build)
    if "agreement" in steps:
        done = {a["kernel"]: a for a in doc.get("agreement", [])}
        for k in args.kernels.split(","):
            done[k] = agreement_step(args, env, build, k)
        doc["agreement"] = [done[k] for k in realcode_kernels.ORDER if k in done]
    json.dump(doc, open(json_path, "w"), indent=1)
    open(os.path.join(args.out, f"trust_{tag}.md"), "w").write(markdown(doc))
    print(markdown(doc))


if __name__ == "__main__":
    main()
