#!/usr/bin/env python3
"""Holistic Trace Analysis' own launch statistics, kept, and cookgraph's against them.

hta_oracle.py --regenerate --hta HTA_DIR FIGURES TRACE...
hta_oracle.py --compare COOKGRAPH FIGURES [--perturb]

--regenerate runs Meta's HTA itself (HTA_DIR: a checkout at commit f4d0062,
with Debian's python3-pandas, python3-plotly and python3-pydot installed) on
each TRACE (a Kineto trace file, or a folder of one trace file per rank),
each copied into a folder of its own and read with
`TraceAnalysis(trace_dir=...)` and HTA's defaults (the last ProfilerStep left
out, as cookgraph does): `get_cuda_kernel_launch_stats` over every rank gives
one launch delay per (launch call, GPU event) pair, kernel start minus the
call's end clipped at 0. Pooled over the ranks: their count, mean, p50 and
p95 (NumPy's linear percentile) and max, in ms, are written to FIGURES (JSON,
with the HTA commit and each TRACE's path relative to the repository).

--compare runs `cookgraph score TRACE --format json` on each TRACE of FIGURES
and compares gpu.launches with HTA's figures: the count exactly, the delays
to 0.5 ns (floating-point noise). The traces here carry whole-microsecond
timestamps, where HTA's rounding (each fractional start up, each end down,
before measuring) changes nothing; on a fractional one cookgraph, which keeps
nanoseconds, may differ from HTA by up to 2 µs a delay (docs/architecture.md,
"Launch statistics"). --perturb adds 5 µs to HTA's p50 of every trace first:
the comparison must then fail (exit 1), which shows it can. Exit 0 when
every trace agrees, 1 otherwise.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HTA_COMMIT = "f4d0062c382f42bd8a74838bcdad1916c7d5d2da"
TOLERANCE_MS = 5e-7
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def percentile(values, q):
    """NumPy's default (linear) percentile of sorted `values`."""
    h = (len(values) - 1) * q
    lo = int(h)
    if lo + 1 >= len(values):
        return values[-1]
    return values[lo] + (h - lo) * (values[lo + 1] - values[lo])


def hta_figures(trace, work):
    """HTA's launch statistics (ms) of every rank of `trace`, pooled."""
    from hta.trace_analysis import TraceAnalysis  # after sys.path names HTA_DIR
    folder = os.path.join(work, os.path.basename(trace.rstrip("/")) + ".d")
    os.makedirs(folder)
    if os.path.isdir(trace):
        for name in sorted(os.listdir(trace)):
            shutil.copy(os.path.join(trace, name), folder)
    else:
        shutil.copy(trace, folder)
    analysis = TraceAnalysis(trace_dir=folder)
    ranks = sorted(analysis.t.traces.keys())
    stats = analysis.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    delays = sorted(float(v) for rank in ranks for v in stats[rank]["launch_delay"])
    out = {"count": len(delays)}
    if delays:
        out.update(mean=sum(delays) / len(delays) / 1000, p50=percentile(delays, 0.5) / 1000,
                   p95=percentile(delays, 0.95) / 1000, max=delays[-1] / 1000)
    return out


def regenerate(hta_dir, figures, traces):
    sys.path.insert(0, os.path.abspath(hta_dir))
    doc = {"hta_commit": HTA_COMMIT,
           "what": "get_cuda_kernel_launch_stats launch delays, pooled over ranks, ms",
           "traces": {}}
    with tempfile.TemporaryDirectory() as work:
        for trace in traces:
            key = os.path.relpath(os.path.abspath(trace), ROOT)
            doc["traces"][key] = hta_figures(trace, work)
            print(f"hta_oracle: {key}: {doc['traces'][key]}")
    with open(figures, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


def compare(cookgraph, figures, perturb):
    with open(figures, encoding="utf-8") as f:
        doc = json.load(f)
    problems = []
    for key, want in sorted(doc["traces"].items()):
        want = dict(want)
        if perturb and "p50" in want:
            want["p50"] += 0.005
        trace = os.path.join(ROOT, key)
        run = subprocess.run([cookgraph, "score", trace, "--format", "json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{key}: cookgraph score exited {run.returncode}: "
                            f"{run.stderr.strip()[:500]}")
            continue
        launches = (json.loads(run.stdout)["snapshots"][0].get("gpu") or {}).get("launches")
        if launches is None:
            problems.append(f"{key}: cookgraph gives no gpu.launches; HTA has {want['count']}")
            continue
        got = dict(count=launches["count"], **launches["delay_ms"])
        if got["count"] != want["count"]:
            problems.append(f"{key}: {got['count']} launches, HTA {want['count']}")
        line = [f"{key}: {want['count']} launches"]
        for stat in ("mean", "p50", "p95", "max"):
            if stat not in want:
                continue
            w, g = want[stat], got.get(stat)
            line.append(f"{stat} {g} ms (HTA {w:.6f})")
            if g is None or abs(g - w) > TOLERANCE_MS:
                problems.append(f"{key}: launch delay {stat} {g} ms, HTA {w:.6f} ms")
        print("hta_oracle: " + ", ".join(line))
    for p in problems:
        print("hta_oracle: " + p)
    if perturb:
        print("hta_oracle: the perturbed p50 was " + ("caught" if problems else "NOT caught"))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--hta")
    ap.add_argument("--compare", metavar="COOKGRAPH")
    ap.add_argument("--perturb", action="store_true")
    ap.add_argument("figures")
    ap.add_argument("traces", nargs="*")
    a = ap.parse_args()
    if a.regenerate:
        if not a.hta or not a.traces:
            ap.error("--regenerate needs --hta HTA_DIR and traces")
        return regenerate(a.hta, a.figures, a.traces)
    if not a.compare:
        ap.error("give --regenerate or --compare COOKGRAPH")
    return compare(a.compare, a.figures, a.perturb)


if __name__ == "__main__":
    sys.exit(main())
