#!/usr/bin/env python3
"""Prints the tuning summary a planner prompt carries: its round and, per
kernel, the parameters on an edge ("edge <param> <min|max> <value>")."""

import json
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
for block in re.findall(r"```+json\n(.*?)\n```+", text, re.S):
    try:
        data = json.loads(block)
    except ValueError:
        continue
    if isinstance(data, dict) and data.get("ktune") == "tuning-summary/1":
        print("round %d" % data["round"])
        for k in data["kernels"]:
            for e in k["edges_hit"]:
                print("edge %s %s %d" % (e["param"], e["edge"], e["value"]))
        sys.exit(0)
print("no tuning summary")
