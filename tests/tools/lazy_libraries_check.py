#!/usr/bin/env python3
"""Checks that cookgraph loads libcurl, libpq, Graphviz and the explorer's HTTP
server (its module libcookgraph_http.so, with cpp-httplib, OpenSSL and
Brotli) only when a command uses them (docs/performance.md#start-up).

usage: lazy_libraries_check.py COOKGRAPH REPO_ROOT [--also-hide SONAME]

1. The binary's dynamic section (readelf -d) needs none of them.
2. In a private mount namespace (unshare -m, as root), each library file is
   hidden by /dev/null bound over it. With all four hidden, `score` prints the
   same bytes as with them; `ask`, `history postgresql://` and `graph --format
   svg` each fail with one line "cookgraph: error: ...: cannot load SONAME
   (install Debian's PACKAGE): ..." and their documented exit code.
3. `serve` with cpp-httplib hidden, and from a copy of the binary without
   the module beside it or in ../lib/cookgraph, fails with one line and
   exit 1 before reading its input; with the module in either place it
   serves the page.

--also-hide SONAME hides one more library for the `score` run: the perturbed
twin hides libfmt.so.9, which the binary does need, and must fail, which
proves that a hidden library is seen at all. Exit 0 when every check holds,
1 when one fails (each failure one line), 2 when the check cannot run here.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

LAZY = {  # soname -> Debian package
    "libcurl.so.4": "libcurl4",
    "libpq.so.5": "libpq5",
    "libgvc.so.6": "libgvc6",
    "libcgraph.so.6": "libcgraph6",
}
LIBDIR = "/usr/lib/x86_64-linux-gnu"
# What only the explorer's module needs (server/http_backend.h).
MODULE = "libcookgraph_http.so"
MODULE_NEEDS = ["libcpp-httplib.so.0.11", "libssl.so.3", "libcrypto.so.3"]


def needed(binary):
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    return {line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line}


def hidden_run(hide, argv, env=None):
    """argv run with each of `hide` (file names in LIBDIR) bound to /dev/null."""
    mounts = " && ".join(f"mount --bind /dev/null {LIBDIR}/{name}" for name in hide)
    script = f'{mounts} && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *argv],
                          capture_output=True, env=env, timeout=120)


def serves(binary, example):
    """Whether `binary serve --port 0 example` announces the explorer (on
    stdout) within 30 s and answers its index with the API's document."""
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--no-token", example],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()  # the first line, or "" when it ends first
        if "explorer at http://" not in line:
            return False
        url = line.split("explorer at ", 1)[1].split()[0]
        with urllib.request.urlopen(url + "api/index", timeout=30) as answer:
            return answer.status == 200 and b'"cookgraph"' in answer.read()
    except OSError:
        return False
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def one_line_exit_1(run, want, what):
    """The failures of a `serve` that must stop with one line naming `want`."""
    lines = run.stderr.decode(errors="replace").strip().splitlines()
    if run.returncode != 1 or len(lines) != 1 or not lines[0].startswith("cookgraph: error: ") \
            or want not in lines[0]:
        return [f"serve {what}: exit {run.returncode} (want 1), stderr {lines[-3:]!r}"]
    return [f"serve {what} wrote {len(run.stdout)} bytes of output"] if run.stdout else []


def module_failures(binary, example):
    """Step 3: the explorer's module, opened by `serve` alone."""
    failures = []
    present = needed(binary)
    for soname in MODULE_NEEDS:
        if soname in present:
            failures.append(f"{binary} needs {soname} at start-up (readelf -d)")
    module = os.path.join(os.path.dirname(os.path.dirname(binary)), "lib", "cookgraph", MODULE)
    if not os.path.exists(module):
        return failures + [f"no {module} beside the build's binary"]
    argv = [binary, "serve", "--port", "0", example]
    failures += one_line_exit_1(hidden_run([MODULE_NEEDS[0]], argv), "(it needs Debian's "
                                "libcpp-httplib0.11): ", f"with {MODULE_NEEDS[0]} hidden")
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = os.path.join(tmp, "bin")
        os.makedirs(bin_dir)
        alone = shutil.copy(binary, bin_dir)
        run = subprocess.run([alone, "serve", "--port", "0", example], capture_output=True,
                             timeout=120)
        failures += one_line_exit_1(run, f"{MODULE}, is not installed (looked in {bin_dir} or "
                                    f"{os.path.join(tmp, 'lib', 'cookgraph')})", "without the module")
        installed = os.path.join(tmp, "lib", "cookgraph")
        os.makedirs(installed)
        shutil.copy(module, installed)
        if not serves(alone, example):
            failures.append(f"serve with the module in {installed} did not start")
        os.remove(os.path.join(installed, MODULE))
        shutil.copy(module, bin_dir)
        if not serves(alone, example):
            failures.append("serve with the module beside the binary did not start")
    return failures


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

    failures += module_failures(binary, example)
    for f in failures:
        print("lazy_libraries_check: " + f)
    if not failures:
        print(f"lazy_libraries_check: {', '.join(LAZY)} load on use; score runs without them; "
              f"{len(cases)} commands that need one say which, in one line; serve opens "
              f"{MODULE} beside the binary or in ../lib/cookgraph, and says in one line "
              "when it cannot")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
