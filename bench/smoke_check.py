#!/usr/bin/env python3
"""ctest's bench smoke test (bench/bench.cmake): the bench's pieces fit together.

    smoke_check.py COOKGRAPH WORK_DIR [SIMDJSON_FLOOR]

Runs bench/'s generators at tiny sizes (a 400-node x 30-frame snapshot, a
1 MB Kineto-style trace, a batch of 3 snapshots), has `cookgraph score
--format json` read each, and checks that bench/baseline_score.py computes the
same per-node avg_ms, std_ms, score and per_frame_ms within 1e-9 relative
(1e-12 ms absolute for values near zero): the proof that the Python baseline
of bench/run.sh does the same work as cookgraph. Also: the trace's frames are
its ProfilerStep#N spans, the generators give the same bytes twice, and the
simdjson floor (when built) reads every file, and its strict pass (--strict:
ph, name, ts and dur) every event of the trace.
"""

import filecmp
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
REL, ABS = 1e-9, 1e-12


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAILED ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-3000:]}")
    return r.stdout


def close(a, b):
    return abs(a - b) <= max(ABS, REL * max(abs(a), abs(b)))


def compare(cookgraph, path):
    ours = json.loads(run([cookgraph, "score", path, "--format", "json", "--top", "0"]))
    theirs = json.loads(run([PY, os.path.join(HERE, "baseline_score.py"), path, "--json"]))
    problems = []
    for snap, base in zip(ours["snapshots"], theirs):
        a = {n["id"]: n for n in snap["nodes"]}
        b = {n["id"]: n for n in base["nodes"]}
        if set(a) != set(b):
            only = sorted(set(a) ^ set(b))[:5]
            problems.append(f"{path}: node sets differ ({len(a)} vs {len(b)}), e.g. {only}")
            continue
        for nid in a:
            for key in ("avg_ms", "std_ms", "score", "per_frame_ms"):
                x, y = a[nid][key], b[nid][key]
                if (x is None) != (y is None) or (x is not None and not close(x, y)):
                    problems.append(f"{snap['file']}: {nid} {key}: cookgraph {x!r}, Python {y!r}")
    if len(ours["snapshots"]) != len(theirs):
        problems.append(f"{path}: {len(ours['snapshots'])} snapshots vs {len(theirs)}")
    return ours, problems


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cookgraph, work = sys.argv[1], sys.argv[2]
    floor = sys.argv[3] if len(sys.argv) > 3 else ""
    try:
        import networkx  # noqa: F401
    except ImportError:
        sys.exit(f"{PY} has no networkx: install python3-networkx (scripts/install-deps.sh)")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    native = os.path.join(work, "native.json")
    kineto = os.path.join(work, "kineto.json")
    batch = os.path.join(work, "batch")
    run([PY, os.path.join(HERE, "gen_native.py"), "400", "30", "--out", native])
    run([PY, os.path.join(HERE, "gen_kineto.py"), "1", "--out", kineto, "--ops-per-step", "20"])
    run([PY, os.path.join(HERE, "gen_batch.py"), "3", "--nodes", "120", "--frames", "20",
         "--out", batch])
    again = os.path.join(work, "again.json")
    run([PY, os.path.join(HERE, "gen_kineto.py"), "1", "--out", again, "--ops-per-step", "20"])
    problems = []
    if not filecmp.cmp(kineto, again, shallow=False):
        problems.append("gen_kineto.py wrote different bytes for the same arguments")
    run([PY, os.path.join(HERE, "gen_native.py"), "400", "30", "--out", again])
    if not filecmp.cmp(native, again, shallow=False):
        problems.append("gen_native.py wrote different bytes for the same arguments")
    os.unlink(again)

    for path in (native, kineto, batch):
        ours, found = compare(cookgraph, path)
        problems += found
        for snap in ours["snapshots"]:
            nodes = snap["nodes"]
            print(f"{snap['file']}: {snap['engine']}, {snap['frames']} frames, {len(nodes)} nodes "
                  f"agree with the Python baseline")
            if path == kineto:
                steps = sum(1 for line in open(kineto) if '"cat":"user_annotation","name":'
                            '"ProfilerStep#' in line)
                if snap["engine"] != "pytorch" or snap["frames"] != steps or steps < 2:
                    problems.append(f"{kineto}: read as {snap['engine']} with {snap['frames']} "
                                    f"frames; the trace has {steps} ProfilerStep#N on the CPU")
    if floor and os.path.exists(floor):
        out = run([floor, native, kineto] + sorted(
            os.path.join(batch, f) for f in os.listdir(batch)))
        print(out, end="")
        # The strict floor (ph, name, ts, dur) reads every event of the trace
        # too, and fewer of its values than the full one.
        strict = run([floor, "--strict", kineto])
        print(strict, end="")
        full = next(line for line in out.splitlines() if line.startswith(kineto + ":"))
        count = lambda line, what: int(line.split(what)[0].split(",")[-1].split(":")[-1])
        if count(strict, " nodes/events") != count(full, " nodes/events") or \
                count(strict, " strings") >= count(full, " strings"):
            problems.append(f"{kineto}: the strict floor read '{strict.strip()}', the full "
                            f"one '{full.strip()}'")
    for p in problems[:20]:
        print(p)
    if problems:
        print(f"{len(problems)} problems")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
