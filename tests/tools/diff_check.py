#!/usr/bin/env python3
"""End-to-end check of `cookgraph diff` on a generated pair of snapshots.

    python3 tests/tools/diff_check.py COOKGRAPH SOURCE_DIR WORK_DIR

Generates the pair with tests/tools/gen_diff_pair.py (hundreds of nodes,
hundreds of frames, three nodes slowed by 30%), runs `cookgraph diff`, and
checks against computations made here from the raw files (no cookgraph code):

- exactly the three slowed nodes are regressions, on the slowed pair; none on
  the pair that differs by noise only;
- the added and removed ids;
- the mean frame times and their change;
- every node's avg change and one-sided Welch p-value (mpmath's incomplete
  beta, not Boost);
- the nodes without a test (never cooked, one sample, constant) say so, with
  p_value null and no regression;
- why noise stays out: every unchanged node's 5% is at least 5 standard
  errors away, while some unchanged nodes do pass the t-test at alpha 0.01, and
  with --min-change 0 exactly those join the three (so the test would see a
  broken gate);
- --fail-on-regression: 4 on the slowed pair, 0 on the noise-only pair, 0 with
  a threshold above the slowdown.
Exits 1 with the reasons when a check fails.
"""

import json
import math
import os
import statistics
import subprocess
import sys

import mpmath

mpmath.mp.dps = 40
ALPHA = 0.01
MIN_CHANGE = 5.0
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def run(cookgraph, *args):
    p = subprocess.run([cookgraph, *args], capture_output=True, text=True,
                       env={**os.environ, "NO_COLOR": "1"})
    return p.returncode, p.stdout, p.stderr


def series_of(path):
    with open(path) as f:
        doc = json.load(f)
    frames = len(doc["frames"]["index"])
    series = {n["id"]: [] for n in doc["nodes"]}
    for node_id, metrics in doc["frames"]["series"].items():
        series[node_id] = [v for v in metrics.get("cook_ms", []) if v is not None]
    frame_ms = [0.0] * frames
    for metrics in doc["frames"]["series"].values():
        for f, v in enumerate(metrics.get("cook_ms", [])):
            if v is not None:
                frame_ms[f] += v
    return series, frame_ms


def welch_p_slower(a, b):
    """One-sided p of 'b is slower than a'; None when there is no test."""
    if len(a) < 2 or len(b) < 2:
        return None
    va = mpmath.mpf(statistics.variance(a)) / len(a)
    vb = mpmath.mpf(statistics.variance(b)) / len(b)
    diff = mpmath.mpf(statistics.fmean(b)) - mpmath.mpf(statistics.fmean(a))
    if va + vb == 0:
        return None if diff == 0 else (0.0 if diff > 0 else 1.0)
    t = diff / mpmath.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
    return float(tail if t > 0 else 1 - tail)


def close(x, y, rel, absolute=0.0):
    return abs(x - y) <= max(rel * max(abs(x), abs(y)), absolute)


def main():
    cookgraph, source, work = sys.argv[1:4]
    subprocess.run([sys.executable, os.path.join(source, "tests/tools/gen_diff_pair.py"),
                    "--out", work], check=True)
    with open(os.path.join(work, "facts.json")) as f:
        facts = json.load(f)
    before_path = os.path.join(work, "before.json")
    after_path = os.path.join(work, "after.json")
    same_path = os.path.join(work, "after_same.json")
    before, frames_before = series_of(before_path)
    after, frames_after = series_of(after_path)

    code, out, err = run(cookgraph, "diff", before_path, after_path, "--format", "json")
    if not check(code == 0, f"diff exited {code}: {err}"):
        return
    doc = json.loads(out)
    nodes = {n["id"]: n for n in doc["nodes"]}
    slowed = set(facts["slowed"])

    flagged = {n["id"] for n in doc["nodes"] if n["regression"]}
    check(flagged == slowed, f"regressions {sorted(flagged)} != slowed {sorted(slowed)}")
    check(doc["regressions"] == 3 and doc["regressed"], "regressions count / regressed")
    check(doc["added"] == facts["added"], f"added {doc['added']}")
    check(sorted(doc["removed"]) == sorted(facts["removed"]), f"removed {doc['removed']}")
    check(len(doc["nodes"]) == len(set(before) & set(after)), "matched node count")

    # Frame time, from the raw series.
    mean0, mean1 = statistics.fmean(frames_before), statistics.fmean(frames_after)
    change = (mean1 - mean0) / mean0 * 100
    fm = doc["frame_ms"]
    check(fm["before"]["frames"] == facts["frames"]["before"], "frames before")
    check(fm["after"]["frames"] == facts["frames"]["after"], "frames after")
    check(close(fm["before"]["mean"], mean0, 1e-12), f"frame mean before {fm['before']['mean']} != {mean0}")
    check(close(fm["after"]["mean"], mean1, 1e-12), f"frame mean after {fm['after']['mean']} != {mean1}")
    check(close(fm["change_pct"], change, 1e-9), f"frame change {fm['change_pct']} != {change}")
    check(any("different frame counts" in w for w in doc["warnings"]), "frame-count warning")

    # Every node: avg change and p-value.
    worst_p = 0.0
    for node_id, n in nodes.items():
        a, b = before[node_id], after[node_id]
        p = welch_p_slower(a, b)
        if a and b:
            expect = (statistics.fmean(b) - statistics.fmean(a)) / statistics.fmean(a) * 100
            check(close(n["change_pct"], expect, 1e-9, 1e-12), f"{node_id}: change_pct {n['change_pct']} != {expect}")
        if p is None:
            check(n["p_value"] is None and not n["regression"], f"{node_id}: expected no test")
            continue
        slower = statistics.fmean(b) >= statistics.fmean(a)
        expect_p = p if slower else 1 - p
        if check(n["p_value"] is not None, f"{node_id}: p_value null"):
            ok = close(n["p_value"], expect_p, 1e-6, 1e-300)
            check(ok, f"{node_id}: p_value {n['p_value']} != {expect_p}")
            if expect_p > 0:
                worst_p = max(worst_p, abs(n["p_value"] - expect_p) / expect_p)

    edge = facts["edge"]
    check(nodes[edge["never"]]["note"] == "never cooked", "never-cooked note")
    check("too few samples" in (nodes[edge["once"]]["note"] or ""), "one-sample note")
    check("same constant" in (nodes[edge["constant"]]["note"] or ""), "constant note")
    check(nodes[edge["starts"]]["note"] == "did not cook before", "starts note")

    # Why noise stays out.
    unchanged = [i for i in nodes if i not in slowed and len(before[i]) >= 2 and len(after[i]) >= 2
                 and statistics.variance(before[i]) + statistics.variance(after[i]) > 0]
    min_z = math.inf
    lucky = set()
    biggest = 0.0
    for i in unchanged:
        a, b = before[i], after[i]
        se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
        min_z = min(min_z, MIN_CHANGE / 100 * statistics.fmean(a) / se)
        biggest = max(biggest, abs(nodes[i]["change_pct"]))
        if welch_p_slower(a, b) < ALPHA:
            lucky.add(i)
    check(min_z >= 5, f"an unchanged node is only {min_z:.2f} standard errors from 5%")
    check(len(lucky) >= 1, "no unchanged node passes the t-test: the seed does not show the gate")
    code, out0, err0 = run(cookgraph, "diff", before_path, after_path, "--format", "json",
                           "--min-change", "0")
    flagged0 = {n["id"] for n in json.loads(out0)["nodes"] if n["regression"]} if code == 0 else set()
    check(flagged0 == slowed | lucky,
          f"--min-change 0 flags {sorted(flagged0)}, expected the slowed and {sorted(lucky)}")

    # Noise only: nothing regressed, and the gate exits 0.
    code, out_same, err_same = run(cookgraph, "diff", before_path, same_path, "--format", "json",
                                   "--fail-on-regression")
    same = json.loads(out_same) if out_same else {"nodes": [], "regressed": True}
    flagged_same = sorted(n["id"] for n in same["nodes"] if n["regression"])
    check(code == 0 and not same["regressed"] and not flagged_same,
          f"noise-only pair: exit {code}, regressions {flagged_same}, stderr {err_same}")

    # The CI gate.
    code, _, err = run(cookgraph, "diff", before_path, after_path, "--fail-on-regression")
    check(code == 4, f"--fail-on-regression on the slowed pair exited {code}")
    check(err.count("\n") == 1 and "3 nodes regressed" in err, f"gate message: {err!r}")
    code, _, err = run(cookgraph, "diff", before_path, after_path, "--fail-on-regression=40")
    check(code == 0, f"--fail-on-regression=40 exited {code} (the slowdown is 30%): {err}")

    slowed_changes = ", ".join(f"{nodes[i]['change_pct']:+.1f}% (p {nodes[i]['p_value']:.1e})"
                               for i in sorted(slowed))
    print(f"nodes: {len(before)} before, {len(after)} after, {len(nodes)} matched; "
          f"frames {len(frames_before)} and {len(frames_after)}")
    print(f"regressions: {sorted(flagged)}: {slowed_changes}")
    print(f"frame time: {mean0:.4f} -> {mean1:.4f} ms ({change:+.4f}%), cookgraph says "
          f"{fm['before']['mean']:.4f} -> {fm['after']['mean']:.4f} ms ({fm['change_pct']:+.4f}%)")
    print(f"p-values: largest relative difference from mpmath {worst_p:.1e}")
    print(f"noise: largest |avg change| of an unchanged node {biggest:.2f}%; the nearest is "
          f"{min_z:.1f} standard errors from 5%; {len(lucky)} of {len(unchanged)} unchanged "
          f"nodes have p < {ALPHA}, and --min-change 0 flags them: {sorted(lucky)}")
    print(f"noise-only pair: {len(flagged_same)} regressions, exit 0 with --fail-on-regression")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures[:30]), file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
