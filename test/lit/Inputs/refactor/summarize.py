#!/usr/bin/env python3
"""One line per candidate / manifest kernel, for FileCheck.

    summarize.py < candidates.json
        CAND <kind> <kernel> value=<v> spelling=<s> <confidence> [type=<t>] [launch-param]
          SITE [<header>:]<line>:<col> <role> '<text>' -> <replacement> [shared]
          CASE <table file:line> #<index> when <condition>
          IMPLIES <constraint with ids replaced by the candidate's kind#n>
    summarize.py < manifest.json
        HEADER <path> <- <original>     (manifest/2, rewritten headers)
        INCLUDE-DIR <dir>               (manifest/2)
        QUOTE-DIR <dir>                 (manifest/2: quoted #includes only)
        KERNEL <qualified name>
          PARAM <name> <type> [tunable <kind> default=<d> values=... [case=<c>]]
          LAUNCH-PARAM <name> <type> <kind> default=<d> launcher=<l>
          ARG <type> <name> [canonical=<t>] [enum=<e>]
          CONSTRAINT <c>
          LAUNCH grid=[...] block=[...] smem=<s>
        LAUNCHER <qualified name> returns=<r> kernels=[...] [forwarder]
          PARAM ... / ARG ... as above
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
        extra = f" type={c['type']}" if c.get("type") else ""
        extra += " launch-param" if c.get("launch_param") else ""
        print(f"CAND {c['kind']} {c['kernel']} value={c['value']} "
              f"spelling={c['spelling']} {c['confidence']}{extra}")
        for s in c["sites"]:
            where = "" if s["file"] == doc.get("file") else s["file"] + ":"
            shared = " shared" if s.get("shared") else ""
            print(f"  SITE {where}{s['line']}:{s['col']} {s['role']} '{s['text']}' "
                  f"-> {s.get('replacement', '{P}')}{shared}")
        if "case" in c:
            cs = c["case"]
            print(f"  CASE {cs['table']} #{cs['index']} when {cs['condition']}")
        for ic in c.get("implied_constraints", []):
            for cid, n in names.items():
                ic = ic.replace("{" + cid + "}", "{" + n + "}")
            print(f"  IMPLIES {ic}")
elif kind.startswith("manifest/"):
    def params(ps):
        for p in ps:
            line = f"  PARAM {p['name']} {p['type']}"
            if p.get("tunable"):
                dom = p.get("values", p.get("range"))
                line += f" tunable {p['kind']} default={p['default']} " \
                        f"domain={json.dumps(dom, separators=(',', ':'))}"
                if "case" in p:
                    line += f" case={p['case']}"
            print(line)

    def args(xs):
        for a in xs:
            line = f"  ARG {a['type']} {a['name']}"
            if "canonical_type" in a and a["canonical_type"] != a["type"]:
                line += f" canonical={a['canonical_type']}"
            if "enum" in a:
                line += f" enum={a['enum']}"
            print(line)

    print(f"SOURCE {doc['source']} ORIGINAL {doc.get('original', '')}")
    for f in doc.get("files", []):
        if f["role"] == "header":
            print(f"HEADER {f['path']} <- {f['original']}")
    if any(f["role"] == "header" for f in doc.get("files", [])):
        for d in doc.get("include_dirs", []):
            print(f"INCLUDE-DIR {d}")
        for d in doc.get("quote_dirs", []):
            print(f"QUOTE-DIR {d}")
    for k in doc["kernels"]:
        print(f"KERNEL {k['qualified_name']}")
        params(k.get("template_params", []))
        for p in k.get("launch_params", []):
            print(f"  LAUNCH-PARAM {p['name']} {p['type']} {p['kind']} "
                  f"default={p['default']} launcher={p['launcher']}")
        args(k.get("args", []))
        for c in k.get("constraints", []):
            print(f"  CONSTRAINT {c}")
        if k.get("explicit_instantiation"):
            print("  EXPLICIT-INSTANTIATION")
        if "launch" in k:
            l = k["launch"]
            coop = " cooperative" if l.get("cooperative") else ""
            print(f"  LAUNCH grid={l['grid']} block={l['block']} "
                  f"smem={l.get('smem', '0')} from={l.get('from', '')}{coop}")
        else:
            print("  NO-LAUNCH")
    for l in doc.get("launchers", []):
        fwd = " forwarder" if l.get("forwarder") else ""
        print(f"LAUNCHER {l['qualified_name']} returns={l.get('returns')} "
              f"kernels={l.get('kernels')}{fwd}")
        params(l.get("template_params", []))
        args(l.get("args", []))
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
