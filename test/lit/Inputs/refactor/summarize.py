#!/usr/bin/env python3
"""One line per candidate / manifest kernel, for FileCheck.

    summarize.py < candidates.json
        CAND <kind> <kernel> value=<v> spelling=<s> <confidence>
          SITE [<header>:]<line>:<col> <role> '<text>' -> <replacement>
          IMPLIES <constraint with ids replaced by the candidate's kind#n>
    summarize.py < manifest.json
        HEADER <path> <- <original>     (manifest/2, rewritten headers)
        INCLUDE-DIR <dir>               (manifest/2)
        KERNEL <qualified name>
          PARAM <name> <type> [tunable <kind> default=<d> values=...]
          CONSTRAINT <c>
          LAUNCH grid=[...] block=[...] smem=<s>
"""
import json
import sys

doc = json.load(sys.stdin)
kind = doc.get("ktune", "")
if kind.startswith("candidates/"):
    names = {}
    for i, c in enumerate(doc["candidates"]):
        names[c["id"]] = f"{c['kind']}#{i}"
    for c in doc["candidates"]:
        print(f"CAND {c['kind']} {c['kernel']} value={c['value']} "
              f"spelling={c['spelling']} {c['confidence']}")
        for s in c["sites"]:
            where = "" if s["file"] == doc.get("file") else s["file"] + ":"
            print(f"  SITE {where}{s['line']}:{s['col']} {s['role']} '{s['text']}' "
                  f"-> {s.get('replacement', '{P}')}")
        for ic in c.get("implied_constraints", []):
            for cid, n in names.items():
                ic = ic.replace("{" + cid + "}", "{" + n + "}")
            print(f"  IMPLIES {ic}")
elif kind.startswith("manifest/"):
    print(f"SOURCE {doc['source']} ORIGINAL {doc.get('original', '')}")
    for f in doc.get("files", []):
        if f["role"] == "header":
            print(f"HEADER {f['path']} <- {f['original']}")
    if any(f["role"] == "header" for f in doc.get("files", [])):
        for d in doc.get("include_dirs", []):
            print(f"INCLUDE-DIR {d}")
    for k in doc["kernels"]:
        print(f"KERNEL {k['qualified_name']}")
        for p in k.get("template_params", []):
            line = f"  PARAM {p['name']} {p['type']}"
            if p.get("tunable"):
                dom = p.get("values", p.get("range"))
                line += f" tunable {p['kind']} default={p['default']} " \
                        f"domain={json.dumps(dom, separators=(',', ':'))}"
            print(line)
        for a in k.get("args", []):
            print(f"  ARG {a['type']} {a['name']}")
        for c in k.get("constraints", []):
            print(f"  CONSTRAINT {c}")
        if k.get("explicit_instantiation"):
            print("  EXPLICIT-INSTANTIATION")
        if "launch" in k:
            l = k["launch"]
            print(f"  LAUNCH grid={l['grid']} block={l['block']} "
                  f"smem={l.get('smem', '0')} from={l.get('from', '')}")
        else:
            print("  NO-LAUNCH")
elif kind.startswith("plan/"):
    for k in doc["kernels"]:
        print(f"PLAN-KERNEL {k['kernel']}")
        for p in k["params"]:
            print(f"  PLAN-PARAM {p['name']} {p['kind']} default={p['default']} "
                  f"candidates={len(p['candidates'])}")
        for c in k.get("constraints", []):
            print(f"  PLAN-CONSTRAINT {c}")
else:
    sys.exit(f"summarize.py: unknown document kind {kind!r}")
