"""Validates a JSON (or gzip JSON) document against a JSON Schema, offline.

usage: validate_json.py SCHEMA DOCUMENT
Prints "valid", or "invalid: <path>: <message>" for the first error, and
exits 0 or 1 accordingly.
"""
import gzip
import json
import sys

import jsonschema


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def main():
    schema = load(sys.argv[1])
    document = load(sys.argv[2])
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    if not errors:
        print("valid")
        return 0
    first = errors[0]
    path = "/".join(str(p) for p in first.path) or "$"
    print("invalid: %s: %s" % (path, first.message))
    return 1


if __name__ == "__main__":
    sys.exit(main())
