"""Adds the row_split candidate of KERNEL to a plan, as a re-plan would:
add_row_split.py CANDIDATES PLAN KERNEL OUT [VALUES...]"""
import json
import sys

candidates, plan_path, kernel, out = sys.argv[1:5]
values = [int(v) for v in sys.argv[5:]] or [1, 2, 4, 8]
ids = [c["id"] for c in json.load(open(candidates))["candidates"]
       if c["kind"] == "row_split" and c["kernel"] == kernel]
plan = json.load(open(plan_path))
for k in plan["kernels"]:
    if k["kernel"] == kernel:
        k["params"].append({"name": "ROW_SPLIT", "kind": "row_split", "candidates": ids,
                            "default": 1, "values": values})
json.dump(plan, open(out, "w"), indent=1)
