#!/usr/bin/env python3
"""Checks JSON files against a JSON Schema (draft 2020-12).

usage: check_json_schema.py SCHEMA [--valid FILE|DIR ...] [--invalid FILE|DIR ...]

Every --valid file must conform and every --invalid file must not. Exits 0
when all do, 1 otherwise, and 77 (skipped) when the jsonschema module is
missing.
"""
import argparse
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed: skipped")
    sys.exit(77)


def files(paths):
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            yield from sorted(p.glob("*.json"))
        else:
            yield p


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("schema")
    parser.add_argument("--valid", nargs="*", default=[])
    parser.add_argument("--invalid", nargs="*", default=[])
    args = parser.parse_args()

    schema = json.loads(pathlib.Path(args.schema).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    failures = 0
    checked = 0
    for expect_valid, paths in ((True, args.valid), (False, args.invalid)):
        for path in files(paths):
            checked += 1
            errors = list(validator.iter_errors(json.loads(path.read_text())))
            if expect_valid and errors:
                failures += 1
                print(f"FAIL {path}: expected valid, got:")
                for e in errors:
                    where = "/".join(map(str, e.absolute_path)) or "$"
                    print(f"  {where}: {e.message}")
            elif not expect_valid and not errors:
                failures += 1
                print(f"FAIL {path}: expected a schema violation, got none")
            else:
                print(f"ok   {path}")
    if checked == 0:
        print("no files checked")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
