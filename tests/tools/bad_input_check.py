#!/usr/bin/env python3
"""Runs one case of the bad-input corpus (tests/data/bad/cases.tsv).

  bad_input_check.py COOKGRAPH SOURCE_DIR GEN_DIR MANIFEST NAME [--sanitized]

The manifest's header says what its columns mean. A case passes when
cookgraph ends by itself (no signal, within the time limit) with the expected
exit code, its peak resident memory stays under the case's bound, and:
- refused (exit 2): standard output is empty, standard error is exactly one
  line, "cookgraph: error: " then the case's regex, and that line names the
  input; the output folder ({out}) is still empty (no file, no temporary file
  left behind);
- accepted (exit 0): standard output, standard error and the files written
  are those of the same command on the clean input (same_as), with the
  input's name replaced.

Peak memory is the largest child's ru_maxrss (getrusage(RUSAGE_CHILDREN)):
each case runs in a fresh Python process, cookgraph first, so the number is
cookgraph's own. --sanitized (an AddressSanitizer build) allows 4 times the
bound plus 256 MB: ASan's redzones and its quarantine of freed memory.
"""

import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile

TIMEOUT_S = 120
ERROR_PREFIX = "cookgraph: error: "


def read_manifest(path):
    cases = {}
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    header = lines[0].split("\t")
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != len(header):
            sys.exit(f"{path}: {len(fields)} fields instead of {len(header)}: {line[:80]}")
        case = dict(zip(header, fields))
        cases[case["name"]] = case
    return cases


class Run:
    def __init__(self, code, out, err, files):
        self.code, self.out, self.err, self.files = code, out, err, files


def run(cookgraph, command, places, out_dir):
    """Runs cookgraph with `command` (placeholders filled in); returns a Run."""
    config = None
    if command.startswith("@config="):
        config, command = command.split(" ", 1)
        config = config[len("@config="):].format(**places)
    args = [cookgraph] + [arg.format(**places) for arg in shlex.split(command)]
    cwd = places["src"]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "COOKGRAPH_"))}
    env["NO_COLOR"] = "1"
    with tempfile.TemporaryDirectory() as home:
        env["XDG_CONFIG_HOME"] = os.path.join(home, "xdg")  # no user config
        if config is not None:
            cwd = os.path.join(home, "work")
            os.makedirs(cwd)
            shutil.copyfile(os.path.join(places["src"], config), os.path.join(cwd, "cookgraph.yaml"))
        try:
            done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL: did not end within {TIMEOUT_S} s: {' '.join(args)}")
    files = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, out_dir)] = f.read()
    return Run(done.returncode, done.stdout, done.stderr, files)


def input_path(command, places):
    """The corpus input a case reads: the first argument under {bad} or {gen}."""
    if command.startswith("@config="):
        return "cookgraph.yaml"
    for arg in shlex.split(command):
        if "{bad}" in arg or "{gen}" in arg:
            return arg.format(**places)
    sys.exit(f"FAIL: the command names no corpus input: {command}")


def normalised(run_result, names):
    """The run's output with each of `names` (paths and stems) replaced."""
    def clean(data):
        text = data.decode("utf-8", "replace")
        for name in sorted(names, key=len, reverse=True):
            text = text.replace(name, "INPUT")
        return text
    return (clean(run_result.out), clean(run_result.err),
            {k: clean(v) for k, v in run_result.files.items()})


def names_of(path):
    """A path, its base name and the base name without .gz/.json/.yaml."""
    base = os.path.basename(path.rstrip("/"))
    stem = base
    for suffix in (".gz", ".json", ".yaml", ".yml"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    return [path, base, stem]


def check(cookgraph, source, gen, case, sanitized):
    failures = []
    bound_mb = float(case["mem_mb"]) * 4 + 256 if sanitized else float(case["mem_mb"])
    with tempfile.TemporaryDirectory() as out_dir:
        places = {"bad": "tests/data/bad", "gen": gen, "src": source, "out": out_dir}
        result = run(cookgraph, case["command"], places, out_dir)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        expected = int(case["exit"])
        print(f"exit {result.code}, peak {peak_mb:.1f} MB (bound {bound_mb:.0f} MB)")
        print("stderr: " + result.err.decode("utf-8", "replace").rstrip())
        if result.code < 0:
            failures.append(f"killed by signal {-result.code}")
        elif result.code not in (0, 2):
            failures.append(f"exit code {result.code}: only 0 and 2 are expected of an input")
        if result.code != expected:
            failures.append(f"exit code {result.code}, expected {expected}")
        if peak_mb > bound_mb:
            failures.append(f"peak memory {peak_mb:.1f} MB over the bound of {bound_mb:.0f} MB")
        if expected == 2:
            failures += check_refused(result, case, places)
        else:
            failures += check_accepted(cookgraph, result, case, places, out_dir)
    return failures


def check_refused(result, case, places):
    failures = []
    if result.out:
        failures.append(f"standard output is not empty: {result.out[:200]!r}")
    if result.files:
        failures.append(f"files left behind in the output folder: {sorted(result.files)}")
    lines = result.err.decode("utf-8", "replace").splitlines()
    if len(lines) != 1:
        failures.append(f"{len(lines)} lines on standard error, expected one")
        return failures
    line = lines[0]
    if not line.startswith(ERROR_PREFIX):
        failures.append(f"the line does not start with {ERROR_PREFIX!r}")
        return failures
    escaped = {k: re.escape(v) for k, v in places.items()}
    pattern = re.sub(r"\{(bad|gen|src|out)\}", lambda m: escaped[m.group(1)], case["stderr"])
    if not re.match(pattern, line[len(ERROR_PREFIX):]):
        failures.append(f"the line does not match {pattern!r}")
    named = input_path(case["command"], places)
    if named not in line:
        failures.append(f"the line does not name the input {named!r}")
    return failures


def check_accepted(cookgraph, result, case, places, out_dir):
    failures = []
    if case["same_as"] == "-":
        return failures
    bad_input = input_path(case["command"], places)
    clean_input = case["same_as"].format(**places)
    command = case["command"]
    if command.startswith("@config="):
        command = "@config=" + case["same_as"] + " " + command.split(" ", 1)[1]
        bad_names = clean_names = ["cookgraph.yaml"]
    else:
        command = command.replace(
            next(arg for arg in shlex.split(command) if "{bad}" in arg or "{gen}" in arg),
            case["same_as"], 1)
        bad_names, clean_names = names_of(bad_input), names_of(clean_input)
    for name in list(result.files):
        os.remove(os.path.join(out_dir, name))
    reference = run(cookgraph, command, places, out_dir)
    if reference.code != 0:
        failures.append(f"the clean input {clean_input} exits with {reference.code}")
    got, want = normalised(result, bad_names), normalised(reference, clean_names)
    for what, a, b in zip(("standard output", "standard error", "files written"), got, want):
        if a != b:
            failures.append(f"{what} differs from the clean input's:\n--- {bad_input}\n{str(a)[:600]}\n"
                            f"--- {clean_input}\n{str(b)[:600]}")
    if not result.out and not result.files:
        failures.append("the run wrote nothing to compare")
    return failures


def main():
    args = [a for a in sys.argv[1:] if a != "--sanitized"]
    if len(args) != 5:
        sys.exit(__doc__)
    cookgraph, source, gen, manifest, name = args
    cases = read_manifest(manifest)
    if name not in cases:
        sys.exit(f"FAIL: no case {name!r} in {manifest}")
    failures = check(os.path.abspath(cookgraph), os.path.abspath(source), os.path.abspath(gen), cases[name],
                     "--sanitized" in sys.argv)
    for failure in failures:
        print("FAIL: " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
