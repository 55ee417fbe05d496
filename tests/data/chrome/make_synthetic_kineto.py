#!/usr/bin/env python3
"""Writes synthetic_kineto.json: a small Kineto-shaped trace for the
independent check (tests/chrome_trace.cmake), with what the real fixtures lack.

    python3 make_synthetic_kineto.py > synthetic_kineto.json

Three ProfilerStep#N on the main thread; ops with nested aten::empty and a
cudaLaunchKernel each, flows ac2g to kernels on the GPU stream "stream 7" (a
string tid), kernels that lag behind the CPU so that some run in the next
step's time (they belong to the launching step), a B/E "forward" range per
step, a backward thread with fwdbwd flows, fractional timestamps, and the
events shuffled (the format does not promise any order). Seeded: the output
is the same every run.
"""

import json
import random

random.seed(7)
events = []
ts, gpu, corr = 1000.25, 1000.0, 1
for step in range(3):
    start = ts
    events.append({"ph": "B", "cat": "user_annotation", "name": "forward", "pid": 9, "tid": 9,
                   "ts": round(ts + 0.5, 3)})
    for i in range(6):
        op = random.choice(["aten::linear", "aten::relu", "aten::add"])
        d = random.randint(20, 60) + 0.125
        events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 9, "tid": 9,
                       "ts": round(ts + 1, 3), "dur": d})
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 9, "tid": 9,
                       "ts": round(ts + 2, 3), "dur": 3})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9,
                       "tid": 9, "ts": round(ts + 6, 3), "dur": 7})
        events.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 9, "tid": 9,
                       "ts": round(ts + 6, 3)})
        gpu = max(gpu, ts + 10)
        k = random.randint(30, 90)
        events.append({"ph": "X", "cat": "kernel", "name": f"{op}_kernel", "pid": 0,
                       "tid": "stream 7", "ts": round(gpu, 3), "dur": k})
        events.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 0,
                       "tid": "stream 7", "ts": round(gpu, 3), "bp": "e"})
        events.append({"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": corr, "pid": 9,
                       "tid": 9, "ts": round(ts + 1, 3)})
        events.append({"ph": "X", "cat": "cpu_op", "name": f"{op}_backward", "pid": 9, "tid": 10,
                       "ts": round(ts + 40, 3), "dur": 4})
        events.append({"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "id": corr, "pid": 9,
                       "tid": 10, "ts": round(ts + 40, 3), "bp": "e"})
        gpu += k + 1
        corr += 1
        ts += d + 2
    events.append({"ph": "E", "pid": 9, "tid": 9, "ts": round(ts, 3)})
    events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step + 40}",
                   "pid": 9, "tid": 9, "ts": start, "dur": round(ts + 45 - start, 3)})
    ts += 50
random.shuffle(events)
print(json.dumps({"schemaVersion": 1, "traceEvents": events}, indent=0))
