#!/usr/bin/env python3
"""Writes one large native snapshot (format v1, docs/formats.md#native-snapshot-format) for bench/.

    python3 bench/gen_native.py NODES FRAMES --out FILE [--seed S]

A TouchDesigner-style network: containers nested three to four deep
(/project1/<section>/<comp>[/<sub>]/<op>), each a small DAG of TOPs and CHOPs
whose ops read one to three of the ops just before them (fan-in) and are read
by several (fan-out); a few global control CHOPs referenced from all over the
network (wide fan-out); each comp's output feeding a mixer tree that ends in
the network outputs; feedback loops (a Feedback TOP in every 12th comp), ref
cycles between two CHOPs (every 40th comp) and self-referencing counters;
branches that reach no output (dead cooks).

Series: cook_ms for about 96 % of the nodes (every frame, every other frame,
sparse, or every frame with rare spikes), gpu_ms for the heavier TOPs, cooks
for the nodes that cook twice a frame, and frame_ms (written after the series,
so that it can be summed while the series stream out).

Streaming: the nodes are written as they are made, the series one node at a
time; memory holds a few numbers per node and one list per frame, never the
samples. Deterministic: everything comes from random.Random(seed) and from
fixed tables, so the same arguments give the same bytes.
"""

import argparse
import os
import random
import sys
import time

JITTER_SIZE = 8192  # a power of two: index & (JITTER_SIZE - 1)
TOPS = [("noiseTOP", 0.12), ("levelTOP", 0.04), ("transformTOP", 0.05), ("blurTOP", 0.2),
        ("compositeTOP", 0.08), ("hsvadjustTOP", 0.04), ("overTOP", 0.05), ("cropTOP", 0.03),
        ("glslTOP", 0.25), ("displaceTOP", 0.14), ("renderTOP", 0.6), ("lookupTOP", 0.05)]
CHOPS = [("lfoCHOP", 0.006), ("mathCHOP", 0.008), ("filterCHOP", 0.01), ("nullCHOP", 0.002),
         ("lagCHOP", 0.01), ("selectCHOP", 0.005), ("noiseCHOP", 0.05), ("scriptCHOP", 0.2)]
SECTIONS = ["scene", "fx", "post", "audio", "ui", "io"]
MIX_FAN_IN = 48


def fmt_q(q):
    """A value in 1e-4 ms as compact JSON: at most four decimals."""
    s = f"{q // 10000}.{q % 10000:04d}".rstrip("0").rstrip(".")
    return s


_TABLE = []


def number_table():
    """fmt_q of 0..40 ms, "null" for 0: built once, shared by gen_batch.py's files."""
    if not _TABLE:
        _TABLE.extend(["null"] + [fmt_q(q) for q in range(1, 400001)])
    return _TABLE


class Layout:
    """Walks the network once, yielding node dicts in file order.

    Keeps per node only what the series need (kept in lists by the caller):
    cost in 1e-4 ms, series pattern, whether it has gpu_ms.
    """

    def __init__(self, nodes, rng):
        if nodes < 64:
            raise SystemExit("gen_native.py: at least 64 nodes")
        self.n = nodes
        self.rng = rng

    def __iter__(self):
        rng, P = self.rng, "/project1"
        control = [f"{P}/control/{name}" for name in ("lfo_master", "beat", "speed", "tempo",
                                                      "counter", "audio_level")]
        # Fixed overhead: the control COMP and its CHOPs, the mixers, outputs.
        yield {"id": f"{P}/control", "type": "baseCOMP", "family": "COMP"}, 0, 0, False
        for j, cid in enumerate(control):
            node = {"id": cid, "type": CHOPS[j % len(CHOPS)][0], "family": "CHOP"}
            if cid.endswith("tempo"):
                node["refs"] = [f"{P}/control/speed"]  # speed <-> tempo: a ref cycle
            if cid.endswith("speed"):
                node["refs"] = [f"{P}/control/tempo"]
            if cid.endswith("counter"):
                node["refs"] = [cid]  # a self-loop
            yield node, 60 + 20 * j, 1, False
        budget = self.n - 1 - len(control) - 2  # minus final and window
        # Comps of 20 to 60 ops; a section holds up to 24 comps (a COMP node each).
        comp_outs = []
        k = 0
        section = -1
        in_section = 24
        while True:
            size = rng.randint(20, 60)
            mixers_needed = -(-(len(comp_outs) + 1) // MIX_FAN_IN)
            new_section = in_section == 24
            need = 1 + size + (1 if new_section else 0) + mixers_needed
            if budget - need < 0:
                break
            if new_section:
                section += 1
                in_section = 0
                sec = f"{P}/{SECTIONS[section % len(SECTIONS)]}{section}"
                yield {"id": sec, "type": "baseCOMP", "family": "COMP"}, 0, 0, False
                budget -= 1
            comp = f"{sec}/c{in_section:03d}"
            in_section += 1
            yield {"id": comp, "type": "containerCOMP", "family": "COMP"}, 0, 0, False
            budget -= 1
            # Every fifth comp keeps a third of its ops in a nested sub-container.
            sub = f"{comp}/sub" if k % 5 == 2 else None
            if sub:
                yield {"id": sub, "type": "baseCOMP", "family": "COMP"}, 0, 0, False
                budget -= 1
                size -= 1
            names, chops = [], []
            kinds = []
            for j in range(size):
                table = CHOPS if rng.random() < 0.25 and j < size - 1 else TOPS
                kinds.append(rng.choice(table))
            kinds[-1] = ("nullTOP", 0.005)
            feedback = k % 12 == 5 and size >= 10
            if feedback:
                kinds[2] = ("feedbackTOP", 0.05)
            ref_cycle = k % 40 == 7 and size >= 10
            if ref_cycle:
                kinds[3], kinds[4] = ("lagCHOP", 0.01), ("mathCHOP", 0.008)
            for j, (optype, cost) in enumerate(kinds):
                family = optype[-4:] if optype.endswith(("CHOP", "COMP")) else optype[-3:]
                folder = sub if sub and j >= size // 3 and j < 2 * size // 3 else comp
                names.append(f"{folder}/{optype[:-len(family)].lower()}{j}")
            for j, (optype, cost) in enumerate(kinds):
                family = optype[-4:] if optype.endswith(("CHOP", "COMP")) else optype[-3:]
                node = {"id": names[j], "type": optype, "family": family}
                if family == "TOP":
                    node["params"] = {"resolutionw": str(rng.choice((640, 1280, 1920, 3840))),
                                      "resolutionh": "1080"}
                if j > 0:
                    fan_in = 1 if rng.random() < 0.8 else rng.randint(2, 3)
                    lo = max(0, j - 4)
                    inputs = sorted(set(rng.randrange(lo, j) for _ in range(fan_in)))
                    node["inputs"] = [names[i] for i in inputs]
                elif comp_outs and rng.random() < 0.5:
                    node["inputs"] = [comp_outs[rng.randrange(max(0, len(comp_outs) - 8),
                                                              len(comp_outs))]]
                refs = []
                if family == "TOP" and chops and rng.random() < 0.3:
                    refs.append(rng.choice(chops))
                if rng.random() < 0.02:
                    refs.append(control[rng.randrange(len(control))])
                if refs:
                    node["refs"] = sorted(set(refs))
                if feedback and j == 2:
                    node["feedback"] = [names[9]]  # closes 2 -> ... -> 9 when 9 descends from 2
                if ref_cycle and j in (3, 4):
                    node.setdefault("refs", []).append(names[7 - j])  # a ref cycle 3 <-> 4
                r = rng.random()
                pattern = 0 if r < 0.04 else 2 if r < 0.09 else 4 if r < 0.14 else 1
                if pattern == 1 and rng.random() < 0.001:
                    pattern = 3
                if pattern == 1 and rng.random() < 0.01:
                    pattern = 5
                q = max(1, int(cost * 10000 * rng.uniform(0.5, 1.8)))
                yield node, q, pattern, family == "TOP" and cost >= 0.04
                if family == "CHOP":
                    chops.append(names[j])
            budget -= size
            comp_outs.append(names[-1])
            k += 1
        # What the comps left over: a chain of CHOPs in the control COMP that
        # feeds nothing (dead cooks), so that the network has exactly `nodes`.
        extra = budget - -(-len(comp_outs) // MIX_FAN_IN)
        for j in range(extra):
            node = {"id": f"{P}/control/extra{j}", "type": "mathCHOP", "family": "CHOP"}
            if j > 0:
                node["inputs"] = [f"{P}/control/extra{j - 1}"]
            yield node, 50, 1, False
        mixers = []
        for x in range(0, len(comp_outs), MIX_FAN_IN):
            mid = f"{P}/mix{len(mixers)}"
            mixers.append(mid)
            yield ({"id": mid, "type": "compositeTOP", "family": "TOP",
                    "params": {"operand": "add"}, "inputs": comp_outs[x:x + MIX_FAN_IN]},
                   1000, 1, True)
        yield ({"id": f"{P}/final", "type": "nullTOP", "family": "TOP", "inputs": mixers,
                "output": True}, 100, 1, True)
        yield ({"id": f"{P}/window1", "type": "windowCOMP", "family": "COMP",
                "refs": [f"{P}/final"], "output": True}, 800, 1, False)


def write_native(nodes, frames, path, seed):
    """Streams the snapshot to `path`; returns (node count, series count)."""
    import json  # only for escaping ids and node objects

    if frames < 2:
        raise SystemExit("gen_native.py: at least 2 frames")
    rng = random.Random(seed)
    jitter = [max(0.3, 1 + rng.gauss(0, 0.08)) for _ in range(JITTER_SIZE)]
    spike_rows = sorted(rng.sample(range(frames), max(1, frames // 50)))
    table = number_table()

    def num(q):
        return table[q] if q < len(table) else fmt_q(q)

    ids, cost, pattern, gpu = [], [], [], []
    with open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as w:
        w.write('{\n  "cookgraph": 1,\n  "engine": "touchdesigner",\n'
                f'  "name": "bench_{nodes}x{frames}",\n'
                f'  "source": ["bench/gen_native.py {nodes} {frames} --seed {seed}"],\n'
                '  "captured": "2026-11-21T00:00:00Z",\n  "fps": 60,\n'
                '  "nodes": [\n')
        first = True
        for node, q, pat, has_gpu in Layout(nodes, rng):
            w.write(("    " if first else ",\n    ") + json.dumps(node))
            first = False
            ids.append(node["id"])
            cost.append(q)
            pattern.append(pat)
            gpu.append(has_gpu)
        w.write('\n  ],\n  "frames": {\n    "index": [')
        w.write(",".join(str(60000 + f) for f in range(frames)))
        w.write('],\n    "series": {')
        sums = [0] * frames
        mask = JITTER_SIZE - 1
        first = True
        every_other = list(range(1, frames, 2))
        for i, node_id in enumerate(ids):
            pat = pattern[i]
            if pat == 0:
                continue  # never cooks: no series at all
            b = cost[i]
            o = rng.randrange(JITTER_SIZE)
            s = rng.randrange(1, JITTER_SIZE, 2)
            qs = [int(b * jitter[(o + f * s) & mask]) or 1 for f in range(frames)]
            if pat == 2:
                for f in every_other:
                    qs[f] = 0
            elif pat == 4:  # sparse: cooks one frame in seven, on changes
                phase = o % 7
                qs = [v if f % 7 == phase else 0 for f, v in enumerate(qs)]
            elif pat == 3:
                for f in spike_rows:
                    qs[f] += 120000 + (o * 7919 + f) % 80000  # +12..20 ms
            elif pat == 5:  # cooks twice a frame: twice the time
                qs = [2 * v for v in qs]
            sums = list(map(int.__add__, sums, qs))
            w.write(("\n" if first else ",\n") + f'      {json.dumps(node_id)}: {{"cook_ms": [')
            first = False
            w.write(",".join([num(v) for v in qs]))
            if gpu[i]:
                w.write('], "gpu_ms": [')
                w.write(",".join([num(v * 9 // 10 or 1) if v else "null" for v in qs]))
            if pat == 5:
                w.write('], "cooks": [')
                w.write(",".join(["2"] * frames))
            w.write("]}")
        w.write('\n    },\n    "frame_ms": [')
        w.write(",".join(num(v + 3000 + (f * 2654435761 + seed) % 1500)
                         for f, v in enumerate(sums)))
        w.write("]\n  }\n}\n")
    return len(ids), sum(1 for p in pattern if p)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nodes", type=int)
    ap.add_argument("frames", type=int)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    n, s = write_native(args.nodes, args.frames, args.out, args.seed)
    print(f"{args.out}: {n} nodes ({s} with series) x {args.frames} frames, "
          f"{os.path.getsize(args.out) / 1e6:.1f} MB in {time.monotonic() - t0:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
