#!/usr/bin/env python3
"""Checks `cookgraph graph --format svg` (the network heatmap) on every example.

usage: heatmap_check.py COOKGRAPH SOURCE_DIR WORK_DIR

For each examples/*.json: the SVG parses as XML (xml.etree) with an <svg>
root; the nodes drawn are the whole network or, past the cap of 400, exactly
the cap, and the legend says "showing K of N nodes" with those numbers; every
critical-path node (from `cookgraph graph --format json`) is drawn with the
red outline and the "critical" class, and no other node is; feedback edges
are dashed and ref edges dotted. Then it breaks one SVG on purpose (a dashed
edge made solid, a critical outline removed) and makes sure the checks notice.
"""

import copy
import json
import pathlib
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
CAP = 400  # HeatmapLimits::max_nodes
RED = "#d62728"


def classes(g):
    return g.get("class", "").split()


def shapes(g):
    """The outline elements of a node or edge group (inside its <a>)."""
    return [e for e in g.iter() if e.tag in (SVG + "path", SVG + "polygon", SVG + "ellipse")]


def tooltip_id(g):
    for a in g.iter(SVG + "a"):
        title = a.get(XLINK_TITLE)
        if title is not None:
            return title.split("\n")[0]
    return None


def check(root, ids, critical, name):
    """Returns (problems, summary) for one parsed SVG."""
    problems = []
    if root.tag != SVG + "svg":
        return [f"{name}: root is {root.tag}, not svg"], {}
    groups = list(root.iter(SVG + "g"))
    nodes = [g for g in groups if "node" in classes(g) and
             ("cooked" in classes(g) or "uncooked" in classes(g))]
    edges = [g for g in groups if "edge" in classes(g) and "legend-edge" not in classes(g)]
    total = len(ids)
    expected = min(total, CAP)
    if len(nodes) != expected:
        problems.append(f"{name}: {len(nodes)} nodes drawn, expected {expected} of {total}")
    legend = [g for g in groups if g.get("id") == "legend"]
    text = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    if not legend:
        problems.append(f"{name}: no legend")
    if f"showing {len(nodes)} of {total} nodes" not in text:
        problems.append(f"{name}: the legend does not say 'showing {len(nodes)} of {total} nodes'")
    for kind in ("data", "feedback", "ref"):
        if any(f"kind-{kind}" in classes(e) for e in edges) and \
                not any(g.get("id") == f"legend-{kind}" for g in groups):
            problems.append(f"{name}: {kind} edges are drawn but not in the legend")

    # Critical path: every node on it drawn, outlined in red, and only those.
    by_id = {}
    for g in nodes:
        by_id.setdefault(tooltip_id(g), g)
    drawn_critical = 0
    for node_id in critical:
        g = by_id.get(node_id)
        if g is None:
            # The tooltip is "ID (type)"; match on the id and the opening parenthesis.
            g = next((v for k, v in by_id.items() if k and k.startswith(node_id + " (")), None)
        if g is None:
            problems.append(f"{name}: critical node {node_id} is not drawn")
            continue
        drawn_critical += 1
        outline = shapes(g)
        if "critical" not in classes(g) or not outline or \
                outline[0].get("stroke") != RED or outline[0].get("stroke-width") != "3":
            problems.append(f"{name}: critical node {node_id} is not outlined in red")
    marked = sum("critical" in classes(g) for g in nodes)
    if marked != len(critical):
        problems.append(f"{name}: {marked} nodes marked critical, the path has {len(critical)}")

    # Edge styles by kind.
    dash = {"feedback": "5,2", "ref": "1,5"}
    counts = {}
    for e in edges:
        kind = next((c[5:] for c in classes(e) if c.startswith("kind-")), None)
        counts[kind] = counts.get(kind, 0) + 1
        paths = [s for s in shapes(e) if s.tag == SVG + "path"]
        want = dash.get(kind)
        got = paths[0].get("stroke-dasharray") if paths else None
        if got != want:
            problems.append(f"{name}: a {kind} edge has stroke-dasharray {got}, expected {want}")
        if "critical" in classes(e) and (not paths or paths[0].get("stroke") != RED):
            problems.append(f"{name}: a critical-path edge is not red")
    summary = {"nodes": len(nodes), "of": total, "edges": len(edges), "critical": drawn_critical,
               "feedback": counts.get("feedback", 0), "ref": counts.get("ref", 0)}
    return problems, summary


def main():
    cookgraph, source, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    examples = sorted((source / "examples").glob("*.json"))
    if not examples:
        print("heatmap_check: no examples", file=sys.stderr)
        return 1
    kept = None
    for example in examples:
        name = example.name
        graph = json.loads(subprocess.run([cookgraph, "graph", str(example), "--format", "json"],
                                          check=True, capture_output=True, text=True).stdout)
        snapshot = json.loads(example.read_text())
        ids = [n["id"] for n in snapshot["nodes"]]
        critical = graph["critical_path"]["nodes"]
        out = work / (example.stem + ".svg")
        out.unlink(missing_ok=True)
        start = time.monotonic()
        run = subprocess.run([cookgraph, "graph", str(example), "--format", "svg", "-o", str(out)],
                             capture_output=True, text=True)
        seconds = time.monotonic() - start
        if run.returncode != 0 or run.stderr:
            problems.append(f"{name}: exit {run.returncode}, stderr: {run.stderr.strip()}")
            continue
        root = ET.parse(out).getroot()
        found, summary = check(root, ids, critical, name)
        problems += found
        print(f"{name}: {summary['nodes']} of {summary['of']} nodes drawn, {summary['edges']} "
              f"edges ({summary['feedback']} feedback, {summary['ref']} ref), "
              f"{summary['critical']} of {len(critical)} critical-path nodes outlined, "
              f"{seconds:.2f} s")
        if summary.get("feedback") and kept is None:
            kept = (root, ids, critical, name)

    # The checks must notice a broken picture.
    if kept is None:
        problems.append("no example has a feedback edge to break")
    else:
        root, ids, critical, name = kept
        broken = copy.deepcopy(root)
        for e in broken.iter(SVG + "g"):
            if "kind-feedback" in classes(e):
                for p in e.iter(SVG + "path"):
                    p.attrib.pop("stroke-dasharray", None)
                break
        if not any("feedback edge" in p for p in check(broken, ids, critical, name)[0]):
            problems.append("the check did not notice a solid feedback edge")
        broken = copy.deepcopy(root)
        for g in broken.iter(SVG + "g"):
            if "critical" in classes(g) and "node" in classes(g):
                shapes(g)[0].set("stroke", "#000000")
                break
        if not any("not outlined in red" in p for p in check(broken, ids, critical, name)[0]):
            problems.append("the check did not notice a critical node without its red outline")

    for p in problems:
        print("heatmap_check: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
