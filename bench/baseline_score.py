#!/usr/bin/env python3
"""The baseline a user would write instead of running `cookgraph score`.

    python3 bench/baseline_score.py INPUT... [--top N] [--json]

INPUT: native snapshots (.json) or Kineto (PyTorch profiler) Chrome traces, or
folders of them. Straightforward Python with Debian's packages, no tuning:
json.load the file, statistics for the per-node numbers, networkx for the
graph. Per node over the frames where it cooked: avg_ms (statistics.mean),
std_ms (statistics.pstdev: population, as docs/architecture.md#node-statistics), score =
avg * (1 + std), per_frame_ms = sum / frames; then the topological order of
the condensation (feedback edges left out), the loops (strongly connected
components, self-loops, the cycles feedback edges close) and the critical path
(heaviest path through the condensation by per_frame_ms).

Kineto traces follow cookgraph's reading (adapters/chrome/chrome_trace.h) for the
traces bench/gen_kineto.py writes: ProfilerStep#N spans are the frames (their
copies on a GPU stream are dropped), a slice belongs to the frame that holds
its start, a kernel to its launcher's frame (ac2g flows: `s` in the launch,
`f` at the kernel's start), self time = duration minus the direct children's
on the same thread, node = event name, call edges from nesting and launch
edges from flows. Times are read as integer ns (round(ts * 1000)) so that
self times are exact.

--json prints every node's numbers (the smoke test compares them with
cookgraph's); otherwise the top N (default 20) as a table.
"""

import argparse
import bisect
import json
import os
import re
import statistics
import sys

import networkx as nx

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
            "Kernel", "Memcpy", "Memset"}
STEP = re.compile(r"^ProfilerStep#(\d+)$")


def native(doc):
    """(frame count, {node: [cook_ms or None]}, graph, feedback edges)."""
    g = nx.DiGraph()
    feedback = []
    for n in doc["nodes"]:
        g.add_node(n["id"])
    for n in doc["nodes"]:
        for a in n.get("inputs", []) + n.get("refs", []):
            g.add_edge(a, n["id"])
        for a in n.get("feedback", []):
            feedback.append((a, n["id"]))
        for e in n.get("edges", []):
            if e["kind"] == "feedback":
                feedback.append((e["from"], n["id"]))
            else:
                g.add_edge(e["from"], n["id"])
    frames = len(doc["frames"]["index"])
    cook = {nid: m["cook_ms"] for nid, m in doc["frames"]["series"].items() if "cook_ms" in m}
    return frames, cook, g, feedback


def kineto(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    slices, flows = [], {}
    for e in events:
        ph = e.get("ph")
        if ph == "X":
            if e.get("cat") == "Trace":
                continue
            start = round(e["ts"] * 1000)
            slices.append({"name": e["name"], "cat": e.get("cat", ""),
                           "thread": (str(e["pid"]), str(e.get("tid"))), "start": start,
                           "end": start + round(e["dur"] * 1000)})
        elif ph in ("s", "f") and e.get("cat") == "ac2g":
            flows.setdefault(e["id"], {})[ph] = ((str(e["pid"]), str(e.get("tid"))),
                                                 round(e["ts"] * 1000))
    steps = sorted((s for s in slices if STEP.match(s["name"]) and s["cat"] not in GPU_CATS),
                   key=lambda s: s["start"])
    work = [s for s in slices if not STEP.match(s["name"])]
    starts = [s["start"] for s in steps]

    def frame_of(ts):
        i = bisect.bisect_right(starts, ts) - 1
        return i if i >= 0 and ts < steps[i]["end"] else None

    # Nesting per thread: sort by start (outer first), keep a stack of open slices.
    by_thread = {}
    for s in work:
        by_thread.setdefault(s["thread"], []).append(s)
    g = nx.DiGraph()
    for ss in by_thread.values():
        ss.sort(key=lambda s: (s["start"], -s["end"]))
        stack = []
        for s in ss:
            while stack and stack[-1]["end"] <= s["start"]:
                stack.pop()
            s["self"] = s["end"] - s["start"]
            s["parent"] = stack[-1] if stack else None
            if stack:
                stack[-1]["self"] -= s["end"] - s["start"]
            stack.append(s)
    # Flows: the launch encloses the `s`, the kernel starts at the `f`.
    at = {}
    for thread, ss in by_thread.items():
        for s in ss:
            at[(thread, s["start"])] = s
    launcher = {}
    for ends in flows.values():
        if "s" not in ends or "f" not in ends:
            continue
        kernel = at.get(ends["f"])
        launch = at.get(ends["s"])  # Kineto puts the `s` at the launch's start
        if launch is None:  # else the deepest slice that encloses it
            thread, ts = ends["s"]
            around = [s for s in by_thread.get(thread, []) if s["start"] <= ts <= s["end"]]
            launch = max(around, key=lambda s: (s["start"], -s["end"])) if around else None
        if kernel is not None and launch is not None:
            launcher[id(kernel)] = launch
    for s in work:
        if s["cat"] not in GPU_CATS:
            s["frame"] = frame_of(s["start"])
    for s in work:
        if s["cat"] in GPU_CATS:
            s["frame"] = launcher[id(s)]["frame"] if id(s) in launcher else frame_of(s["start"])
    per = {}  # (node, frame) -> self ns
    for s in work:
        if s["frame"] is None:
            continue
        g.add_node(s["name"])
        per[(s["name"], s["frame"])] = per.get((s["name"], s["frame"]), 0) + s["self"]
        p = s["parent"]
        if p is not None and p["frame"] is not None and p["name"] != s["name"]:
            g.add_edge(p["name"], s["name"])
    for s in work:
        p = launcher.get(id(s))
        if p is not None and s["frame"] is not None and p["frame"] is not None \
                and p["name"] != s["name"]:
            g.add_edge(p["name"], s["name"])
    cook = {}
    for (name, frame), v in per.items():
        cook.setdefault(name, [None] * len(steps))[frame] = v / 1e6
    return len(steps), cook, g, []


def analyse(frames, cook, g, feedback):
    rows = []
    for nid in g.nodes:
        values = [v for v in cook.get(nid, []) if v is not None]
        if not values:
            rows.append({"id": nid, "avg_ms": None, "std_ms": None, "score": None,
                         "per_frame_ms": 0.0, "cooked_frames": 0})
            continue
        avg = statistics.mean(values)
        std = statistics.pstdev(values)
        rows.append({"id": nid, "avg_ms": avg, "std_ms": std, "score": avg * (1 + std),
                     "per_frame_ms": sum(values) / frames, "cooked_frames": len(values)})
    weight = {r["id"]: r["per_frame_ms"] for r in rows}
    c = nx.condensation(g)
    order = [n for comp in nx.topological_sort(c) for n in c.nodes[comp]["members"]]
    loops = [sorted(c.nodes[k]["members"]) for k in c.nodes if len(c.nodes[k]["members"]) > 1]
    loops += [[n] for n in nx.nodes_with_selfloops(g)]
    for a, b in feedback:
        if nx.has_path(g, b, a):
            loops.append(sorted(nx.descendants(g, b) & nx.ancestors(g, a) | {a, b}))
    # Critical path: node weights moved onto the edges into each component.
    cw = {k: sum(weight[n] for n in c.nodes[k]["members"]) for k in c.nodes}
    for u, v in c.edges:
        c.edges[u, v]["w"] = cw[v]
    path = nx.dag_longest_path(c, weight="w")
    critical = sum(cw[k] for k in path)
    rows.sort(key=lambda r: -(r["score"] or 0))
    return {"nodes": rows, "order": order, "loops": loops, "critical_path_ms": critical}


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, dict) and "cookgraph" in doc:
        return native(doc)
    return kineto(doc)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    files = []
    for p in args.inputs:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".json"))
        else:
            files.append(p)
    out = []
    for path in files:
        result = analyse(*load(path))
        if args.json:
            out.append({"file": path, **result})
            continue
        print(f"{path}: {len(result['order'])} nodes, {len(result['loops'])} loops, "
              f"critical path {result['critical_path_ms']:.3f} ms/frame")
        print(f"{'#':>3}  {'score':>9} {'avg ms':>9} {'std ms':>9}  node")
        for i, r in enumerate(result["nodes"][:args.top], 1):
            print(f"{i:>3}  {r['score']:9.3f} {r['avg_ms']:9.3f} {r['std_ms']:9.3f}  {r['id']}")
    if args.json:
        json.dump(out, sys.stdout)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
