"""Adds the fixed_arg candidate of KERNEL's argument ARG to a plan, as a
re-plan would: add_fixed_arg.py CANDIDATES PLAN KERNEL ARG OUT"""
import json
import sys

candidates, plan_path, kernel, arg, out = sys.argv[1:6]
ids = [c["id"] for c in json.load(open(candidates))["candidates"]
       if c["kind"] == "fixed_arg" and c["kernel"] == kernel
       and c["fixes_argument"] == arg]
plan = json.load(open(plan_path))
for k in plan["kernels"]:
    if k["kernel"] == kernel:
        k["params"].append({"name": "FIXED_" + arg.upper(), "kind": "fixed_arg",
                            "candidates": ids, "default": 0, "values": [0]})
json.dump(plan, open(out, "w"), indent=1)
