#!/usr/bin/env python3
"""Every file cookgraph writes appears whole or not at all (writers/atomic_file.h).

usage: atomic_writes_check.py COOKGRAPH SOURCE_DIR WORK_DIR

For each writing command (convert to .json, .json.gz and .yaml, trace -o,
graph -o in svg and dot, report -o in html and md, watch --record), with an
existing target holding known bytes:

1. a failure half-way through the write: the command runs under a file-size
   limit of 4 KiB (ulimit -f; it binds root too, unlike read-only folders), so
   the write fails with EFBIG after the first 4 KiB. It must exit 2 with one
   line naming the target, leave the old target byte for byte and no
   "<target>.tmp.*" file;
2. the same command without the limit replaces the target whole (the check
   is not passing because nothing is ever written);
3. a target whose folder is a file: exit 2, one line naming it, nothing made.

Then an interruption during a long write: `convert` of a generated snapshot
of 4,000 nodes x 400 frames to .json.gz (SIGTERM) and `trace -o` of it
(SIGINT), the signal sent as soon as the temporary file appears. The process
must end by that signal, leave the old target and no temporary file. A write
that finished before the signal landed is a failure of the set-up (the input
is too small for this machine), not a pass.
"""

import json
import os
import pathlib
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import time

OLD = b"the old contents\n"
problems = []


def fail(message):
    problems.append(message)
    print("atomic_writes_check: " + message, file=sys.stderr)


def leftovers(folder, name):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(name + ".tmp."))


def limited(limit_bytes):
    """preexec_fn: a file-size limit, SIGXFSZ at its default (cookgraph must cope)."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, resource.RLIM_INFINITY))
    return apply


def run(args, limit=None, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120,
                          preexec_fn=limited(limit) if limit else None, **kwargs)


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("cookgraph: error: ")]


def check_write(label, make_args, folder, name, min_size=4097):
    """Steps 1 to 3 for one command; make_args(target) gives its arguments."""
    before = len(problems)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_bytes(OLD)
    r = run(make_args(target), limit=4096)
    if r.returncode != 2:
        fail(f"{label}: half-way failure exited {r.returncode}, not 2: {r.stderr.strip()}")
    errors = error_lines(r.stderr)
    if len(errors) != 1 or str(target) not in errors[0] or "File too large" not in errors[0]:
        fail(f"{label}: half-way failure is not one error line naming {target}: {r.stderr!r}")
    if target.read_bytes() != OLD:
        fail(f"{label}: the old target was changed by a failed write")
    if leftovers(folder, name):
        fail(f"{label}: temporary files left: {leftovers(folder, name)}")

    r = run(make_args(target))
    if r.returncode != 0:
        fail(f"{label}: the write without a limit failed ({r.returncode}): {r.stderr.strip()}")
    elif target.stat().st_size < min_size:
        fail(f"{label}: {target} has {target.stat().st_size} bytes: too small to test a "
             "failure half-way")
    if leftovers(folder, name):
        fail(f"{label}: temporary files left after success: {leftovers(folder, name)}")

    blocker = folder / "a-file"
    blocker.write_bytes(OLD)
    inside = blocker / name
    r = run(make_args(inside))
    errors = error_lines(r.stderr)
    if r.returncode != 2 or len(errors) != 1 or str(inside) not in errors[0]:
        fail(f"{label}: a folder that is a file: exit {r.returncode}, {r.stderr!r}")
    if sorted(p.name for p in folder.iterdir()) != sorted([name, "a-file"]):
        fail(f"{label}: files made beside a failed write: {sorted(os.listdir(folder))}")
    if len(problems) == before:
        print(f"{label}: ok")


def watch_args(cookgraph, frames, nodes):
    """A make_args for `watch --record`: sends `frames` JSON-line frames over UDP."""
    def make(target):
        return [cookgraph, "watch", "--listen",
                "udp://127.0.0.1:0", "--frames", str(frames), "--duration", "30",
                "--record", str(target), "--format", "json"]

    def feed(process):
        # The port is in the first line on standard error.
        line = process.stderr.readline()
        found = re.search(r"listening on udp://127\.0\.0\.1:(\d+)", line)
        if not found:
            return line
        port = int(found.group(1))
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for f in range(frames + 1):  # the next frame completes the last one
            cooks = ", ".join(f'"/p/node{n:03d}": {1 + (f * 7 + n) % 13 / 10}' for n in range(nodes))
            sock.sendto(f'{{"frame": {f}, "nodes": {{{cooks}}}}}'.encode(), ("127.0.0.1", port))
            time.sleep(0.001)
        sock.close()
        return line
    return make, feed


def check_watch(cookgraph, folder):
    """check_write for watch --record, which needs frames sent while it runs."""
    before = len(problems)
    make, feed = watch_args(cookgraph, frames=40, nodes=60)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "live.json"
    label = "watch --record"

    def once(path, limit):
        p = subprocess.Popen(make(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=limited(limit) if limit else None)
        first = feed(p)
        out, err = p.communicate(timeout=60)
        return p.returncode, first + err

    target.write_bytes(OLD)
    code, err = once(target, 4096)
    errors = error_lines(err)
    if code != 2 or len(errors) != 1 or str(target) not in errors[0] \
            or "File too large" not in errors[0]:
        fail(f"{label}: half-way failure: exit {code}, {err!r}")
    if target.read_bytes() != OLD or leftovers(folder, "live.json"):
        fail(f"{label}: the old record changed or a temporary file was left")
    code, err = once(target, None)
    if code != 0 or target.stat().st_size < 4097 or leftovers(folder, "live.json"):
        fail(f"{label}: the write without a limit: exit {code}, "
             f"{target.stat().st_size} bytes, {err!r}")
    if len(problems) == before:
        print(f"{label}: ok")


def big_snapshot(path, nodes, frames):
    """A native snapshot with a chain of nodes and a value per node and frame."""
    rnd = random.Random(6)
    with open(path, "w") as out:
        out.write('{"cookgraph": 1, "engine": "touchdesigner", "name": "big", "nodes": [\n')
        for n in range(nodes):
            node = {"id": f"/p/c{n // 50}/op{n}", "type": "levelTOP", "family": "TOP"}
            if n % 50:
                node["inputs"] = [f"/p/c{n // 50}/op{n - 1}"]
            out.write(("," if n else "") + json.dumps(node) + "\n")
        out.write('], "frames": {"index": ' + json.dumps(list(range(frames))) + ', "series": {\n')
        for n in range(nodes):
            values = [round(rnd.uniform(0.01, 2.0), 4) for _ in range(frames)]
            out.write(("," if n else "") + f'"/p/c{n // 50}/op{n}": {{"cook_ms": '
                      + json.dumps(values) + "}\n")
        out.write("}}}\n")


def check_interrupted(label, args, folder, name, sig):
    before = len(problems)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    target.write_bytes(OLD)
    p = subprocess.Popen(args + [str(target)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    sent = False
    while time.monotonic() < deadline and p.poll() is None:
        if leftovers(folder, name):
            p.send_signal(sig)
            sent = True
            break
        time.sleep(0.002)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        fail(f"{label}: did not end after {sig.name}")
        return
    if not sent:
        fail(f"{label}: the write ended ({p.returncode}) before its temporary file was seen: "
             f"{err.strip()}")
    elif p.returncode != -sig:
        fail(f"{label}: ended with {p.returncode}, not by {sig.name} (the write finished "
             f"first? make the input larger): {err.strip()}")
    if target.read_bytes() != OLD:
        fail(f"{label}: the target is not the old file after {sig.name}")
    if leftovers(folder, name):
        fail(f"{label}: temporary files left after {sig.name}: {leftovers(folder, name)}")
    if len(problems) == before:
        print(f"{label}: ok ({sig.name} during the write)")


def main():
    cookgraph, source, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    example = str(source / "examples" / "touchdesigner_feedback.json")
    writers = [
        ("convert -o .json", "snapshot.json", lambda t: [cookgraph, "convert", example, "-o", t]),
        ("convert -o .json.gz", "snapshot.json.gz",
         lambda t: [cookgraph, "convert", example, "-o", t]),
        ("convert -o .yaml", "snapshot.yaml", lambda t: [cookgraph, "convert", example, "-o", t]),
        ("trace -o", "trace.json", lambda t: [cookgraph, "trace", example, "-o", t]),
        ("graph --format svg -o", "graph.svg",
         lambda t: [cookgraph, "graph", example, "--format", "svg", "-o", t]),
        ("graph --format dot -o", "graph.dot",
         lambda t: [cookgraph, "graph", example, "--format", "dot", "-o", t]),
        ("report -o .html", "report.html",
         lambda t: [cookgraph, "report", example, "-o", t, "--no-llm"]),
        ("report -o .md", "report.md", lambda t: [cookgraph, "report", example, "-o", t, "--no-llm"]),
    ]
    for i, (label, name, make) in enumerate(writers):
        check_write(label, lambda t, make=make: [str(a) for a in make(str(t))],
                    work / f"w{i}", name)
    check_watch(cookgraph, work / "watch")

    big = work / "big.json"
    if not big.exists():
        big_snapshot(big, 4000, 400)
    check_interrupted("convert -o .json.gz", [cookgraph, "convert", str(big), "-o"],
                      work / "sigterm", "big.json.gz", signal.SIGTERM)
    check_interrupted("trace -o", [cookgraph, "trace", str(big), "-o"], work / "sigint",
                      "trace.json", signal.SIGINT)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
