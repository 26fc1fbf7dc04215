#!/usr/bin/env python3
"""The ktune clang-tidy checks on real kernels (examples/*.cu).

    tidy_examples.py --plugin KtuneTidy.so --refactor ktune-refactor \
        --ptx-identical scripts/ptx-identical.py [--nvcc nvcc] WORKDIR EXAMPLE.cu...

For every example:
  1. with the default options, `clang-tidy --fix` with every ktune-* check
     must produce exactly what `ktune-refactor -o` writes (same library,
     same plan), and checking the fixed file again must report nothing;
  2. with MinConfidence=medium, the checks must warn at least once, the
     fixed file must compile on both sides, and its default instantiation
     must compile to the same PTX as the original (scripts/ptx-identical.py;
     the manifest lists the kernels the warnings name).
Prints one line per example; exit status 0 when all pass.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return proc.returncode, proc.stdout + proc.stderr


def cuda_args(root, cuda_path, side, example_dir):
    args = ["-x", "cuda", "-std=c++17", f"--cuda-path={cuda_path}",
            "-Wno-unknown-cuda-version",
            "-isystem", os.path.join(root, "share", "ktune", "cuda-compat"),
            "-isystem", os.path.join(cuda_path, "include", "cccl"),
            "-I", example_dir]
    return args + (["--cuda-host-only"] if side == "host"
                   else ["--cuda-device-only", "--cuda-gpu-arch=sm_90"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workdir")
    p.add_argument("examples", nargs="+")
    p.add_argument("--plugin", required=True)
    p.add_argument("--refactor", default="ktune-refactor")
    p.add_argument("--clang-tidy", default="clang-tidy-19")
    p.add_argument("--clang", default="clang++-19")
    p.add_argument("--ptx-identical", default=os.path.join(root, "scripts", "ptx-identical.py"))
    p.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    p.add_argument("--cuda-path", default=os.environ.get("CUDA_PATH", "/usr/local/cuda"))
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    failures = 0

    def tidy(path, example_dir, config=None):
        cmd = [args.clang_tidy, f"--load={args.plugin}", "-checks=-*,ktune-*", "--fix", path]
        if config:
            cmd.insert(1, f"-config={config}")
        return run(cmd + ["--"] + cuda_args(root, args.cuda_path, "host", example_dir))

    for example in args.examples:
        name = os.path.splitext(os.path.basename(example))[0]
        example_dir = os.path.dirname(os.path.abspath(example))
        problems = []

        # 1. Default options: clang-tidy --fix == ktune-refactor -o.
        fixed = os.path.join(args.workdir, f"{name}.cu")
        shutil.copy(example, fixed)
        code, out = tidy(fixed, example_dir)
        if code != 0:
            problems.append(f"clang-tidy failed:\n{out}")
        tpl = os.path.join(args.workdir, f"{name}.tpl.cu")
        code, out = run([args.refactor, example, "-o", tpl])
        if code != 0:
            problems.append(f"ktune-refactor failed:\n{out}")
        elif open(fixed).read() != open(tpl).read():
            problems.append("clang-tidy --fix output differs from ktune-refactor -o")
        # Fixed code has nothing left to report (lifted parameters' defaults
        # are not hardcoded constants).
        again = os.path.join(args.workdir, f"{name}.again.cu")
        shutil.copy(fixed, again)
        code, out = tidy(again, example_dir)
        if code != 0 or re.search(r"warning: hardcoded", out):
            problems.append(f"the fixed file still gets ktune warnings:\n{out}")

        # 2. MinConfidence=medium: warnings, compiles, PTX-identical.
        medium = os.path.join(args.workdir, f"{name}.medium.cu")
        shutil.copy(example, medium)
        code, out = tidy(medium, example_dir, "{CheckOptions: {ktune.MinConfidence: medium}}")
        warnings = re.findall(r"warning: hardcoded .* in kernel '([^']+)'", out)
        if code != 0 or not warnings:
            problems.append(f"no ktune warning at MinConfidence=medium:\n{out}")
        for side in ("host", "device"):
            code, out = run([args.clang, "-fsyntax-only", *cuda_args(
                root, args.cuda_path, side, example_dir), medium])
            if code != 0:
                problems.append(f"fixed file does not compile ({side}):\n{out}")
        code, out = run([args.refactor, example, "--candidates"])
        kernels = sorted({c["kernel"] for c in json.loads(out[out.index("{"):]).get("candidates", [])
                          if c["kernel"].split("::")[-1] in warnings}) if code == 0 else []
        manifest = os.path.join(args.workdir, f"{name}.medium.json")
        with open(manifest, "w") as f:
            json.dump({"ktune": "manifest/1", "kernels": [
                {"qualified_name": k, "template_params": []} for k in kernels]}, f)
        code, out = run([sys.executable, args.ptx_identical, example, medium, manifest,
                         "--nvcc", args.nvcc])
        if code != 0:
            problems.append(f"PTX differs or does not compile:\n{out}")

        if problems:
            failures += 1
            print(f"FAIL {name}")
            for problem in problems:
                print("  " + problem.replace("\n", "\n  "))
        else:
            print(f"ok   {name}: {len(warnings)} warning(s) at medium; "
                  f"--fix == ktune-refactor -o; fixed file clean; PTX identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
