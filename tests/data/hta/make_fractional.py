#!/usr/bin/env python3
"""Writes alexnet_fractional.json.gz: the real AlexNet Kineto trace of
../fixtures/traces/kineto_alexnet_sync.json.gz with fractional-microsecond
times, for the rounding checks (docs/architecture.md#rounding).

    python3 make_fractional.py > alexnet_fractional.json.gz   (from this folder)

Every time is made relative to the trace's first (the file gives µs since
1970, where a double keeps only quarter µs) and stretched by 1.0003, then
rounded to an eighth of a µs (exact in binary, so HTA's float64 reads it
exactly). Ends are computed before rounding and durations from the rounded
ends, so the stretch keeps every order and every nesting of the original;
only the whole-µs grid is gone. Deterministic.
"""

import gzip
import json
import os
import sys

STRETCH = 1.0003
here = os.path.dirname(os.path.abspath(__file__))
source = os.path.join(here, "..", "fixtures", "traces", "kineto_alexnet_sync.json.gz")
with gzip.open(source, "rt", encoding="utf-8") as f:
    trace = json.load(f)
events = trace["traceEvents"]
origin = min(e["ts"] for e in events if isinstance(e.get("ts"), (int, float)))


def stretched(us):
    return round((us - origin) * STRETCH * 8) / 8


for e in events:
    if not isinstance(e.get("ts"), (int, float)):
        continue
    start = stretched(e["ts"])
    if isinstance(e.get("dur"), (int, float)):
        e["dur"] = stretched(e["ts"] + e["dur"]) - start
    e["ts"] = start
out = gzip.GzipFile(fileobj=sys.stdout.buffer, mode="wb", mtime=0)
out.write(json.dumps(trace, separators=(",", ":")).encode())
out.close()
