"""Compares the registers ktune reports for a default configuration with an
nvcc build of the original file with the given flags.

  check_registers.py RESULTS_JSON ORIGINAL.cu KERNEL ARCH -- FLAGS...

Prints "default <n> registers, nvcc build of the original <m>: same|DIFFERENT".
"""
import glob
import json
import re
import subprocess
import sys


def nvcc_registers(source, kernel, arch, flags):
    out = subprocess.run(["nvcc", "-arch=" + arch, "-c", "-o", "/dev/null",
                          "-Xptxas", "-v", *flags, source],
                         capture_output=True, text=True, check=True).stderr
    # ptxas: "Compiling entry function '<mangled>'" ... "Used N registers"
    entry = None
    for line in out.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and entry and kernel in entry:
            return int(m.group(1))
    sys.exit("no ptxas report for %s in:\n%s" % (kernel, out))


def default_registers(path):
    results = json.load(open(glob.glob(path)[0]))
    shape = results["shapes"][0]
    default = shape["default"]["config"]
    for f in shape["finalists"]:
        if f["config"] == default:
            return f["resources"]["registers"]
    sys.exit("the default configuration is not among the results' finalists")


def main():
    dash = sys.argv.index("--")
    results, source, kernel, arch = sys.argv[1:dash]
    flags = sys.argv[dash + 1:]
    ours = default_registers(results)
    theirs = nvcc_registers(source, kernel, arch, flags)
    print("default %d registers, nvcc build of the original %d: %s" %
          (ours, theirs, "same" if ours == theirs else "DIFFERENT"))


main()
