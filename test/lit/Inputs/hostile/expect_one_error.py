"""Runs a ktune tool on hostile input, as an untrusted file would reach it.

    expect_one_error.py <command> [args...]

Under 60 s of CPU time and 4 GiB of address space, the command must exit
with status 1 (not a signal, not an abort) and write exactly one line on
stderr, which is printed for FileCheck; no file in the working directory may
grow past 1 MiB. Anything else is reported and exits 2.
"""
import os
import resource
import subprocess
import sys


def limit():
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def main():
    p = subprocess.run(sys.argv[1:], preexec_fn=limit, capture_output=True,
                       text=True, errors="replace", timeout=120)
    lines = p.stderr.splitlines()
    problems = []
    if p.returncode != 1:
        problems.append("exit status %d (expected 1)" % p.returncode)
    if len(lines) != 1:
        problems.append("%d lines on stderr (expected 1)" % len(lines))
    for d, _, files in os.walk("."):
        for f in files:
            path = os.path.join(d, f)
            if os.path.getsize(path) > 1 << 20:
                problems.append("%s is larger than 1 MiB" % path)
    if problems:
        print("; ".join(problems))
        print(p.stderr[-4000:])
        sys.exit(2)
    print(lines[0])


if __name__ == "__main__":
    main()
