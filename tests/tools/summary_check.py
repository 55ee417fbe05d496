#!/usr/bin/env python3
"""`score --format summary-json` (docs/commands.md#one-row-per-snapshot) against
an independent reading of native snapshots with the standard library.

    summary_check.py COOKGRAPH SNAPSHOT.json... [--perturb]

For each snapshot: frames (frames with work), frame time mean, p95 (NumPy's
linear percentile) and max (frame_ms where measured, else the sum of cook_ms),
the budget (frame_budget_ms, else 1000/fps, else 16.667), the over-budget
share, the top node by avg × (1 + population std) over the frames it cooked and
its share (per-frame ms / mean frame time). The summary CSV must hold the same
rows as the JSON, and the summary table one line per snapshot. --perturb
shifts the expected mean frame time by 1e-6 ms, so the run must fail.
"""

import csv
import io
import json
import math
import subprocess
import sys


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    rank = p / 100 * (len(sorted_values) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (rank - lo)


def expected(path, perturb):
    snap = json.load(open(path))
    frames = snap["frames"]
    n = len(frames["index"])
    series = frames.get("series", {})
    measured = frames.get("frame_ms")
    times = []
    for f in range(n):
        if measured is not None:
            if measured[f] is not None:
                times.append(measured[f])
            continue
        cooks = [s["cook_ms"][f] for s in series.values()
                 if s.get("cook_ms") and s["cook_ms"][f] is not None]
        if cooks:
            times.append(sum(cooks))
    budget = snap.get("frame_budget_ms") or (1000 / snap["fps"] if snap.get("fps") else 16.667)
    if snap["engine"] in ("pytorch", "tensorflow", "onnxruntime") and not (
            snap.get("frame_budget_ms") or snap.get("fps")):
        budget = None  # steps are not frames: no budget unless one is given
    mean = sum(times) / len(times)
    best, best_score = None, -1
    for node in snap["nodes"]:
        if node.get("family") in ("queue", "mixer"):
            continue  # waiting, not work: ranked after every node that works
        cook = [v for v in series.get(node["id"], {}).get("cook_ms", []) or [] if v is not None]
        if not cook:
            continue
        avg = sum(cook) / len(cook)
        std = math.sqrt(sum((v - avg) ** 2 for v in cook) / len(cook))
        score = avg * (1 + std)
        if score > best_score:
            best, best_score = node["id"], score
            best_share = sum(cook) / len(times) / mean
    return {
        "frames": len(times),
        "frame_mean_ms": mean + (1e-6 if perturb else 0),
        "frame_p95_ms": percentile(sorted(times), 95),
        "frame_max_ms": max(times),
        "budget_ms": budget,
        "over_budget_share": None if budget is None else
        sum(1 for t in times if t > budget) / len(times),
        "top_node": best,
        "top_node_share": best_share,
    }


def main():
    perturb = "--perturb" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--perturb"]
    cookgraph, paths = args[0], args[1:]
    run = lambda fmt: subprocess.run([cookgraph, "score", *paths, "--format", fmt],
                                     capture_output=True, text=True, check=True).stdout
    rows = json.loads(run("summary-json"))["summary"]
    failures = 0
    for path, row in zip(paths, rows):
        for key, want in expected(path, perturb).items():
            got = row[key]
            same = got == want if want is None or isinstance(want, (str, int)) else \
                math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
            if not same:
                failures += 1
                print(f"FAIL {path}: {key} = {got!r}, expected {want!r}")
        if row["error"] is not None or row["critical"] + row["warnings"] + row["info"] == 0:
            failures += 1
            print(f"FAIL {path}: no findings counted, or an error: {row}")
    as_csv = list(csv.DictReader(io.StringIO(run("summary-csv"))))
    for a, b in zip(rows, as_csv):
        for key, value in a.items():
            text = "" if value is None else str(value)
            if isinstance(value, float):
                ok = b[key] != "" and math.isclose(float(b[key]), value, rel_tol=1e-15)
            else:
                ok = b[key] == text
            if not ok:
                failures += 1
                print(f"FAIL csv {a['file']}: {key} = {b[key]!r}, JSON has {value!r}")
    table = run("summary").splitlines()
    if len(table) != len(paths) + 1:
        failures += 1
        print(f"FAIL: the summary table has {len(table)} lines for {len(paths)} snapshots")
    if len(rows) != len(paths) or len(as_csv) != len(paths):
        failures += 1
        print("FAIL: not one row per snapshot")
    print(f"summary_check: {len(paths)} snapshots, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
