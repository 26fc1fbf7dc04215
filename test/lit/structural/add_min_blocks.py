"""Adds the register cap (min_blocks) of each KERNEL to a plan, as a re-plan
would: add_min_blocks.py CANDIDATES PLAN OUT KERNEL..."""
import json
import sys

candidates, plan_path, out = sys.argv[1:4]
kernels = sys.argv[4:]
caps = {c["kernel"]: c["id"] for c in json.load(open(candidates))["candidates"]
        if c["kind"] == "min_blocks" and
        any(s["role"] == "kernel_attributes" for s in c["sites"])}
plan = json.load(open(plan_path))
for k in plan["kernels"]:
    if k["kernel"] in kernels:
        k["params"].append({"name": "MIN_BLOCKS", "kind": "min_blocks",
                            "candidates": [caps[k["kernel"]]], "default": 0,
                            "values": [0, 1, 2]})
json.dump(plan, open(out, "w"), indent=1)
