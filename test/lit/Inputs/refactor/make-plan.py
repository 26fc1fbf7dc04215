#!/usr/bin/env python3
"""Writes a plan/1 file from a candidates/1 file, for the tests.

    make-plan.py candidates.json plan.json PARAM... [--constraint K:TEXT]...
        [--set JSONPATH=VALUE]...

PARAM is KERNEL:KIND:NAME[:VALUES] and lifts the first candidate of that
kind in that kernel (VALUES: comma-separated domain; default: the value
and its double). --set changes a field afterwards (e.g. to break the plan):
kernels.0.params.0.default=7.
"""
import json
import sys

args = sys.argv[1:]
cands = json.load(open(args[0]))
out = args[1]
params, constraints, sets = [], [], []
i = 2
while i < len(args):
    if args[i] == "--constraint":
        constraints.append(args[i + 1])
        i += 2
    elif args[i] == "--set":
        sets.append(args[i + 1])
        i += 2
    else:
        params.append(args[i])
        i += 1

kernels = {}
for p in params:
    parts = p.split(":")
    kernel, kind, name = parts[:3]
    match = [c for c in cands["candidates"]
             if c["kernel"] == kernel and c["kind"] == kind]
    if not match:
        sys.exit(f"make-plan.py: no {kind} candidate in {kernel}")
    c = match[0]
    values = ([int(v) for v in parts[3].split(",")] if len(parts) > 3
              else [c["value"], 2 * c["value"]])
    kernels.setdefault(kernel, {"kernel": kernel, "params": [],
                                "constraints": []})
    kernels[kernel]["params"].append(
        {"name": name, "kind": kind, "candidates": [c["id"]],
         "default": c["value"], "values": values})
for text in constraints:
    kernel, expr = text.split(":", 1)
    kernels[kernel]["constraints"].append(expr)
plan = {"ktune": "plan/1", "kernels": list(kernels.values())}
for s in sets:
    path, value = s.split("=", 1)
    node = plan
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    parsed = json.loads(value)
    if isinstance(node, list):
        node[int(last)] = parsed
    else:
        node[last] = parsed
json.dump(plan, open(out, "w"), indent=2)
