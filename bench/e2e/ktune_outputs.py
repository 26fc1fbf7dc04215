"""What ktune writes, read back for the benchmark.

- The spec as ktune resolves it (`ktune-tune --describe --spec S`,
  docs/schemas.md#describe): dimensions and arguments in the spec's order,
  and per shape every buffer's extents, every scalar's value, the bytes
  moved, each expression evaluated by ktune itself.
- The dispatch header's description (`<kernel>.tuned.json` beside
  `<kernel>.tuned.h`, docs/schemas.md#dispatch): the launcher's parameters,
  each tied to the spec argument or dimension it carries.
- A tuning run's results and journals (the tuner's choice per shape, the
  tuning cost).

Nothing here evaluates an expression or parses C++.
"""

import json
import os
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class KtuneError(ValueError):
    """ktune could not be run, refused its input, or a file it writes is
    missing."""


def ktune_tune():
    """The ktune-tune binary: $KTUNE_TUNE, else $KTUNE_BIN_DIR/ktune-tune,
    else the one on PATH, else this checkout's build/bin or .carry/bin."""
    given = os.environ.get("KTUNE_TUNE")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise KtuneError(f"KTUNE_TUNE={given}: no executable ktune-tune there")
        return given
    candidates = []
    if os.environ.get("KTUNE_BIN_DIR"):
        candidates.append(os.path.join(os.environ["KTUNE_BIN_DIR"], "ktune-tune"))
    candidates.append(shutil.which("ktune-tune"))
    candidates += [os.path.join(ROOT, "build", "bin", "ktune-tune"),
                   os.path.join(ROOT, ".carry", "bin", "ktune-tune")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise KtuneError("no ktune-tune found: build it (cmake --build build --target ktune-tune) "
                     "or set KTUNE_TUNE to its path")


def describe(spec=None, manifest=None):
    """The describe/1 document ktune-tune prints for a spec and/or a
    manifest."""
    cmd = [ktune_tune(), "--describe"]
    if spec:
        cmd += ["--spec", spec]
    if manifest:
        cmd += ["--manifest", manifest]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        raise KtuneError(f"ktune-tune --describe: {e}") from None
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        msg = lines[-1] if lines else f"exit status {p.returncode}"
        raise KtuneError(msg.removeprefix("ktune-tune: error: "))
    return json.loads(p.stdout)


class ResolvedSpec:
    """A spec as ktune resolves it. `dims` and `args` keep the spec's order;
    `shape(dims)` is ktune's evaluation at one shape."""

    def __init__(self, doc, path):
        s = doc["spec"]
        self.path = path
        self.kernel = s["kernel"]
        self.dims = [d["name"] for d in s["dims"]]
        self.dim_values = {d["name"]: d["values"] for d in s["dims"]}
        self.shapes_listed = s["shapes_listed"]
        self.args = {a["name"]: a for a in s["args"]}
        self.buffers = [a for a in s["args"] if a["kind"] == "buffer"]
        self.tolerance = s.get("tolerance", {})
        # ktune's order: a spec's list as given, else its dims' product.
        self.shapes = [{d: sh["dims"][d] for d in self.dims} for sh in s["shapes"]]
        self._at = {self._key(sh["dims"]): sh for sh in s["shapes"]}

    def _key(self, dims):
        return tuple(int(dims[d]) for d in self.dims)

    def shape(self, dims):
        """ktune's resolved values at a shape: "buffers" (name -> extents,
        elements, bytes), "scalars", "bytes", "buffer_bytes"."""
        return self._at[self._key(dims)]

    def bytes_moved(self, dims):
        at = self.shape(dims)
        if "bytes" not in at:
            raise KtuneError(f"{self.path}: the spec gives no \"bytes\"")
        return at["bytes"]


def resolve_spec(path):
    return ResolvedSpec(describe(spec=path), path)


# ----------------------------------------------------------------------------
# Tuned outputs of a ktune run: <tuned-dir>/<kernel>/ holds <k>.tuned.h (and
# its description <k>.tuned.json), <k>.results.json, the journal, and
# ktune_run.json (written by run_gpu.sh).
# ----------------------------------------------------------------------------


def find_tuned(tuned_dir, name, spec):
    """The header, results and journals a ktune run wrote for `name` under
    tuned_dir/name/; `spec["kernel"]` (or `spec.kernel`) is its kernel."""
    info = {"dir": None, "header": None, "results": None, "journal": None, "run": None}
    if not tuned_dir:
        return info
    d = os.path.join(tuned_dir, name)
    if not os.path.isdir(d):
        return info
    info["dir"] = d
    files = []
    for dp, _, fs in os.walk(d):
        files += [os.path.join(dp, f) for f in fs]
    want = spec["kernel"] if isinstance(spec, dict) else spec.kernel

    def matches(f, suffix):
        # `ktune run` names them results.json and journal.jsonl; ktune-tune
        # <kernel>.results.json and <kernel>.results.journal.jsonl.
        return f.endswith(suffix) or os.path.basename(f) == suffix.lstrip(".")

    def rank(f):
        # `ktune run` puts the best round's files at the top of its output
        # directory and every round's under round-N/: the top ones first.
        base = os.path.basename(f)
        exact = base.startswith(want + ".") or base.startswith(name + ".")
        return (os.path.relpath(f, d).count(os.sep), not exact, f)

    def pick(suffix):
        return (sorted((f for f in files if matches(f, suffix)), key=rank) or [None])[0]

    info["header"] = pick(".tuned.h")
    info["results"] = pick(".results.json")
    info["journal"] = pick(".journal.jsonl")
    # The tuning cost counts every round's journal of a `ktune run`.
    rounds = sorted(f for f in files if re.search(r"(^|/)round-[0-9]+/journal\.jsonl$", f))
    info["journals"] = rounds or ([info["journal"]] if info["journal"] else [])
    run = os.path.join(d, "ktune_run.json")
    info["run"] = run if os.path.exists(run) else None
    return info


def dispatch_description(header):
    """The dispatch/1 description ktune writes beside a header
    (kernel.tuned.h -> kernel.tuned.json)."""
    path = os.path.splitext(header)[0] + ".json"
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise KtuneError(f"no {os.path.basename(path)} beside {os.path.basename(header)} "
                         "(regenerate the header: ktune-tune ... --from-results results.json)") from None
    except (OSError, ValueError) as e:
        raise KtuneError(f"{path}: {e}") from None
    if doc.get("ktune") != "dispatch/1":
        raise KtuneError(f"{path}: not a dispatch/1 description")
    return doc


def read_tuning_cost(info):
    """Wall time and evaluations of the tuning run, from run_gpu.sh's record,
    the results file and the journal."""
    cost = {}
    if info.get("run"):
        try:
            with open(info["run"]) as f:
                cost["run"] = json.load(f)
        except (OSError, ValueError) as e:
            cost["run_error"] = str(e)
    if info.get("results"):
        try:
            with open(info["results"]) as f:
                res = json.load(f)
            cost["strategy"] = res.get("strategy")
            cost["budget"] = res.get("budget")
            cost["shapes"] = len(res.get("shapes", []))
            cost["evaluations"] = sum(int(s.get("evaluations", 0)) for s in res.get("shapes", []))
            counts = {}
            for s in res.get("shapes", []):
                for k, v in (s.get("status_counts") or {}).items():
                    counts[k] = counts.get(k, 0) + int(v)
            cost["status_counts"] = counts
            g = res.get("general") or {}
            if g:
                cost["general"] = {"config": g.get("config"), "geomean_speedup": g.get("geomean_speedup")}
        except (OSError, ValueError) as e:
            cost["results_error"] = str(e)
    journals = info.get("journals") or ([info["journal"]] if info.get("journal") else [])
    if journals:
        try:
            lines, phases, compile_ms, eval_ms, ats = 0, {}, 0.0, 0.0, []
            for path in journals:
                with open(path) as f:
                    for line in f:
                        line = line.strip()
                        if not line:
                            continue
                        try:
                            j = json.loads(line)
                        except ValueError:
                            continue
                        lines += 1
                        p = j.get("phase", "?")
                        phases[p] = phases.get(p, 0) + 1
                        compile_ms += float(j.get("compile_ms") or 0)
                        eval_ms += float(j.get("eval_ms") or 0)
                        if j.get("at"):
                            ats.append(j["at"])
            cost["journal_entries"] = lines
            cost["journal_phases"] = phases
            cost["compile_s"] = round(compile_ms / 1e3, 2)
            cost["eval_s"] = round(eval_ms / 1e3, 2)
            if ats:
                cost["first_at"], cost["last_at"] = min(ats), max(ats)
        except OSError as e:
            cost["journal_error"] = str(e)
    return cost


def tuned_choice(info, shape):
    """The results file's best configuration and speedup at this shape."""
    if not info.get("results"):
        return None
    try:
        with open(info["results"]) as f:
            res = json.load(f)
    except (OSError, ValueError):
        return None
    for s in res.get("shapes", []):
        sh = s.get("shape", {})
        if all(sh.get(k) == v for k, v in shape.items()):
            best = s.get("best") or {}
            dflt = s.get("default") or {}
            return {"config": best.get("config"), "default_config": dflt.get("config"),
                    "speedup": s.get("speedup"),
                    "best_us": (best.get("time_us") or {}).get("median"),
                    "default_us": (dflt.get("time_us") or {}).get("median")}
    return None
