#!/usr/bin/env python3
"""Traces stored run after run form one series in `cookgraph history`.

    python3 tests/tools/history_series_check.py COOKGRAPH WORK_DIR [--perturb]

PyTorch's profiler names every trace WORKER.TIMESTAMP.pt.trace.json, the
worker being host_pid: three runs of one job get three names. This writes a
Kineto trace of 30 steps (one aten::mm per step, seeded noise) as run 1 and
run 2, and a copy whose op takes 30% longer as run 3, under three such names
in one folder (job/), and checks:

- `score FILE --store DB` of each, then `history DB --format json`: one
  series, "job/pt.trace", with the three runs; run 3 flagged (the step time
  and aten::mm), runs 1 and 2 not; no warning;
- `history DB --fail-on-regression` exits 4 (the latest run is flagged);
- `score --store DB2 --name myjob` of three other names forms the series
  "myjob" the same way; --name with two inputs is an error (exit 2);
- the same three traces under names that are not PyTorch's (a.json, b.json,
  c.json) and no --name: three series of one run; history flags nothing and
  warns, in its JSON and its text, that every series has a single run.

--perturb makes run 3 as fast as the others: the flag it expects is then
missing, and the check must fail. Exit 0 when all holds, 1 otherwise.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys


def trace(slowdown, seed):
    rnd = random.Random(seed)
    events, ts = [], 0
    for step in range(30):
        dur = 1000 * slowdown * (1 + 0.03 * rnd.gauss(0, 1))
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}",
                       "pid": 1, "tid": 1, "ts": ts, "dur": round(dur + 40, 3)})
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                       "ts": ts + 20, "dur": round(dur, 3)})
        ts += 2000
    return {"schemaVersion": 1, "traceEvents": events}


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def cookgraph(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cookgraph")
    ap.add_argument("work")
    ap.add_argument("--perturb", action="store_true")
    a = ap.parse_args()
    if a.perturb:  # the twin may run beside the check: a folder of its own
        a.work += "-perturbed"
    shutil.rmtree(a.work, ignore_errors=True)
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    runs = [trace(1.0, 1), trace(1.0, 2), trace(1.0 if a.perturb else 1.3, 3)]
    kineto = [os.path.join(a.work, "job", f"gpu-box-{i}_{4100 + i}.{1764400000000 + 7 * i}.pt.trace.json")
              for i in range(3)]
    for path, doc in zip(kineto, runs):
        write(path, doc)
    db = os.path.join(a.work, "kineto.db")
    for path in kineto:
        done = cookgraph(a.cookgraph, "score", path, "--store", db)
        expect(done.returncode == 0, f"score --store {path}: exit {done.returncode}: {done.stderr}")
    hist = cookgraph(a.cookgraph, "history", db, "--format", "json")
    doc = json.loads(hist.stdout) if hist.returncode == 0 else {}
    keys = [s["snapshot"] for s in doc.get("snapshots", [])]
    expect(keys == ["job/pt.trace"], f"the series are {keys}, expected ['job/pt.trace']")
    flagged = {(f["run"], f["what"], f.get("node")) for f in doc.get("flags", [])}
    expect((3, "frame_time", None) in {(r, w, None if w == "frame_time" else n) for r, w, n in flagged},
           f"run 3's step time is not flagged: {sorted(flagged, key=str)}")
    expect((3, "node", "aten::mm") in flagged, f"run 3's aten::mm is not flagged: {sorted(flagged, key=str)}")
    expect(all(r == 3 for r, _, _ in flagged), f"runs other than 3 flagged: {sorted(flagged, key=str)}")
    expect(not doc.get("warnings"), f"warnings on one series of three runs: {doc.get('warnings')}")
    gate = cookgraph(a.cookgraph, "history", db, "--fail-on-regression")
    expect(gate.returncode == 4, f"history --fail-on-regression exits {gate.returncode}, expected 4")

    named = [os.path.join(a.work, "named", f"trace-{i}.json") for i in range(3)]
    db2 = os.path.join(a.work, "named.db")
    for path, doc in zip(named, runs):
        write(path, doc)
        cookgraph(a.cookgraph, "score", path, "--store", db2, "--name", "myjob")
    doc2 = json.loads(cookgraph(a.cookgraph, "history", db2, "--format", "json").stdout or "{}")
    expect([s["snapshot"] for s in doc2.get("snapshots", [])] == ["myjob"],
           f"--name: the series are {[s['snapshot'] for s in doc2.get('snapshots', [])]}")
    expect(any(f["run"] == 3 for f in doc2.get("flags", [])), "--name: run 3 is not flagged")
    two = cookgraph(a.cookgraph, "score", named[0], named[1], "--store", db2, "--name", "myjob")
    expect(two.returncode == 2 and "--name" in two.stderr,
           f"--name with two inputs: exit {two.returncode}: {two.stderr.strip()}")

    plain = [os.path.join(a.work, "plain", f"{c}.json") for c in "abc"]
    db3 = os.path.join(a.work, "plain.db")
    for path, doc in zip(plain, runs):
        write(path, doc)
        cookgraph(a.cookgraph, "score", path, "--store", db3)
    doc3 = json.loads(cookgraph(a.cookgraph, "history", db3, "--format", "json").stdout or "{}")
    expect(len(doc3.get("snapshots", [])) == 3 and not doc3.get("flags"),
           "other names: expected three series and no flag")
    expect(any("every stored series has a single run" in w for w in doc3.get("warnings", [])),
           f"other names: no warning that nothing was compared: {doc3.get('warnings')}")
    text = cookgraph(a.cookgraph, "history", db3).stdout
    expect("warning: every stored series has a single run" in text and
           "no run got significantly worse" not in text,
           "other names: the text does not warn, or still says no run got worse")

    for f in failures:
        print("history_series_check: " + f)
    if not failures:
        print("history_series_check: three PyTorch-named traces form one series (job/pt.trace), "
              "run 3 flagged, --fail-on-regression exits 4; --name forms one; other names warn")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
