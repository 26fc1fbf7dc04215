#!/usr/bin/env python3
"""Says in a few lines what a demo run found, from its results.json.

    demo_summary.py results.json [--param NAME] [--native 1024]

--param defaults to the results' only parameter (BLOCK_CAP in the bundled
template, BLOCK_SIZE where ktune run named it).

With times: on which device, at how many shapes the native choice was not
the best, the largest gain and the gains at the large shapes. Compile-only:
what was built and checked, and where measured numbers are.
"""
import argparse
import json
import sys


def shape_text(shape):
    return ", ".join(f"{k}={v}" for k, v in shape.items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--param", default=None)
    ap.add_argument("--native", type=int, default=1024)
    ap.add_argument("--measured", default="bench/results/launcher_silu_and_mul_h100.md")
    a = ap.parse_args()
    r = json.load(open(a.results))
    if a.param is None:
        params = r.get("params", [])
        a.param = params[0] if len(params) == 1 else "BLOCK_CAP"
    compiler = r.get("compiler", {})
    built = compiler.get("backend")
    if r.get("compile_only"):
        shape = r["shapes"][0]
        ok = shape["status_counts"].get("ok", 0)
        print(f"demo: no GPU here, so this was the compile-only pass: every "
              f"{a.param} value ({sum(shape['status_counts'].values())}) was built"
              + (f" by {built} ({compiler.get('reason', '')})" if built else "")
              + " and checked against "
              f"{r['arch']}'s limits ({ok} within them); nothing was timed.")
        print(f"demo: on a GPU this demo times each value at every shape; measured "
              f"on an H100: a block cap of 384-512 instead of {a.native} runs "
              f"4096-16384 tokens 1.28-1.37x faster ({a.measured}).")
        return 0
    shapes = r["shapes"]
    better = [s for s in shapes if s.get("speedup", 1) > 1.02
              and s["best"]["config"].get(a.param) != a.native]
    best = max(shapes, key=lambda s: s.get("speedup", 1))
    print(f"demo: on {r['device']}" + (f", built by {built}" if built else "")
          + f": the native {a.param} "
          f"{a.native} was not the best at {len(better)} of {len(shapes)} shapes.")
    print(f"demo: largest gain {best['speedup']:.2f}x at {shape_text(best['shape'])} "
          f"with {a.param}={best['best']['config'].get(a.param)} "
          f"({best['default']['time_us']['median']:.1f} -> "
          f"{best['best']['time_us']['median']:.1f} us, cold L2).")
    big = [s for s in shapes if max(s["shape"].values()) >= 4096
           and s["shape"].get("num_tokens", 0) >= 4096]
    if big:
        print("demo: at >= 4096 tokens: " + "; ".join(
            f"{shape_text(s['shape'])} {s['speedup']:.2f}x "
            f"({a.param}={s['best']['config'].get(a.param)})" for s in big))
    slower = [s for s in shapes if s.get("speedup", 1) < 0.98]
    if slower:
        print(f"demo: note: {len(slower)} shape(s) measured slower than native; "
              "the header launches native there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
