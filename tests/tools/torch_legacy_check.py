#!/usr/bin/env python3
"""A recorded legacy PyTorch trace, read as PyTorch by cookgraph.

    torch_legacy_check.py COOKGRAPH TRACE [--perturb]

Reads TRACE (written by tests/tools/torch_record.py: Debian's PyTorch without
Kineto, the autograd-profiler layout) with the standard library, and runs
`COOKGRAPH score TRACE --format json` and `--keep-warmup`. What must hold
(docs/formats.md#pytorch-legacy-export, #warm-up):
- the layout is the legacy one (a bare array, "pid": "CPU functions", no "cat"),
  and cookgraph says engine "pytorch", no frame budget, no over-budget count;
- its steps are the ProfilerStep#N spans, less the first when that one took at
  least 1.5 times the median of the others (a warm-up): then a warning names
  it as "step N is a warm-up", and --keep-warmup counts every step;
- the event critical path is not empty: nodes that are event names of the
  trace, and a length per step no longer than the slowest counted step.
--perturb expects one step more than the trace has: the check must then fail.
Exit 0 when all holds, 1 otherwise (each failure on its own line).
"""

import argparse
import json
import statistics
import subprocess
import sys


def score(cookgraph, trace, *extra):
    run = subprocess.run([cookgraph, "score", trace, "--format", "json", *extra],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"torch_legacy_check.py: cookgraph score exited {run.returncode}: {run.stderr}")
    return json.loads(run.stdout)["snapshots"][0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cookgraph")
    parser.add_argument("trace")
    parser.add_argument("--perturb", action="store_true")
    args = parser.parse_args()
    with open(args.trace, encoding="utf-8") as f:
        events = json.load(f)
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: cookgraph says {got!r}, expected {want!r}")

    if not isinstance(events, list) or any("cat" in e for e in events) or \
            any(e.get("pid") != "CPU functions" for e in events):
        failures.append("the trace is not in the legacy autograd-profiler layout")
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#"))
    spans = [end - start for start, end in steps]
    warm = len(spans) >= 3 and 2 * spans[0] >= 3 * statistics.median(spans[1:])
    counted = len(spans) - warm + (1 if args.perturb else 0)
    names = {e["name"] for e in events}

    s = score(args.cookgraph, args.trace)
    expect("engine", s["engine"], "pytorch")
    expect("frame budget", s["frame_budget_ms"], None)
    expect("over-budget steps", s["over_budget_frames"], None)
    expect("steps", s["frames"], counted)
    warned = [w for w in s["warnings"] if " is a warm-up (" in w]
    expect("warm-up named", len(warned), 1 if warm else 0)
    kept = score(args.cookgraph, args.trace, "--keep-warmup")
    expect("steps with --keep-warmup", kept["frames"], len(spans) + (1 if args.perturb else 0))
    path = s.get("critical_path") or {}
    if not path.get("nodes"):
        failures.append("no event critical path")
    elif not set(path["nodes"]) <= names:
        failures.append(f"critical path names nodes not in the trace: {set(path['nodes']) - names}")
    slowest = max(spans[1:] if warm else spans) / 1000
    length = path.get("per_frame_ms") or 0
    if not 0 < length <= slowest + 1e-9:
        failures.append(f"critical path length {length} ms is not in (0, {slowest}] ms")
    for line in failures:
        print(f"{args.trace}: {line}")
    if not failures:
        print(f"{args.trace}: engine pytorch, {counted} steps"
              f"{' after a warm-up' if warm else ''}, critical path {length} ms "
              f"over {len(path['nodes'])} nodes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
