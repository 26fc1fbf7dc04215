#!/usr/bin/env python3
"""Says what the test run skipped, and fails when a test that does not need a
GPU was skipped: every other test runs from the repository alone.

  scripts/test-summary.py CTEST_JUNIT_XML LIT_XUNIT_XML SOURCE_DIR

A skipped unit test needs a GPU when its skip message says there is no CUDA
device; a skipped lit test when its REQUIRES line names `gpu`.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

GPU_SKIP = re.compile(r"no (usable )?CUDA device|no GPU")


def ctest_skips(path):
    """(name, needs_gpu) for every ctest test that did not run."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("name") == "lit":
            continue  # counted test by test below
        status = case.get("status", "")
        if status not in ("notrun", "skipped") and case.find("skipped") is None:
            continue
        text = " ".join(e.text or "" for e in case.iter() if e.text)
        out.append((case.get("name"), bool(GPU_SKIP.search(text))))
    return out


def lit_skips(path, source_dir):
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("skipped") is None:
            continue
        # classname "ktune.tune", name "no-gpu.test" -> test/lit/tune/no-gpu.test
        suite, _, sub = case.get("classname", "").partition(".")
        rel = os.path.join("test", "lit", *sub.split(".")) if sub else os.path.join("test", "lit")
        test = os.path.join(source_dir, rel, case.get("name"))
        needs_gpu = False
        if os.path.exists(test):
            for line in open(test, errors="replace"):
                m = re.search(r"REQUIRES:(.*)", line)
                if m and re.search(r"\bgpu\b", m.group(1)):
                    needs_gpu = True
        out.append((os.path.join(rel, case.get("name")), needs_gpu))
    return out


def main():
    junit, lit, source_dir = sys.argv[1:4]
    skips = ctest_skips(junit) if os.path.exists(junit) else []
    if os.path.exists(lit):
        skips += lit_skips(lit, source_dir)
    gpu = [n for n, g in skips if g]
    other = [n for n, g in skips if not g]
    print("test summary: %d skipped, %d of them GPU tests (no usable GPU here)"
          % (len(skips), len(gpu)))
    for name in other:
        print("  skipped, needs no GPU: %s" % name)
    if other:
        print("test summary: error: %d test(s) that need no GPU were skipped"
              % len(other))
        return 1
    return 0


sys.exit(main())
