"""Checks what a ktune-tune run left behind.

usage: check_run.py --journal J --budget N [--shapes S] [--results R] [--t4 T]
Every (shape, configuration) is evaluated at most once; each shape has
exactly N budgeted evaluations (default + search); results.json agrees with
the journal; the T4 file lists the journal's evaluations in order.
Prints "ok: ..." and exits 0, or names the first problem and exits 1.
"""
import argparse
import json
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--journal", required=True)
    ap.add_argument("--budget", type=int, required=True)
    ap.add_argument("--shapes", type=int, default=1)
    ap.add_argument("--results")
    ap.add_argument("--t4")
    args = ap.parse_args()

    entries = []
    with open(args.journal) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    fail("%s:%d is not JSON" % (args.journal, number))
    evaluations = [e for e in entries if e["phase"] != "retime"]
    keys = [json.dumps(e["key"], sort_keys=True) for e in evaluations]
    if len(set(keys)) != len(keys):
        fail("an evaluation was repeated")
    per_shape = {}
    for e in evaluations:
        if e["phase"] in ("default", "search"):
            shape = json.dumps(e["key"]["shape"], sort_keys=True)
            per_shape[shape] = per_shape.get(shape, 0) + 1
    if len(per_shape) != args.shapes:
        fail("%d shapes in the journal, expected %d" % (len(per_shape), args.shapes))
    for shape, n in per_shape.items():
        if n != args.budget:
            fail("shape %s has %d budgeted evaluations, expected %d" % (shape, n, args.budget))
    for shape in per_shape:
        first = next(e for e in evaluations
                     if json.dumps(e["key"]["shape"], sort_keys=True) == shape)
        if first["phase"] != "default":
            fail("the first evaluation of shape %s is not the default" % shape)

    if args.results:
        with open(args.results) as f:
            results = json.load(f)
        for s in results["shapes"]:
            d, b = s["default"].get("time_us"), s["best"].get("time_us")
            if d and b and abs(s["speedup"] - d["median"] / b["median"]) > 1e-9:
                fail("speedup is not default/best")
            if s["evaluations"] != args.budget:
                fail("results.json counts %d evaluations" % s["evaluations"])

    if args.t4:
        with open(args.t4) as f:
            t4 = json.load(f)
        timed = [e for e in evaluations if e["status"] != "ok" or "time_us" in e]
        if len(t4["results"]) != len(timed):
            fail("T4 lists %d results, the journal %d evaluations"
                 % (len(t4["results"]), len(timed)))
        for r, e in zip(t4["results"], timed):
            if r["timestamp"] != e["at"]:
                fail("T4 order differs from the journal's")
            for name, value in e["key"]["config"].items():
                if r["configuration"].get(name) != value:
                    fail("T4 configuration differs from the journal's")

    print("ok: %d evaluations over %d shape(s), none repeated" % (len(evaluations), len(per_shape)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
