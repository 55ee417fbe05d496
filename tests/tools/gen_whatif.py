#!/usr/bin/env python3
"""Writes pairs of inputs for `cookgraph whatif` (docs/architecture.md#what-if-predicted-gains):
WITH a known cost in one node, and WITHOUT it, what the engine would have
done without that cost.

    gen_whatif.py --out DIR

The WITHOUT input is made by running the same simulation again without the
cost (same seed, same draws), never by subtracting the cost from the WITH
input, so a prediction from WITH can be compared with what WITHOUT measures
(tests/tools/whatif_check.py --pair).

Native snapshots (docs/formats.md#native-snapshot-format), the serial model:
  snapshot_every_{with,without}.json: a TouchDesigner-like network cooking
    one node after another; /project1/slow costs 3 ms in every frame;
    frame_ms = the sum of the cooks + 1.2 ms the engine spends outside the
    nodes. WITHOUT: /project1/slow never cooks.
  snapshot_spikes_{with,without}.json: no frame_ms (the frame time is the sum
    of the cooks); /project1/slow costs 6 ms in one frame of ten.
  Both hold a node of family queue (waiting: no gain) and one that never cooks.

Kineto (PyTorch profiler) traces (docs/formats.md#pytorch-kineto), the step
model: a schedule is simulated: a CPU thread runs ProfilerStep#N markers
holding cpu_ops that launch kernels with cudaLaunchKernel (args.correlation,
ac2g flows) onto CUDA streams; a kernel starts 6 us after its launch call
starts, or 1 us after the previous kernel of its stream ends, whichever is
later; each step ends with cudaDeviceSynchronize (and its Context Sync on the
GPU) that returns 1 us after the last kernel. Four steps, then a short fifth
one without the cost, the same in WITH and WITHOUT: HTA leaves the last of two
or more steps out of the critical path (docs/architecture.md#event-critical-path),
so the what-if leaves it out of the prediction.
  trace_gpu_{with,without}.json: GPU-bound (the CPU launches far ahead of the
    stream); aten::slow_op launches slow_kernel (3 ms) on the stream.
    WITHOUT: neither.
  trace_cpu_{with,without}.json: CPU-bound (short kernels, long ops);
    aten::slow_cpu_op (3 ms, no kernel) nested inside an aten::linear.
    WITHOUT: not called.
  trace_offpath_{with,without}.json: GPU-bound on stream 7; aten::side_op
    launches side_stream_kernel (0.5 ms) on stream 8, overlapping stream 7's
    work and done long before it: off the critical path. WITHOUT: neither;
    every step must keep its time (checked here: the generator exits 1
    otherwise).

cases.json lists the pairs: name, with, without, node, factor, budget_ms.
Deterministic: the same bytes every run.
"""

import argparse
import json
import os
import random
import sys

# --------------------------------------------------------------------------
# Native snapshots

SNAPSHOT_NODES = [
    # id, type, family, mean ms, sd ms, inputs, refs, output
    ("/project1/moviein", "moviefileinTOP", "TOP", 2.0, 0.3, [], [], False),
    ("/project1/blur1", "blurTOP", "TOP", 6.0, 1.0, ["/project1/moviein"], [], False),
    ("/project1/level1", "levelTOP", "TOP", 1.0, 0.2, ["/project1/blur1"], [], False),
    ("/project1/slow", "scriptCHOP", "CHOP", None, None, [], [], False),
    ("/project1/comp1", "compositeTOP", "TOP", 2.5, 0.4, ["/project1/level1"],
     ["/project1/slow"], False),
    ("/project1/wait1", "nullCHOP", "queue", 0.2, 0.05, ["/project1/slow"], [], False),
    ("/project1/never", "textDAT", "DAT", None, None, [], [], False),
    ("/project1/out1", "nullTOP", "TOP", 0.3, 0.05, ["/project1/comp1"], [], True),
]
FRAMES = 240
OVERHEAD_MS = 1.2


def snapshot(with_cost, variant, seed=20):
    rng = random.Random(seed)
    series = {}
    sums = [0.0] * FRAMES
    for nid, _t, _f, mean, sd, _i, _r, _o in SNAPSHOT_NODES:
        if nid == "/project1/never":
            continue
        values = []
        for k in range(FRAMES):
            if nid == "/project1/slow":
                draw = rng.random()  # drawn WITH and WITHOUT alike
                if variant == "every":
                    cost = 3.0
                else:
                    cost = 6.0 if draw < 0.1 else None
                v = cost if with_cost else None
            else:
                v = round(max(0.05, rng.gauss(mean, sd)), 4)
            values.append(v)
            if v is not None:
                sums[k] += v
        if any(v is not None for v in values):
            series[nid] = {"cook_ms": values}
    nodes = []
    for nid, typ, fam, _m, _s, inputs, refs, output in SNAPSHOT_NODES:
        n = {"id": nid, "type": typ, "family": fam}
        if inputs:
            n["inputs"] = inputs
        if refs:
            n["refs"] = refs
        if output:
            n["output"] = True
        nodes.append(n)
    frames = {"index": list(range(1000, 1000 + FRAMES)), "series": series}
    if variant == "every":
        frames["frame_ms"] = [round(s + OVERHEAD_MS, 4) for s in sums]
    return {"cookgraph": 1, "engine": "touchdesigner",
            "name": "whatif_%s_%s" % (variant, "with" if with_cost else "without"),
            "fps": 60, "frame_budget_ms": 16.667, "nodes": nodes, "frames": frames}


# --------------------------------------------------------------------------
# Kineto traces

CPU_PID = 4242
GPU_PID = 0
US = 1000  # ns


class Sim(object):
    def __init__(self):
        self.events = []
        self.t = 1000000 * US  # ns
        self.corr = 100
        self.free = {}  # stream -> ns when its last kernel ends
        self.steps = []  # marker spans (ns)

    @staticmethod
    def us(ns):
        return round(ns / 1000.0, 3)

    def x(self, name, cat, pid, tid, ts, dur, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": self.us(ts),
             "dur": self.us(dur)}
        e["args"] = args or {}
        self.events.append(e)

    def flow(self, corr, ts_cpu, ts_gpu, gpu_tid):
        self.events.append({"ph": "s", "id": corr, "pid": CPU_PID, "tid": CPU_PID,
                            "ts": self.us(ts_cpu), "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": corr, "pid": GPU_PID, "tid": gpu_tid,
                            "ts": self.us(ts_gpu), "cat": "ac2g", "name": "ac2g", "bp": "e"})

    def launch(self, kernel, stream, dur):
        corr = self.corr
        self.corr += 1
        start_call = self.t
        call = 5 * US
        start = max(start_call + 6 * US, self.free.get(stream, 0) + 1 * US)
        self.x("cudaLaunchKernel", "cuda_runtime", CPU_PID, CPU_PID, start_call, call,
               {"External id": corr, "cbid": 211, "correlation": corr})
        self.x(kernel, "kernel", GPU_PID, stream, start, dur,
               {"External id": corr, "device": 0, "context": 1, "stream": stream,
                "correlation": corr, "registers per thread": 32, "shared memory": 0,
                "grid": [128, 1, 1], "block": [256, 1, 1]})
        self.flow(corr, start_call, start, stream)
        self.free[stream] = start + dur
        self.t += call

    def op(self, name, items):
        """items: ("work", ns) | ("launch", kernel, stream, ns) | ("op", name, items)."""
        start = self.t
        for it in items:
            if it[0] == "work":
                self.t += it[1]
            elif it[0] == "launch":
                self.launch(it[1], it[2], it[3])
            else:
                self.op(it[1], it[2])
        self.x(name, "cpu_op", CPU_PID, CPU_PID, start, self.t - start,
               {"External id": self.corr, "Ev Idx": len(self.events)})

    def synchronize(self):
        corr = self.corr
        self.corr += 1
        start = self.t
        done = max(self.free.values()) if self.free else start
        ctx_start = start + 1 * US
        ctx_end = max(ctx_start + 1 * US, done + 1 * US)
        end = ctx_end + 1 * US
        self.x("cudaDeviceSynchronize", "cuda_runtime", CPU_PID, CPU_PID, start, end - start,
               {"External id": corr, "cbid": 165, "correlation": corr})
        self.x("Context Sync", "cuda_sync", GPU_PID, -1, ctx_start, ctx_end - ctx_start,
               {"External id": corr, "cuda_sync_kind": "Context Sync", "stream": -1,
                "correlation": corr, "device": 0, "context": 1})
        self.events.append({"ph": "s", "id": corr, "pid": CPU_PID, "tid": CPU_PID,
                            "ts": self.us(start), "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": corr, "pid": GPU_PID, "tid": -1,
                            "ts": self.us(ctx_start), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        self.t = end

    def step(self, number, ops):
        start = self.t
        self.t += 3 * US
        for name, items in ops:
            self.op(name, items)
        self.synchronize()
        self.t += 2 * US
        self.x("ProfilerStep#%d" % number, "user_annotation", CPU_PID, CPU_PID, start,
               self.t - start, {})
        self.steps.append((start, self.t))

    def document(self):
        return {"schemaVersion": 1,
                "deviceProperties": [{"id": 0, "name": "Simulated GPU", "totalGlobalMem": 1 << 34}],
                "displayTimeUnit": "ms",
                "traceEvents": sorted(self.events, key=lambda e: (e["ts"], e["ph"] != "X"))}


def gpu_ops(rng, with_slow, slow_at=3):
    ops = []
    for i in range(6):
        if i == slow_at and with_slow:
            ops.append(("aten::slow_op", [("work", 15 * US), ("launch", "slow_kernel", 7, 3000 * US),
                                          ("work", 5 * US)]))
        k = rng.randint(800, 1500) * US
        name = ["aten::conv2d", "aten::relu", "aten::mm"][i % 3]
        ops.append((name, [("work", rng.randint(15, 30) * US),
                           ("op", "aten::empty", [("work", 3 * US)]),
                           ("launch", name.replace("aten::", "") + "_kernel", 7, k),
                           ("work", 5 * US)]))
    return ops


def cpu_ops(rng, with_slow, slow_at=2):
    ops = []
    for i in range(6):
        inner = [("work", rng.randint(200, 500) * US),
                 ("op", "aten::addmm", [("work", rng.randint(50, 120) * US),
                                        ("launch", "addmm_kernel", 7, rng.randint(40, 80) * US),
                                        ("work", 10 * US)])]
        if i == slow_at and with_slow:
            inner.insert(1, ("op", "aten::slow_cpu_op", [("work", 3000 * US)]))
        inner.append(("work", rng.randint(20, 60) * US))
        ops.append(("aten::linear", inner))
        ops.append(("aten::relu", [("work", rng.randint(100, 300) * US),
                                   ("launch", "relu_kernel", 7, rng.randint(20, 40) * US),
                                   ("work", 5 * US)]))
    return ops


def offpath_ops(rng, with_side):
    ops = gpu_ops(rng, False)
    if with_side:
        ops.insert(2, ("aten::side_op", [("work", 10 * US),
                                          ("launch", "side_stream_kernel", 8, 500 * US),
                                          ("work", 5 * US)]))
    return ops


def flush_step():
    return [("aten::copy_", [("work", 40 * US), ("launch", "copy_kernel", 7, 60 * US),
                             ("work", 5 * US)])]


def trace(case, with_cost, steps=4, seed=11):
    rng = random.Random(seed)
    sim = Sim()
    for s in range(steps):
        if case == "gpu":
            ops = gpu_ops(rng, with_cost)
        elif case == "cpu":
            ops = cpu_ops(rng, with_cost)
        else:
            ops = offpath_ops(rng, with_cost)
        sim.step(40 + s, ops)
    sim.step(40 + steps, flush_step())
    return sim


CASES = [
    # name, kind, node, factor, budget_ms
    ("snapshot_every", "snapshot", "/project1/slow", 0.0, None),
    ("snapshot_spikes", "snapshot", "/project1/slow", 0.0, None),
    ("trace_gpu", "trace", "slow_kernel", 0.0, 9.0),
    ("trace_cpu", "trace", "aten::slow_cpu_op", 0.0, 9.0),
    ("trace_offpath", "trace", "side_stream_kernel", 0.0, 9.0),
]


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    for name, kind, node, factor, budget in CASES:
        files = {}
        spans = {}
        for label, with_cost in (("with", True), ("without", False)):
            path = os.path.join(args.out, "%s_%s.json" % (name, label))
            if kind == "snapshot":
                write(path, snapshot(with_cost, name.split("_")[1]))
            else:
                sim = trace(name.split("_")[1], with_cost)
                write(path, sim.document())
                spans[label] = [b - a for a, b in sim.steps]
            files[label] = path
        if name == "trace_offpath" and spans["with"] != spans["without"]:
            print("gen_whatif: removing side_stream_kernel changed the steps: %s -> %s"
                  % (spans["with"], spans["without"]), file=sys.stderr)
            return 1
        if spans:
            print("gen_whatif: %s steps (ms): with %s, without %s" % (
                name, [s / 1e6 for s in spans["with"]], [s / 1e6 for s in spans["without"]]))
        manifest.append({"name": name, "with": files["with"], "without": files["without"],
                         "node": node, "factor": factor, "budget_ms": budget})
    write(os.path.join(args.out, "cases.json"), manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
