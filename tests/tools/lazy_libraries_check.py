#!/usr/bin/env python3
"""Checks that cookgraph loads libcurl, libpq and Graphviz only when a command
uses them (docs/performance.md#start-up).

usage: lazy_libraries_check.py COOKGRAPH REPO_ROOT [--also-hide SONAME]

1. The binary's dynamic section (readelf -d) needs none of them.
2. In a private mount namespace (unshare -m, as root), each library file is
   hidden by /dev/null bound over it. With all four hidden, `score` prints the
   same bytes as with them; `ask`, `history postgresql://` and `graph --format
   svg` each fail with one line "cookgraph: error: ...: cannot load SONAME
   (install Debian's PACKAGE): ..." and their documented exit code.

--also-hide SONAME hides one more library for the `score` run: the perturbed
twin hides libfmt.so.9, which the binary does need, and must fail, which
proves that a hidden library is seen at all. Exit 0 when every check holds,
1 when one fails (each failure one line), 2 when the check cannot run here.
"""

import os
import subprocess
import sys

LAZY = {  # soname -> Debian package
    "libcurl.so.4": "libcurl4",
    "libpq.so.5": "libpq5",
    "libgvc.so.6": "libgvc6",
    "libcgraph.so.6": "libcgraph6",
}
LIBDIR = "/usr/lib/x86_64-linux-gnu"


def needed(binary):
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    return {line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line}


def hidden_run(hide, argv, env=None):
    """argv run with each of `hide` (file names in LIBDIR) bound to /dev/null."""
    mounts = " && ".join(f"mount --bind /dev/null {LIBDIR}/{name}" for name in hide)
    script = f'{mounts} && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *argv],
                          capture_output=True, env=env, timeout=120)


def main():
    args = sys.argv[1:]
    also = []
    if len(args) == 4 and args[2] == "--also-hide":
        also, args = [args[3]], args[:2]
    if len(args) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    binary, root = os.path.abspath(args[0]), os.path.abspath(args[1])
    example = os.path.join(root, "examples", "pytorch_model.json")
    graph_example = os.path.join(root, "examples", "touchdesigner_feedback.json")
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"]).returncode != 0:
        print("lazy_libraries_check: needs root and unshare -m (a private mount namespace)",
              file=sys.stderr)
        return 2
    failures = []

    present = needed(binary)
    for soname in LAZY:
        if soname in present:
            failures.append(f"{binary} needs {soname} at start-up (readelf -d)")
        if not os.path.exists(os.path.join(LIBDIR, soname)):
            print(f"lazy_libraries_check: {soname} is not installed in {LIBDIR}", file=sys.stderr)
            return 2

    plain = subprocess.run([binary, "score", example], capture_output=True, timeout=120)
    hidden = hidden_run(list(LAZY) + also, [binary, "score", example])
    if hidden.returncode != plain.returncode or hidden.stdout != plain.stdout:
        failures.append(f"score with {', '.join(list(LAZY) + also)} hidden: exit "
                        f"{hidden.returncode}, {len(hidden.stdout)} bytes; without: exit "
                        f"{plain.returncode}, {len(plain.stdout)} bytes: "
                        + hidden.stderr.decode(errors="replace").strip()[:200])

    env = dict(os.environ, OPENAI_API_KEY="not-used")
    cases = [
        ("libcurl.so.4", [binary, "ask", example, "why is it slow?", "--base-url",
                          "http://127.0.0.1:9/v1", "--model", "m", "--no-stream"], 1, env),
        ("libpq.so.5", [binary, "history", "postgresql://127.0.0.1:9/cookgraph"], 2, None),
        ("libcgraph.so.6", [binary, "graph", graph_example, "--format", "svg"], 1, None),
        ("libgvc.so.6", [binary, "graph", graph_example, "--format", "svg"], 1, None),
    ]
    for soname, argv, code, run_env in cases:
        run = hidden_run([soname], argv, run_env)
        lines = run.stderr.decode(errors="replace").strip().splitlines()
        want = f"cannot load {soname} (install Debian's {LAZY[soname]}): "
        last = lines[-1] if lines else ""
        if run.returncode != code or not last.startswith("cookgraph: error: ") or want not in last:
            failures.append(f"{argv[1]} with {soname} hidden: exit {run.returncode} (want {code}), "
                            f"last line {last!r}")
        if run.stdout:
            failures.append(f"{argv[1]} with {soname} hidden wrote {len(run.stdout)} bytes of output")

    for f in failures:
        print("lazy_libraries_check: " + f)
    if not failures:
        print(f"lazy_libraries_check: {', '.join(LAZY)} load on use; score runs without them; "
              f"{len(cases)} commands that need one say which, in one line")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
