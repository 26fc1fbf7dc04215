#!/usr/bin/env python3
"""A hostile command: planner, built from real candidates.

  adversarial_planner.py --candidates candidates.json MODE

Reads the prompt on stdin (and ignores it) and prints a plan for the
candidates in the file, broken the way MODE says; it answers the same in the
corrective round, so every mode but `note` must end in the heuristic
fallback. Because the plan is built from the candidates the refactorer
really found, the attacks hit real ids, kernels and sites.

MODE:
  name-injection        a parameter name that is C code
  constraint-injection  a constraint that closes the expression and calls
  kernel-injection      a kernel name with code appended
  site-injection        a site that is not file:line:col of a candidate
  unknown-candidate     an id the candidates do not have
  huge-domain           a range of 2^31 values
  wrong-default         a default that is not the original value
  taken-name            the constant's own spelling as the parameter name
  malformed             JSON that does not parse
  note                  a valid plan whose notes try to end a comment and
                        inject a directive (must be accepted, notes dropped)
"""

import argparse
import json
import sys

KIND_RANGES = {"block_size": (1, 1024), "warps_per_block": (1, 32)}


def base_plan(candidates):
    kernels = {}
    for c in candidates["candidates"]:
        value = c["value"]
        lo, hi = KIND_RANGES.get(c["kind"], (1, 2**31 - 1))
        if c["kind"] == "vector_width" and value not in (1, 2, 4, 8, 16):
            continue
        if not lo <= value <= hi:
            continue
        k = kernels.setdefault(c["kernel"], {"kernel": c["kernel"],
                                             "params": []})
        k["params"].append({
            "name": "ADV_%s_%d" % (c["kind"].upper(), len(k["params"])),
            "kind": c["kind"], "candidates": [c["id"]], "default": value,
            "values": [value]})
    return {"ktune": "plan/1", "kernels": list(kernels.values())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--candidates", required=True)
    parser.add_argument("mode")
    args = parser.parse_args()
    sys.stdin.read()
    with open(args.candidates, encoding="utf-8") as f:
        candidates = json.load(f)
    plan = base_plan(candidates)
    if not plan["kernels"]:
        sys.stderr.write("no candidates to attack\n")
        return 1
    kernel = plan["kernels"][0]
    param = kernel["params"][0]
    first = next(c for c in candidates["candidates"]
                 if c["id"] == param["candidates"][0])
    mode = args.mode
    if mode == "name-injection":
        param["name"] = 'X>0; system("touch pwned")'
    elif mode == "constraint-injection":
        kernel["constraints"] = [
            param["name"] + ' > 0); system("touch pwned"); (1']
    elif mode == "kernel-injection":
        kernel["kernel"] += '"); system("touch pwned'
    elif mode == "site-injection":
        param["sites"] = ['%s:1:1"); system("touch pwned' % first["sites"][0]["file"]]
    elif mode == "unknown-candidate":
        param["candidates"] = ["c_pwned"]
    elif mode == "huge-domain":
        del param["values"]
        param["range"] = {"min": 1, "max": 2**31 - 1, "step": 1}
    elif mode == "wrong-default":
        param["default"] += 1
        param["values"] = [param["default"]]
    elif mode == "taken-name":
        param["name"] = first["spelling"] if first["spelling"].isidentifier() \
            else first["sites"][-1]["text"]
    elif mode == "malformed":
        sys.stdout.write(json.dumps(plan)[:-3] + ",,}")
        return 0
    elif mode == "note":
        for p in kernel["params"]:
            p["note"] = '*/\n#error pwned\n/* "); system("touch pwned'
        sys.stdout.write("```json\n" + json.dumps(plan, indent=1) + "\n```\n")
        return 0
    else:
        sys.stderr.write("unknown mode %s\n" % mode)
        return 2
    sys.stdout.write(json.dumps(plan, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
