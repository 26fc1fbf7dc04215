#!/usr/bin/env python3
"""Checks that a ktune template compiles to the same PTX as its original.

    ptx-identical.py original.cu template.tpl.cu template.tpl.json \
        [--nvcc nvcc] [--arch sm_90] [--skip-uninstantiated]
        [-- extra nvcc args]

The template's default instantiation of every kernel in the manifest must
produce PTX identical to the original kernel's, except for mangled names.
Both files are compiled with `nvcc -ptx`; a copy of the template gets one
instantiation per kernel instantiation found in the original PTX (the
original template arguments, then the manifest's defaults for the new
parameters). Mangled names are mapped back to the original's before the
function bodies are compared. A kernel of the manifest that the original
never instantiates (a template in a header given as the input) has no PTX
to compare: an error, or with --skip-uninstantiated a line saying so.
Exit status: 0 identical, 1 different (a diff is printed), 2 usage or
compile errors.
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def fail(message, code=2):
    print(f"ptx-identical: error: {message}", file=sys.stderr)
    sys.exit(code)


def quote_dir(d):
    """nvcc flags searching d for quoted #includes only (the host
    preprocessor's -iquote; nvcc has none): a -I would also serve <...>
    includes, where a project's features.h hides glibc's."""
    return ["-I", d] if "," in d else ["-Xcompiler", "-iquote," + d]


def compile_ptx(nvcc, arch, source, out, include_dir, extra, retry_if=None):
    """The PTX; None where nvcc's messages contain `retry_if`."""
    cmd = [nvcc, f"-arch={arch}", "-ptx", "-std=c++17"] + quote_dir(include_dir) + \
          ["-w", "-o", out, source] + extra
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        if retry_if and retry_if in proc.stdout + proc.stderr:
            return None
        fail(f"nvcc failed on {source}:\n{proc.stdout}{proc.stderr}")
    with open(out) as f:
        return without_static_prefixes(f.read())


def without_static_prefixes(ptx):
    # With -rdc nvcc prefixes internal-linkage functions with an id of the
    # file (__nv_static_<n>__<hash>_<len>_<file>_..._Z15kernel...), which
    # differs between the original and the template: dropped on both sides.
    return re.sub(r"__nv_static_\d+_\w*?_(?=_Z\d)", "", ptx)


def demangler():
    for tool in ("c++filt", "llvm-cxxfilt-19", "llvm-cxxfilt"):
        path = shutil.which(tool)
        if path:
            return path
    fail("needs c++filt (binutils) or llvm-cxxfilt to read mangled names")


def demangle(names):
    if not names:
        return {}
    proc = subprocess.run([demangler()], input="\n".join(names) + "\n",
                          capture_output=True, text=True, check=True)
    out = proc.stdout.splitlines()
    return dict(zip(names, out))


FUNC_HEADER = re.compile(
    r"^(?:\.(?:visible|weak|extern)\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?"
    r"([A-Za-z_$][\w$]*)", re.M)


def functions(ptx):
    """{mangled name: text of the function (header to closing brace)}."""
    out = {}
    for m in FUNC_HEADER.finditer(ptx):
        name = m.group(2)
        start = m.start()
        brace = ptx.find("{", m.end())
        semicolon = ptx.find(";", m.end())
        if brace < 0 or (0 <= semicolon < brace and
                         ptx[m.end():semicolon].count("(") ==
                         ptx[m.end():semicolon].count(")")):
            continue  # a declaration
        depth, i = 0, brace
        while i < len(ptx):
            if ptx[i] == "{":
                depth += 1
            elif ptx[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out[name] = ptx[start:i + 1]
    return out


def split_template_args(text):
    """'ns::k<float, 8>(float*, int)' -> ('ns::k', ['float', '8'], rest)."""
    paren = find_top_level(text, "(")
    head = text if paren < 0 else text[:paren]
    rest = "" if paren < 0 else text[paren:]
    if not head.endswith(">"):
        return head, None, rest
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        if head[i] == ">":
            depth += 1
        elif head[i] == "<":
            depth -= 1
            if depth == 0:
                args, current, d = [], "", 0
                for ch in head[i + 1:-1]:
                    if ch in "<([":
                        d += 1
                    elif ch in ">)]":
                        d -= 1
                    if ch == "," and d == 0:
                        args.append(current.strip())
                        current = ""
                    else:
                        current += ch
                if current.strip():
                    args.append(current.strip())
                return head[:i], args, rest
    return head, None, rest


def find_top_level(text, char):
    depth = 0
    for i, ch in enumerate(text):
        if ch in "<[":
            depth += 1
        elif ch in ">]":
            depth -= 1
        elif ch == char and depth == 0:
            return i
    return -1


def strip_return_type(demangled):
    # Template functions demangle with their return type first.
    depth = 0
    for i, ch in enumerate(demangled):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == " " and depth == 0 and "(" in demangled[i:]:
            head = demangled[:i]
            if not head.endswith(("operator", ",")):
                return demangled[i + 1:]
    return demangled


def anonymous(name):
    # nvcc names anonymous namespaces after the file (_GLOBAL__N__<id>), and
    # internal-linkage entities too (_INTERNAL_<id>_<file>_<id>).
    name = name.replace("(anonymous namespace)::", "")
    name = re.sub(r"_INTERNAL_\w+?::", "", name)
    return re.sub(r"_GLOBAL__N__\w+?::", "", name)


def string_constants(ptx, source, copies={}):
    """`$str$N` -> its bytes: string literals are numbered by the order
    the module emits them, so a body names them by what they hold. The
    compiled file's own name (an assert's __FILE__) is no code, nor is the
    path a header is included by, nor a rewritten header's copy (`copies`:
    its real path -> the header's)."""
    out = {}
    for m in re.finditer(r"(\$str(?:\$\d+)?)\[\d+\]\s*=\s*\{([^}]*)\}",
                         ptx):
        data = m.group(2).replace(" ", "")
        text = "".join(chr(int(b)) for b in data.split(",")
                       if b.isdigit() and int(b) != 0)
        if text == source:
            out[m.group(1)] = "FILE"
        elif text and os.path.isfile(text):
            # A header's name spelled another way (the template includes it
            # by another path): the same file.
            real = os.path.realpath(text)
            out[m.group(1)] = "PATH{" + copies.get(real, real) + "}"
        else:
            out[m.group(1)] = data
    return out


def normalise_body(text, strings={}):
    lines = []
    text = re.sub(r"\$str(?:\$\d+)?",
                  lambda m: "$str{" + strings.get(m.group(0), m.group(0)) + "}",
                  text)
    for line in text.splitlines():
        line = re.sub(r"//.*", "", line).rstrip()
        line = re.sub(r"^\.(visible|weak)\s+", "", line)
        # Block labels, local depots and the compiler's unnamed constants
        # (an assert's function name) are numbered by the function's place
        # in the module.
        line = re.sub(r"\$L__BB\d+_", "$L__BB_", line)
        line = re.sub(r"__local_depot\d+", "__local_depot", line)
        line = re.sub(r"__unnamed_\d+", "__unnamed_", line)
        if line.strip():
            lines.append(line)
    return lines


SHARED_DECL = re.compile(
    r"^[ \t]*(?:\.(?:weak|visible|extern)[ \t]+)?"
    r"(\.shared\b[^;\n]*?([A-Za-z_$][\w$]*)(?:\[[^\]]*\])*[ \t]*;)", re.M)


def shared_declarations(ptx):
    """Every .shared variable the PTX declares, by name: at module scope or
    in a function. With -rdc a non-template kernel's static __shared__
    variables are declared in its body ("demoted"), a template's at module
    scope (.weak .shared)."""
    return {m.group(2): re.sub(r"[ \t]+", " ", m.group(1))
            for m in SHARED_DECL.finditer(ptx)}


def with_shared_declarations(lines, declared):
    """The lines without their own .shared declarations, followed by the
    declarations of every .shared variable they name."""
    kept, used = [], set()
    for line in lines:
        if line.lstrip().startswith(".shared"):
            continue
        used.update(t for t in re.findall(r"[A-Za-z_$][\w$]*", line) if t in declared)
        kept.append(line)
    return kept + ["shared: " + declared[n] for n in sorted(used)]


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("original")
    p.add_argument("template")
    p.add_argument("manifest")
    p.add_argument("--nvcc", default=shutil.which("nvcc") or
                   "/usr/local/cuda/bin/nvcc")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--skip-uninstantiated", action="store_true")
    args = p.parse_args(argv)

    with open(args.manifest) as f:
        manifest = json.load(f)
    if manifest.get("ktune") not in ("manifest/1", "manifest/2"):
        fail(f"{args.manifest}: not a manifest/1 or manifest/2 file")
    include_dir = os.path.dirname(os.path.abspath(args.original))
    # manifest/2: directories that come first on the template's include path
    # (rewritten project headers), relative to the manifest.
    manifest_dir = os.path.dirname(os.path.abspath(args.manifest))
    first = []
    for d in manifest.get("include_dirs", []):
        first += ["-I", os.path.normpath(os.path.join(manifest_dir, d))]
    quoted = []
    for d in manifest.get("quote_dirs", []):
        quoted += quote_dir(os.path.normpath(os.path.join(manifest_dir, d)))

    with tempfile.TemporaryDirectory(prefix="ktune-ptx-") as tmp:
        orig_ptx = compile_ptx(args.nvcc, args.arch, args.original,
                               os.path.join(tmp, "original.ptx"),
                               include_dir, extra)
        orig_funcs = functions(orig_ptx)
        orig_strings = string_constants(orig_ptx, args.original)
        orig_names = demangle(list(orig_funcs))

        # One instantiation per original instantiation of each kernel.
        lines = ["", "// Default instantiations added by ptx-identical.py"]
        # The same, each through a pointer of the original's parameter types:
        # for a kernel whose name a host function shares, where the address
        # of `k<...>` alone names no one function.
        typed_lines = list(lines)
        count = 0
        skipped = []
        for kernel in manifest.get("kernels", []):
            qname = kernel["qualified_name"]
            params = kernel.get("template_params", [])
            found = False
            for mangled, dem in orig_names.items():
                base, targs, signature = split_template_args(
                    anonymous(strip_return_type(dem)))
                # A non-template overload of a kernel template's name (one
                # whose own parameters have no defaults).
                if base != qname or (targs is None and any(
                        "default" not in p for p in params)):
                    continue
                found = True
                given = targs or []
                # Nothing added to the kernel (its launch parameters live in
                # the launcher), or an argument that cannot be written back
                # (a function pointer, demangled as "&(float f(float))"): the
                # template's own code instantiates it as the original does; a
                # missing instance is reported below.
                if len(params) <= len(given) or any("(" in a for a in given):
                    continue
                values = list(given)
                for param in params[len(given):]:
                    if "default" not in param:
                        fail(f"{qname}: parameter {param['name']} has no "
                             "default and no value in the original")
                    values.append(str(param["default"]))
                # Not `auto`: C-minded headers define it (BART's
                # `#define auto __auto_type`).
                kernel = f"&{qname}<{', '.join(values)}>"
                lines.append(
                    f"static decltype({kernel}) const ktune_instance_{count} "
                    f"__attribute__((unused)) = {kernel};")
                typed_lines.append(
                    f"static void (*const ktune_instance_{count}){signature} "
                    f"__attribute__((unused)) = {kernel};"
                    if signature.startswith("(") else lines[-1])
                count += 1
            if not found:
                if not args.skip_uninstantiated:
                    fail(f"kernel {qname} does not appear in the original's "
                         "PTX")
                skipped.append(qname)
        instantiated = os.path.join(tmp, os.path.basename(args.template))
        with open(args.template) as f:
            text = f.read()
        tpl_ptx = None
        for added in (lines, typed_lines):
            with open(instantiated, "w") as f:
                f.write(text + "\n".join(added) + "\n")
            tpl_ptx = compile_ptx(
                args.nvcc, args.arch, instantiated,
                os.path.join(tmp, "template.ptx"),
                os.path.dirname(os.path.abspath(args.template)),
                first + extra + (quoted or quote_dir(include_dir)),
                retry_if=("instance of overloaded function"
                          if added is lines else None))
            if tpl_ptx is not None:
                break
        tpl_funcs = functions(tpl_ptx)
        copies = {
            os.path.realpath(os.path.join(manifest_dir, f["path"])):
            os.path.realpath(f["original"])
            for f in manifest.get("files", [])
            if f.get("role") == "header" and "path" in f and "original" in f}
        tpl_strings = string_constants(tpl_ptx, instantiated, copies)
        tpl_names = demangle(list(tpl_funcs))

    # Map each template function to the original one it must equal: the same
    # name once trailing template arguments added by ktune are dropped.
    def key(dem):
        # c++filt writes nested closing brackets apart (`A<B<true> >`); keys
        # are rebuilt without the space.
        k = anonymous(strip_return_type(dem))
        while "> >" in k:
            k = k.replace("> >", ">>")
        return k

    # Every mangled name the PTX uses, not only functions': the local
    # statics of an inlined helper (_ZZ<helper encoding>E8_ca_temp) follow
    # the helper's added template arguments and the file's internal name.
    symbol = re.compile(r"\b_Z[\w$]+")
    orig_symbols = set(symbol.findall(orig_ptx))
    orig_names.update(demangle(sorted(orig_symbols - set(orig_names))))
    tpl_names.update(demangle(sorted(set(symbol.findall(tpl_ptx)) -
                                     set(tpl_names) - orig_symbols)))

    by_key = {key(d): m for m, d in orig_names.items()}
    rename = {}
    for mangled, dem in tpl_names.items():
        k = key(dem)
        if k in by_key:
            rename[mangled] = by_key[k]
            continue
        base, targs, rest = split_template_args(k)
        while targs:
            targs = targs[:-1]
            cand = base + (f"<{', '.join(targs)}>" if targs else "") + rest
            if cand in by_key:
                rename[mangled] = by_key[cand]
                break

    # Rename encodings (mangled name without _Z) so local statics such as
    # __shared__ arrays (_ZZ<encoding>E4tile) follow their function.
    def rewrite(text):
        for new, old in sorted(rename.items(), key=lambda kv: -len(kv[0])):
            if new != old:
                text = text.replace(new[2:], old[2:])
        return text

    orig_shared = shared_declarations(orig_ptx)
    tpl_shared = shared_declarations(rewrite(tpl_ptx))
    mismatches = []
    for mangled, body in orig_funcs.items():
        partner = [n for n, o in rename.items() if o == mangled]
        if not partner:
            mismatches.append((orig_names[mangled], None, None))
            continue
        a = with_shared_declarations(normalise_body(body, orig_strings), orig_shared)
        b = with_shared_declarations(
            normalise_body(rewrite(tpl_funcs[partner[0]]), tpl_strings), tpl_shared)
        if a != b:
            mismatches.append((orig_names[mangled], a, b))
    for qname in skipped:
        print(f"ptx-identical: {qname}: not instantiated by the original, "
              "nothing to compare")
    if not mismatches:
        print(f"ptx-identical: {len(orig_funcs)} function(s) identical "
              f"({args.original} vs {args.template})")
        return 0
    for name, a, b in mismatches:
        if a is None:
            print(f"ptx-identical: {name}: missing from the template's PTX")
            continue
        print(f"ptx-identical: {name}: PTX differs")
        sys.stdout.writelines(
            l + "\n" for l in difflib.unified_diff(
                a, b, "original", "template", lineterm="", n=2))
    return 1


if __name__ == "__main__":
    sys.exit(main())
