#!/usr/bin/env python3
"""Checks that the test command runs every test of the normal build once.

    python3 tests/tools/check_test_split.py BUILD SANITIZER_BUILD

scripts/test.sh runs the whole suite in SANITIZER_BUILD (ASan+UBSan) and, in
the normal BUILD, only the tests labelled `plain` (docs/testing.md#how-the-test-command-runs).
A test of BUILD that is not labelled `plain` (nor a fixture setup that a
`plain` test requires, which ctest runs with it) must therefore be a test of
SANITIZER_BUILD too, or the test command would never run it: this script
lists each one that is neither (with what to do) and exits 1. The test
binaries the normal build of the test command does not build
(`<binary>_NOT_BUILT`) are left to SANITIZER_BUILD, which builds them all.
Exit 0 with a one-line summary when the split loses nothing, 2 when a build
folder cannot be read.
"""

import json
import subprocess
import sys


def tests_of(build):
    """{name: [labels]} of every test ctest knows in `build`."""
    try:
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"check_test_split: {build}: cannot list its tests ({e})")
    tests = {}
    for t in json.loads(out).get("tests", []):
        props = {p.get("name"): p.get("value", []) for p in t.get("properties", [])}
        tests[t["name"]] = dict(labels=props.get("LABELS", []),
                                setup=props.get("FIXTURES_SETUP", []),
                                required=props.get("FIXTURES_REQUIRED", []))
    return tests


def runs_with_plain(tests):
    """The names of the tests `ctest -L plain` runs: those labelled plain, and
    the fixture setups they require (ctest adds those whatever their labels)."""
    plain = {n for n, t in tests.items() if "plain" in t["labels"]}
    needed = {f for n in plain for f in tests[n]["required"]}
    return plain | {n for n, t in tests.items() if needed & set(t["setup"])}


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    build, sanitized = argv[1], argv[2]
    normal = tests_of(build)
    under_sanitizers = tests_of(sanitized)
    if not under_sanitizers:
        print(f"check_test_split: {sanitized}: no tests (was it configured with the tests on?)",
              file=sys.stderr)
        return 2
    not_built = [n for n in normal if n.endswith("_NOT_BUILT")]
    plain_run = runs_with_plain(normal)
    lost = sorted(n for n in normal
                  if n not in plain_run and not n.endswith("_NOT_BUILT")
                  and n not in under_sanitizers)
    sanitizer_not_built = sorted(n for n in under_sanitizers if n.endswith("_NOT_BUILT"))
    for n in sanitizer_not_built:
        print(f"check_test_split: {sanitized}: {n}: the sanitizer build did not build this test "
              "binary, so its tests run nowhere", file=sys.stderr)
    for n in lost:
        print(f"check_test_split: {build}: test {n} runs in neither part of the test command: "
              "label it `plain` (cookgraph_plain_test in tests/CMakeLists.txt) or define it in "
              "the sanitizer build too", file=sys.stderr)
    if lost or sanitizer_not_built:
        return 1
    plain = len(plain_run)
    print(f"check_test_split: {len(under_sanitizers)} tests under ASan+UBSan, {plain} more in the "
          f"normal build (plain); none of the normal build's {len(normal)} is left out"
          + (f" ({len(not_built)} test binaries built only in {sanitized})" if not_built else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
