#!/usr/bin/env python3
"""Checks that README.md's examples are what the binary prints.

    readme_examples.py COOKGRAPH SOURCE_DIR [README]

Every fenced block of README.md whose first line starts with "$ " is a
session: each "$ " line is run (by sh, in a fresh folder where examples/ and
tests/ are the repository's and `cookgraph` is COOKGRAPH, with an environment
that holds only PATH, HOME and LANG), and the lines after it, up to the next
"$ " line, must be its output (standard output and standard error together).
The README trims output with "…": a line that is only "…" (indentation
allowed) stands for any number of lines, and "…" inside a line for any text.
Numbers are compared as written, so an example that drifts from the binary
fails. Exit 0 when every block matches, 1 when one does not (the first
difference is shown), 2 on a usage error.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile


def blocks(text):
    """The fenced blocks that are sessions: (line number, [lines])."""
    out, inside, start, lines = [], False, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if inside:
                if lines and lines[0].startswith("$ "):
                    out.append((start, lines))
                inside, lines = False, []
            else:
                inside, start = True, number + 1
            continue
        if inside:
            lines.append(line)
    return out


def pattern(line):
    """A README line as a regular expression: "…" is any text."""
    return re.compile("".join(".*" if part == "…" else re.escape(part)
                              for part in re.split("(…)", line)) + r"\Z")


def matches(expected, actual):
    """Whether `actual` lines fit `expected`, a "…" line standing for any lines."""
    memo = {}

    def fit(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "…":
            result = any(fit(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and pattern(expected[i]).match(actual[j]) is not None \
                and fit(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return fit(0, 0)


def first_difference(expected, actual):
    for k, line in enumerate(expected):
        if line.strip() == "…":
            return "around line %d of the block (after a '…')" % (k + 1)
        if k >= len(actual):
            return "expected line %d: %r, but the output ended" % (k + 1, line)
        if not pattern(line).match(actual[k]):
            return "line %d:\n  README: %s\n  binary: %s" % (k + 1, line, actual[k])
    return "the output has more lines: %r" % actual[len(expected):len(expected) + 3]


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    source = os.path.abspath(sys.argv[2])
    readme = sys.argv[3] if len(sys.argv) == 4 else os.path.join(source, "README.md")
    with open(readme, encoding="utf-8") as f:
        sessions = blocks(f.read())
    if not sessions:
        print("readme_examples: no examples in %s" % readme, file=sys.stderr)
        return 1
    failed = 0
    for start, lines in sessions:
        work = tempfile.mkdtemp(prefix="readme_examples.")
        try:
            for name in ("examples", "tests"):
                os.symlink(os.path.join(source, name), os.path.join(work, name))
            bindir = os.path.join(work, ".bin")
            os.mkdir(bindir)
            os.symlink(binary, os.path.join(bindir, "cookgraph"))
            env = {"PATH": bindir + ":/usr/bin:/bin", "HOME": os.path.join(work, ".home"),
                   "LANG": "C.UTF-8"}
            commands = [k for k, line in enumerate(lines) if line.startswith("$ ")]
            for n, k in enumerate(commands):
                end = commands[n + 1] if n + 1 < len(commands) else len(lines)
                expected = lines[k + 1:end]
                run = subprocess.run(["sh", "-c", lines[k][2:]], cwd=work, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     timeout=600)
                actual = run.stdout.decode("utf-8", "replace").splitlines()
                if run.returncode != 0 or not matches(expected, actual):
                    failed += 1
                    print("README.md:%d: %s\n  exit %d; %s" % (
                        start + k, lines[k], run.returncode, first_difference(expected, actual)))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("readme_examples: %d of %d commands match README.md" % (
        sum(1 for _, l in sessions for x in l if x.startswith("$ ")) - failed,
        sum(1 for _, l in sessions for x in l if x.startswith("$ "))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
