#!/usr/bin/env python3
"""The two-GPU benchmark's arithmetic (run_gpu.sh runs the tuner).

  report.py budget --calibration DIR --target-seconds S
      the per-shape budget for a run of about S seconds on one GPU, from a
      calibration run's journal and wall time

  report.py write --one DIR --two DIR --device NAME --command CMD --out FILE
      evaluations per second of both runs, the ratio against the bar, the
      quality of both runs' results shape by shape; writes FILE (markdown)
      and exits 0 when the bar is met and the quality is equal, 1 otherwise

Each DIR holds what one ktune-tune run wrote: results.json, journal.jsonl,
stderr.log, and wall.txt (its wall time in seconds) and gpus.txt (its --gpus).
"""

import argparse
import datetime
import json
import math
import os
import re
import sys

BAR = 1.8            # evaluations per second, two GPUs over one
QUALITY_TOLERANCE = 0.02  # geometric mean of per-shape speedup ratios


def evaluations(run_dir):
    """Journal entries that are evaluations (re-timings are not)."""
    with open(os.path.join(run_dir, "journal.jsonl")) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return [l for l in lines if l.get("phase") != "retime"]


def wall_seconds(run_dir):
    with open(os.path.join(run_dir, "wall.txt")) as f:
        return float(f.read().strip())


def results(run_dir):
    with open(os.path.join(run_dir, "results.json")) as f:
        return json.load(f)


def shape_text(shape):
    return " ".join("%s=%s" % (k, shape[k]) for k in sorted(shape)) or \
        "(single shape)"


def config_text(config):
    return " ".join("%s=%s" % (k, config[k]) for k in sorted(config))


def budget(args):
    evals = len(evaluations(args.calibration))
    wall = wall_seconds(args.calibration)
    shapes = max(1, len(results(args.calibration)["shapes"]))
    rate = evals / wall if wall > 0 else 0
    print(max(10, int(args.target_seconds * rate / shapes)))
    return 0


def activity_lines(run_dir):
    """ktune-tune's per-GPU lines and its speedup line."""
    out = []
    with open(os.path.join(run_dir, "stderr.log")) as f:
        for line in f:
            line = line.rstrip("\n")
            if re.match(r"^(rank \d+ )?GPU \d+: ", line) or \
                    re.match(r"^\d+ workers: ", line):
                out.append(line)
    return out


def write(args):
    runs = {}
    for name, run_dir in (("one", args.one), ("two", args.two)):
        evals = evaluations(run_dir)
        wall = wall_seconds(run_dir)
        with open(os.path.join(run_dir, "gpus.txt")) as f:
            gpus = f.read().strip()
        runs[name] = {"dir": run_dir, "evals": evals, "wall": wall,
                      "rate": len(evals) / wall if wall > 0 else 0,
                      "gpus": gpus, "results": results(run_dir)}
    one, two = runs["one"], runs["two"]
    ratio = two["rate"] / one["rate"] if one["rate"] > 0 else 0
    same_points = ({json.dumps(e["key"], sort_keys=True) for e in one["evals"]} ==
                   {json.dumps(e["key"], sort_keys=True) for e in two["evals"]})

    rows, logs = [], []
    for a, b in zip(one["results"]["shapes"], two["results"]["shapes"]):
        sa, sb = a.get("speedup"), b.get("speedup")
        if not sa or not sb:
            continue
        r = sb / sa
        logs.append(math.log(r))
        rows.append("| %s | %s | %.3fx | %s | %.3fx | %.3f |" % (
            shape_text(a["shape"]), config_text(a["best"]["config"]), sa,
            config_text(b["best"]["config"]), sb, r))
    geomean = math.exp(sum(logs) / len(logs)) if logs else 0
    quality_equal = bool(logs) and abs(geomean - 1) <= QUALITY_TOLERANCE
    bar_met = ratio >= BAR

    doc = []
    doc.append("# Tuning on two GPUs against one: %s\n" % args.device)
    doc.append("Evaluations per second of one `ktune-tune` search on two "
               "GPUs (`--gpus %s`) against one (`--gpus %s`), the same spec "
               "and strategy (brute force: both runs evaluate the same "
               "configurations in the same order), the same per-shape "
               "budget, compile cache warmed beforehand so both measure "
               "evaluations rather than compilation. Evaluations per second: "
               "journal entries that are evaluations (not the re-timing of "
               "finalists) over the run's wall time, re-timing included.\n"
               % (two["gpus"], one["gpus"]))
    doc.append("- date: %s" % datetime.date.today().isoformat())
    doc.append("- device: %s" % args.device)
    doc.append("- command: `%s`" % args.command)
    doc.append("- kernel: %s, %s, %d shapes\n" % (
        one["results"].get("kernel", "?"),
        "budget %s per shape" % one["results"].get("budget", "?"),
        len(one["results"]["shapes"])))
    doc.append("| run | GPUs | evaluations | wall (s) | evaluations/s |")
    doc.append("|---|---|---|---|---|")
    for name in ("one", "two"):
        r = runs[name]
        doc.append("| %s | %s | %d | %.1f | %.2f |" % (
            "one GPU" if name == "one" else "two GPUs", r["gpus"],
            len(r["evals"]), r["wall"], r["rate"]))
    doc.append("")
    doc.append("**Two GPUs: %.2fx the evaluations per second of one "
               "(bar: >= %.1fx): %s.**\n" % (ratio, BAR,
                                             "met" if bar_met else "missed"))
    doc.append("Same configurations evaluated by both runs: %s.\n" %
               ("yes" if same_points else "no"))
    doc.append("Quality: each shape's speedup over the default (both from "
               "the final interleaved re-timing, each shape on one GPU); the "
               "geometric mean of two GPUs' over one GPU's is %.3f "
               "(equal within %.0f %%: %s).\n" % (
                   geomean, 100 * QUALITY_TOLERANCE,
                   "yes" if quality_equal else "no"))
    doc.append("| shape | one GPU: best | speedup | two GPUs: best | "
               "speedup | ratio |")
    doc.append("|---|---|---|---|---|---|")
    doc.extend(rows)
    doc.append("")
    lines = activity_lines(two["dir"])
    if lines:
        doc.append("Per GPU, two-GPU run (as ktune-tune prints it):\n")
        doc.append("    " + "\n    ".join(lines))
        doc.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(doc))
    print("two GPUs: %.2fx the evaluations per second of one (bar %.1fx: "
          "%s); quality %s (geomean speedup ratio %.3f); wrote %s" % (
              ratio, BAR, "met" if bar_met else "missed",
              "equal" if quality_equal else "NOT equal", geomean, args.out))
    return 0 if bar_met and quality_equal else 1


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    b = sub.add_parser("budget")
    b.add_argument("--calibration", required=True)
    b.add_argument("--target-seconds", type=float, required=True)
    w = sub.add_parser("write")
    for name in ("--one", "--two", "--device", "--command", "--out"):
        w.add_argument(name, required=True)
    args = parser.parse_args()
    return budget(args) if args.what == "budget" else write(args)


if __name__ == "__main__":
    sys.exit(main())
