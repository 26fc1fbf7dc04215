#!/usr/bin/env python3
"""Runs the ktune clang-tidy checks on one test file and checks the result.

    check_ktune_tidy.py [options] input.cu CHECKS temp-base [-- clang args]

In the spirit of clang-tidy's check_clang_tidy.py:
  * the input is copied to `<temp-base>.cu` with its CHECK lines blanked
    (line numbers stay), and clang-tidy runs on the copy with --fix;
  * clang-tidy's output is matched against `// CHECK-MESSAGES:` lines with
    FileCheck (any other warning or error fails); a file without
    CHECK-MESSAGES must produce no warning at all;
  * the fixed copy is matched against `// CHECK-FIXES:` lines; a file
    without CHECK-FIXES must come back unchanged;
  * the fixed copy must still compile (clang -fsyntax-only, host and device).

CHECKS is a clang-tidy glob such as `ktune-block-size` or `ktune-*`.
--header-filter R is passed on to clang-tidy (its fixes may then edit the
headers it lets through: give the test a copy of them).
--check-suffix S uses CHECK-MESSAGES-S / CHECK-FIXES-S instead.
Exit status 0 when everything matched.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys


def fail(message):
    print(f"check_ktune_tidy: {message}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return proc.returncode, proc.stdout + proc.stderr


def cuda_args(cuda_path, compat_dir, side, arch):
    args = ["-x", "cuda", "-std=c++17", f"--cuda-path={cuda_path}",
            "-Wno-unknown-cuda-version", "-isystem", compat_dir,
            "-isystem", os.path.join(cuda_path, "include", "cccl")]
    if side == "host":
        args.append("--cuda-host-only")
    else:
        args += ["--cuda-device-only", f"--cuda-gpu-arch={arch}"]
    return args


def filecheck(filecheck_bin, check_file, prefix, text, extra=()):
    proc = subprocess.run(
        [filecheck_bin, check_file, f"--check-prefix={prefix}",
         "--match-full-lines=false", *extra],
        input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        print(text)
        fail(f"FileCheck {prefix} failed:\n{proc.stdout}{proc.stderr}")


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("checks")
    p.add_argument("temp_base")
    p.add_argument("--plugin", required=True, help="KtuneTidy.so")
    p.add_argument("--clang-tidy", default="clang-tidy-19")
    p.add_argument("--clang", default="clang++-19")
    p.add_argument("--filecheck", default="FileCheck")
    p.add_argument("--cuda-path", default=os.environ.get("CUDA_PATH", "/usr/local/cuda"))
    p.add_argument("--compat-dir", default=os.path.join(root, "share", "ktune", "cuda-compat"))
    p.add_argument("--side", choices=["host", "device"], default="host")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--config", default="", help="clang-tidy -config text (CheckOptions)")
    p.add_argument("--check-suffix", default="")
    p.add_argument("--header-filter", default=None)
    p.add_argument("--no-compile", action="store_true",
                   help="do not compile the fixed file")
    args = p.parse_args(argv)

    suffix = f"-{args.check_suffix}" if args.check_suffix else ""
    msg_prefix, fix_prefix = "CHECK-MESSAGES" + suffix, "CHECK-FIXES" + suffix
    with open(args.input) as f:
        original = f.read()
    has_messages = re.search(rf"^\s*// {msg_prefix}:", original, re.M) is not None
    has_fixes = re.search(rf"^\s*// {fix_prefix}:", original, re.M) is not None
    # Blank every CHECK line so fixes and messages do not see them; keeps
    # line numbers.
    cleaned = re.sub(r"// *CHECK-[A-Z0-9\-]*:[^\r\n]*", "//", original)

    temp = args.temp_base + ".cu"
    os.makedirs(os.path.dirname(os.path.abspath(temp)), exist_ok=True)
    with open(temp, "w") as f:
        f.write(cleaned)
    clang_args = cuda_args(args.cuda_path, args.compat_dir, args.side, args.arch) + extra
    cmd = [args.clang_tidy, f"--load={args.plugin}", f"-checks=-*,{args.checks}",
           "--fix", temp]
    if args.config:
        cmd.insert(1, f"-config={args.config}")
    if args.header_filter is not None:
        cmd.insert(1, f"--header-filter={args.header_filter}")
    cmd += ["--"] + clang_args
    code, output = run(cmd)
    if code != 0:
        fail(f"clang-tidy failed ({code}):\n{output}")
    # Only diagnostics, not the source snippets clang-tidy prints.
    diag_lines = "\n".join(l for l in output.splitlines()
                           if re.match(r"^\S.*:\d+:\d+: (warning|error|note):", l))
    if has_messages:
        filecheck(args.filecheck, args.input, msg_prefix, diag_lines + "\n",
                  ["--implicit-check-not={{warning|error}}:"])
    elif re.search(r": (warning|error):", diag_lines):
        fail(f"expected no warnings, got:\n{diag_lines}")

    with open(temp) as f:
        fixed = f.read()
    if has_fixes:
        filecheck(args.filecheck, args.input, fix_prefix, fixed)
    elif fixed != cleaned:
        fail("expected no fixes, but the file changed")

    if not args.no_compile and fixed != cleaned:
        for side in ("host", "device"):
            code, out = run([args.clang, "-fsyntax-only", *cuda_args(
                args.cuda_path, args.compat_dir, side, args.arch), *extra, temp])
            if code != 0:
                fail(f"the fixed file does not compile ({side} side):\n{out}")
    print(f"check_ktune_tidy: {args.input}: ok")


if __name__ == "__main__":
    main()
