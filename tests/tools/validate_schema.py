#!/usr/bin/env python3
"""Validates snapshot files against schema/snapshot-v1.schema.json.

    validate_schema.py SCHEMA FILE...

Prints one line per file and exits 1 when any file does not validate. Uses
Debian's python3-jsonschema (Draft 2020-12)."""
import gzip
import json
import sys

import jsonschema


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    schema = load(argv[1])
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in argv[2:]:
        errors = sorted(validator.iter_errors(load(path)), key=lambda e: list(e.path))
        if errors:
            failed += 1
            first = errors[0]
            where = "/".join(str(p) for p in first.path)
            print(f"{path}: {len(errors)} errors; first at {where or '(top)'}: {first.message[:200]}")
        else:
            print(f"{path}: valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
