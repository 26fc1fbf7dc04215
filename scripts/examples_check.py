#!/usr/bin/env python3
"""Static checks of the example kernels' specs and hand-written templates.

  examples_check.py specs DIR            every DIR/**/*.spec.json against its kernel
  examples_check.py manifest FILE        a hand-written manifest against its template
  examples_check.py instantiate FILE [--type NAME=TYPE ...] [--default-only]
                                         prints a .cu that instantiates every valid
                                         configuration of the manifest's kernels

Expressions (buffer extents, scalar values, bytes, constraints) are
evaluated by ktune itself: `ktune-tune --describe` (docs/schemas.md#describe)
prints each spec's shapes with everything resolved and each manifest
kernel's valid configurations. This script adds the examples' own rules on
top (canonical dtype names, arguments in the kernel's order, bytes no more
than one pass over the buffers, tolerances for every output). ktune-tune is
$KTUNE_TUNE, else the one on PATH, else build/bin/ktune-tune.
"""

import hashlib
import itertools
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

SPEC_VERSION = "spec/1"
MANIFEST_VERSION = "manifest/1"
ROLES = {"in", "out", "inout"}
INITS = {"normal", "uniform", "ones", "zeros", "arange"}
SPEC_KEYS = {"ktune", "kernel", "launcher", "template_args", "dims", "shapes", "args",
             "launch", "bytes", "tolerance", "domains", "constraints",
             "max_registers", "compile_options", "reference_kernel"}
BUFFER_KEYS = {"buffer", "shape", "role", "init", "low", "high"}
SCALAR_KEYS = {"value", "ctype"}
# Headers NVRTC finds with -I<cuda>/include; anything else (host headers)
# does not compile there.
TEMPLATE_INCLUDES = {"cuda_bf16.h", "cuda_fp16.h"}


class CheckError(Exception):
    pass


# --- ktune --------------------------------------------------------------------

def ktune_tune():
    given = os.environ.get("KTUNE_TUNE")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise CheckError(f"KTUNE_TUNE={given}: no executable ktune-tune there")
        return given
    root = pathlib.Path(__file__).resolve().parent.parent
    for candidate in (shutil.which("ktune-tune"),
                      str(root / "build" / "bin" / "ktune-tune")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise CheckError("no ktune-tune found: build it (cmake --build build "
                     "--target ktune-tune) or set KTUNE_TUNE")


def describe(option, path):
    """ktune's describe/1 document for a spec (--spec) or a manifest
    (--manifest); its errors become CheckErrors."""
    cmd = [ktune_tune(), "--describe", option, str(path)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        raise CheckError(f"ktune-tune --describe: {e}") from None
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        raise CheckError((lines[-1] if lines else f"ktune-tune exit status {p.returncode}")
                         .removeprefix("ktune-tune: error: "))
    return json.loads(p.stdout)


# --- kernel signatures -------------------------------------------------------

def params_after(source, open_paren):
    """Parameter names of the parameter list opening at `open_paren`, and the
    index just past its closing parenthesis."""
    depth, i = 1, open_paren
    while depth and i < len(source):
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        i += 1
    params, depth, current = [], 0, ""
    for ch in source[open_paren:i - 1]:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += ch
    params.append(current)
    names = []
    for p in params:
        ident = re.findall(r"[A-Za-z_]\w*", p.split("=")[0])
        if ident:
            names.append(ident[-1])
    return names, i


def kernel_params(source, kernel):
    """Parameter names of the __global__ function `kernel` in `source`."""
    for g in re.finditer(r"__global__", source):
        m = re.compile(r"\b" + re.escape(kernel) + r"\s*\(").search(
            source, g.end(), g.end() + 400)
        if m:
            return params_after(source, m.end())[0]
    return None


def launcher_params(source, launcher):
    """Parameter names of the host function `launcher` defined in `source`."""
    for m in re.finditer(r"\b" + re.escape(launcher) + r"\s*\(", source):
        names, end = params_after(source, m.end())
        if re.match(r"\s*\{", source[end:]):  # a definition, not a call
            return names
    return None


def find_kernel(directory, kernel, launcher=False):
    # Kernels live in sources and, as in production code, in headers.
    paths = [p for ext in ("cu", "cuh", "h")
             for p in sorted(directory.glob(f"**/*.{ext}"))]
    find = launcher_params if launcher else kernel_params
    for path in paths:
        params = find(path.read_text(), kernel)
        if params is not None:
            return path, params
    return None, None


# --- specs -------------------------------------------------------------------

def check_dims(spec, where):
    """The examples' rules for dims and shapes: every dim a non-empty list of
    positive integers, a listed shape giving each dim one of its values."""
    dims = spec.get("dims")
    if not isinstance(dims, dict) or not dims:
        raise CheckError(f"{where}: dims must be a non-empty object")
    for name, values in dims.items():
        if not isinstance(values, list) or not values or \
                not all(isinstance(v, int) and v > 0 for v in values):
            raise CheckError(f"{where}: dims.{name} must be a non-empty list "
                             "of positive integers")
    for k, shape in enumerate(spec.get("shapes", [])):
        if set(shape) != set(dims):
            raise CheckError(f"{where}: shapes[{k}] must give every dim")
        for name, v in shape.items():
            if v not in dims[name]:
                raise CheckError(f"{where}: shapes[{k}].{name} = {v} is "
                                 f"not among dims.{name}")


def check_spec(path, examples_dir):
    where = str(path)
    spec = json.loads(path.read_text())
    if spec.get("ktune") != SPEC_VERSION:
        raise CheckError(f"{where}: ktune must be \"{SPEC_VERSION}\"")
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise CheckError(f"{where}: unknown fields {sorted(unknown)}")
    if ("kernel" in spec) == ("launcher" in spec):
        raise CheckError(f"{where}: give one of \"kernel\" and \"launcher\"")
    launcher = "launcher" in spec
    kernel = spec["launcher"] if launcher else spec["kernel"]
    source, params = find_kernel(examples_dir, kernel, launcher)
    if params is None:
        what = "host function" if launcher else "__global__ kernel"
        raise CheckError(f"{where}: no {what} '{kernel}' under "
                         f"{examples_dir}")
    args = spec.get("args", {})
    if list(args) != params:
        raise CheckError(f"{where}: args {list(args)} differ from the "
                         f"parameters of {kernel} in {source.name}: {params}")
    check_dims(spec, where)
    for name, arg in args.items():
        at = f"{where}: args.{name}"
        if "buffer" in arg:
            if set(arg) - BUFFER_KEYS:
                raise CheckError(f"{at}: unknown fields "
                                 f"{sorted(set(arg) - BUFFER_KEYS)}")
            if arg.get("role", "in") not in ROLES:
                raise CheckError(f"{at}: role must be one of {sorted(ROLES)}")
            if arg.get("init", "normal") not in INITS:
                raise CheckError(f"{at}: init must be one of {sorted(INITS)}")
            if arg.get("role") == "out" and "init" in arg:
                raise CheckError(f"{at}: outputs are poisoned, not initialised")
        elif "value" in arg:
            if set(arg) - SCALAR_KEYS:
                raise CheckError(f"{at}: unknown fields "
                                 f"{sorted(set(arg) - SCALAR_KEYS)}")
        elif arg == {"stream": True}:
            pass
        else:
            raise CheckError(f"{at}: give \"buffer\", \"value\" or "
                             "\"stream\"")

    # Everything evaluated is ktune's: extents, scalars, bytes per shape.
    resolved = describe("--spec", path)["spec"]
    buffers = [a for a in resolved["args"] if a["kind"] == "buffer"]
    for a in buffers:
        if args[a["name"]]["buffer"] != a["buffer"]:
            raise CheckError(f"{where}: args.{a['name']}: unknown dtype "
                             f"'{args[a['name']]['buffer']}' (write "
                             f"'{a['buffer']}')")
    shapes = resolved["shapes"]
    if len(shapes) > 15:
        raise CheckError(f"{where}: {len(shapes)} shapes; keep it <= 15")
    largest = 0
    for shape in shapes:
        # Each input read once, each output written once.
        traffic = sum(shape["buffers"][a["name"]]["bytes"] *
                      (2 if a["role"] == "inout" else 1) for a in buffers)
        if "bytes" in shape:
            moved = shape["bytes"]
            if moved <= 0 or moved > traffic:
                raise CheckError(f"{where}: bytes = {moved} at "
                                 f"{dict(shape['dims'])}, more than reading "
                                 f"and writing every buffer once ({traffic})")
        largest = max(largest, shape["buffer_bytes"])
    launch = resolved.get("launch")
    if launch is not None:
        free = set(launch["names"]) - set(resolved_dims(resolved)) - set(args)
        if not all(re.fullmatch(r"[A-Z_][A-Z0-9_]*", n) for n in free):
            raise CheckError(f"{where}: launch names {sorted(free)}: only "
                             "dims, arguments and template parameters "
                             "(UPPER_CASE)")
    dtypes = {a["buffer"] for a in buffers if a["role"] != "in"}
    missing = dtypes - set(resolved.get("tolerance", {}))
    if missing:
        raise CheckError(f"{where}: no tolerance for output dtypes "
                         f"{sorted(missing)}")
    return len(shapes), largest


def resolved_dims(resolved):
    return [d["name"] for d in resolved["dims"]]


# --- manifests ---------------------------------------------------------------

def load_manifest(path):
    manifest = json.loads(path.read_text())
    if manifest.get("ktune") != MANIFEST_VERSION:
        raise CheckError(f"{path}: ktune must be \"{MANIFEST_VERSION}\"")
    return manifest


def configurations(path):
    """Per kernel name: its valid configurations (ktune's enumeration of the
    domains under the manifest's constraints) and its default."""
    out = {}
    for k in describe("--manifest", path)["kernels"]:
        where = f"{path}: {k['name']}"
        if "default_error" in k:
            raise CheckError(f"{where}: {k['default_error']}")
        if k["truncated"]:
            raise CheckError(f"{where}: more than {len(k['configurations'])} "
                             "valid configurations")
        out[k["name"]] = (k["configurations"], k["default"])
    return out


def check_manifest(path):
    manifest = load_manifest(path)
    source = path.parent / manifest["source"]
    text = source.read_bytes()
    for inc in re.findall(r'#\s*include\s*[<"]([^>"]+)[>"]', text.decode()):
        if inc not in TEMPLATE_INCLUDES:
            raise CheckError(f"{source}: includes <{inc}>; a template compiled "
                             f"by NVRTC may include only {sorted(TEMPLATE_INCLUDES)}")
    digest = hashlib.sha256(text).hexdigest()
    if manifest.get("source_sha256") != digest:
        raise CheckError(f"{path}: source_sha256 does not match {source.name} "
                         f"({digest})")
    for k, kernel in enumerate(manifest["kernels"]):
        where = f"{path}: kernels[{k}]"
        params = kernel_params(text.decode(), kernel["name"])
        if params != [a["name"] for a in kernel["args"]]:
            raise CheckError(f"{where}: args differ from the kernel's "
                             f"parameters {params}")
    valid = configurations(path)
    return [(kernel["name"], len(valid[kernel["name"]][0]))
            for kernel in manifest["kernels"]]


def instantiate(path, types, default_only):
    manifest = load_manifest(path)
    source = (path.parent / manifest["source"]).resolve()
    lines = [f'#include "{source}"', "", "void *ktune_instances[] = {"]
    described = configurations(path)
    for kernel in manifest["kernels"]:
        valid, default = described[kernel["name"]]
        type_params = [p["name"] for p in kernel["template_params"]
                       if p["type"] == "typename"]
        choices = [types.get(n, []) for n in type_params]
        for n, c in zip(type_params, choices):
            if not c:
                raise CheckError(f"give --type {n}=TYPE")
        for type_combo in itertools.product(*choices):
            bound = dict(zip(type_params, type_combo))
            for config in ([default] if default_only else valid):
                args = [bound[p["name"]] if p["type"] == "typename"
                        else str(config[p["name"]])
                        for p in kernel["template_params"]]
                lines.append(f"    (void *)&{kernel['qualified_name']}"
                             f"<{', '.join(args)}>,")
    lines.append("};")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    command, target = argv[1], pathlib.Path(argv[2])
    try:
        if command == "specs":
            specs = sorted(target.glob("**/*.spec.json"))
            if not specs:
                raise CheckError(f"no specs under {target}")
            for path in specs:
                n, largest = check_spec(path, target)
                print(f"spec ok: {path.relative_to(target)}: {n} shapes, "
                      f"largest {largest / 2**20:.1f} MiB of buffers")
        elif command == "manifest":
            for name, n in check_manifest(target):
                print(f"manifest ok: {target.name}: {name}: {n} valid "
                      "configurations")
        elif command == "instantiate":
            types, default_only = {}, False
            rest = argv[3:]
            while rest:
                if rest[0] == "--default-only":
                    default_only, rest = True, rest[1:]
                elif rest[0] == "--type" and len(rest) > 1:
                    name, _, value = rest[1].partition("=")
                    types.setdefault(name, []).append(value)
                    rest = rest[2:]
                else:
                    raise CheckError(f"unknown option {rest[0]}")
            sys.stdout.write(instantiate(target, types, default_only))
        else:
            raise CheckError(f"unknown command {command}")
    except (CheckError, KeyError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
