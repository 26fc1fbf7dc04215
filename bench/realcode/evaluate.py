#!/usr/bin/env python3
"""Runs ktune-refactor on a list of real CUDA files and counts what works.

    evaluate.py CORPUS.json [--refactor PATH] [--nvcc PATH] [--arch sm_90]
                [--work DIR] [--output-mode auto|out-dir|o] [--only REGEX]
                [--jobs N] [--json FILE] [--markdown FILE]

For every file of the corpus (format: README.md beside this script):
  1. the original is compiled with nvcc and the project's flags; a file
     nvcc rejects is counted apart and not tried further;
  2. ktune-refactor runs on it with those flags (through a
     compile_commands.json, as a user would give them) and the built-in
     plan; its candidates and plan are kept;
  3. the output is compiled with nvcc and the same flags;
  4. scripts/ptx-identical.py checks that the default instantiation is
     PTX-identical to the original;
  5. the hand-labelled tunables are looked up among the candidates
     (detected) and among the candidates the plan lifts, where the
     output has any tunable parameter (lifted).
Prints one line per file, then the totals; --json and --markdown write the
same as a document. Exit status 0 unless the corpus cannot be read.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PTX_IDENTICAL = os.path.join(ROOT, "scripts", "ptx-identical.py")
TIMEOUT = 600

# nvcc options that choose outputs or targets: the harness sets its own.
DROP_WITH_VALUE = {"-o", "--output-file", "-arch", "--gpu-architecture",
                   "-gencode", "--generate-code", "-code", "--gpu-code",
                   "-MF", "-MT", "-MQ", "--dependency-output", "-odir",
                   "--output-directory", "-ccbin", "--compiler-bindir"}
DROP_ALONE = {"-c", "--compile", "-ptx", "--ptx", "-cubin", "--cubin",
              "-E", "--preprocess", "-M", "-MM", "-MD", "-MMD",
              "--generate-dependencies", "-fatbin", "--fatbin",
              "-dc", "--device-c", "-dlink", "--device-link", "-lib", "-link"}


DEBUG_INFO = {"-lineinfo", "--generate-line-info", "-G", "--device-debug",
              "-g", "--debug"}


def fail(message):
    print(f"evaluate: error: {message}", file=sys.stderr)
    sys.exit(2)


def project_flags(args, source):
    """The nvcc flags of a command that shape what is compiled, without the
    compiler, the source, outputs and target architectures."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if a in DROP_ALONE or os.path.abspath(a) == source:
            i += 1
            continue
        if name in DROP_WITH_VALUE:
            i += 1 if "=" in a else 2
            continue
        if a.startswith("-o") and len(a) > 2 and not a.startswith("-odir"):
            i += 1
            continue
        out.append(a)
        i += 1
    return out


def run(cmd, cwd, timeout=TIMEOUT):
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr, \
            time.monotonic() - start
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s", timeout
    except OSError as e:
        return 127, "", f"cannot run {cmd[0]}: {e}", 0


def first_error(text):
    """The first line that says what went wrong."""
    lines = [l for l in text.splitlines() if l.strip()]
    for pattern in (r"ktune-refactor: error:", r"\berror:", r"\berror\b",
                    r"fatal",
                    r"ptx-identical: .*differs",
                    r"missing"):
        for line in lines:
            if re.search(pattern, line):
                return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "(no output)"


def load_corpus(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if doc.get("ktune") != "realcode-corpus/1":
        fail(f"{path}: not a realcode-corpus/1 document")
    base = os.path.dirname(os.path.abspath(path))
    entries = []
    for n, e in enumerate(doc.get("files", [])):
        if "file" not in e:
            fail(f"{path}: files[{n}] has no 'file'")
        source = os.path.normpath(os.path.join(base, e["file"]))
        entry = {"name": e.get("name", e["file"]), "file": source,
                 "labels": e.get("tunables"), "note": e.get("note", "")}
        if "compile_commands" in e:
            db = os.path.join(base, e["compile_commands"])
            try:
                with open(os.path.join(db, "compile_commands.json")) as f:
                    commands = json.load(f)
            except (OSError, ValueError) as err:
                fail(f"{path}: files[{n}]: {err}")
            match = [c for c in commands
                     if os.path.normpath(os.path.join(c["directory"], c["file"]))
                     == source]
            if not match:
                fail(f"{path}: files[{n}]: {source} is not in {db}")
            c = match[0]
            argv = c.get("arguments") or shlex.split(c["command"])
            entry["directory"] = c["directory"]
            entry["nvcc_args"] = argv[1:]
        else:
            entry["directory"] = os.path.normpath(
                os.path.join(base, e.get("directory",
                                         os.path.dirname(e["file"]))))
            entry["nvcc_args"] = list(e.get("args", []))
        entries.append(entry)
    return entries


def include_dirs(entry):
    """Where a label's header may be: the compile's directory and the
    project's -I directories."""
    out, args = [entry["directory"]], entry["nvcc_args"]
    for i, a in enumerate(args):
        d = args[i + 1] if a == "-I" and i + 1 < len(args) else \
            a[2:] if a.startswith("-I") and len(a) > 2 else None
        if d:
            out.append(os.path.normpath(os.path.join(entry["directory"], d)))
    return out


def label_text(label, main_file):
    if "name" in label:
        return label["name"]
    return f"{os.path.basename(label.get('file', main_file))}:" \
           f"{label['line']}:{label['text']}"


def label_path(label, main_file, search_dirs):
    """The file a line label is on: the main file, or the header `"file"`
    names (a path suffix) found beside it or under an include directory."""
    want = label.get("file")
    if not want:
        return main_file
    for d in [os.path.dirname(main_file)] + search_dirs:
        p = os.path.normpath(os.path.join(d, want))
        if os.path.isfile(p):
            return p
    return None


_DEFINED = {}


def defined_names(label, main_file, search_dirs):
    """Names a line label's line defines with the label's text as their value
    (`#define THREADS 256`, `const int kBlock = 256;`, `enum { X = 256 }`):
    such a label is that named constant's, as `{"name": N}` is."""
    path = label_path(label, main_file, search_dirs)
    key = (path, label.get("line"), label.get("text"))
    if key in _DEFINED:
        return _DEFINED[key]
    names = set()
    try:
        with open(path, errors="replace") as f:
            line = f.read().splitlines()[label["line"] - 1]
    except (OSError, IndexError, TypeError):
        line = ""
    text = re.escape(label.get("text", ""))
    for pattern in (rf"#\s*define\s+(\w+)\s+\(?\s*{text}(?![\w.])",
                    rf"\b(\w+)\s*=\s*\(?\s*{text}(?![\w.])",
                    rf"\b(\w+)\s*\{{\s*{text}\s*\}}"):
        names.update(re.findall(pattern, line))
    _DEFINED[key] = names
    return names


def matches(label, candidate, main_file, search_dirs=()):
    kernel = label.get("kernel")
    if kernel and candidate.get("kernel", "").split("::")[-1] != \
            kernel.split("::")[-1]:
        return False
    if "name" in label:
        if candidate.get("spelling") == label["name"]:
            return True
        return any(s.get("text") == label["name"]
                   for s in candidate.get("sites", []))
    # A label on a named constant's definition: the candidates of that name
    # and value (lifted where it is used, when the definition cannot change;
    # a variable assigned again has other values).
    value = re.fullmatch(r"(\d+)[uUlL]*", label.get("text", ""))
    for name in defined_names(label, main_file, list(search_dirs)):
        if matches({"name": name}, candidate, main_file) and (
                not value or candidate.get("value") == int(value.group(1))):
            return True
    want_file = label.get("file")
    for s in candidate.get("sites", []):
        site_file = s.get("file", main_file)
        if want_file:
            if not os.path.abspath(site_file).endswith(
                    os.sep + want_file.lstrip(os.sep)) and \
                    os.path.basename(site_file) != want_file:
                continue
        elif os.path.abspath(site_file) != main_file:
            continue
        if s.get("line") == label["line"] and s.get("text") == label["text"]:
            return True
    return False


def recall(labels, candidates, lifted_ids, main_file, search_dirs=()):
    found, lifted, missed = 0, 0, []
    for label in labels:
        hits = [c for c in candidates
                if matches(label, c, main_file, search_dirs)]
        if hits:
            found += 1
        if any(c["id"] in lifted_ids for c in hits):
            lifted += 1
        else:
            missed.append(label_text(label, main_file) +
                          ("" if hits else " (not found)"))
    return found, lifted, missed


class Harness:
    def __init__(self, opts):
        self.opts = opts
        self.refactor = opts.refactor
        self.nvcc = opts.nvcc
        self.mode = opts.output_mode
        if self.mode == "auto":
            rc, out, _, _ = run([self.refactor, "--help"], cwd=None)
            self.mode = "out-dir" if "--out-dir" in out else "o"

    def evaluate(self, index, entry):
        r = {"name": entry["name"], "file": entry["file"], "notes": []}
        work = os.path.join(self.opts.work, f"{index:03d}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(os.path.join(work, "build"))
        src, cwd = entry["file"], entry["directory"]
        flags = project_flags(entry["nvcc_args"], src)
        arch = [f"-arch={self.opts.arch}"]

        # 1. nvcc on the original.
        rc, out, err, secs = run([self.nvcc] + flags + arch +
                                 ["-c", src, "-o", os.path.join(work, "orig.o")],
                                 cwd)
        r["nvcc_seconds"] = round(secs, 1)
        if rc != 0:
            r["status"] = "nvcc-rejects"
            r["reason"] = first_error(out + err)
            return r
        # A file that fails from here on found none of its labels.
        if entry["labels"]:
            r["labels"] = len(entry["labels"])
            r["labels_found"] = r["labels_lifted"] = 0
            r["labels_missed"] = [label_text(l, src) + " (not refactored)"
                                  for l in entry["labels"]]

        # 2. ktune-refactor, flags through a compilation database.
        db = [{"directory": cwd, "file": src,
               "arguments": [self.nvcc] + entry["nvcc_args"] +
               ([] if any(os.path.abspath(os.path.join(cwd, a)) == src
                          for a in entry["nvcc_args"]) else ["-c", src])}]
        with open(os.path.join(work, "build", "compile_commands.json"), "w") as f:
            json.dump(db, f, indent=1)
        stem = os.path.splitext(os.path.basename(src))[0]
        out_dir = os.path.join(work, "out")
        os.makedirs(out_dir)
        base = [self.refactor, "-p", os.path.join(work, "build"), src,
                f"--cuda-gpu-arch={self.opts.arch}"]
        rc, cand_out, cand_err, secs = run(base + ["--candidates"], cwd)
        r["refactor_seconds"] = round(secs, 1)
        candidates = []
        if rc == 0:
            try:
                candidates = json.loads(cand_out).get("candidates", [])
            except ValueError:
                rc, cand_err = 1, "unreadable --candidates output"
        if rc != 0:
            r["status"] = "refactor-fails"
            r["reason"] = first_error(cand_err)
            r["notes"] = notes_of(cand_err)
            return r
        r["candidates"] = len(candidates)
        with open(os.path.join(work, "candidates.json"), "w") as f:
            f.write(cand_out)
        plan_path = os.path.join(work, "plan.json")
        if self.mode == "out-dir":
            write = ["--out-dir", out_dir]
            tpl = os.path.join(out_dir, stem + ".tpl" +
                               (".cuh" if src.endswith((".cuh", ".h", ".hpp"))
                                else ".cu"))
        else:
            tpl = os.path.join(out_dir, stem + ".tpl.cu")
            write = ["-o", tpl]
        manifest = os.path.splitext(tpl)[0] + ".json"
        rc, out, err, _ = run(base + write + ["--emit-plan", plan_path], cwd)
        r["notes"] = notes_of(err)
        if rc != 0 or not os.path.exists(tpl):
            r["status"] = "refactor-fails"
            r["reason"] = first_error(err)
            return r
        # Lifted: the plan's parameters, where the output has any tunable
        # parameter at all (the rewrite may still keep every launcher and
        # kernel as it was, and then nothing is lifted).
        tunable = 0
        try:
            with open(manifest) as f:
                m = json.load(f)
            for k in m.get("kernels", []) + m.get("launchers", []):
                tunable += sum(1 for t in k.get("template_params", [])
                               if t.get("tunable"))
        except (OSError, ValueError):
            pass
        lifted_ids = set()
        r["params"] = 0
        try:
            with open(plan_path) as f:
                plan = json.load(f)
            for k in plan.get("kernels", []) if tunable else []:
                for p in k.get("params", []):
                    lifted_ids.update(p.get("candidates", []))
                    r["params"] += 1
        except (OSError, ValueError):
            pass
        if entry["labels"] is not None:
            found, lifted, missed = recall(entry["labels"], candidates,
                                           lifted_ids, src,
                                           include_dirs(entry))
            r["labels"] = len(entry["labels"])
            r["labels_found"], r["labels_lifted"] = found, lifted
            r["labels_missed"] = missed

        # 3. nvcc on the output as the manifest says: its include
        # directories first, its quoted ones (the original's directory:
        # -iquote through the host preprocessor, as nvcc has none).
        includes, quoted = [], []
        try:
            with open(manifest) as f:
                m = json.load(f)
            base = os.path.dirname(manifest)
            for d in m.get("include_dirs", []):
                includes += ["-I", os.path.join(base, d)]
            for d in m.get("quote_dirs", []):
                quoted += ["-Xcompiler", "-iquote," + os.path.join(base, d)]
        except (OSError, ValueError):
            pass
        includes += quoted or ["-Xcompiler", "-iquote," + os.path.dirname(src)]
        rc, out, err, _ = run([self.nvcc] + includes + flags + arch +
                              ["-c", tpl, "-o", os.path.join(work, "tpl.o")], cwd)
        if rc != 0:
            r["status"] = "output-fails"
            r["reason"] = first_error(out + err)
            return r

        # 4. PTX identity at the defaults.
        if r["params"] == 0:
            r["status"] = "ok-nothing-lifted"
            r["ptx"] = "trivially identical"
            return r
        # Line tables are not code: their file numbers and labels follow
        # the order of instantiation, which the template changes. The
        # checker puts the manifest's include directories before the
        # template's flags itself; the original must not see the rewritten
        # headers there.
        code_flags = [f for f in flags if f not in DEBUG_INFO]
        rc, out, err, _ = run([sys.executable, PTX_IDENTICAL, src, tpl, manifest,
                               "--nvcc", self.nvcc, "--arch", self.opts.arch,
                               "--skip-uninstantiated", "--"] + code_flags, cwd)
        if rc != 0:
            r["status"] = "ptx-differs" if rc == 1 else "ptx-check-fails"
            r["reason"] = first_error(out + err)
            return r
        uninstantiated = [l for l in out.splitlines()
                          if "not instantiated by the original" in l]
        if uninstantiated:
            r["ptx"] = f"{len(uninstantiated)} kernel(s) not instantiated " \
                       "by the original"
        r["status"] = "ok"
        return r


def notes_of(stderr):
    return [l.split("note: ", 1)[1].strip() for l in stderr.splitlines()
            if "note: " in l][:20]


def summarise(results):
    s = {"files": len(results)}
    compiled = [r for r in results if r["status"] != "nvcc-rejects"]
    refactored = [r for r in compiled if r["status"] != "refactor-fails"]
    compiles = [r for r in refactored if r["status"] != "output-fails"]
    identical = [r for r in compiles if r["status"] in ("ok", "ok-nothing-lifted")]
    s["nvcc_compiles"] = len(compiled)
    s["refactored"] = len(refactored)
    s["refactored_with_params"] = sum(1 for r in refactored if r.get("params"))
    s["outputs_compile"] = len(compiles)
    s["ptx_identical"] = len(identical)
    # Recall over every labelled file nvcc compiles: a file that is not
    # refactored found none of its labels.
    labelled = [r for r in compiled if r.get("labels")]
    s["labelled_files"] = len(labelled)
    if labelled:
        s["mean_recall_detected"] = round(
            sum(r["labels_found"] / r["labels"] for r in labelled) /
            len(labelled), 3)
        s["mean_recall_lifted"] = round(
            sum(r["labels_lifted"] / r["labels"] for r in labelled) /
            len(labelled), 3)
    s["labels"] = sum(r.get("labels", 0) for r in labelled)
    s["labels_found"] = sum(r["labels_found"] for r in labelled)
    s["labels_lifted"] = sum(r["labels_lifted"] for r in labelled)
    return s


def markdown(results, summary):
    def pct(a, b):
        return f"{a}/{b} ({100 * a / b:.0f} %)" if b else "0/0"
    lines = ["| metric | count |", "|---|---|"]
    lines.append(f"| files | {summary['files']} |")
    lines.append(f"| nvcc compiles the original | {summary['nvcc_compiles']} |")
    lines.append(f"| refactored | {pct(summary['refactored'], summary['nvcc_compiles'])} |")
    lines.append(f"| ... with at least one parameter | {summary['refactored_with_params']} |")
    lines.append(f"| outputs that compile | {pct(summary['outputs_compile'], summary['refactored'])} |")
    lines.append(f"| PTX-identical at defaults | {pct(summary['ptx_identical'], summary['refactored'])} |")
    if summary.get("labelled_files"):
        lines.append(f"| mean per-file recall, detected | {100 * summary['mean_recall_detected']:.0f} % ({summary['labels_found']}/{summary['labels']} labels, {summary['labelled_files']} files) |")
        lines.append(f"| mean per-file recall, lifted by the built-in plan | {100 * summary['mean_recall_lifted']:.0f} % ({summary['labels_lifted']}/{summary['labels']}) |")
    lines += ["", "| file | status | params | recall (detected / lifted) | reason or missed labels |",
              "|---|---|---|---|---|"]
    for r in results:
        rec = ""
        if r.get("labels"):
            rec = f"{r['labels_found']}/{r['labels']} / {r['labels_lifted']}/{r['labels']}"
        why = r.get("reason", "")
        if not why and r.get("labels_missed"):
            why = "missed: " + ", ".join(r["labels_missed"])
        why = why.replace("|", "\\|")
        lines.append(f"| {r['name']} | {r['status']} | {r.get('params', '')} | {rec} | {why} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus")
    p.add_argument("--refactor", default=shutil.which("ktune-refactor") or
                   os.path.join(ROOT, "build", "bin", "ktune-refactor"))
    p.add_argument("--nvcc", default=shutil.which("nvcc") or
                   "/usr/local/cuda/bin/nvcc")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--work", default=None,
                   help="keep every output here (default: a directory in /tmp)")
    p.add_argument("--output-mode", choices=["auto", "out-dir", "o"],
                   default="auto",
                   help="how outputs are written: --out-dir DIR or -o FILE "
                        "(auto: --out-dir when the tool has it)")
    p.add_argument("--only", default=None, help="regex on the file names")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", default=None)
    p.add_argument("--markdown", default=None)
    opts = p.parse_args()
    if not os.path.exists(opts.refactor):
        fail(f"no ktune-refactor at {opts.refactor} (--refactor)")
    if not shutil.which(opts.nvcc) and not os.path.exists(opts.nvcc):
        fail(f"no nvcc at {opts.nvcc} (--nvcc)")
    opts.refactor = os.path.abspath(opts.refactor)
    if opts.work is None:
        import tempfile
        opts.work = tempfile.mkdtemp(prefix="ktune-realcode-")
    opts.work = os.path.abspath(opts.work)
    entries = load_corpus(opts.corpus)
    if opts.only:
        entries = [e for e in entries if re.search(opts.only, e["name"])]
    harness = Harness(opts)
    print(f"evaluate: {len(entries)} files, outputs by {harness.mode}, "
          f"work directory {opts.work}", flush=True)

    results = [None] * len(entries)
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        futures = {pool.submit(harness.evaluate, i, e): i
                   for i, e in enumerate(entries)}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            r = fut.result()
            results[i] = r
            extra = r.get("reason", "")
            if r.get("labels"):
                extra = f"recall {r['labels_found']}/{r['labels']} " \
                        f"lifted {r['labels_lifted']}/{r['labels']} " + extra
            print(f"{r['status']:18} {r['name']}  {extra}".rstrip(), flush=True)

    summary = summarise(results)
    print(json.dumps(summary, indent=1))
    doc = {"ktune": "realcode-results/1", "arch": opts.arch,
           "output_mode": harness.mode, "summary": summary, "files": results}
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(doc, f, indent=1)
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write(markdown(results, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
