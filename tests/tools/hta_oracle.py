#!/usr/bin/env python3
"""Runs Holistic Trace Analysis itself and compares cookgraph's launch statistics.

hta_oracle.py --cookgraph COOKGRAPH --hta HTA_DIR TRACE... [--perturb]

HTA_DIR is Meta's HTA at commit f4d0062 (../shared/reference/hta: see its
README.cookgraph.md). Each TRACE (a Kineto trace file, or a folder of one
trace file per rank) is copied into a folder of its own and read with
`TraceAnalysis(trace_dir=...)`, with HTA's defaults (the last ProfilerStep
left out, as cookgraph does); `get_cuda_kernel_launch_stats` over every rank
gives one launch delay per (launch call, GPU event) pair: kernel start minus
the call's end, clipped at 0. Pooled over the ranks, their count must equal
`cookgraph score TRACE --format json`'s gpu.launches.count, and their mean,
p50, p95 (NumPy's linear percentile) and max must equal delay_ms's to 0.5 ns
(floating-point noise). The traces given here carry whole-microsecond
timestamps, where HTA's rounding (each fractional start up, each end down,
before measuring) changes nothing; on a fractional one cookgraph, which
keeps nanoseconds, may differ from HTA by up to 2 µs a delay
(docs/architecture.md, "Launch statistics").

--perturb adds 0.005 ms to HTA's p50 first: the run must then fail, which
shows the comparison can. Exit 0 when every trace agrees, 1 otherwise, 77
when HTA cannot be imported (a missing Debian package: the message names it).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOLERANCE_MS = 5e-7


def percentile(values, q):
    """NumPy's default (linear) percentile of sorted `values`."""
    h = (len(values) - 1) * q
    lo = int(h)
    if lo + 1 >= len(values):
        return values[-1]
    return values[lo] + (h - lo) * (values[lo + 1] - values[lo])


def hta_launch_delays(trace, work):
    """HTA's launch delays (µs) of every rank of `trace`."""
    from hta.trace_analysis import TraceAnalysis  # noqa: E402 (after sys.path is set)
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
    delays = []
    for rank in ranks:
        delays.extend(float(v) for v in stats[rank]["launch_delay"])
    return sorted(delays)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cookgraph", required=True)
    ap.add_argument("--hta", required=True)
    ap.add_argument("--perturb", action="store_true")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.hta))
    try:
        import hta.trace_analysis  # noqa: F401
    except ImportError as e:
        print(f"hta_oracle: cannot import HTA from {a.hta}: {e} "
              "(scripts/install-deps.sh installs python3-plotly and python3-pydot)")
        return 77
    problems = []
    with tempfile.TemporaryDirectory() as work:
        for trace in a.traces:
            delays = hta_launch_delays(trace, work)
            want = {"count": len(delays)}
            if delays:
                want.update(mean=sum(delays) / len(delays) / 1000,
                            p50=percentile(delays, 0.5) / 1000,
                            p95=percentile(delays, 0.95) / 1000, max=delays[-1] / 1000)
            if a.perturb and "p50" in want:
                want["p50"] += 0.005
            run = subprocess.run([a.cookgraph, "score", trace, "--format", "json"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{trace}: cookgraph score exited {run.returncode}: "
                                f"{run.stderr.strip()[:500]}")
                continue
            launches = (json.loads(run.stdout)["snapshots"][0].get("gpu") or {}).get("launches")
            if launches is None:
                problems.append(f"{trace}: cookgraph gives no gpu.launches; HTA has {len(delays)}")
                continue
            got = dict(count=launches["count"], **launches["delay_ms"])
            line = [f"{trace}: {want['count']} launches"]
            if got["count"] != want["count"]:
                problems.append(f"{trace}: {got['count']} launches, HTA {want['count']}")
            for key in ("mean", "p50", "p95", "max"):
                if key not in want:
                    continue
                w, g = want[key], got.get(key)
                line.append(f"{key} {g} ms (HTA {w:.6f})")
                if g is None or abs(g - w) > TOLERANCE_MS:
                    problems.append(f"{trace}: launch delay {key} {g} ms, HTA {w:.6f} ms "
                                    f"(tolerance {TOLERANCE_MS} ms)")
            print("hta_oracle: " + ", ".join(line))
    for p in problems:
        print("hta_oracle: " + p)
    if a.perturb:
        if problems:
            print("hta_oracle: the perturbed p50 was caught")
            return 1
        print("hta_oracle: the perturbed p50 was NOT caught")
        return 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
