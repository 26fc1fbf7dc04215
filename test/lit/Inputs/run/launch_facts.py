#!/usr/bin/env python3
"""Prints the launch facts, diagnoses and proposals of a `ktune run` output
directory's round 1, one line each, for FileCheck."""

import json
import os
import sys


def facts(f):
    return "threads %d registers %s blocks/SM %s (%s) grid %s sms %s/%d waves %.4f" % (
        f["threads_per_block"], f["registers"], f["blocks_per_sm"],
        f["limiter"], f["grid_blocks"], f["sms_busy"], f["sm_count"],
        f["waves"])


def main():
    out = sys.argv[1]
    analysis = json.load(open(os.path.join(out, "round-1", "analysis.json")))
    for k in analysis["kernels"]:
        d = k["device_limits"]
        print("device %s %d" % (d["name"], d["sm_count"]))
        for s in k["shapes"]:
            for which in ("default", "best"):
                print("rows=%d %s %s" % (s["shape"]["rows"], which,
                                         facts(s["launch"][which])))
        for d in k["diagnoses"]:
            print("diagnosis %s %s" % (d["kind"], " ".join(
                "rows=%d" % s["rows"] for s in d["shapes"])))
    replan = json.load(open(os.path.join(out, "round-1", "replan.json")))
    for p in replan["proposals"]:
        print("proposal %s available %s" % (",".join(p["kinds"]),
                                            p["available"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
