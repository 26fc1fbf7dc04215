#!/usr/bin/env python3
"""Reads a planner reply (a plan, maybe in a ```json fence) on stdin and
prints the plan without its notes: what `--plan` must accept unchanged."""

import json
import sys

text = sys.stdin.read().strip()
if text.startswith("```"):
    text = text.split("\n", 1)[1].rsplit("```", 1)[0]
plan = json.loads(text)
for kernel in plan["kernels"]:
    for param in kernel["params"]:
        param.pop("note", None)
plan.pop("notes", None)
print(json.dumps(plan, indent=1))
