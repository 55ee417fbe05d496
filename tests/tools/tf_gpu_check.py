#!/usr/bin/env python3
"""A TensorFlow 1 GPU timeline's GPU time, read independently.

    tf_gpu_check.py COOKGRAPH TRACE [--perturb]

Reads TRACE with the standard library: processes by their "M" process_name
events, the GPU tracer's per-stream processes ("DEVICE/stream:N Compute")
as the GPU work, each event once ("DEVICE/stream:all" and "DEVICE/memcpy"
repeat them, docs/formats.md#tensorflow). Runs `COOKGRAPH score TRACE
--format json` and compares, to the µs the file gives:
- per stream (labelled "GPU D stream N"): the number of events and the sum of
  their durations;
- the rank's kernel count, its busy time split into computing (kernels) and
  memory (the MEMCPY... copies), each the length of the union of its events;
- every GPU node's gpu_avg_ms (one step): the sum of its per-stream events,
  the node being args.name, "[kernel]" or "[gpu_memcpy]" added where a host op
  has the name.
--perturb adds one event to the first stream's expected count: the check must
then fail. Exit 0 when all agree, 1 otherwise.
"""

import argparse
import json
import re
import subprocess
import sys


def union_ms(spans):
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total / 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cookgraph")
    parser.add_argument("trace")
    parser.add_argument("--perturb", action="store_true")
    args = parser.parse_args()
    with open(args.trace, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    streams, host = {}, set()
    for e in events:
        if e.get("ph") != "X":
            continue
        m = re.fullmatch(r".*[:/](?:GPU|gpu):(\d+)/stream:(\d+) Compute", names.get(e["pid"], ""))
        if m:
            streams.setdefault((int(m.group(1)), int(m.group(2))), []).append(e)
        elif "/stream:all" not in names.get(e["pid"], "") and \
                not names.get(e["pid"], "").endswith("/memcpy Compute"):
            host.add(e["args"]["name"])
    run = subprocess.run([args.cookgraph, "score", args.trace, "--format", "json", "--top", "0"],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"tf_gpu_check.py: cookgraph score exited {run.returncode}: {run.stderr}")
    snap = json.loads(run.stdout)["snapshots"][0]
    rank = snap["gpu"]["ranks"][0]
    failures = []

    def expect(what, got, want):
        if isinstance(want, float) and got is not None and abs(got - want) < 5e-7:
            return
        if got != want:
            failures.append(f"{what}: cookgraph says {got!r}, expected {want!r}")

    got_streams = {s["label"]: s for s in rank["streams"]}
    for i, ((device, stream), evs) in enumerate(sorted(streams.items())):
        label = f"GPU {device} stream {stream}"
        s = got_streams.get(label)
        if s is None:
            failures.append(f"no stream {label} in cookgraph's GPU breakdown")
            continue
        expect(f"{label} events", s["kernels"], len(evs) + (1 if args.perturb and i == 0 else 0))
        expect(f"{label} ms", s["kernel_ms"], sum(e["dur"] for e in evs) / 1000)
    every = [e for evs in streams.values() for e in evs]
    copies = [e for e in every if e["name"].startswith("MEMCPY")]
    expect("kernels", rank["kernels"], len(every))
    expect("memory ms", rank["memory_ms"], union_ms([(e["ts"], e["ts"] + e["dur"]) for e in copies]))
    expect("computing ms", rank["compute_ms"],
           union_ms([(e["ts"], e["ts"] + e["dur"]) for e in every if e not in copies]))
    per_node = {}
    for e in every:
        family = "gpu_memcpy" if e["name"].startswith("MEMCPY") else "kernel"
        node = e["args"]["name"] + (f" [{family}]" if e["args"]["name"] in host else "")
        per_node[node] = per_node.get(node, 0) + e["dur"] / 1000
    got_nodes = {n["id"]: n.get("gpu_avg_ms") for n in snap["nodes"]}
    for node, want in sorted(per_node.items()):
        expect(f"{node} gpu_avg_ms", got_nodes.get(node), want)
    gpu_nodes = {n for n, v in got_nodes.items() if v is not None}
    if gpu_nodes != set(per_node):
        failures.append(f"GPU nodes differ: {sorted(gpu_nodes ^ set(per_node))}")
    for line in failures:
        print(f"{args.trace}: {line}")
    if not failures:
        print(f"{args.trace}: {len(streams)} streams, {len(every)} GPU events counted once, "
              f"{len(per_node)} GPU nodes agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
