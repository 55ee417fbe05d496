#!/usr/bin/env python3
"""Holistic Trace Analysis' load of one Kineto trace: the reference baseline.

    PYTHONPATH=<shared>/reference/hta python3 bench/hta_load.py TRACE

HTA reads a folder of one trace per rank: TRACE is linked into a temporary
folder and `TraceAnalysis(trace_dir=...)` loads it (parse, DataFrames, symbol
table; include_last_profiler_step as HTA's default). Prints one JSON line:
{"import_s": ..., "load_s": ..., "events": ...}: the time to import HTA's
modules, and the time to load the trace (the figure bench/run.sh compares
with `cookgraph score`). Exit 2 when HTA cannot be imported.
"""

import json
import logging
import os
import sys
import tempfile
import time
import warnings


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: hta_load.py TRACE")
    path = os.path.abspath(argv[1])
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    t0 = time.monotonic()
    try:
        from hta.trace_analysis import TraceAnalysis
    except ImportError as e:
        print(f"hta_load.py: cannot import HTA ({e}): set PYTHONPATH to the reference/hta folder of the shared folder beside the checkout",
              file=sys.stderr)
        return 2
    t1 = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        os.symlink(path, os.path.join(folder, os.path.basename(path)))
        analysis = TraceAnalysis(trace_dir=folder)
        t2 = time.monotonic()
        events = sum(len(df) for df in analysis.t.traces.values())
    print(json.dumps({"import_s": round(t1 - t0, 4), "load_s": round(t2 - t1, 4),
                      "events": events}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
