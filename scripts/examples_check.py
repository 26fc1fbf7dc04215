#!/usr/bin/env python3
"""Static checks of the example kernels' specs and hand-written templates.

  examples_check.py specs DIR            every DIR/**/*.spec.json against its kernel
  examples_check.py manifest FILE        a hand-written manifest against its template
  examples_check.py instantiate FILE [--type NAME=TYPE ...] [--default-only]
                                         prints a .cu that instantiates every valid
                                         configuration of the manifest's kernels

Expressions (shapes, scalar values, bytes, launch, constraints) are evaluated
by a small tree walker over Python's ast with a fixed set of node types; the
text is never executed. `/` and `%` follow C on integers, as in ktune.
"""

import ast
import hashlib
import itertools
import json
import pathlib
import re
import sys

SPEC_VERSION = "spec/1"
MANIFEST_VERSION = "manifest/1"
DTYPES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8e4m3": 1, "fp8e5m2": 1,
          "int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8,
          "fp64": 8}
ROLES = {"in", "out", "inout"}
INITS = {"normal", "uniform", "ones", "zeros", "arange"}
SPEC_KEYS = {"ktune", "kernel", "template_args", "dims", "shapes", "args",
             "launch", "bytes", "tolerance", "domains", "constraints",
             "max_registers", "compile_options", "reference_kernel"}
BUFFER_KEYS = {"buffer", "shape", "role", "init", "low", "high"}
SCALAR_KEYS = {"value", "ctype"}
# Headers NVRTC finds with -I<cuda>/include; anything else (host headers)
# does not compile there.
TEMPLATE_INCLUDES = {"cuda_bf16.h", "cuda_fp16.h"}


class CheckError(Exception):
    pass


# --- expressions -------------------------------------------------------------

def _to_python(text):
    text = text.replace("&&", " and ").replace("||", " or ")
    return re.sub(r"!(?!=)", " not ", text)


def _cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _walk(node, env):
    if isinstance(node, ast.Expression):
        return _walk(node.body, env)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise CheckError(f"unknown name '{node.id}'")
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        v = _walk(node.operand, env)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return int(not v)
    if isinstance(node, ast.BinOp):
        a, b = _walk(node.left, env), _walk(node.right, env)
        both_int = isinstance(a, int) and isinstance(b, int)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, (ast.Div, ast.Mod)):
            if b == 0:
                raise CheckError("division by zero")
            if isinstance(node.op, ast.Div):
                return _cdiv(a, b) if both_int else a / b
            if not both_int:
                raise CheckError("% needs integers")
            return a - _cdiv(a, b) * b
    if isinstance(node, ast.BoolOp):
        values = [_walk(v, env) for v in node.values]
        if isinstance(node.op, ast.And):
            return int(all(values))
        return int(any(values))
    if isinstance(node, ast.Compare):
        left = _walk(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = _walk(right_node, env)
            ok = {ast.Eq: left == right, ast.NotEq: left != right,
                  ast.Lt: left < right, ast.LtE: left <= right,
                  ast.Gt: left > right, ast.GtE: left >= right}.get(type(op))
            if ok is None:
                break
            if not ok:
                return 0
            left = right
        else:
            return 1
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and not node.keywords:
        args = [_walk(a, env) for a in node.args]
        name = node.func.id
        if name in ("min", "max") and len(args) >= 2:
            return min(args) if name == "min" else max(args)
        if name == "abs" and len(args) == 1:
            return abs(args[0])
        if name == "ceil_div" and len(args) == 2:
            if args[1] == 0:
                raise CheckError("division by zero")
            return -(-args[0] // args[1])
    raise CheckError(f"unsupported expression element {type(node).__name__}")


def evaluate(text, env):
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        raise CheckError(f"expected an expression, got {json.dumps(text)}")
    try:
        tree = ast.parse(_to_python(text), mode="eval")
    except SyntaxError as e:
        raise CheckError(f"cannot parse '{text}': {e.msg}") from None
    try:
        return _walk(tree, env)
    except CheckError as e:
        raise CheckError(f"'{text}': {e}") from None


def names_in(text):
    if not isinstance(text, str):
        return set()
    tree = ast.parse(_to_python(text), mode="eval")
    calls = {n.func.id for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - calls


# --- kernel signatures -------------------------------------------------------

def kernel_params(source, kernel):
    """Parameter names of the __global__ function `kernel` in `source`."""
    for g in re.finditer(r"__global__", source):
        m = re.compile(r"\b" + re.escape(kernel) + r"\s*\(").search(
            source, g.end(), g.end() + 400)
        if not m:
            continue
        depth, i = 1, m.end()
        while depth and i < len(source):
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        params, depth, current = [], 0, ""
        for ch in source[m.end():i - 1]:
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
        return names
    return None


def find_kernel(directory, kernel):
    for path in sorted(directory.glob("**/*.cu")):
        params = kernel_params(path.read_text(), kernel)
        if params is not None:
            return path, params
    return None, None


# --- specs -------------------------------------------------------------------

def spec_shapes(spec, where):
    dims = spec.get("dims")
    if not isinstance(dims, dict) or not dims:
        raise CheckError(f"{where}: dims must be a non-empty object")
    for name, values in dims.items():
        if not isinstance(values, list) or not values or \
                not all(isinstance(v, int) and v > 0 for v in values):
            raise CheckError(f"{where}: dims.{name} must be a non-empty list "
                             "of positive integers")
    if "shapes" in spec:
        shapes = spec["shapes"]
        for k, shape in enumerate(shapes):
            if set(shape) != set(dims):
                raise CheckError(f"{where}: shapes[{k}] must give every dim")
            for name, v in shape.items():
                if v not in dims[name]:
                    raise CheckError(f"{where}: shapes[{k}].{name} = {v} is "
                                     f"not among dims.{name}")
        return shapes
    names = list(dims)
    return [dict(zip(names, combo))
            for combo in itertools.product(*(dims[n] for n in names))]


def check_spec(path, examples_dir):
    where = str(path)
    spec = json.loads(path.read_text())
    if spec.get("ktune") != SPEC_VERSION:
        raise CheckError(f"{where}: ktune must be \"{SPEC_VERSION}\"")
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise CheckError(f"{where}: unknown fields {sorted(unknown)}")
    kernel = spec.get("kernel")
    source, params = find_kernel(examples_dir, kernel)
    if params is None:
        raise CheckError(f"{where}: no __global__ kernel '{kernel}' under "
                         f"{examples_dir}")
    args = spec.get("args", {})
    if list(args) != params:
        raise CheckError(f"{where}: args {list(args)} differ from the "
                         f"parameters of {kernel} in {source.name}: {params}")
    shapes = spec_shapes(spec, where)
    if len(shapes) > 15:
        raise CheckError(f"{where}: {len(shapes)} shapes; keep it <= 15")
    launch = spec.get("launch")
    largest = 0
    for shape in shapes:
        env = dict(shape)
        total = 0  # bytes of all buffers
        traffic = 0  # each input read once, each output written once
        for name, arg in args.items():
            at = f"{where}: args.{name}"
            if "buffer" in arg:
                if set(arg) - BUFFER_KEYS:
                    raise CheckError(f"{at}: unknown fields "
                                     f"{sorted(set(arg) - BUFFER_KEYS)}")
                if arg["buffer"] not in DTYPES:
                    raise CheckError(f"{at}: unknown dtype '{arg['buffer']}'")
                if arg.get("role", "in") not in ROLES:
                    raise CheckError(f"{at}: role must be one of {sorted(ROLES)}")
                if arg.get("init", "normal") not in INITS:
                    raise CheckError(f"{at}: init must be one of {sorted(INITS)}")
                if arg.get("role") == "out" and "init" in arg:
                    raise CheckError(f"{at}: outputs are poisoned, not initialised")
                count = 1
                for extent in arg["shape"]:
                    value = evaluate(extent, env)
                    if not isinstance(value, int) or value <= 0:
                        raise CheckError(f"{at}: extent {extent} = {value} at "
                                         f"{shape}")
                    count *= value
                size = count * DTYPES[arg["buffer"]]
                total += size
                traffic += size * (2 if arg.get("role") == "inout" else 1)
            elif "value" in arg:
                if set(arg) - SCALAR_KEYS:
                    raise CheckError(f"{at}: unknown fields "
                                     f"{sorted(set(arg) - SCALAR_KEYS)}")
                evaluate(arg["value"], env)
            else:
                raise CheckError(f"{at}: give \"buffer\" or \"value\"")
        if "bytes" in spec:
            moved = evaluate(spec["bytes"], env)
            if moved <= 0 or moved > traffic:
                raise CheckError(f"{where}: bytes = {moved} at {shape}, more "
                                 f"than reading and writing every buffer "
                                 f"once ({traffic})")
        if launch is not None:
            for part in ("grid", "block"):
                for e in launch[part]:
                    free = names_in(e) - set(env) - set(args)
                    if not all(re.fullmatch(r"[A-Z_][A-Z0-9_]*", n) for n in free):
                        raise CheckError(f"{where}: launch.{part} '{e}' names "
                                         f"{sorted(free)}")
        largest = max(largest, total)
    dtypes = {a["buffer"] for a in args.values() if "buffer" in a and
              a.get("role", "in") != "in"}
    missing = dtypes - set(spec.get("tolerance", {}))
    if missing:
        raise CheckError(f"{where}: no tolerance for output dtypes "
                         f"{sorted(missing)}")
    return len(shapes), largest


# --- manifests ---------------------------------------------------------------

def domain_values(param, where):
    if "values" in param:
        return list(param["values"])
    r = param.get("range")
    if not r:
        raise CheckError(f"{where}: give values or range")
    if r.get("step") == "pow2":
        out, p = [], 1
        while p <= r["max"]:
            if p >= r["min"]:
                out.append(p)
            p *= 2
        return out
    return list(range(r["min"], r["max"] + 1, r.get("step", 1)))


def load_manifest(path):
    manifest = json.loads(path.read_text())
    if manifest.get("ktune") != MANIFEST_VERSION:
        raise CheckError(f"{path}: ktune must be \"{MANIFEST_VERSION}\"")
    return manifest


def configurations(kernel, where):
    tunables = [p for p in kernel["template_params"] if p.get("tunable")]
    names = [p["name"] for p in tunables]
    domains = [domain_values(p, f"{where}.{p['name']}") for p in tunables]
    for p, values in zip(tunables, domains):
        if p["default"] not in values:
            raise CheckError(f"{where}: default of {p['name']} not in its domain")
    valid = []
    for combo in itertools.product(*domains):
        config = dict(zip(names, combo))
        if all(evaluate(c, config) for c in kernel.get("constraints", [])):
            valid.append(config)
    default = {p["name"]: p["default"] for p in tunables}
    if default not in valid:
        raise CheckError(f"{where}: the default configuration violates a "
                         "constraint")
    return valid, default


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
    counts = []
    for k, kernel in enumerate(manifest["kernels"]):
        where = f"{path}: kernels[{k}]"
        params = kernel_params(text.decode(), kernel["name"])
        if params != [a["name"] for a in kernel["args"]]:
            raise CheckError(f"{where}: args differ from the kernel's "
                             f"parameters {params}")
        valid, _ = configurations(kernel, where)
        counts.append((kernel["name"], len(valid)))
    return counts


def instantiate(path, types, default_only):
    manifest = load_manifest(path)
    source = (path.parent / manifest["source"]).resolve()
    lines = [f'#include "{source}"', "", "void *ktune_instances[] = {"]
    for k, kernel in enumerate(manifest["kernels"]):
        valid, default = configurations(kernel, f"{path}: kernels[{k}]")
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
