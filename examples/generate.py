#!/usr/bin/env python3
"""Writes cookgraph's example snapshots (native format v1, docs/formats.md#native-snapshot-format).

    python3 examples/generate.py --out examples/
        touchdesigner_feedback.json, gstreamer_pipeline.json, pytorch_model.json,
        with a <name>.facts.json sidecar per example in tests/data/examples/
        (or --facts DIR) that records what was planted, for the tests.

    python3 examples/generate.py --big NODES FRAMES --out FILE [--seed S]
        one large TouchDesigner-style snapshot, streamed to FILE (.json or
        .json.gz) without holding the series in memory; for memory and
        performance measurement.

Everything is drawn from random.Random(seed) instances (never the global
random state), floats are written with at most four decimals, and no set or
hash order reaches the output, so the same arguments give the same bytes.

The examples are built to carry facts that tests can assert (a costly
feedback loop, a spiky node that causes the over-budget frames, dead cooks,
a node cooking twice per frame, outputs, nodes that never cook). The
generator checks those facts itself after building each snapshot and fails
loudly if a change to the model breaks one.
"""

import argparse
import gzip
import io
import json
import math
import os
import random
import sys
import time

EXAMPLE_SEED = 20261121
NUM_FRAMES = 300


# --------------------------------------------------------------------------
# Number formatting and the snapshot container


def fmt(x):
    """Compact JSON number: at most four decimals, trailing zeros trimmed."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        raise TypeError("bool is not a sample")
    if isinstance(x, int):
        return str(x)
    s = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def q4(x):
    """Rounds a value to what fmt() writes, so sums use the written numbers."""
    return round(x, 4)


FAMILY_SUFFIXES = ("CHOP", "COMP", "TOP", "SOP", "DAT", "MAT", "POP")


def td_family(optype):
    for suffix in FAMILY_SUFFIXES:
        if optype.endswith(suffix):
            return suffix
    raise ValueError(f"no family for {optype}")


class Snapshot:
    """Nodes in insertion order plus column-wise series; writes format v1."""

    def __init__(self, engine, name, source, captured, fps, budget):
        self.meta = {"engine": engine, "name": name, "source": source, "captured": captured}
        if fps is not None:
            self.meta["fps"] = fps
        self.meta["frame_budget_ms"] = budget
        self.budget = budget
        self.nodes = []
        self.by_id = {}
        self.series = {}  # id -> {metric: [value or None]}
        self.frame_index = []
        self.frame_ms = None

    def add(self, node_id, type_, family, *, params=None, inputs=(), refs=(), feedback=(),
            edges=(), output=False, parent=None):
        if node_id in self.by_id:
            raise ValueError(f"duplicate id {node_id}")
        node = {"id": node_id, "type": type_, "family": family}
        if parent is not None:
            node["parent"] = parent
        if params:
            node["params"] = {k: str(v) for k, v in params.items()}
        if inputs:
            node["inputs"] = list(inputs)
        if refs:
            node["refs"] = list(refs)
        if feedback:
            node["feedback"] = list(feedback)
        if edges:
            node["edges"] = [{"from": f, "kind": k} for f, k in edges]
        if output:
            node["output"] = True
        self.by_id[node_id] = node
        self.nodes.append(node)
        return node_id

    def node(self, node_id):
        return self.by_id[node_id]

    def append_to(self, node_id, key, value):
        self.by_id[node_id].setdefault(key, []).append(value)

    def set_series(self, node_id, metric, values):
        if node_id not in self.by_id:
            raise KeyError(node_id)
        self.series.setdefault(node_id, {})[metric] = values

    def edge_list(self):
        """(from, to, kind) for every edge, in declaration order."""
        out = []
        for n in self.nodes:
            to = n["id"]
            for a in n.get("inputs", ()):
                out.append((a, to, "data"))
            for a in n.get("refs", ()):
                out.append((a, to, "ref"))
            for a in n.get("feedback", ()):
                out.append((a, to, "feedback"))
            for e in n.get("edges", ()):
                out.append((e["from"], to, e["kind"]))
        return out

    def cook(self, node_id):
        return self.series.get(node_id, {}).get("cook_ms")

    def validate(self):
        F = len(self.frame_index)
        for a, b, _ in self.edge_list():
            if a not in self.by_id or b not in self.by_id:
                raise ValueError(f"edge {a} -> {b} names an unknown node")
        for nid, metrics in self.series.items():
            if nid not in self.by_id:
                raise ValueError(f"series for unknown node {nid}")
            for m, vals in metrics.items():
                if len(vals) != F:
                    raise ValueError(f"{nid}.{m}: {len(vals)} values, {F} frames")
                for v in vals:
                    if v is not None and v < 0:
                        raise ValueError(f"{nid}.{m}: negative value {v}")
                if m == "cooks" and any(v is not None and not isinstance(v, int) for v in vals):
                    raise ValueError(f"{nid}.cooks: non-integer")
        if self.frame_ms is not None and len(self.frame_ms) != F:
            raise ValueError("frame_ms length")

    def write(self, path):
        self.validate()
        out = io.StringIO()
        w = out.write
        w('{\n  "cookgraph": 1,\n')
        for k, v in self.meta.items():
            w(f'  {json.dumps(k)}: {json.dumps(v)},\n')
        w('  "nodes": [\n')
        w(",\n".join("    " + json.dumps(n) for n in self.nodes))
        w('\n  ],\n  "frames": {\n')
        w('    "index": [' + ",".join(str(i) for i in self.frame_index) + "]")
        if self.frame_ms is not None:
            w(',\n    "frame_ms": [' + ",".join(fmt(v) for v in self.frame_ms) + "]")
        w(',\n    "series": {')
        first = True
        for n in self.nodes:  # node order, not dict order of creation
            metrics = self.series.get(n["id"])
            if not metrics:
                continue
            w(("\n" if first else ",\n") + f"      {json.dumps(n['id'])}: {{\n")
            first = False
            w(",\n".join(f'        "{m}": [' + ",".join(fmt(v) for v in vals) + "]"
                         for m, vals in metrics.items()))
            w("\n      }")
        w("\n    }\n  }\n}\n")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(out.getvalue())


# --------------------------------------------------------------------------
# Graph facts, computed here only to check what the generator planted. The
# independent checker in tests/tools/ has its own implementation.


def adjacency(snap, with_feedback=False):
    succ = {n["id"]: [] for n in snap.nodes}
    pred = {n["id"]: [] for n in snap.nodes}
    for a, b, kind in snap.edge_list():
        if kind == "feedback" and not with_feedback:
            continue
        succ[a].append(b)
        pred[b].append(a)
    return succ, pred


def reach(start, nbrs):
    seen = {s: True for s in start}
    stack = list(start)
    while stack:
        u = stack.pop()
        for v in nbrs[u]:
            if v not in seen:
                seen[v] = True
                stack.append(v)
    return seen


def strongly_connected(snap, succ, pred):
    """Kosaraju, iterative; components as lists in node order."""
    order, seen = [], set()
    for n in snap.nodes:
        s = n["id"]
        if s in seen:
            continue
        seen.add(s)
        stack = [(s, iter(succ[s]))]
        while stack:
            u, it = stack[-1]
            for v in it:
                if v not in seen:
                    seen.add(v)
                    stack.append((v, iter(succ[v])))
                    break
            else:
                order.append(u)
                stack.pop()
    comp = {}
    comps = []
    for s in reversed(order):
        if s in comp:
            continue
        members = [s]
        comp[s] = len(comps)
        stack = [s]
        while stack:
            u = stack.pop()
            for v in pred[u]:
                if v not in comp:
                    comp[v] = len(comps)
                    members.append(v)
                    stack.append(v)
        comps.append(members)
    pos = {n["id"]: i for i, n in enumerate(snap.nodes)}
    return [sorted(c, key=pos.get) for c in comps]


def per_frame_ms(snap, node_id):
    c = snap.cook(node_id)
    if not c:
        return 0.0
    return math.fsum(v for v in c if v is not None) / len(snap.frame_index)


def cooked_frames(snap, node_id):
    c = snap.cook(node_id)
    return 0 if not c else sum(1 for v in c if v is not None)


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def graph_facts(snap):
    """Loops, dead cooks, never-cooked nodes, frame times, spike attribution."""
    succ, pred = adjacency(snap)
    pos = {n["id"]: i for i, n in enumerate(snap.nodes)}
    loops = []
    for comp in strongly_connected(snap, succ, pred):
        if len(comp) > 1:
            loops.append({"kind": "cycle", "nodes": comp})
    for n in snap.nodes:
        if n["id"] in succ[n["id"]]:
            loops.append({"kind": "self-loop", "nodes": [n["id"]]})
    for a, b, kind in snap.edge_list():
        if kind != "feedback":
            continue
        fwd = reach([b], succ)
        if a not in fwd:
            continue
        back = reach([a], pred)
        members = sorted((x for x in fwd if x in back), key=pos.get)
        loops.append({"kind": "feedback", "from": a, "to": b, "nodes": members})
    for lp in loops:
        lp["per_frame_ms"] = round(math.fsum(per_frame_ms(snap, x) for x in lp["nodes"]), 6)
    loops.sort(key=lambda lp: -lp["per_frame_ms"])

    # Live: reaches an output, or is called or launched by a live node (a nested
    # op or a kernel serves the op that issued it), or feeds a live node.
    outputs = [n["id"] for n in snap.nodes if n.get("output")]
    callees = {n["id"]: [] for n in snap.nodes}
    for a, b, kind in snap.edge_list():
        if kind in ("call", "launch"):
            callees[a].append(b)
    live = set()
    todo = list(outputs)
    while todo:
        v = todo.pop()
        if v in live:
            continue
        live.add(v)
        todo.extend(pred[v])
        todo.extend(callees[v])
    dead = [n["id"] for n in snap.nodes if cooked_frames(snap, n["id"]) > 0 and n["id"] not in live]
    never = [n["id"] for n in snap.nodes if cooked_frames(snap, n["id"]) == 0]

    F = len(snap.frame_index)
    if snap.frame_ms is not None:
        frame_times = list(snap.frame_ms)
    else:
        frame_times = [math.fsum(c[f] for c in (snap.cook(n["id"]) for n in snap.nodes)
                                 if c and c[f] is not None) for f in range(F)]
    over = [f for f in range(F) if frame_times[f] > snap.budget]
    overrun = math.fsum(frame_times[f] - snap.budget for f in over)
    spikes = []
    for n in snap.nodes:
        c = snap.cook(n["id"])
        vals = [v for v in c if v is not None] if c else []
        if not vals:
            continue
        med = median(vals)
        ex = [c[f] - med for f in over if c[f] is not None and c[f] > med]
        if ex:
            spikes.append((math.fsum(ex), n["id"], med))
    spikes.sort(key=lambda t: (-t[0], pos[t[1]]))
    ranked = sorted((n["id"] for n in snap.nodes), key=lambda i: -per_frame_ms(snap, i))
    kinds = {}
    for _, _, k in snap.edge_list():
        kinds[k] = kinds.get(k, 0) + 1
    return {
        "node_count": len(snap.nodes),
        "edge_count": len(snap.edge_list()),
        "edge_counts_by_kind": dict(sorted(kinds.items())),
        "frame_count": F,
        "frame_index_first": snap.frame_index[0],
        "frame_budget_ms": snap.budget,
        "mean_frame_ms": round(math.fsum(frame_times) / F, 6),
        "max_frame_ms": max(frame_times),
        "over_budget_frames": [snap.frame_index[f] for f in over],
        "outputs": outputs,
        "loops": loops,
        "dead_nodes": dead,
        "never_cooked_nodes": never,
        "top_per_frame_ms": [{"id": i, "per_frame_ms": round(per_frame_ms(snap, i), 6)}
                             for i in ranked[:10]],
        "spike_attribution_top": [{"id": i, "median_ms": m, "excess_ms": round(e, 6),
                                   "share_of_overrun": round(e / overrun, 6) if overrun else 0}
                                  for e, i, m in spikes[:5]],
    }


def require(cond, what):
    if not cond:
        raise AssertionError(f"planted fact does not hold: {what}")


def write_facts(path, facts):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(facts, f, indent=2)
        f.write("\n")


# --------------------------------------------------------------------------
# Series helpers


class Load:
    """A shared per-frame load factor (clock changes, thermal): small, slow."""

    def __init__(self, rng, frames, amplitude=0.025):
        phase = rng.uniform(0, 2 * math.pi)
        self.f = [1 + amplitude * math.sin(2 * math.pi * f / 97 + phase) + rng.gauss(0, 0.006)
                  for f in range(frames)]


def jitter_series(rng, base, cv, mask, load=None, floor=0.0005):
    """base * (1 + N(0, cv)) * load on the frames where mask is true, else None."""
    out = []
    for f, on in enumerate(mask):
        if not on:
            out.append(None)
            continue
        x = base * max(0.3, 1 + rng.gauss(0, cv))
        if load is not None:
            x *= load.f[f]
        out.append(q4(max(floor, x)))
    return out


def mask_every(n):
    return [True] * n


def mask_alternate(n, phase=0):
    return [(f + phase) % 2 == 0 for f in range(n)]


def mask_sparse(rng, n, p):
    m = [rng.random() < p for _ in range(n)]
    if not any(m):
        m[rng.randrange(n)] = True
    return m


def mask_period(n, period, phase=0):
    return [(f + phase) % period == 0 for f in range(n)]


# --------------------------------------------------------------------------
# a) TouchDesigner: nested COMPs, a costly feedback loop, a spiky script CHOP


FORMAT_BYTES = {"rgba8fixed": 4, "rgba16float": 8, "rgba32float": 16, "r32float": 4, "mono8": 1}
FORMAT_COST = {"rgba8fixed": 1.0, "rgba16float": 1.6, "rgba32float": 2.6, "r32float": 0.9,
               "mono8": 0.5}
# Relative CPU cook cost of a TOP at 1920x1080 rgba8fixed (ms, before scaling).
TOP_COST = {"noiseTOP": 0.22, "rampTOP": 0.04, "levelTOP": 0.07, "blurTOP": 0.3,
            "compositeTOP": 0.12, "transformTOP": 0.08, "feedbackTOP": 0.06, "nullTOP": 0.008,
            "outTOP": 0.006, "moviefileinTOP": 0.35, "renderTOP": 0.9, "glslTOP": 0.25,
            "hsvadjustTOP": 0.07, "displaceTOP": 0.14, "overTOP": 0.08, "lookupTOP": 0.05,
            "textTOP": 0.12, "ssaoTOP": 0.55, "thresholdTOP": 0.05, "addTOP": 0.05,
            "edgeTOP": 0.09, "choptoTOP": 0.03, "depthTOP": 0.04, "ndioutTOP": 0.15,
            "moviefileoutTOP": 0.4, "cropTOP": 0.03, "kaleidoscopeTOP": 0.1, "tileTOP": 0.06,
            "mirrorTOP": 0.05, "chromakeyTOP": 0.09, "rgbkeyTOP": 0.07, "switchTOP": 0.01,
            "selectTOP": 0.01, "resolutionTOP": 0.05}
CHOP_COST = {"lfoCHOP": 0.008, "mathCHOP": 0.01, "nullCHOP": 0.003, "constantCHOP": 0.004,
             "filterCHOP": 0.012, "lagCHOP": 0.01, "selectCHOP": 0.005, "analyzeCHOP": 0.02,
             "audiofileinCHOP": 0.08, "audiospectrumCHOP": 0.14, "oscinCHOP": 0.02,
             "scriptCHOP": 0.3, "noiseCHOP": 0.09, "countCHOP": 0.006, "beatCHOP": 0.01,
             "performCHOP": 0.015, "midiinCHOP": 0.02, "panelCHOP": 0.02, "timerCHOP": 0.012,
             "mergeCHOP": 0.01, "speedCHOP": 0.008, "triggerCHOP": 0.009, "dattoCHOP": 0.012,
             "renameCHOP": 0.004, "resampleCHOP": 0.03, "envelopeCHOP": 0.015}
SOP_COST = {"sphereSOP": 0.06, "boxSOP": 0.02, "torusSOP": 0.05, "gridSOP": 0.08,
            "tubeSOP": 0.04, "noiseSOP": 0.35, "transformSOP": 0.05, "nullSOP": 0.004,
            "twistSOP": 0.12, "subdivideSOP": 0.25}


class TDBuilder:
    def __init__(self, rng, frames):
        self.rng = rng
        self.frames = frames
        self.snap = Snapshot("touchdesigner", "feedback_show", ["show_v7.toe", "perf_export.py"],
                             "2026-11-21T20:14:03Z", 60, 16.667)
        self.cost = {}  # id -> dict(base, cv, mask, gpu, gpu_mem, cpu_mem, fixed)

    def op(self, node_id, optype, *, inputs=(), refs=(), feedback=(), params=None, output=False,
           res=None, fmt_=None, cost=None, cv=None, mask="every", fixed=False, gpu=None,
           cpu_mem=None):
        params = dict(params or {})
        family = td_family(optype)
        if family == "TOP" and res is not None:
            params["resolutionw"], params["resolutionh"] = str(res[0]), str(res[1])
        if family == "TOP" and fmt_ is not None:
            params["format"] = fmt_
        self.snap.add(node_id, optype, family, params=params, inputs=inputs, refs=refs,
                      feedback=feedback, output=output)
        if cost is None:
            if family == "TOP":
                w, h = res or (1920, 1080)
                cost = TOP_COST.get(optype, 0.05) * (w * h) / (1920 * 1080) * \
                    FORMAT_COST[fmt_ or "rgba8fixed"]
                cost = max(cost, 0.004)
            elif family == "CHOP":
                cost = CHOP_COST.get(optype, 0.01)
            elif family == "SOP":
                cost = SOP_COST.get(optype, 0.05)
            elif family == "COMP":
                cost = 0.04
            elif family == "MAT":
                cost = 0.01
            else:
                cost = 0.02
        spec = {"base": cost, "cv": cv if cv is not None else self.rng.uniform(0.04, 0.12),
                "mask": mask, "fixed": fixed, "gpu": None, "gpu_mem": None, "cpu_mem": cpu_mem}
        if family == "TOP":
            w, h = res or (1920, 1080)
            spec["gpu"] = gpu if gpu is not None else self.rng.uniform(0.7, 1.5)
            if w * h >= 1280 * 720:
                spec["gpu_mem"] = q4(w * h * FORMAT_BYTES[fmt_ or "rgba8fixed"] / 2 ** 20)
        self.cost[node_id] = spec
        return node_id

    def comp(self, node_id, optype="baseCOMP", **kw):
        kw.setdefault("mask", "none")
        return self.op(node_id, optype, **kw)


def build_touchdesigner(seed):
    rng = random.Random(seed)
    F = NUM_FRAMES
    td = TDBuilder(rng, F)
    op, comp = td.op, td.comp
    P = "/project1"

    # ---- control: CHOPs driven by audio, OSC, MIDI and LFOs
    C = f"{P}/control"
    comp(C)
    op(f"{C}/oscin1", "oscinCHOP", params={"port": "7000", "queued": "on"})
    spiky = op(f"{C}/script_osc", "scriptCHOP", inputs=[f"{C}/oscin1"],
               params={"callbacks": "script_osc_callbacks", "cookalways": "on"},
               cost=0.3, cv=0.06, fixed=True, cpu_mem=12.0)
    op(f"{C}/null_osc", "nullCHOP", inputs=[spiky])
    op(f"{C}/audiofilein1", "audiofileinCHOP",
       params={"file": "audio/loop_128bpm.wav", "play": "on"}, cpu_mem=47.9)
    op(f"{C}/audiospectrum1", "audiospectrumCHOP", inputs=[f"{C}/audiofilein1"],
       params={"frequencylog": "4", "outlength": "256"})
    bands = []
    for band, bins in (("low", "0-8"), ("mid", "9-64"), ("high", "65-255")):
        op(f"{C}/select_{band}", "selectCHOP", inputs=[f"{C}/audiospectrum1"],
           params={"channames": f"chan1[{bins}]"})
        op(f"{C}/analyze_{band}", "analyzeCHOP", inputs=[f"{C}/select_{band}"],
           params={"function": "rmspower"})
        bands.append(op(f"{C}/lag_{band}", "lagCHOP", inputs=[f"{C}/analyze_{band}"],
                        params={"lag1": "0.05", "lag2": "0.4"}))
    # A cook dependency loop between two CHOPs that reference each other.
    op(f"{C}/speed", "constantCHOP", refs=[f"{C}/tempo"],
       params={"name0": "speed", "value0": "op('tempo')['bpm'] / 120"})
    op(f"{C}/tempo", "mathCHOP", refs=[f"{C}/speed"], params={"gain": "op('speed')['speed']"})
    op(f"{C}/beat1", "beatCHOP", refs=[f"{C}/tempo"], params={"pulse": "on"})
    # A count CHOP whose limit reads its own channel: a self-loop.
    op(f"{C}/counter1", "countCHOP", inputs=[f"{C}/beat1"], refs=[f"{C}/counter1"],
       params={"limitmax": "op('counter1')[0] + 16", "output": "loop"})
    op(f"{C}/midiin1", "midiinCHOP", params={"device": "1", "channel": "1-16"})
    op(f"{C}/select_midi", "selectCHOP", inputs=[f"{C}/midiin1"], params={"channames": "ctrl*"})
    op(f"{C}/null_midi", "nullCHOP", inputs=[f"{C}/select_midi"])
    op(f"{C}/perform1", "performCHOP", params={"fps": "on", "msec": "on", "gpumemused": "on"})
    op(f"{C}/select_fps", "selectCHOP", inputs=[f"{C}/perform1"], params={"channames": "fps msec"})
    op(f"{C}/null_fps", "nullCHOP", inputs=[f"{C}/select_fps"])
    op(f"{C}/timer1", "timerCHOP", refs=[f"{C}/counter1"], params={"length": "8", "cycle": "on"})
    op(f"{C}/math_env", "mathCHOP", inputs=bands, refs=[f"{C}/null_midi"],
       params={"chopop": "add", "gain": "1.5"})
    op(f"{C}/env_filter", "filterCHOP", inputs=[f"{C}/math_env"], params={"width": "0.1"})
    op(f"{C}/null_env", "nullCHOP", inputs=[f"{C}/env_filter"])
    for i in range(1, 5):
        op(f"{C}/noise_chop{i}", "noiseCHOP", refs=[f"{C}/timer1"],
           params={"type": "sparse", "channelname": "tx ty tz", "end": "1000"},
           cost=0.05 + 0.04 * i)
    ctrl_nulls = []
    for i in range(1, 11):
        op(f"{C}/lfo{i}", "lfoCHOP", refs=[f"{C}/tempo"],
           params={"frequency": f"op('tempo')['bpm'] / {60 * i}", "wavetype":
                   rng.choice(["sin", "triangle", "ramp", "square"])})
        op(f"{C}/math{i}", "mathCHOP", inputs=[f"{C}/lfo{i}"],
           refs=[rng.choice(bands)], params={"fromrange2": "1", "torange2": str(rng.randint(2, 9))})
        op(f"{C}/filter{i}", "filterCHOP", inputs=[f"{C}/math{i}"],
           params={"width": f"{rng.choice([0.05, 0.1, 0.2])}"})
        ctrl_nulls.append(op(f"{C}/null_ctrl{i}", "nullCHOP", inputs=[f"{C}/filter{i}"]))
    op(f"{C}/merge_ctrl", "mergeCHOP", inputs=ctrl_nulls[:5] + [f"{C}/null_osc"])
    ctrl_nulls.append(op(f"{C}/null_merge", "nullCHOP", inputs=[f"{C}/merge_ctrl"]))

    def ctrl():
        return rng.choice(ctrl_nulls)

    # ---- DATs: GLSL code, presets table, a script DAT that builds overlay text
    D = f"{P}/dats"
    comp(D)
    glsl = []
    for i in range(1, 5):
        glsl.append(op(f"{D}/glsl_pixel{i}", "textDAT", mask="none",
                       params={"file": f"shaders/pixel{i}.glsl", "syncfile": "on"}))
    op(f"{D}/table_presets", "tableDAT", mask="none", params={"file": "presets.csv"})
    op(f"{D}/select_preset", "selectDAT", inputs=[f"{D}/table_presets"], mask="none",
       refs=[f"{C}/null_midi"], params={"rowindexstart": "op('null_midi')['ctrl1']"})
    op(f"{D}/datto1", "dattoCHOP", inputs=[f"{D}/select_preset"], params={"firstrow": "names"})
    op(f"{D}/script_text", "scriptDAT", inputs=[f"{D}/select_preset"],
       refs=[f"{C}/null_fps"], mask=mask_sparse(rng, F, 0.1), cost=0.06,
       params={"callbacks": "script_text_callbacks"})
    op(f"{D}/execute1", "executeDAT", mask="none", params={"framestart": "on", "active": "on"})
    op(f"{D}/chopexec_midi", "chopexecuteDAT", mask="none", refs=[f"{C}/null_midi"],
       params={"chop": "null_midi", "valuechange": "on"})
    td.snap.append_to(f"{C}/math_env", "refs", f"{D}/datto1")

    # ---- UI: a panel container whose buttons and sliders cook when touched
    U = f"{P}/ui"
    comp(U, "containerCOMP", params={"w": "1920", "h": "1080"})
    widgets = []
    for i in range(1, 7):
        widgets.append(op(f"{U}/button{i}", "buttonCOMP", mask=mask_sparse(rng, F, 0.02),
                          cost=0.12, params={"buttontype": "momentary"}))
    for i in range(1, 9):
        widgets.append(op(f"{U}/slider{i}", "sliderCOMP", mask=mask_sparse(rng, F, 0.04),
                          cost=0.1, params={"value0": f"{rng.random():.3f}"}))
    op(f"{U}/panel1", "panelCHOP", refs=widgets, params={"panelvalue": "state u v"})
    op(f"{U}/null_ui", "nullCHOP", inputs=[f"{U}/panel1"])
    td.snap.append_to(f"{C}/math_env", "refs", f"{U}/null_ui")

    # ---- fx: generative layers in nested COMPs, composited
    X = f"{P}/fx"
    comp(X)
    layer_outs = []
    sources = ["noiseTOP", "rampTOP", "moviefileinTOP", "glslTOP", "textTOP", "noiseTOP"]
    for L in range(1, 17):
        base = f"{X}/layer{L}"
        comp(base)
        bypassed = L == 16  # a whole layer switched off: its ops never cook
        lmask = [False] * F if bypassed else "every"
        res = (1280, 720) if L % 5 == 0 else (1920, 1080)
        src_type = sources[L % len(sources)]
        params = {}
        refs = []
        src_mask = lmask
        cpu_mem = None
        if src_type == "moviefileinTOP":
            params = {"file": f"media/clip_{L:02d}.mov", "play": "on", "speed": "1"}
            src_mask = lmask if bypassed else mask_alternate(F, L)  # 30 fps clip, 60 fps project
            cpu_mem = 61.0 + L
        elif src_type == "glslTOP":
            params = {"pixeldat": f"../../dats/glsl_pixel{1 + L % 4}"}
            refs = [glsl[L % 4], ctrl()]
        elif src_type == "noiseTOP":
            params = {"type": "sparse", "period": "2.5", "harmon": str(rng.randint(2, 6))}
            refs = [ctrl()]
        elif src_type == "textTOP":
            params = {"text": f"layer {L}", "fontsizex": "96"}
            refs = [ctrl()]
        src = op(f"{base}/src1", src_type, refs=refs, params=params, res=res, mask=src_mask,
                 cpu_mem=cpu_mem)
        chain = [src]
        op(f"{base}/level1", "levelTOP", inputs=[chain[-1]], refs=[ctrl()], res=res, mask=lmask,
           params={"brightness1": "op('../../control/null_env')['chan1']", "gamma1": "1.1"})
        chain.append(f"{base}/level1")
        op(f"{base}/transform1", "transformTOP", inputs=[chain[-1]], refs=[ctrl()], res=res,
           mask=lmask, params={"rotate": "absTime.seconds * 10", "extend": "mirror"})
        chain.append(f"{base}/transform1")
        if L % 3 == 0:  # a deeper COMP inside the layer
            k = f"{base}/kaleido"
            comp(k)
            op(f"{k}/in1", "selectTOP", params={"top": "../transform1"}, res=res, mask=lmask)
            td.snap.append_to(f"{k}/in1", "refs", chain[-1])
            op(f"{k}/kaleidoscope1", "kaleidoscopeTOP", inputs=[f"{k}/in1"], res=res, mask=lmask,
               params={"segments": str(rng.randint(4, 12))}, refs=[ctrl()])
            op(f"{k}/mirror1", "mirrorTOP", inputs=[f"{k}/kaleidoscope1"], res=res, mask=lmask)
            op(f"{k}/out1", "outTOP", inputs=[f"{k}/mirror1"], res=res, mask=lmask)
            chain.append(f"{k}/out1")
        op(f"{base}/hsv1", "hsvadjustTOP", inputs=[chain[-1]], refs=[ctrl()], res=res, mask=lmask,
           params={"hueoffset": f"{rng.random():.2f}", "saturationmult": "1.2"})
        chain.append(f"{base}/hsv1")
        if L % 2 == 0:
            op(f"{base}/edge1", "edgeTOP", inputs=[chain[-1]], res=res, mask=lmask,
               params={"strength": "2"})
            op(f"{base}/comp1", "compositeTOP", inputs=[chain[-1], f"{base}/edge1"], res=res,
               mask=lmask, params={"operand": "screen"})
            chain.append(f"{base}/comp1")
        if res != (1920, 1080):
            op(f"{base}/fit1", "resolutionTOP", inputs=[chain[-1]], res=(1920, 1080), mask=lmask,
               params={"outputresolution": "custom"})
            chain.append(f"{base}/fit1")
        layer_outs.append(op(f"{base}/out1", "outTOP", inputs=[chain[-1]], mask=lmask))

    # Particles: a GPU simulation closed by its own (cheap) feedback TOP.
    PT = f"{X}/particles"
    comp(PT)
    op(f"{PT}/pos_init", "noiseTOP", res=(512, 512), fmt_="rgba32float",
       params={"type": "random", "mono": "off"})
    op(f"{PT}/feedback_pos", "feedbackTOP", inputs=[f"{PT}/pos_init"], feedback=[f"{PT}/null_pos"],
       res=(512, 512), fmt_="rgba32float", params={"top": "null_pos", "resetpulse": "0"})
    op(f"{PT}/glsl_sim", "glslTOP", inputs=[f"{PT}/feedback_pos", f"{PT}/pos_init"],
       refs=[glsl[0], f"{C}/noise_chop1"], res=(512, 512), fmt_="rgba32float",
       params={"pixeldat": "../../dats/glsl_pixel1"})
    op(f"{PT}/null_pos", "nullTOP", inputs=[f"{PT}/glsl_sim"], res=(512, 512), fmt_="rgba32float")
    op(f"{PT}/box1", "boxSOP", params={"sizex": "0.02", "sizey": "0.02", "sizez": "0.02"})
    op(f"{PT}/geo_particles", "geometryCOMP", refs=[f"{PT}/box1", f"{PT}/null_pos"], cost=0.35,
       params={"instancing": "on", "instanceop": "null_pos", "instancetx": "r"})
    op(f"{PT}/cam1", "cameraCOMP", refs=[f"{C}/null_ctrl3"], cost=0.02, params={"tz": "5"})
    op(f"{PT}/render_particles", "renderTOP", refs=[f"{PT}/geo_particles", f"{PT}/cam1"],
       res=(1920, 1080), fmt_="rgba16float", params={"antialias": "4"})
    layer_outs.append(op(f"{PT}/out1", "outTOP", inputs=[f"{PT}/render_particles"]))

    op(f"{X}/mix1", "compositeTOP", inputs=layer_outs[:8], params={"operand": "add"})
    op(f"{X}/mix2", "compositeTOP", inputs=layer_outs[8:], params={"operand": "screen"})

    # ---- scene: geometry COMPs with SOP chains, materials textured by layers
    S = f"{P}/scene"
    comp(S)
    op(f"{S}/cam1", "cameraCOMP", refs=[f"{C}/null_ctrl1", f"{C}/null_ctrl2"], cost=0.03,
       params={"tx": "op('../control/null_ctrl1')['chan1']", "fov": "45"})
    op(f"{S}/light1", "lightCOMP", refs=[f"{C}/null_env"], cost=0.02, params={"lighttype": "point"})
    op(f"{S}/light2", "lightCOMP", cost=0.02, params={"lighttype": "directional"})
    geos = []
    shapes = ["sphereSOP", "boxSOP", "torusSOP", "gridSOP", "tubeSOP", "sphereSOP", "torusSOP",
              "gridSOP", "boxSOP", "sphereSOP"]
    for g in range(1, 11):
        G = f"{S}/geo{g}"
        mat = op(f"{S}/mat{g}", "pbrMAT" if g % 2 else "phongMAT",
                 refs=[layer_outs[g % len(layer_outs)]],
                 params={"basecolormap": f"../fx/layer{1 + g % 16}/out1", "roughness": "0.4"})
        sop_refs = [f"{G}/null1", mat]
        instanced = {5: "noise_chop2", 7: "noise_chop3", 9: "noise_chop4"}.get(g)
        params = {"material": f"../mat{g}"}
        if instanced:
            sop_refs.append(f"{C}/{instanced}")
            params.update({"instancing": "on", "instanceop": f"../../control/{instanced}"})
        geos.append(op(G, "geometryCOMP", refs=sop_refs, cost=0.3 if instanced else 0.06,
                       params=params))
        op(f"{G}/{shapes[g - 1][:-3]}1", shapes[g - 1],
           params={"rows": str(rng.choice([20, 40, 80])), "cols": str(rng.choice([20, 40, 80]))})
        chain = [f"{G}/{shapes[g - 1][:-3]}1"]
        if g % 3 == 0:
            op(f"{G}/subdivide1", "subdivideSOP", inputs=[chain[-1]], params={"depth": "2"})
            chain.append(f"{G}/subdivide1")
        op(f"{G}/noise1", "noiseSOP", inputs=[chain[-1]], refs=[ctrl()],
           params={"amp": "0.3", "t4d": "absTime.seconds"})
        op(f"{G}/twist1", "twistSOP", inputs=[f"{G}/noise1"], params={"strength": "45"})
        op(f"{G}/transform1", "transformSOP", inputs=[f"{G}/twist1"], refs=[ctrl()],
           params={"ry": "absTime.seconds * 20"})
        op(f"{G}/null1", "nullSOP", inputs=[f"{G}/transform1"], params={"render": "on"})
    op(f"{S}/render1", "renderTOP", refs=[f"{S}/cam1", f"{S}/light1", f"{S}/light2"] + geos,
       res=(1920, 1080), fmt_="rgba16float", params={"antialias": "4", "camera": "cam1"})
    op(f"{S}/depth1", "depthTOP", inputs=[f"{S}/render1"], res=(1920, 1080), fmt_="r32float")
    op(f"{S}/ssao1", "ssaoTOP", inputs=[f"{S}/render1"], refs=[f"{S}/depth1"], res=(1920, 1080),
       fmt_="rgba16float", params={"quality": "high", "samples": "16"})
    op(f"{S}/null_scene", "nullTOP", inputs=[f"{S}/ssao1"], res=(1920, 1080), fmt_="rgba16float")

    op(f"{X}/mix_out", "compositeTOP", inputs=[f"{X}/mix1", f"{X}/mix2", f"{S}/null_scene"],
       params={"operand": "over"}, fmt_="rgba16float")

    # ---- the costly feedback loop: 4K float trails
    T = f"{X}/trails"
    comp(T)
    uhd, f32 = (3840, 2160), "rgba32float"
    op(f"{T}/fb_seed", "noiseTOP", res=uhd, fmt_=f32, refs=[f"{C}/null_env"],
       params={"type": "simplex3d", "period": "4"}, cost=0.42, fixed=True)
    feedback1 = op(f"{T}/feedback1", "feedbackTOP", inputs=[f"{T}/fb_seed"],
                   feedback=[f"{T}/comp_fb"], res=uhd, fmt_=f32,
                   params={"top": "comp_fb", "resetpulse": "0"}, cost=0.36, fixed=True)
    op(f"{T}/blur_fb", "blurTOP", inputs=[feedback1], res=uhd, fmt_=f32,
       params={"size": "32", "type": "gaussian", "extend": "mirror"}, cost=1.9, fixed=True)
    op(f"{T}/displace_fb", "displaceTOP", inputs=[f"{T}/blur_fb", f"{T}/fb_seed"], res=uhd,
       fmt_=f32, params={"displaceweightx": "0.02", "displaceweighty": "0.02"}, cost=0.88,
       fixed=True)
    op(f"{T}/level_fb", "levelTOP", inputs=[f"{T}/displace_fb"], refs=[f"{C}/null_env"], res=uhd,
       fmt_=f32, params={"opacity": "0.96", "brightness1": "0.99"}, cost=0.46, fixed=True)
    comp_fb = op(f"{T}/comp_fb", "compositeTOP", inputs=[f"{T}/level_fb", f"{X}/mix_out"],
                 res=uhd, fmt_=f32, params={"operand": "maximum"}, cost=0.74, fixed=True)

    # ---- post: grade, bloom, trails, overlay, outputs
    Q = f"{P}/post"
    comp(Q)
    op(f"{Q}/comp_main", "compositeTOP", inputs=[comp_fb, f"{S}/null_scene"],
       params={"operand": "over"}, fmt_="rgba16float")
    op(f"{Q}/thresh1", "thresholdTOP", inputs=[f"{Q}/comp_main"], params={"threshold": "0.8"})
    op(f"{Q}/blur_bloom", "blurTOP", inputs=[f"{Q}/thresh1"], res=(960, 540),
       params={"size": "24"})
    op(f"{Q}/add_bloom", "addTOP", inputs=[f"{Q}/comp_main", f"{Q}/blur_bloom"],
       fmt_="rgba16float")
    twice = op(f"{Q}/level_grade", "levelTOP", inputs=[f"{Q}/add_bloom"],
               refs=[f"{C}/null_midi", f"{U}/null_ui"], fmt_="rgba16float",
               params={"gamma1": "op('../ui/null_ui')['v']", "contrast": "1.1"},
               cost=0.19, cv=0.05, fixed=True)
    op(f"{Q}/lut_ramp", "rampTOP", res=(256, 1), params={"type": "horizontal"}, mask="none")
    op(f"{Q}/lut1", "lookupTOP", inputs=[twice, f"{Q}/lut_ramp"], fmt_="rgba16float")
    op(f"{Q}/feedback2", "feedbackTOP", inputs=[f"{Q}/lut1"], feedback=[f"{Q}/over_trails"],
       res=(1280, 720), params={"top": "over_trails"})
    op(f"{Q}/level_trails", "levelTOP", inputs=[f"{Q}/feedback2"], res=(1280, 720),
       params={"opacity": "0.9"})
    op(f"{Q}/over_trails", "overTOP", inputs=[f"{Q}/level_trails", f"{Q}/lut1"])
    op(f"{Q}/text_overlay", "textTOP", refs=[f"{C}/null_fps", f"{D}/script_text"],
       res=(1920, 1080), params={"text": "op('../control/null_fps')['fps']", "alignx": "right"})
    op(f"{Q}/over_text", "overTOP", inputs=[f"{Q}/text_overlay", f"{Q}/over_trails"])
    out_main = op(f"{Q}/out_main", "nullTOP", inputs=[f"{Q}/over_text"], output=True,
                  params={"display": "on"})
    # The dead cook: a full-4K float blur left running for a preview nobody shows.
    dead = op(f"{Q}/blur_preview", "blurTOP", inputs=[f"{Q}/comp_main"], res=uhd, fmt_=f32,
              params={"size": "16", "prefilter": "off"}, cost=1.12, cv=0.05, fixed=True)
    ndi = op(f"{Q}/ndi_out", "ndioutTOP", inputs=[out_main], output=True,
             params={"name": "show_main", "fps": "60"})
    op(f"{Q}/record1", "moviefileoutTOP", inputs=[out_main], mask=[False] * F,
       params={"file": "renders/show.mov", "record": "off", "type": "movie"})

    out1 = op(f"{P}/out1", "outTOP", inputs=[out_main], output=True)
    window = op(f"{P}/window1", "windowCOMP", refs=[out_main], output=True, cost=0.09,
                mask="every", params={"winop": "post/out_main", "monitor": "1", "vsyncmode": "on"})

    # ---- series
    snap = td.snap
    snap.frame_index = list(range(36000, 36000 + F))
    load = Load(rng, F)
    spike_frames = sorted(rng.sample(range(F), 15))
    fixed = math.fsum(s["base"] * (2 if i == twice else 1)
                      for i, s in td.cost.items() if s["fixed"])
    # Scale the unplanted nodes so that a normal frame's cook sum is ~12.4 ms.
    free = 0.0
    for node_id, s in td.cost.items():
        if s["fixed"] or s["mask"] == "none":
            continue
        m = s["mask"]
        frac = 1.0 if m == "every" else sum(m) / F
        free += s["base"] * frac
    scale = (12.4 - fixed) / free
    require(scale > 0, "room for unplanted nodes")
    for node_id, s in td.cost.items():
        if s["mask"] == "none":
            continue  # never cooks: no series at all
        mask = mask_every(F) if s["mask"] == "every" else s["mask"]
        base = s["base"] if s["fixed"] else s["base"] * scale
        if node_id == twice:
            a = jitter_series(rng, base, s["cv"], mask, load)
            b = jitter_series(rng, base, s["cv"], mask, load)
            cook = [q4(x + y) for x, y in zip(a, b)]
            snap.set_series(node_id, "cook_ms", cook)
            snap.set_series(node_id, "cooks", [2] * F)
        else:
            cook = jitter_series(rng, base, s["cv"], mask, load)
            if node_id == spiky:
                for f in spike_frames:
                    cook[f] = q4(rng.uniform(12.0, 20.0))
            snap.set_series(node_id, "cook_ms", cook)
            if s["mask"] != "every" and any(mask):
                snap.set_series(node_id, "cooks", [1 if on else 0 for on in mask])
        if s["gpu"] is not None and any(mask):
            snap.set_series(node_id, "gpu_ms",
                            [None if c is None else q4(c * s["gpu"] * (1 + rng.gauss(0, 0.03)))
                             for c in cook])
        if s["gpu_mem"] is not None:
            snap.set_series(node_id, "gpu_mem_mb", [s["gpu_mem"]] * F)
        if s["cpu_mem"] is not None:
            grow = 0.007 if node_id == spiky else 0.0  # the script CHOP leaks a little
            snap.set_series(node_id, "cpu_mem_mb",
                            [q4(s["cpu_mem"] + grow * f + abs(rng.gauss(0, 0.05)))
                             for f in range(F)])
    sums = [0.0] * F
    for metrics in snap.series.values():
        c = metrics.get("cook_ms")
        for f in range(F):
            if c[f] is not None:
                sums[f] += c[f]
    snap.frame_ms = [q4(sums[f] + 0.32 + abs(rng.gauss(0, 0.07))) for f in range(F)]

    # ---- check what was planted
    facts = graph_facts(snap)
    loops = facts["loops"]
    fb = [lp for lp in loops if lp["kind"] == "feedback" and lp["to"] == feedback1]
    require(len(fb) == 1 and fb[0]["from"] == comp_fb, "the trails feedback loop exists")
    require(loops[0] is fb[0], "the trails feedback loop is the costliest loop")
    require(set(fb[0]["nodes"]) == {feedback1, f"{T}/blur_fb", f"{T}/displace_fb",
                                    f"{T}/level_fb", comp_fb}, "trails loop members")
    require(facts["dead_nodes"] == [dead], f"exactly one dead cook, got {facts['dead_nodes']}")
    over = [snap.frame_index[f] for f in spike_frames]
    require(facts["over_budget_frames"] == over, "over-budget frames are the spike frames")
    require(facts["spike_attribution_top"][0]["id"] == spiky, "the script CHOP tops the spikes")
    require(12.0 <= facts["mean_frame_ms"] <= 14.0, f"mean frame {facts['mean_frame_ms']}")
    rank = [r["id"] for r in facts["top_per_frame_ms"]]
    require(dead in rank[:5], "the dead blur ranks visibly")
    facts.update({
        "example": "touchdesigner_feedback.json",
        "engine": "touchdesigner",
        "seed": seed,
        "planted": {
            "feedback_loop": {"feedback_edge": {"from": comp_fb, "to": feedback1},
                              "nodes": fb[0]["nodes"], "per_frame_ms": fb[0]["per_frame_ms"],
                              "costliest_loop": True},
            "spiky_node": {"id": spiky, "usual_ms": 0.3, "spike_ms_range": [12.0, 20.0],
                           "spike_frames": over},
            "dead_node": dead,
            "twice_cooking_node": twice,
            "outputs": [out_main, ndi, out1, window],
            "ref_cycle": [f"{C}/speed", f"{C}/tempo"],
            "self_loop": f"{C}/counter1",
            "bypassed_layer": f"{X}/layer16",
            "alternate_frame_cooks": [n for n in td.cost if n.endswith("/src1")
                                      and td.snap.node(n)["type"] == "moviefileinTOP"],
            "leaking_cpu_mem_node": spiky,
        },
    })
    return snap, facts


# --------------------------------------------------------------------------
# b) GStreamer: eight cameras, a compositor, a tee fanning out to eight branches


def build_gstreamer(seed):
    rng = random.Random(seed + 1)
    F = NUM_FRAMES
    snap = Snapshot("gstreamer", "camera_wall",
                    ["0.00:00:04.221839010-gst-launch.PAUSED_PLAYING.dot", "trace.log"],
                    "2026-11-20T09:41:17Z", 30, 33.333)
    spec = {}  # id -> (base ms per buffer, cv, kind)
    counters = {}

    def name(factory):
        n = counters.get(factory, 0)
        counters[factory] = n + 1
        return f"{factory}{n}"

    def el(parent, factory, gtype, *, inputs=(), params=None, output=False, cost=None, cv=0.08,
           kind="work", id_name=None):
        node_id = f"{parent}/{id_name or name(factory)}"
        snap.add(node_id, gtype, "element", params=params, inputs=inputs, output=output)
        if cost is not None:
            spec[node_id] = {"base": cost, "cv": cv, "kind": kind}
        return node_id

    def bin_(node_id, gtype="GstBin"):
        snap.add(node_id, gtype, "bin")
        return node_id

    PL = bin_("/pipeline0", "GstPipeline")
    snap.node(PL)["params"] = {"latency": "0", "message-forward": "true"}
    compositor_inputs = []
    cam_decoders = []
    for cam in range(1, 9):
        B = bin_(f"{PL}/bin_cam{cam}")
        hd = cam <= 4
        w, h = (1920, 1080) if hd else (1280, 720)
        px = w * h / (1920 * 1080)
        src = el(B, "v4l2src", "GstV4l2Src",
                 params={"device": f"/dev/video{2 * (cam - 1)}", "io-mode": "dmabuf",
                         "do-timestamp": "true"})
        caps = el(B, "capsfilter", "GstCapsFilter", inputs=[src], cost=0.006,
                  params={"caps": f"image/jpeg, width=(int){w}, height=(int){h}, "
                                  "framerate=(fraction)30/1"})
        dec = el(B, "jpegdec", "GstJpegDec", inputs=[caps], cost=3.1 * px, cv=0.06,
                 params={"idct-method": "ifast"})
        cam_decoders.append(dec)
        conv = el(B, "videoconvert", "GstVideoConvert", inputs=[dec], cost=1.5 * px,
                  params={"n-threads": "2"})
        scale = el(B, "videoscale", "GstVideoScale", inputs=[conv], cost=1.0 * px,
                   params={"method": "bilinear"})
        caps2 = el(B, "capsfilter", "GstCapsFilter", inputs=[scale], cost=0.005,
                   params={"caps": "video/x-raw, format=(string)NV12, width=(int)1280, "
                                   "height=(int)720, framerate=(fraction)30/1"})
        tee = el(B, "tee", "GstTee", inputs=[caps2], cost=0.008, kind="tee3",
                 params={"allow-not-linked": "true"})
        q_mix = el(B, "queue", "GstQueue", inputs=[tee], cost=0.9, cv=0.5, kind="queue",
                   params={"max-size-buffers": "3", "leaky": "downstream"})
        compositor_inputs.append(q_mix)
        q_rec = el(B, "queue", "GstQueue", inputs=[tee], cost=0.4, cv=0.5, kind="queue",
                   params={"max-size-time": "2000000000"})
        enc = el(B, "x264enc", "GstX264Enc", inputs=[q_rec], cost=3.0, cv=0.07,
                 params={"speed-preset": "ultrafast", "tune": "zerolatency", "bitrate": "4000",
                         "key-int-max": "30"})
        parse = el(B, "h264parse", "GstH264Parse", inputs=[enc], cost=0.04,
                   params={"config-interval": "-1"})
        mux = el(B, "mp4mux", "GstMP4Mux", inputs=[parse], cost=0.07,
                 params={"fragment-duration": "1000"})
        el(B, "filesink", "GstFileSink", inputs=[mux], output=True,
           params={"location": f"/recordings/cam{cam}.mp4", "sync": "false"})
        q_ai = el(B, "queue", "GstQueue", inputs=[tee], cost=0.3, cv=0.5, kind="queue",
                  params={"max-size-buffers": "1", "leaky": "downstream"})
        s_ai = el(B, "videoscale", "GstVideoScale", inputs=[q_ai], cost=0.45)
        c_ai = el(B, "videoconvert", "GstVideoConvert", inputs=[s_ai], cost=0.55)
        f_ai = el(B, "capsfilter", "GstCapsFilter", inputs=[c_ai], cost=0.005,
                  params={"caps": "video/x-raw, format=(string)RGB, width=(int)640, "
                                  "height=(int)640"})
        el(B, "appsink", "GstAppSink", inputs=[f_ai], output=True,
           params={"name": f"detector_in{cam}", "emit-signals": "true", "max-buffers": "1",
                   "drop": "true"})

    FB = bin_(f"{PL}/bin_file1")
    fsrc = el(FB, "filesrc", "GstFileSrc", params={"location": "/media/loop_intro.mp4"})
    demux = el(FB, "qtdemux", "GstQTDemux", inputs=[fsrc], cost=0.05)
    fparse = el(FB, "h264parse", "GstH264Parse", inputs=[demux], cost=0.04)
    fdec = el(FB, "avdec_h264", "avdec_h264", inputs=[fparse], cost=2.3,
              params={"max-threads": "4", "output-corrupt": "false"})
    fconv = el(FB, "videoconvert", "GstVideoConvert", inputs=[fdec], cost=0.8)
    fscale = el(FB, "videoscale", "GstVideoScale", inputs=[fconv], cost=0.6)
    fcaps = el(FB, "capsfilter", "GstCapsFilter", inputs=[fscale], cost=0.005,
               params={"caps": "video/x-raw, width=(int)1280, height=(int)720"})
    compositor_inputs.append(el(FB, "queue", "GstQueue", inputs=[fcaps], cost=0.6, cv=0.5,
                                kind="queue"))
    for t, pattern in ((1, "smpte"), (2, "ball")):
        TB = bin_(f"{PL}/bin_test{t}")
        tsrc = el(TB, "videotestsrc", "GstVideoTestSrc",
                  params={"pattern": pattern, "is-live": "true"})
        tcaps = el(TB, "capsfilter", "GstCapsFilter", inputs=[tsrc], cost=0.005,
                   params={"caps": "video/x-raw, width=(int)640, height=(int)360, "
                                   "framerate=(fraction)30/1"})
        compositor_inputs.append(el(TB, "queue", "GstQueue", inputs=[tcaps], cost=0.2, cv=0.5,
                                    kind="queue"))

    MX = bin_(f"{PL}/bin_mix")
    comp = el(MX, "compositor", "GstCompositor", inputs=compositor_inputs, cost=4.2, cv=0.06,
              params={"background": "black", "latency": "33333333",
                      **{f"sink_{i}::xpos": str(480 * (i % 4)) for i in range(4)}})
    mcaps = el(MX, "capsfilter", "GstCapsFilter", inputs=[comp], cost=0.006,
               params={"caps": "video/x-raw, format=(string)I420, width=(int)1920, "
                               "height=(int)1080, framerate=(fraction)30/1"})
    txt = el(MX, "textoverlay", "GstTextOverlay", inputs=[mcaps], cost=0.55,
             params={"text": "CAMERA WALL", "font-desc": "Sans Bold 24", "valignment": "top"})
    clk = el(MX, "timeoverlay", "GstTimeOverlay", inputs=[txt], cost=0.3,
             params={"halignment": "right", "time-mode": "running-time"})
    fanout = el(MX, "tee", "GstTee", inputs=[clk], cost=0.01, kind="tee8",
                id_name="tee_mix", params={"name": "tee_mix"})

    AB = bin_(f"{PL}/bin_audio")
    asrc = el(AB, "alsasrc", "GstAlsaSrc", params={"device": "hw:1,0", "buffer-time": "20000"})
    aconv = el(AB, "audioconvert", "GstAudioConvert", inputs=[asrc], cost=0.02, kind="audio")
    ares = el(AB, "audioresample", "GstAudioResample", inputs=[aconv], cost=0.05, kind="audio",
              params={"quality": "4"})
    acaps = el(AB, "capsfilter", "GstCapsFilter", inputs=[ares], cost=0.004, kind="audio",
               params={"caps": "audio/x-raw, rate=(int)48000, channels=(int)2"})
    aq = el(AB, "queue", "GstQueue", inputs=[acaps], cost=0.1, cv=0.5, kind="audio")
    aenc = el(AB, "voaacenc", "GstVoAacEnc", inputs=[aq], cost=0.28, kind="audio",
              params={"bitrate": "128000"})
    aparse = el(AB, "aacparse", "GstAacParse", inputs=[aenc], cost=0.01, kind="audio")
    atee = el(AB, "tee", "GstTee", inputs=[aparse], cost=0.005, kind="audio3",
              id_name="tee_aac")
    audio_q = [el(AB, "queue", "GstQueue", inputs=[atee], cost=0.05, cv=0.5, kind="audio")
               for _ in range(3)]

    O = PL
    # display
    B = bin_(f"{O}/bin_display")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.5, cv=0.5, kind="queue")
    c = el(B, "videoconvert", "GstVideoConvert", inputs=[q], cost=1.1)
    el(B, "glimagesink", "GstGLImageSinkBin", inputs=[c], output=True,
       params={"sync": "true", "force-aspect-ratio": "true"})
    # record: the slow encoder with periodic keyframes, then a valve-blocked RTMP path
    B = bin_(f"{O}/bin_record")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=2.0, cv=0.4, kind="queue",
           params={"max-size-buffers": "0", "max-size-time": "3000000000"})
    c = el(B, "videoconvert", "GstVideoConvert", inputs=[q], cost=1.3)
    keyenc = el(B, "x264enc", "GstX264Enc", inputs=[c], cost=9.0, cv=0.05, kind="keyframe",
                params={"speed-preset": "medium", "bitrate": "8000", "key-int-max": "60",
                        "b-adapt": "true", "threads": "4"})
    p = el(B, "h264parse", "GstH264Parse", inputs=[keyenc], cost=0.05)
    t2 = el(B, "tee", "GstTee", inputs=[p], cost=0.006, kind="tee2", id_name="tee_h264")
    q2 = el(B, "queue", "GstQueue", inputs=[t2], cost=0.3, cv=0.5, kind="queue")
    m = el(B, "mp4mux", "GstMP4Mux", inputs=[q2, audio_q[0]], cost=0.12,
           params={"faststart": "true"})
    el(B, "filesink", "GstFileSink", inputs=[m], output=True,
       params={"location": "/recordings/wall.mp4"})
    q3 = el(B, "queue", "GstQueue", inputs=[t2], cost=0.2, cv=0.5, kind="queue")
    valve = el(B, "valve", "GstValve", inputs=[q3], cost=0.003, params={"drop": "true"})
    flv = el(B, "flvmux", "GstFlvMux", inputs=[valve, audio_q[1]], cost=None,
             params={"streamable": "true"})
    el(B, "rtmpsink", "GstRTMPSink", inputs=[flv], output=True,
       params={"location": "rtmp://live.example.net/app/wall"})
    blocked = [flv]
    # low-latency stream
    B = bin_(f"{O}/bin_stream")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.4, cv=0.5, kind="queue")
    e = el(B, "x264enc", "GstX264Enc", inputs=[q], cost=4.4,
           params={"speed-preset": "ultrafast", "tune": "zerolatency", "bitrate": "3000"})
    pay = el(B, "rtph264pay", "GstRtpH264Pay", inputs=[e], cost=0.08,
             params={"config-interval": "1", "pt": "96"})
    el(B, "udpsink", "GstUDPSink", inputs=[pay], output=True,
       params={"host": "10.0.0.20", "port": "5000", "sync": "false"})
    # vp8
    B = bin_(f"{O}/bin_webrtc")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.4, cv=0.5, kind="queue")
    e = el(B, "vp8enc", "GstVP8Enc", inputs=[q], cost=6.2,
           params={"deadline": "1", "cpu-used": "8", "target-bitrate": "2000000"})
    pay = el(B, "rtpvp8pay", "GstRtpVP8Pay", inputs=[e], cost=0.07)
    el(B, "udpsink", "GstUDPSink", inputs=[pay], output=True,
       params={"host": "10.0.0.21", "port": "5002"})
    # thumbnails once a second
    B = bin_(f"{O}/bin_thumbs")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.2, cv=0.5, kind="queue")
    vr = el(B, "videorate", "GstVideoRate", inputs=[q], cost=0.02,
            params={"max-rate": "1", "drop-only": "true"})
    vs = el(B, "videoscale", "GstVideoScale", inputs=[vr], cost=0.9, kind="per30")
    je = el(B, "jpegenc", "GstJpegEnc", inputs=[vs], cost=2.4, kind="per30",
            params={"quality": "85"})
    el(B, "multifilesink", "GstMultiFileSink", inputs=[je], output=True,
       params={"location": "/thumbs/wall_%05d.jpg", "max-files": "100"})
    # HLS
    B = bin_(f"{O}/bin_hls")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.5, cv=0.5, kind="queue")
    e = el(B, "x264enc", "GstX264Enc", inputs=[q], cost=5.1,
           params={"speed-preset": "veryfast", "bitrate": "5000", "key-int-max": "60"})
    ts = el(B, "mpegtsmux", "GstMpegTsMux", inputs=[e, audio_q[2]], cost=0.15)
    el(B, "hlssink", "GstHlsSink", inputs=[ts], output=True,
       params={"location": "/www/hls/segment%05d.ts", "target-duration": "4",
               "playlist-location": "/www/hls/playlist.m3u8"})
    # analytics
    B = bin_(f"{O}/bin_analytics")
    q = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.3, cv=0.5, kind="queue",
           params={"leaky": "downstream", "max-size-buffers": "1"})
    c = el(B, "videoconvert", "GstVideoConvert", inputs=[q], cost=1.2)
    s = el(B, "videoscale", "GstVideoScale", inputs=[c], cost=0.7)
    f = el(B, "capsfilter", "GstCapsFilter", inputs=[s], cost=0.005,
           params={"caps": "video/x-raw, format=(string)BGR, width=(int)960, height=(int)540"})
    el(B, "appsink", "GstAppSink", inputs=[f], output=True,
       params={"name": "wall_analytics", "emit-signals": "true", "drop": "true"})
    # a forgotten debug branch: converts and scales every frame into a fakesink
    B = bin_(f"{O}/bin_debug")
    dq = el(B, "queue", "GstQueue", inputs=[fanout], cost=0.15, cv=0.5, kind="queue")
    dc = el(B, "videoconvert", "GstVideoConvert", inputs=[dq], cost=2.1,
            params={"dither": "bayer"})
    ds = el(B, "videoscale", "GstVideoScale", inputs=[dc], cost=0.9,
            params={"method": "lanczos"})
    el(B, "fakesink", "GstFakeSink", inputs=[ds], params={"sync": "false", "silent": "true"})
    dead_branch = [dq, dc, ds]

    # ---- series
    snap.frame_index = list(range(4500, 4500 + F))
    load = Load(rng, F, amplitude=0.02)
    # Audio: 48000 Hz in 1024-sample buffers is 1.5625 buffers per 30 fps frame.
    audio_cooks = [int((f + 1) * 48000 / 1024 / 30) - int(f * 48000 / 1024 / 30) for f in range(F)]
    key_frames = [f for f in range(F) if (snap.frame_index[f] % 60) == 0]
    weight = {}  # id -> per-buffer latency per frame, for the pipeline latency
    for node_id, s in spec.items():
        kind = s["kind"]
        if kind == "per30":
            mask = mask_period(F, 30, 15)
        else:
            mask = mask_every(F)
        cook = jitter_series(rng, s["base"], s["cv"], mask, load, floor=0.001)
        cooks = None
        if kind == "queue":  # back-pressure: waiting grows in bursts before the encoders
            for f in range(F):
                if rng.random() < 0.08:
                    cook[f] = q4(cook[f] + rng.uniform(0.5, 1.5) * s["base"])
        elif kind == "keyframe":
            for f in key_frames:
                cook[f] = q4(cook[f] * rng.uniform(2.3, 2.7))
        elif kind.startswith("tee"):
            n = int(kind[3:])
            cooks = [n] * F
            cook = [q4(c * n) for c in cook]
        elif kind.startswith("audio"):
            n = int(kind[5:]) if kind != "audio" else 1
            cooks = [a * n for a in audio_cooks]
            cook = [q4(c * k) for c, k in zip(cook, cooks)]
        elif kind == "per30":
            cooks = [1 if on else 0 for on in mask]
        snap.set_series(node_id, "cook_ms", cook)
        if cooks is not None:
            snap.set_series(node_id, "cooks", cooks)
        weight[node_id] = [0.0 if c is None else c / (cooks[f] if cooks else 1)
                           for f, c in enumerate(cook)]
    for node_id in blocked:  # behind a closed valve: present in the graph, never cooks
        snap.set_series(node_id, "cook_ms", [None] * F)
    # Pipeline latency: the slowest source-to-sink path of per-buffer latencies.
    succ, pred = adjacency(snap)
    order = topo_order(snap, succ, pred)
    snap.frame_ms = []
    for f in range(F):
        best = {}
        for u in order:
            w = weight[u][f] if u in weight else 0.0
            best[u] = w + max((best[p] for p in pred[u]), default=0.0)
        snap.frame_ms.append(q4(max(best.values()) + 0.4 + abs(rng.gauss(0, 0.15))))

    facts = graph_facts(snap)
    require(not facts["loops"], "a pipeline has no loops")
    require(facts["dead_nodes"] == dead_branch, f"dead branch, got {facts['dead_nodes']}")
    require(facts["over_budget_frames"] == [snap.frame_index[f] for f in key_frames],
            "the keyframes of the record encoder are the over-budget frames")
    require(facts["spike_attribution_top"][0]["id"] == keyenc, "the encoder tops the spikes")
    require(len(snap.node(fanout)["id"]) and sum(1 for a, b, k in snap.edge_list()
                                                 if a == fanout) == 8, "tee_mix fans out to 8")
    facts.update({
        "example": "gstreamer_pipeline.json",
        "engine": "gstreamer",
        "seed": seed,
        "planted": {
            "fanout_tee": {"id": fanout, "branches": 8, "cooks_per_frame": 8},
            "keyframe_encoder": {"id": keyenc, "key_int_max": 60,
                                 "keyframe_frames": [snap.frame_index[f] for f in key_frames]},
            "dead_branch": dead_branch,
            "blocked_by_valve": {"valve": valve, "never_cooked": blocked},
            "compositor": {"id": comp, "inputs": len(compositor_inputs)},
            "sources_and_sinks_have_no_series": True,
            "audio_cooks_per_frame": "1 or 2 (1.5625 buffers per frame on average)",
        },
    })
    return snap, facts


def topo_order(snap, succ, pred):
    indeg = {n["id"]: len(pred[n["id"]]) for n in snap.nodes}
    ready = [n["id"] for n in snap.nodes if indeg[n["id"]] == 0]
    order = []
    while ready:
        u = ready.pop(0)
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    if len(order) != len(snap.nodes):
        raise ValueError("not a DAG")
    return order


# --------------------------------------------------------------------------
# c) PyTorch: ResNet-50 forward, ops with call children and launched kernels


K_CONV = ("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16"
          "_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel")
K_CONV_SMALL = ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw"
                "_tilesize64x64x64_stage3_warpsize2x2x1_g1_tensor16x8x8")
K_NHWC = ("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
          "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)")
K_BN = ("void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, true, 1>(float, float, "
        "cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, "
        "float const*, float const*, float)")
K_RELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)"
          "::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
          "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}"
          "::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
          "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
          "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
          "const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
          "at::detail::Array<char*, 2>)")
K_ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
         "at::detail::Array<char*, 3>)")
K_POOL = ("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, "
          "float const*, long, long, long, int, int, int, int, int, int, int, int, int, int, "
          "float*, long*)")
K_AVG = ("void at::native::(anonymous namespace)::adaptive_average_pool<float>(float*, float*, "
         "int, int, int, int, long, long, long)")
K_GEMM = "ampere_sgemm_128x64_tn"
K_SOFTMAX = ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
             "false>(float*, float const*, int, int, int, bool const*, int, bool)")
K_REDUCE = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
            "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >"
            "(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
            "unsigned int, float, 4>)")
K_H2D = "Memcpy HtoD (Pageable -> Device)"
K_D2H = "Memcpy DtoH (Device -> Pageable)"


def build_pytorch(seed):
    rng = random.Random(seed + 2)
    F = NUM_FRAMES
    snap = Snapshot("pytorch", "resnet50_inference_bs32",
                    ["worker0.1763671200000.pt.trace.json.gz"], "2026-11-19T16:02:44Z", 20, 50.0)
    spec = {}  # id -> dict(base, cv, gpu)
    batch = 32
    M = "resnet50"

    def node(node_id, type_, family, cost, *, parent_op=None, kind=None, inputs=(),
             params=None, output=False, gpu=False, cv=0.06):
        edges = [(parent_op, kind)] if parent_op else ()
        snap.add(node_id, type_, family, params=params, inputs=inputs, edges=edges, output=output)
        spec[node_id] = {"base": cost, "cv": cv, "gpu": gpu}
        return node_id

    def kernel(op_id, name, ms, params=None):
        return node(f"{op_id}/{name}", name, "gpu_memcpy" if name.startswith("Memcpy") else
                    "kernel", ms, parent_op=op_id, kind="launch", gpu=True, cv=0.03,
                    params=params)

    def shape(s):
        return "[" + ", ".join(str(x) for x in s) + "]"

    # Frame marker input: data loading and the host-to-device copy.
    dl = node("step/dataloader/enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
              "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "user_annotation",
              0.35, params={"num_workers": "4", "pin_memory": "false"}, cv=0.1)
    to = node("step/input/aten::to", "aten::to", "cpu_op", 0.004, inputs=[dl],
              params={"input_dims": shape([batch, 3, 224, 224]), "input_types": "float"})
    tc = node(f"{to}/aten::_to_copy", "aten::_to_copy", "cpu_op", 0.008, parent_op=to,
              kind="call")
    cp = node(f"{tc}/aten::copy_", "aten::copy_", "cpu_op", 0.02, parent_op=tc, kind="call")
    kernel(cp, K_H2D, 1.55, {"bytes": str(batch * 3 * 224 * 224 * 4)})

    conv_flops = []
    total_conv_flops = 0

    def conv(mod, prev, cin, cout, k, stride, hw_in):
        nonlocal total_conv_flops
        hw_out = hw_in // stride
        dims = f"[{shape([batch, cin, hw_in, hw_in])}, {shape([cout, cin, k, k])}, [], " \
               f"[{stride}, {stride}], [{k // 2}, {k // 2}], [1, 1], []]"
        top = node(f"{mod}/aten::conv2d", "aten::conv2d", "cpu_op", 0.006, inputs=[prev],
                   params={"input_dims": dims, "module": mod.replace("/", ".")})
        c1 = node(f"{top}/aten::convolution", "aten::convolution", "cpu_op", 0.008,
                  parent_op=top, kind="call")
        c2 = node(f"{c1}/aten::_convolution", "aten::_convolution", "cpu_op", 0.012,
                  parent_op=c1, kind="call")
        c3 = node(f"{c2}/aten::cudnn_convolution", "aten::cudnn_convolution", "cpu_op", 0.085,
                  parent_op=c2, kind="call")
        flops = 2 * batch * cout * hw_out * hw_out * cin * k * k
        total_conv_flops += flops
        kname = K_CONV if cout * hw_out * hw_out >= 256 * 28 * 28 else K_CONV_SMALL
        grid = shape([hw_out * hw_out * batch // 128, cout // 64, 1])
        kid = kernel(c3, kname, 0.0, {"grid": grid, "block": shape([128, 1, 1]), "stream": "7"})
        conv_flops.append((kid, flops))
        if k == 7 or stride == 2:
            kernel(c3, K_NHWC, 0.035 * batch * cin * hw_in * hw_in / (32 * 256 * 56 * 56) + 0.01)
        return top, hw_out

    def act_ms(c, hw):  # memory-bound elementwise cost, ms
        return 0.02 + batch * c * hw * hw * 4 * 2 / 1.2e9  # ~1.2 TB/s effective

    def bn(mod, prev, c, hw):
        top = node(f"{mod}/aten::batch_norm", "aten::batch_norm", "cpu_op", 0.007, inputs=[prev],
                   params={"input_dims": f"[{shape([batch, c, hw, hw])}, [{c}], [{c}], [{c}], "
                                         f"[{c}], [], [], [], []]"})
        b1 = node(f"{top}/aten::_batch_norm_impl_index", "aten::_batch_norm_impl_index",
                  "cpu_op", 0.01, parent_op=top, kind="call")
        b2 = node(f"{b1}/aten::cudnn_batch_norm", "aten::cudnn_batch_norm", "cpu_op", 0.045,
                  parent_op=b1, kind="call")
        kernel(b2, K_BN, act_ms(c, hw))
        return top

    def relu(mod, prev, c, hw, inputs=None):
        top = node(f"{mod}/aten::relu_", "aten::relu_", "cpu_op", 0.024,
                   inputs=inputs or [prev], params={"input_dims": f"[{shape([batch, c, hw, hw])}]"})
        kernel(top, K_RELU, act_ms(c, hw) * 0.9)
        return top

    x, hw = conv(f"{M}/conv1", cp, 3, 64, 7, 2, 224)
    x = bn(f"{M}/bn1", x, 64, hw)
    x = relu(f"{M}/relu", x, 64, hw)
    mp = node(f"{M}/maxpool/aten::max_pool2d", "aten::max_pool2d", "cpu_op", 0.006, inputs=[x],
              params={"input_dims": f"[{shape([batch, 64, hw, hw])}, [3, 3], [2, 2], [1, 1]]"})
    mpi = node(f"{mp}/aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices", "cpu_op",
               0.03, parent_op=mp, kind="call")
    hw //= 2
    kernel(mpi, K_POOL, act_ms(64, hw) * 2)
    x = mp
    cin = 64
    for li, (blocks, width, stride) in enumerate(((3, 64, 1), (4, 128, 2), (6, 256, 2),
                                                  (3, 512, 2)), start=1):
        for b in range(blocks):
            mod = f"{M}/layer{li}.{b}"
            s = stride if b == 0 else 1
            block_in = x
            y, h1 = conv(f"{mod}/conv1", x, cin, width, 1, 1, hw)
            y = bn(f"{mod}/bn1", y, width, h1)
            y = relu(f"{mod}/relu1", y, width, h1)
            y, h2 = conv(f"{mod}/conv2", y, width, width, 3, s, h1)
            y = bn(f"{mod}/bn2", y, width, h2)
            y = relu(f"{mod}/relu2", y, width, h2)
            y, h3 = conv(f"{mod}/conv3", y, width, width * 4, 1, 1, h2)
            y = bn(f"{mod}/bn3", y, width * 4, h3)
            if b == 0:
                d, _ = conv(f"{mod}/downsample.0", block_in, cin, width * 4, 1, s, hw)
                block_in = bn(f"{mod}/downsample.1", d, width * 4, h3)
            add = node(f"{mod}/aten::add_", "aten::add_", "cpu_op", 0.028, inputs=[y, block_in],
                       params={"input_dims": f"[{shape([batch, width * 4, h3, h3])}, "
                                             f"{shape([batch, width * 4, h3, h3])}, []]"})
            kernel(add, K_ADD, act_ms(width * 4, h3) * 1.5)
            x = relu(f"{mod}/relu3", add, width * 4, h3)
            cin, hw = width * 4, h3
    # Planted waste: activation statistics computed every step for a log nobody reads,
    # with a .item() that synchronises the host with the GPU.
    mean = node(f"{M}/debug_stats/aten::mean", "aten::mean", "cpu_op", 0.03, inputs=[x],
                params={"input_dims": f"[{shape([batch, 2048, 7, 7])}, [], [], []]"})
    kernel(mean, K_REDUCE, 0.09)
    item = node(f"{M}/debug_stats/aten::item", "aten::item", "cpu_op", 0.012, inputs=[mean])
    lsd = node(f"{item}/aten::_local_scalar_dense", "aten::_local_scalar_dense", "cpu_op", 0.9,
               parent_op=item, kind="call", cv=0.25)
    kernel(lsd, K_D2H, 0.004)
    planted_dead = [mean, f"{mean}/{K_REDUCE}", item, lsd, f"{lsd}/{K_D2H}"]

    ap = node(f"{M}/avgpool/aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool2d", "cpu_op",
              0.006, inputs=[x], params={"input_dims": f"[{shape([batch, 2048, 7, 7])}, [1, 1]]"})
    api = node(f"{ap}/aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d", "cpu_op", 0.025,
               parent_op=ap, kind="call")
    kernel(api, K_AVG, 0.05)
    fl = node(f"{M}/aten::flatten", "aten::flatten", "cpu_op", 0.004, inputs=[ap])
    node(f"{fl}/aten::view", "aten::view", "cpu_op", 0.003, parent_op=fl, kind="call")
    lin = node(f"{M}/fc/aten::linear", "aten::linear", "cpu_op", 0.006, inputs=[fl],
               params={"input_dims": f"[{shape([batch, 2048])}, [1000, 2048], [1000]]"})
    node(f"{lin}/aten::t", "aten::t", "cpu_op", 0.005, parent_op=lin, kind="call")
    mm = node(f"{lin}/aten::addmm", "aten::addmm", "cpu_op", 0.03, parent_op=lin, kind="call")
    kernel(mm, K_GEMM, 0.11, {"grid": "[8, 1, 1]", "block": "[256, 1, 1]"})
    sm = node(f"{M}/aten::softmax", "aten::softmax", "cpu_op", 0.005, inputs=[lin], output=True,
              params={"input_dims": f"[{shape([batch, 1000])}, [], []]"})
    sm2 = node(f"{sm}/aten::_softmax", "aten::_softmax", "cpu_op", 0.018, parent_op=sm,
               kind="call")
    kernel(sm2, K_SOFTMAX, 0.012)

    # Convolution kernels share ~30 ms of GPU time in proportion to their FLOPs.
    for kid, flops in conv_flops:
        spec[kid]["base"] = 30.0 * flops / total_conv_flops

    snap.frame_index = list(range(100, 100 + F))
    load = Load(rng, F, amplitude=0.015)
    stall_frames = sorted(rng.sample(range(F), 10))
    cpu_sum, gpu_sum = [0.0] * F, [0.0] * F
    for node_id, s in spec.items():
        cook = jitter_series(rng, s["base"], s["cv"], mask_every(F), load, floor=0.001)
        if node_id == dl:
            for f in stall_frames:
                cook[f] = q4(rng.uniform(22.0, 40.0))
        snap.set_series(node_id, "cook_ms", cook)
        if s["gpu"]:
            snap.set_series(node_id, "gpu_ms", cook)
        target = gpu_sum if s["gpu"] else cpu_sum
        if node_id != dl:
            for f in range(F):
                target[f] += cook[f]
    dl_cook = snap.cook(dl)
    # The step waits for the batch, then the GPU stream (the GPU is the bottleneck).
    snap.frame_ms = [q4(dl_cook[f] + max(cpu_sum[f], gpu_sum[f]) + 0.8 + abs(rng.gauss(0, 0.2)))
                     for f in range(F)]
    snap.set_series(dl, "cpu_mem_mb", [q4(612 + rng.gauss(0, 3)) for _ in range(F)])
    snap.set_series(cp, "gpu_mem_mb", [q4(batch * 3 * 224 * 224 * 4 / 2 ** 20)] * F)

    facts = graph_facts(snap)
    require(not facts["loops"], "a forward pass has no loops")
    require(facts["over_budget_frames"] == [snap.frame_index[f] for f in stall_frames],
            "data loader stalls are the over-budget frames")
    require(facts["spike_attribution_top"][0]["id"] == dl, "the data loader tops the spikes")
    require(sorted(facts["dead_nodes"]) == sorted(planted_dead),
            f"exactly the debug stats are dead, got {facts['dead_nodes']}")
    by_family = {}
    for n in snap.nodes:
        by_family[n["family"]] = by_family.get(n["family"], 0) + 1
    heavy = max((i for i in spec if spec[i]["gpu"]), key=lambda i: per_frame_ms(snap, i))
    facts.update({
        "example": "pytorch_model.json",
        "engine": "pytorch",
        "seed": seed,
        "node_counts_by_family": dict(sorted(by_family.items())),
        "note": "dead_nodes: a call child or launched kernel is live when the op that issued it "
                "is (cookgraph's LiveNodes rule); only the planted debug ops and their children "
                "and kernels are dead.",
        "planted": {
            "spiky_node": {"id": dl, "usual_ms": 0.35, "spike_ms_range": [22.0, 40.0],
                           "spike_frames": [snap.frame_index[f] for f in stall_frames]},
            "dead_debug_ops": planted_dead,
            "model_output": sm,
            "heaviest_kernel": heavy,
            "residual_adds": sum(1 for n in snap.nodes if n["type"] == "aten::add_"),
        },
    })
    return snap, facts


# --------------------------------------------------------------------------
# --big: a large TouchDesigner-style snapshot, streamed


BIG_OPS = [("noiseTOP", 0.12), ("levelTOP", 0.04), ("transformTOP", 0.05), ("lfoCHOP", 0.006),
           ("mathCHOP", 0.008), ("blurTOP", 0.2), ("compositeTOP", 0.08), ("nullCHOP", 0.002),
           ("hsvadjustTOP", 0.04), ("filterCHOP", 0.01), ("overTOP", 0.05), ("cropTOP", 0.03)]
BIG_PER_COMP = 48
JITTER_SIZE = 8192  # a power of two


def big_layout(nodes, plan_seed):
    """Yields (node, cost_ms, pattern, has_gpu) for a --big network, in file order.

    pattern: 0 no series, 1 cooks every frame, 2 every other frame, 3 every frame
    with spikes. The same arguments yield the same sequence, so the network can be
    walked once to plan the series and again to write the nodes.
    """
    ncomp = max(1, nodes // (BIG_PER_COMP + 2))
    while True:
        nmix = -(-ncomp // 64)
        nops = nodes - (2 + nmix + ncomp)  # final, window, mixers, containers
        if nops >= 2 * ncomp or ncomp == 1:
            break
        ncomp -= 1
    if nops < ncomp:
        raise SystemExit("--big: too few nodes for the layout (need at least 8)")
    P = "/project1"
    prng = random.Random(plan_seed)
    last_ops = []
    for k in range(ncomp):
        comp = f"{P}/c{k:05d}"
        yield {"id": comp, "type": "baseCOMP", "family": "COMP"}, 0.0, 0, False
        m = nops // ncomp + (1 if k < nops % ncomp else 0)
        feedback_comp = k % 16 == 3 and m >= 8
        kinds = [BIG_OPS[(j + k) % len(BIG_OPS)] for j in range(m)]
        kinds[m - 1] = ("outTOP", 0.005)
        if feedback_comp:
            kinds[2] = ("feedbackTOP", 0.05)  # fed back from op 6, downstream of it
        names = [f"{comp}/{t[:-len(td_family(t))].lower()}{j}" for j, (t, _) in enumerate(kinds)]
        chops = []
        for j, (optype, cost) in enumerate(kinds):
            family = td_family(optype)
            n = {"id": names[j], "type": optype, "family": family}
            if family == "TOP":
                n["params"] = {"resolutionw": "1920", "resolutionh": "1080"}
            if j > 0:
                n["inputs"] = [names[j - 1]]
                if optype in ("compositeTOP", "overTOP") and j >= 3:
                    n["inputs"].append(names[j - 3])
            if family == "TOP" and chops and prng.random() < 0.3:
                n["refs"] = [prng.choice(chops)]
            if feedback_comp and j == 2:
                n["feedback"] = [names[6]]
            r = prng.random()
            pattern = 0 if r < 0.04 else 2 if r < 0.09 else 1
            if pattern == 1 and prng.random() < 0.0005:
                pattern = 3
            yield n, cost, pattern, family == "TOP" and cost >= 0.04
            if family == "CHOP":
                chops.append(names[j])
        last_ops.append(names[-1])
    for x in range(nmix):
        yield ({"id": f"{P}/mix{x}", "type": "compositeTOP", "family": "TOP",
                "params": {"resolutionw": "1920", "resolutionh": "1080", "operand": "add"},
                "inputs": last_ops[64 * x:64 * x + 64]}, 0.1, 1, True)
    yield ({"id": f"{P}/final", "type": "nullTOP", "family": "TOP",
            "inputs": [f"{P}/mix{x}" for x in range(nmix)], "output": True}, 0.01, 1, True)
    yield ({"id": f"{P}/window1", "type": "windowCOMP", "family": "COMP",
            "refs": [f"{P}/final"], "output": True}, 0.08, 1, False)


_NUMBER_TABLE = []


def number_table():
    """fmt(q / 10000) for q in 0..200000 ("null" for 0), built once: what
    write_big writes most, and what makes thousands of small snapshots (the
    Dask test, tests/python/test_dask.py) cheap to write."""
    if not _NUMBER_TABLE:
        _NUMBER_TABLE.extend(["null"] + [fmt(i / 10000) for i in range(1, 200001)])
    return _NUMBER_TABLE


def write_big(nodes, frames, path, seed):
    """Streams a large snapshot to `path` (.json, or gzip for .gz).

    Memory: a few small numbers per node and per frame; series are produced and
    written one node at a time. Values are integers of 1e-4 ms until written, so
    frame_ms is exactly the sum of the written cook_ms plus an overhead.
    """
    if frames < 1:
        raise SystemExit("--big needs at least 1 frame")
    rng = random.Random(seed)
    plan_seed = rng.randrange(1 << 30)
    jitter = [max(0.3, 1 + rng.gauss(0, 0.08)) for _ in range(JITTER_SIZE)]
    spike_rows = sorted(rng.sample(range(frames), max(1, frames // 40)))

    # Pass 0: walk the network once to plan each node's series.
    ids, base_q, pattern, offset, stride, gpu = [], [], [], [], [], []
    for n, cost, pat, has_gpu in big_layout(nodes, plan_seed):
        ids.append(n["id"])
        base_q.append(max(1, int(cost * 10000 * rng.uniform(0.5, 1.8))))
        pattern.append(pat)
        offset.append(rng.randrange(JITTER_SIZE))
        stride.append(rng.randrange(1, JITTER_SIZE, 2))
        gpu.append(has_gpu)
    mask = JITTER_SIZE - 1

    def values(i):  # cook_ms of node i in 1e-4 ms, 0 = did not cook; None = no series
        pat = pattern[i]
        if pat == 0:
            return None
        b, o, s = base_q[i], offset[i], stride[i]
        qs = [int(b * jitter[(o + f * s) & mask]) or 1 for f in range(frames)]
        if pat == 2:
            qs[1::2] = [0] * (frames // 2)
        elif pat == 3:
            for f in spike_rows:
                qs[f] += 120000 + (o * 7919 + f) % 80000  # +12..20 ms
        return qs

    # Pass 1: frame sums, to write frame_ms ahead of the series.
    sums = [0] * frames
    for i in range(len(ids)):
        qs = values(i)
        if qs is not None:
            sums = [a + b for a, b in zip(sums, qs)]
    overhead = [3000 + (f * 2654435761 + seed) % 1500 for f in range(frames)]
    frame_q = [s + o for s, o in zip(sums, overhead)]
    ordered = sorted(frame_q)
    budget = round(ordered[len(ordered) // 2] * 1.05 / 10000, 3)  # all but spike frames fit

    table = number_table()

    def num(q):
        return table[q] if q < len(table) else fmt(q / 10000)

    out_f = open(path, "wb")
    raw = gzip.GzipFile(filename="", mode="wb", fileobj=out_f, compresslevel=6, mtime=0) \
        if path.endswith(".gz") else out_f
    w = io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=False)
    w.write('{\n  "cookgraph": 1,\n  "engine": "touchdesigner",\n'
            f'  "name": "big_{nodes}x{frames}",\n'
            f'  "source": ["generate.py --big {nodes} {frames} --seed {seed}"],\n'
            '  "captured": "2026-11-21T00:00:00Z",\n  "fps": 60,\n'
            f'  "frame_budget_ms": {budget},\n  "nodes": [\n')
    # Pass 2: the nodes, written as the layout is walked again.
    first = True
    for n, _, _, _ in big_layout(nodes, plan_seed):
        w.write(("    " if first else ",\n    ") + json.dumps(n))
        first = False
    w.write('\n  ],\n  "frames": {\n    "index": [')
    w.write(",".join(str(60000 + f) for f in range(frames)))
    w.write('],\n    "frame_ms": [')
    w.write(",".join(num(q) for q in frame_q))
    w.write('],\n    "series": {')
    # Pass 3: the series, one node at a time.
    first = True
    for i, node_id in enumerate(ids):
        qs = values(i)
        if qs is None:
            continue
        w.write(("\n" if first else ",\n") + f'      {json.dumps(node_id)}: {{"cook_ms": [')
        first = False
        w.write(",".join([num(q) for q in qs]))
        if gpu[i]:
            w.write('], "gpu_ms": [')
            w.write(",".join([num(q * 9 // 10 or 1) if q else "null" for q in qs]))
        w.write("]}")
    w.write("\n    }\n  }\n}\n")
    w.close()
    if raw is not out_f:
        out_f.close()
    over = sum(1 for q in frame_q if q / 10000 > budget)
    return {"nodes": len(ids), "frames": frames, "budget_ms": budget, "over_budget": over}


# --------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder, or the file for --big")
    ap.add_argument("--seed", type=int, default=EXAMPLE_SEED)
    ap.add_argument("--facts", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "..", "tests", "data", "examples"),
                    help="folder for the <name>.facts.json sidecars (default: tests/data/examples); "
                         "kept out of examples/ so that `cookgraph score examples/` reads "
                         "snapshots only")
    ap.add_argument("--big", nargs=2, type=int, metavar=("NODES", "FRAMES"),
                    help="write one large TouchDesigner-style snapshot to --out")
    args = ap.parse_args(argv)
    if args.big:
        t0 = time.monotonic()
        info = write_big(args.big[0], args.big[1], args.out, args.seed)
        size = os.path.getsize(args.out)
        print(f"{args.out}: {info['nodes']} nodes x {info['frames']} frames, "
              f"budget {info['budget_ms']} ms ({info['over_budget']} frames over), "
              f"{size / 1e6:.1f} MB in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        return 0
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.facts, exist_ok=True)
    for build, stem in ((build_touchdesigner, "touchdesigner_feedback"),
                        (build_gstreamer, "gstreamer_pipeline"),
                        (build_pytorch, "pytorch_model")):
        snap, facts = build(args.seed)
        path = os.path.join(args.out, stem + ".json")
        snap.write(path)
        write_facts(os.path.join(args.facts, stem + ".facts.json"), facts)
        print(f"{path}: {facts['node_count']} nodes, {facts['edge_count']} edges, "
              f"{facts['frame_count']} frames, {os.path.getsize(path) / 1e6:.2f} MB",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
