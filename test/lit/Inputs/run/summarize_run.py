#!/usr/bin/env python3
"""Prints what a `ktune run` output directory holds, one fact per line, for
FileCheck:

  file <name>                     every file at the top and in round-N/
  round N plan <param> <values>   each round's plan (values in order)
  round N replan <action> <param> each re-plan decision
  round N replanner <name> [<outcome>]
  round N best <shape> <config>   the round's best configuration per shape
  stop <reason>
  best-round N
  backend <name>

Exits non-zero when run.json is missing or disagrees with the round files.
"""

import json
import os
import sys


def domain(param):
    if "values" in param:
        return " ".join(str(v) for v in param["values"])
    r = param["range"]
    return "range %s..%s step %s" % (r["min"], r["max"], r.get("step", 1))


def text(d):
    return " ".join("%s=%s" % (k, d[k]) for k in sorted(d))


def main():
    out = sys.argv[1]
    run = json.load(open(os.path.join(out, "run.json")))
    assert run["ktune"] == "run/1", run["ktune"]
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        if os.path.isdir(path) and name.startswith("round-"):
            for inner in sorted(os.listdir(path)):
                print("file %s/%s" % (name, inner))
        else:
            print("file %s" % name)
    print("backend %s" % run["backend"])
    for r in run["rounds"]:
        n = r["round"]
        plan = json.load(open(os.path.join(out, r["dir"], "plan.json")))
        assert plan == r["plan"], "run.json and %s/plan.json differ" % r["dir"]
        for k in plan["kernels"]:
            for p in k["params"]:
                print("round %d plan %s %s" % (n, p["name"], domain(p)))
        for k in r["kernels"]:
            for s in k["analysis"]["shapes"]:
                print("round %d best %s %s" % (n, text(s["shape"]),
                                               text(s["best"]["config"])))
        if r["replan"]:
            replan = json.load(open(os.path.join(out, r["dir"], "replan.json")))
            assert replan["plan"] == r["replan"]["plan"]
            print("round %d replanner %s%s" % (
                n, replan["replanner"],
                " " + replan["outcome"] if "outcome" in replan else ""))
            for reason in replan["reasons"]:
                print("round %d replan %s %s" % (n, reason["action"],
                                                 reason.get("param", "-")))
    print("stop %s" % run["stop_reason"])
    print("best-round %d" % run["best_round"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
