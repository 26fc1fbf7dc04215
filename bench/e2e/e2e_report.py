"""The report: e2e_<device>.md and e2e_<device>.json, the noise summary and
the progress lines."""

import json
import math
import os
import statistics

from e2e_kernels import ROOT, shape_label

def fmt_us(st):
    if not st:
        return "—"
    med = st["median_us"]
    prec = 2 if med < 100 else 1
    return f"{med:.{prec}f} ±{st['iqr_us']:.{prec}f}"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def render_md(doc):
    L = []
    dev = doc.get("device", {})
    L.append(f"# End-to-end benchmark: original vs tuned vs torch, {dev.get('name', '?')}")
    L.append("")
    L.append(f"- date: {doc.get('date')}; device: {dev.get('name')} ({dev.get('sm_count')} SMs, "
             f"L2 {dev.get('l2_bytes', 0) / 2**20:.0f} MiB), driver {dev.get('driver')}, CUDA (torch) {dev.get('cuda')}, "
             f"torch {dev.get('torch')}, triton {dev.get('triton')}, nvcc {dev.get('nvcc')}")
    rf = doc.get("roofline") or {}
    if rf:
        L.append(f"- copy roofline: {rf['TBps']:.3f} TB/s (IQR {rf['iqr_TBps']:.3f}; {rf['method']})")
    if doc.get("outer_command"):
        L.append(f"- command: `{doc['outer_command']}`, which ran `{doc.get('command')}`")
    else:
        L.append(f"- command: `{doc.get('command')}`")
    s = doc.get("settings", {})
    L.append(f"- method: CUDA graphs of back-to-back calls, replayed interleaved (original, tuned, original again, "
             f"eager, compile), timed with events; per-call medians ± IQR over the replays, in µs. "
             f"Warm: every call on the same buffers. Cold: calls rotate over buffer copies touching "
             f">= {s.get('cold_l2_multiple')}x L2 (rows marked † touched less: capped at "
             f"{s.get('max_calls_ours')} calls for ours, by capture time for torch). torch.compile: "
             f"`torch.compile(fn, dynamic=False, fullgraph=True)`, default mode, compiled per shape, for: "
             f"{', '.join(s.get('compile_kernels', [])) or 'none'}; elsewhere eager only.")
    L.append("- speedup = original / tuned (the same nvcc build flags for both); `≈` marks a speedup within "
             "2x the noise (the larger of either IQR/median and the A/A difference of the original timed twice). "
             "tuned vs compile = torch.compile time / tuned time (above 1: tuned is faster).")
    noise = doc.get("noise", {})
    if noise:
        L.append(f"- noise: A/A (original timed twice, interleaved) median |Δ| "
                 + ", ".join(f"{m} {v['aa_median_pct']:.2f}% (max {v['aa_max_pct']:.2f}%)" for m, v in noise.items())
                 + "; median IQR/median " + ", ".join(f"{m} {v['iqr_median_pct']:.2f}%" for m, v in noise.items()))
    L.append("")
    L.append("## Summary")
    L.append("")
    L.append("| kernel | shapes | geomean speedup cold | geomean speedup warm | geomean tuned vs compile cold | warm | "
             "tuning wall s | evaluations |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name in doc.get("kernel_order", []):
        k = doc["kernels"].get(name)
        if not k:
            continue
        rows = [r for r in k.get("rows", []) if r.get("modes")]

        def gm(mode, key):
            g = geomean([r["modes"].get(mode, {}).get("derived", {}).get(key) for r in rows])
            return f"{g:.3f}x" if g else "—"

        cost = k.get("tuning_cost", {})
        wall = (cost.get("run") or {}).get("wall_s")
        L.append(f"| {name} | {len(rows)}/{len(k.get('rows', []))} | {gm('cold', 'speedup')} | {gm('warm', 'speedup')} | "
                 f"{gm('cold', 'tuned_vs_compile')} | {gm('warm', 'tuned_vs_compile')} | "
                 f"{wall if wall is not None else '—'} | {cost.get('evaluations', '—')} |")
    L.append("")
    for name in doc.get("kernel_order", []):
        k = doc["kernels"].get(name)
        if not k:
            continue
        L.append(f"## {name}")
        L.append("")
        cost = k.get("tuning_cost", {})
        run = cost.get("run") or {}
        if cost:
            parts = []
            if run:
                parts.append(f"`ktune run` wall {run.get('wall_s')} s (exit {run.get('rc')}, "
                             f"budget {run.get('budget')}, strategy {run.get('strategy')})")
            if "evaluations" in cost:
                parts.append(f"{cost['evaluations']} evaluations over {cost.get('shapes')} shapes "
                             f"({', '.join(f'{a} {b}' for a, b in sorted(cost.get('status_counts', {}).items()))})")
            if "journal_entries" in cost:
                parts.append(f"journal {cost['journal_entries']} entries, compile {cost.get('compile_s')} s, "
                             f"evaluation wall {cost.get('eval_s')} s")
            if cost.get("general"):
                parts.append(f"general config {cost['general'].get('config')} "
                             f"(tuner's geomean {cost['general'].get('geomean_speedup')})")
            L.append("- tuning: " + "; ".join(parts))
        if k.get("tuned_note"):
            L.append(f"- tuned: {k['tuned_note']}")
        for e in k.get("errors", []):
            L.append(f"- **error**: {e}")
        L.append("")
        for mode in ("cold", "warm"):
            rows = [r for r in k.get("rows", []) if mode in r.get("modes", {})]
            if not rows:
                continue
            L.append(f"### {mode}")
            L.append("")
            L.append("| shape | original µs | tuned µs | speedup | % roofline | torch eager µs | torch.compile µs | "
                     "tuned vs compile | tuner said |")
            L.append("|---|---|---|---|---|---|---|---|---|")
            for r in rows:
                m = r["modes"][mode]
                d = m.get("derived", {})
                sp = d.get("speedup")
                sp_s = "—" if sp is None else (("≈" if d.get("within_noise") else "") + f"{sp:.3f}x")
                rfl = d.get("roofline_frac")
                rfl_s = "—" if rfl is None else f"{100 * rfl:.1f}%"
                tvc = d.get("tuned_vs_compile")
                tvc_s = "—" if tvc is None else f"{tvc:.2f}x" + (" (orig)" if d.get("ours") == "original" else "")
                dag = ""
                if mode == "cold":
                    fps = [v.get("footprint_over_l2") for v in m.values() if isinstance(v, dict) and "footprint_over_l2" in v]
                    fps = [f for f in fps if f is not None]
                    if fps and min(fps) < doc["settings"]["cold_l2_multiple"]:
                        dag = f" † ({min(fps):.1f}x L2)"
                tn = r.get("tuner") or {}
                said = f"{tn['speedup']:.3f}x" if tn.get("speedup") else "—"
                L.append(f"| {shape_label(r['shape'])}{dag} | {fmt_us(m.get('original'))} | {fmt_us(m.get('tuned'))} | "
                         f"{sp_s} | {rfl_s} | {fmt_us(m.get('torch_eager'))} | {fmt_us(m.get('torch_compile'))} | "
                         f"{tvc_s} | {said} |")
            L.append("")
        bad = [r for r in k.get("rows", []) if r.get("error") or r.get("errors")]
        for r in bad:
            msg = r.get("error") or "; ".join(r.get("errors", []))
            L.append(f"- {shape_label(r['shape'])}: {msg[:400]}")
        if bad:
            L.append("")
    L.append("% roofline: the spec's `bytes` (least bytes moved) over the tuned time (the original's where no tuned "
             "build), over the copy roofline. In the warm table data can come from L2, so it can pass 100%.")
    L.append("")
    return "\n".join(L)


# Machine paths in a report (they end up in the repository) are written as
# placeholders: longest first.
PATH_NAMES = {}


def set_path_names(a):
    PATH_NAMES.clear()
    for path, name in ((ROOT, "<repo>"), (a.out, "$OUT"), (a.tuned_dir, "<tuned-dir>"),
                       (a.build_dir, "<build-dir>")):
        if path:
            PATH_NAMES[os.path.abspath(path)] = name
            PATH_NAMES[path.rstrip("/")] = name


def without_paths(text):
    for path in sorted(PATH_NAMES, key=len, reverse=True):
        if len(path) > 1:
            text = text.replace(path, PATH_NAMES[path])
    return text


def write_outputs(doc, out_dir, tag):
    os.makedirs(out_dir, exist_ok=True)
    jpath = os.path.join(out_dir, f"e2e_{tag}.json")
    mpath = os.path.join(out_dir, f"e2e_{tag}.md")
    for path, text in ((jpath, without_paths(json.dumps(doc, indent=1, default=str))),
                       (mpath, without_paths(render_md(doc)))):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return jpath, mpath


def noise_summary(doc):
    out = {}
    for mode in ("cold", "warm"):
        aa, iq = [], []
        for k in doc["kernels"].values():
            for r in k.get("rows", []):
                m = r.get("modes", {}).get(mode)
                if not m:
                    continue
                d = m.get("derived", {})
                if "aa_rel_diff" in d:
                    aa.append(100 * d["aa_rel_diff"])
                for v in m.values():
                    if isinstance(v, dict) and "iqr_us" in v and v.get("median_us"):
                        iq.append(100 * v["iqr_us"] / v["median_us"])
        if aa:
            out[mode] = {"aa_median_pct": statistics.median(aa), "aa_max_pct": max(aa),
                         "iqr_median_pct": statistics.median(iq) if iq else 0.0, "rows": len(aa)}
    return out


def progress_line(kernel, row):
    parts = [f"{kernel} {shape_label(row['shape'])}:"]
    for mode, m in row.get("modes", {}).items():
        d = m.get("derived", {})
        cell = [f"{mode}"]
        for v, label in (("original", "orig"), ("tuned", "tuned"), ("torch_eager", "eager"),
                         ("torch_compile", "compile")):
            if v in m:
                cell.append(f"{label} {m[v]['median_us']:.2f}")
        if "speedup" in d:
            cell.append(f"x{d['speedup']:.3f}")
        parts.append(" ".join(cell) + " us")
    return "  ".join(parts) + f"  ({row.get('wall_s')} s)"
