#!/usr/bin/env python3
"""Writes snapshots of one generated network for `cookgraph diff`'s tests.

    python3 tests/tools/gen_diff_pair.py --out DIR [--seed S] [--nodes N] [--frames F]

    DIR/before.json     the network over F frames
    DIR/after.json      the same network over F - F/10 frames (different frame
                        counts on purpose), every node re-sampled with fresh
                        noise of the same size, three nodes slowed by 30%,
                        two nodes added, two removed
    DIR/after_same.json as after.json without the slowdown: noise only
    DIR/facts.json      what was planted: the slowed, added, removed and edge-case ids

Native snapshot format v1 (docs/formats.md#native-snapshot-format), numbers with at most four
decimals, everything drawn from random.Random instances (never the global
state), so the same arguments give the same bytes, as in examples/generate.py.

The noise: each node has a base cook time (log-normal, 0.02 to 5 ms) and a
coefficient of variation (sd / mean) drawn from [0.02, 0.10] for nodes that
cook every frame and [0.02, 0.07] for the one in seven that cooks in about
half of the frames. At these sample sizes the standard error of a node's
relative change is below 0.8%, so an unchanged node moving by the 5% that
`diff` requires of a regression is a six-sigma event: the size gate, not
luck, keeps noise out, while about one unchanged node in a hundred still
passes the t-test at alpha 0.01 (diff_check.py shows both).
"""

import argparse
import json
import math
import os
import random

SEED = 20261122
SLOWDOWN = 1.30


def fmt(x):
    """Compact JSON number: at most four decimals, trailing zeros trimmed."""
    if x is None:
        return "null"
    s = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class Node:
    def __init__(self, rng, index, container):
        self.id = f"/project1/{container}/op{index:03d}"
        self.type = rng.choice(["levelTOP", "blurTOP", "noiseTOP", "mathCHOP", "scriptDAT"])
        self.family = self.type[-4:] if self.type.endswith("CHOP") else self.type[-3:]
        self.base = min(5.0, max(0.02, rng.lognormvariate(math.log(0.25), 1.0)))
        self.sometimes = rng.random() < 1 / 7  # cooks in about half of the frames
        self.cv = rng.uniform(0.02, 0.07 if self.sometimes else 0.10)
        self.inputs = []
        self.output = False

    def sample(self, rng, frames, scale=1.0):
        values = []
        for _ in range(frames):
            if self.sometimes and rng.random() < 0.5:
                values.append(None)
                continue
            v = self.base * scale * (1 + rng.gauss(0, self.cv))
            values.append(max(v, 0.0001))
        return values


def write(path, name, nodes, series, frames):
    lines = [
        "{",
        '  "cookgraph": 1,',
        '  "engine": "touchdesigner",',
        f'  "name": "{name}",',
        '  "fps": 60,',
        '  "nodes": [',
    ]
    ids = {n.id for n in nodes}
    node_lines = []
    for n in nodes:
        entry = {"id": n.id, "type": n.type, "family": n.family}
        inputs = [i for i in n.inputs if i in ids]
        if inputs:
            entry["inputs"] = inputs
        if n.output:
            entry["output"] = True
        node_lines.append("    " + json.dumps(entry))
    lines.append(",\n".join(node_lines))
    lines.append("  ],")
    lines.append('  "frames": {')
    lines.append(f'    "index": [{", ".join(str(1000 + f) for f in range(frames))}],')
    lines.append('    "series": {')
    series_lines = []
    for n in nodes:
        values = series.get(n.id)
        if values is None:
            continue
        series_lines.append(
            f'      {json.dumps(n.id)}: {{"cook_ms": [{", ".join(fmt(v) for v in values)}]}}')
    lines.append(",\n".join(series_lines))
    lines.append("    }")
    lines.append("  }")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--nodes", type=int, default=400)
    parser.add_argument("--frames", type=int, default=400)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    shape = random.Random(args.seed)
    containers = ["scene", "fx", "post", "control", "audio"]
    nodes = [Node(shape, i, containers[i % len(containers)]) for i in range(args.nodes)]
    for i, n in enumerate(nodes):
        if i > 0:
            n.inputs = [nodes[shape.randrange(i)].id]

    # The last node is the network's output (so that dead cooks are computed).
    nodes[-1].output = True
    # Planted facts. The slowed nodes cook every frame and cost at least 0.1 ms.
    candidates = [n for n in nodes if not n.sometimes and n.base >= 0.1]
    slowed = shape.sample(candidates, 3)
    removed = shape.sample([n for n in nodes[:-1] if n not in slowed], 2)
    added = [Node(shape, args.nodes + k, "fx") for k in range(2)]
    for n in added:
        n.id = n.id.replace("/op", "/new_op")
    edge = {
        "never": Node(shape, 0, "edge"),     # in both, never cooks
        "once": Node(shape, 1, "edge"),      # one cook before: too few samples
        "constant": Node(shape, 2, "edge"),  # the same value every frame, both sides
        "starts": Node(shape, 3, "edge"),    # cooks only after
    }
    edge_ids = {k: n.id for k, n in edge.items()}

    frames_before = args.frames
    frames_after = args.frames - args.frames // 10

    def snapshot(rng, frames, keep, scale_of):
        series = {}
        for n in keep:
            series[n.id] = n.sample(rng, frames, scale_of(n))
        series[edge["never"].id] = [None] * frames
        series[edge["constant"].id] = [0.5] * frames
        return series

    before_nodes = nodes + list(edge.values())
    after_nodes = [n for n in nodes if n not in removed] + added + list(edge.values())

    rng = random.Random(args.seed + 1)
    before = snapshot(rng, frames_before, nodes, lambda n: 1.0)
    before[edge["once"].id] = [None] * frames_before
    before[edge["once"].id][frames_before // 2] = 0.3
    write(os.path.join(args.out, "before.json"), "diff_before", before_nodes, before, frames_before)

    for name, scale in (("after", SLOWDOWN), ("after_same", 1.0)):
        # Fresh noise: another stream for each snapshot.
        rng = random.Random(args.seed + (2 if name == "after" else 3))
        keep = [n for n in nodes if n not in removed] + added
        after = snapshot(rng, frames_after, keep, lambda n: scale if n in slowed else 1.0)
        after[edge["once"].id] = edge["once"].sample(rng, frames_after)
        after[edge["starts"].id] = edge["starts"].sample(rng, frames_after)
        write(os.path.join(args.out, name + ".json"), "diff_" + name, after_nodes, after,
              frames_after)

    facts = {
        "seed": args.seed,
        "slowdown": SLOWDOWN,
        "slowed": sorted(n.id for n in slowed),
        "added": [n.id for n in added],
        "removed": [n.id for n in removed],
        "edge": edge_ids,
        "frames": {"before": frames_before, "after": frames_after},
    }
    with open(os.path.join(args.out, "facts.json"), "w") as f:
        json.dump(facts, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
