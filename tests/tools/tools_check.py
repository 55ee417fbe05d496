#!/usr/bin/env python3
"""Checks the tools the model can call (advisor/tools.h,
docs/architecture.md#tools-the-model-can-call) against cookgraph's own
commands and the raw input.

usage: tools_check.py --cookgraph BIN --tool-call BIN INPUT [--skip-top N]
                      [--whatif K] [--perturb]

INPUT is any input cookgraph reads. BIN --tool-call is tests/tools/tool_call,
which runs the tools as `cookgraph ask` builds them (tool_call.cc). Checked:

  node       for every node past the first N of `score --format json --top 0`'s
             ranking (default 100: the nodes a prompt leaves out), the node's
             object begins with score's object of that node, the same keys in
             the same order with the same values (rank, statistics,
             upstream_ms, flags), then gain_ms equal to `score --sort gain`'s;
  top_nodes  with top 500, score's first 500 nodes, each object equal to
             score's;
  whatif     for K nodes (default 6, spread over the ranking), the document
             of `cookgraph whatif INPUT --node ID=0.5 --format json`, every
             member equal (model, budget, counted frames, before, changes,
             after, nodes, series, warnings);
  frames     (native snapshots) for every over-budget frame and a few others,
             the frame's time is the raw frame_ms where the input gives one,
             and its nodes are the raw cook_ms of that frame, slowest first
             (ties in input order), as many as the list shows; with neither
             index nor frame, where the input gives every frame_ms, the frames
             slowest first (ties in input order) with the raw frame_ms, and
             with over_budget those over the budget;
  container  (native snapshots) for every container of the raw ids (an
             explicit parent, else the id up to its last '/'), the nodes
             listed are exactly its direct children when none is cut.

Numbers are compared exactly (as parsed from JSON). --perturb changes one
expected number by one part in 10^12 first, so the check must fail. Prints
each mismatch as "tools_check: MISMATCH ..." and exits 1, or one summary line
and exits 0. Exit 2 when a command fails. Standard library only.
"""

import argparse
import gzip
import json
import math
import subprocess
import sys


class Fatal(Exception):
    pass


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise Fatal(f"{' '.join(argv[:4])} ... exited {p.returncode}: {p.stderr.strip()[:400]}")
    return p.stdout


def score(cookgraph, path, sort):
    out = run([cookgraph, "score", path, "--format", "json", "--top", "0", "--sort", sort])
    doc = json.loads(out)
    if doc.get("errors"):
        raise Fatal(f"score: {doc['errors']}")
    return doc["snapshots"][0]


def tool_calls(tool_call, path, calls):
    """Runs (name, args) calls in one tool_call --batch; the parsed contents."""
    text = "".join(f"{name} {json.dumps(args, separators=(',', ':'))}\n" for name, args in calls)
    p = subprocess.run([tool_call, path, "--batch"], input=text, capture_output=True, text=True)
    if p.returncode == 2:
        raise Fatal(f"tool_call: {p.stderr.strip()[:400]}")
    lines = p.stdout.split("\n")
    if len(lines) < len(calls):
        raise Fatal(f"tool_call printed {len(lines)} lines for {len(calls)} calls")
    return [json.loads(line) for line in lines[:len(calls)]]


def load_native(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("cookgraph") != 1:
        return None
    return doc


def derived_parent(node_id):
    # docs/architecture.md#the-model: "/a/b/c" -> "/a/b", "/a" -> "", "x" -> "".
    cut = node_id.rfind("/")
    return node_id[:cut] if cut > 0 else ""


class Checker:
    def __init__(self):
        self.mismatches = 0
        self.compared = 0

    def equal(self, what, got, want):
        self.compared += 1
        same = got == want
        if isinstance(got, float) and isinstance(want, float) and math.isnan(got) and math.isnan(want):
            same = True
        if not same:
            self.mismatches += 1
            if self.mismatches <= 20:
                print(f"tools_check: MISMATCH {what}: got {got!r}, want {want!r}")
        return same


def perturbed(value):
    return value * (1 + 1e-12) if value else 1e-12


def check_top_nodes(c, args, snap):
    want = snap["nodes"][:500]
    got = tool_calls(args.tool_call, args.input, [("top_nodes", {"top": 500})])[0]
    if "error" in got:
        c.equal("top_nodes: error", got["error"], None)
        return 0
    rows = got.get("nodes", [])
    c.equal("top_nodes rows", len(rows), len(want))
    for i, (row, node) in enumerate(zip(rows, want)):
        c.equal(f"top_nodes row {i} ({node['id']})", row, node)
    return len(rows)


def check_nodes(c, args, snap, gains):
    nodes = snap["nodes"]
    later = nodes[args.skip_top:]
    if not later:
        raise Fatal(f"{args.input}: no node past the first {args.skip_top}")
    want = {n["id"]: n for n in later}
    gain_of = {n["id"]: n.get("gain_ms") for n in gains["nodes"]}
    if args.perturb:
        victim = later[len(later) // 2]
        victim["avg_ms"] = perturbed(victim["avg_ms"] or 0.0)
    results = tool_calls(args.tool_call, args.input, [("node", {"id": n["id"]}) for n in later])
    for n, obj in zip(later, results):
        if "error" in obj:
            c.equal(f"node {n['id']}: error", obj["error"], None)
            continue
        # The node's object itself: score's keys first, in score's order, then gain_ms.
        keys = list(want[n["id"]])
        c.equal(f"node {n['id']} keys", list(obj)[:len(keys) + 1], keys + ["gain_ms"])
        for key, value in want[n["id"]].items():
            c.equal(f"node {n['id']} {key}", obj.get(key), value)
        c.equal(f"node {n['id']} gain_ms", obj.get("gain_ms"), gain_of[n["id"]])
    return len(later)


def check_whatif(c, args, snap):
    nodes = [n for n in snap["nodes"] if n["rank"] is not None]
    if not nodes:
        return 0
    count = min(args.whatif, len(nodes))
    picks = [nodes[i * (len(nodes) - 1) // max(1, count - 1)] for i in range(count)]
    results = tool_calls(args.tool_call, args.input, [("whatif", {"id": n["id"]}) for n in picks])
    for n, got in zip(picks, results):
        ref = json.loads(run([args.cookgraph, "whatif", args.input, "--node", f"{n['id']}=0.5",
                              "--format", "json"]))
        if args.perturb and n is picks[0]:
            ref["after"]["frame_ms"]["mean"] = perturbed(ref["after"]["frame_ms"]["mean"])
        what = f"whatif {n['id']}"
        c.equal(f"{what} keys", list(got), list(ref))
        for key in ref:
            c.equal(f"{what} {key}", got.get(key), ref[key])
    return len(picks)


def check_frames(c, args, doc, snap):
    frames = doc.get("frames", {})
    index = frames.get("index", [])
    series = frames.get("series", {})
    frame_ms = frames.get("frame_ms")
    order = {node["id"]: i for i, node in enumerate(doc["nodes"])}
    budget = snap.get("frame_budget_ms")
    picks = {0, len(index) // 2, len(index) - 1}
    if budget is not None and frame_ms is not None:  # every over-budget frame too
        picks |= {i for i, ms in enumerate(frame_ms) if ms is not None and ms > budget}
    picks = sorted(picks)
    calls = [("frames", {"index": i, "limit": 500}) for i in picks]
    results = tool_calls(args.tool_call, args.input, calls)
    for i, got in zip(picks, results):
        what = f"frames {i}"
        c.equal(f"{what} frame", got.get("frame", got.get("step")), index[i])
        if frame_ms is not None and frame_ms[i] is not None:
            c.equal(f"{what} ms", got.get("ms"), float(frame_ms[i]))
        if budget is not None and got.get("ms") is not None:
            c.equal(f"{what} over_budget", got.get("over_budget"), got["ms"] > budget)
        raw = []
        for node_id, metrics in series.items():
            cook = metrics.get("cook_ms")
            if cook and cook[i] is not None:
                raw.append((-float(cook[i]), order[node_id], node_id, float(cook[i])))
        raw.sort()
        c.equal(f"{what} cooked", got.get("cooked"), len(raw))
        shown = got.get("nodes", [])
        if not got.get("truncated"):
            c.equal(f"{what} rows", len(shown), len(raw))
        for row, (_, _, node_id, ms) in zip(shown, raw):
            c.equal(f"{what} node", row.get("id"), node_id)
            c.equal(f"{what} {node_id} ms", row.get("ms"), ms)
    checked = len(picks)
    # With neither: the slowest frames, and those over the budget.
    if frame_ms is not None and None not in frame_ms:
        slowest = sorted(range(len(frame_ms)), key=lambda i: -float(frame_ms[i]))[:500]
        over = [i for i in slowest if budget is not None and float(frame_ms[i]) > budget]
        listed, over_listed = tool_calls(args.tool_call, args.input,
                                         [("frames", {"limit": 500}),
                                          ("frames", {"over_budget": True, "limit": 500})])
        for what, got, want in (("frames", listed, slowest), ("frames over_budget", over_listed, over)):
            rows = got.get("frames", [])
            c.equal(f"{what}: the frames", [r.get("index") for r in rows], want)
            c.equal(f"{what}: their ms", [r.get("ms") for r in rows], [float(frame_ms[i]) for i in want])
            c.equal(f"{what}: their numbers", [r.get("frame", r.get("step")) for r in rows],
                    [index[i] for i in want])
            checked += 1
    return checked


def check_containers(c, args, doc):
    children = {}
    for node in doc["nodes"]:
        parent = node.get("parent") or derived_parent(node["id"])
        children.setdefault(parent, []).append(node["id"])
        # Every prefix is a container too, even one that holds only containers.
        while parent:
            children.setdefault(parent, [])
            parent = derived_parent(parent)
    paths = sorted(children)
    results = tool_calls(args.tool_call, args.input,
                         [("container", {"path": p, "limit": 500}) for p in paths])
    checked = 0
    for path, got in zip(paths, results):
        if "error" in got:
            c.equal(f"container {path!r}: error", got["error"], None)
            continue
        if got.get("truncated"):
            continue
        checked += 1
        c.equal(f"container {path!r} nodes", sorted(n["id"] for n in got["nodes"]),
                sorted(children[path]))
    return checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cookgraph", required=True)
    parser.add_argument("--tool-call", required=True)
    parser.add_argument("input")
    parser.add_argument("--skip-top", type=int, default=100)
    parser.add_argument("--whatif", type=int, default=6)
    parser.add_argument("--perturb", action="store_true")
    args = parser.parse_args()
    c = Checker()
    try:
        snap = score(args.cookgraph, args.input, "score")
        gains = score(args.cookgraph, args.input, "gain")
        top = check_top_nodes(c, args, snap)
        nodes = check_nodes(c, args, snap, gains)
        whatifs = check_whatif(c, args, snap)
        doc = load_native(args.input)
        frames = containers = 0
        if doc is not None:
            frames = check_frames(c, args, doc, snap)
            containers = check_containers(c, args, doc)
    except Fatal as e:
        print(f"tools_check: {e}", file=sys.stderr)
        return 2
    if c.mismatches:
        print(f"tools_check: {c.mismatches} of {c.compared} comparisons differ")
        return 1
    print(f"tools_check: {args.input}: {top} top nodes, {nodes} nodes past the first "
          f"{args.skip_top}, {whatifs} what-ifs, {frames} frames, {containers} containers; "
          f"{c.compared} comparisons: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
