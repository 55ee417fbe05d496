#!/usr/bin/env python3
"""A recorded ONNX Runtime profile, read independently and against cookgraph.

    ort_check.py COOKGRAPH TRACE [--perturb [intra-op]]
    ort_check.py COOKGRAPH TRACE --against OTHER [--perturb]

Reads TRACE (an ONNX Runtime profile, written by tests/tools/ort_record.mjs)
with the standard library and runs `COOKGRAPH score TRACE --format json`,
`score TRACE` and `report TRACE --no-llm`. What must hold
(docs/formats.md#onnx-runtime, #warm-up; docs/architecture.md#time-outside-nodes):
- engine "onnxruntime", no frame budget;
- the runs are the model_run spans, less the first when it took at least 1.5
  times the median of the others (a warm-up), which a warning then names;
- time outside nodes, over the runs counted: per run its span less the union
  of the <node>_kernel_time events inside it; their mean, their largest and
  their sum over the runs' time, to 1 ns; and the threads other than the
  runs' own that ran nodes;
- the executor-overhead finding in the report exactly when at least half of
  the runs' time is outside nodes and nodes ran on another thread;
- no share over 100% anywhere: no "NNN.N%" above 100 in the table or the
  report, no JSON key with "share" above 1;
- the intra-op threads (docs/architecture.md#intra-op-threads), from each
  node event's args.thread_scheduling_stats that starts in a counted run: per
  node its events' time, main_thread's Run, Wait + WaitRevoke, Distribution +
  DistributionEnqueue (µs) and block_size entries, summed and divided by the
  runs; the helpers' work items as the growth of the sum of sub_threads'
  num_run since the event that ended before (per pool, in the order events
  end), per node only when none of its events overlaps another event with
  stats; no intra_op at all where no event has stats (one thread).
--perturb expects 0.01 ms more outside nodes per run, --perturb intra-op
0.01 ms more of the first node's Run a run: the check must then fail.

With --against OTHER, `COOKGRAPH diff TRACE OTHER --format json` instead: its
warnings must name the thread settings exactly when they differ, as each
profile shows them: the threads that ran nodes, the intra-op threads (the
helpers in thread_scheduling_stats, plus the node's own; 1 without stats) and
the executor (parallel when a thread other than the model_run's ran nodes).
--perturb then expects one intra-op thread more after.
Exit 0 when all holds, 1 otherwise (each failure on its own line).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def run(*argv):
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"ort_check.py: {' '.join(argv[:3])} exited {done.returncode}: {done.stderr}")
    return done.stdout


def union_inside(spans, lo, hi):
    covered, reach = 0, lo
    for a, b in sorted(spans):
        a, b = max(a, reach), min(b, hi)
        if b > a:
            covered += b - a
            reach = b
    return covered


def shares(value, path=""):
    """(path, value) of every number under a key containing "share"."""
    if isinstance(value, dict):
        for k, v in value.items():
            if "share" in k and isinstance(v, (int, float)):
                yield f"{path}/{k}", v
            yield from shares(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from shares(v, f"{path}/{i}")


def intra_op(nodes, counted):
    """What the nodes' thread_scheduling_stats say over the counted runs, as
    score's JSON gives it; None when no counted event has stats."""
    stats = [e for e in nodes if isinstance(e["args"].get("thread_scheduling_stats"), dict)]
    if not stats:
        return None
    # Events with stats that overlap another one.
    overlapped = set()
    for i, a in enumerate(stats):
        for b in stats[i + 1:]:
            if a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]:
                overlapped.update((id(a), id(b)))
    last = {}  # pool name: the helpers' work items so far
    per_node, totals, helpers, pools = {}, [0, 0, 0, 0], 0, []
    for e in sorted(stats, key=lambda e: e["ts"] + e["dur"]):
        st = e["args"]["thread_scheduling_stats"]
        main, subs = st["main_thread"], st["sub_threads"]
        pool = main["thread_pool_name"]
        runs_so_far = sum(t["num_run"] for t in subs.values())
        grew = max(runs_so_far - last.get(pool, 0), 0)
        last[pool] = max(last.get(pool, 0), runs_so_far)
        if not any(a <= e["ts"] < b for a, b, _ in counted):
            continue
        if pool not in pools:
            pools.append(pool)
        helpers = max(helpers, len(subs))
        figures = [main["Run"], main["Wait"] + main["WaitRevoke"],
                   main["Distribution"] + main["DistributionEnqueue"], grew]
        n = per_node.setdefault(e["name"][:-len("_kernel_time")],
                                {"calls": 0, "dur": 0, "sums": [0, 0, 0, 0], "sections": 0,
                                 "overlapped": False})
        n["calls"] += 1
        n["dur"] += e["dur"]
        n["sections"] += len(main["block_size"])
        n["overlapped"] = n["overlapped"] or id(e) in overlapped
        for k in range(4):
            n["sums"][k] += figures[k]
            totals[k] += figures[k]
    if not per_node:
        return None
    runs = len(counted)
    return {
        "pools": pools, "helpers": helpers, "steps": runs,
        "run_ms": totals[0] / 1e3 / runs, "wait_ms": totals[1] / 1e3 / runs,
        "distribution_ms": totals[2] / 1e3 / runs, "helper_runs": totals[3] / runs,
        "nodes": {name: {"calls": n["calls"], "node_ms": n["dur"] / 1e3 / runs,
                         "run_ms": n["sums"][0] / 1e3 / runs, "wait_ms": n["sums"][1] / 1e3 / runs,
                         "distribution_ms": n["sums"][2] / 1e3 / runs,
                         "parallel_sections": n["sections"] / runs,
                         "helper_runs": None if n["overlapped"] else n["sums"][3] / runs}
                  for name, n in per_node.items()},
    }


def check_intra_op(nodes, counted, got, perturb, expect):
    want = intra_op(nodes, counted)
    if want is None or got is None:
        expect("intra_op present", got is not None, want is not None)
        return
    if perturb:
        first = next(iter(want["nodes"].values()))
        first["run_ms"] += 0.01
    for key in ("pools", "helpers", "steps"):
        expect(f"intra_op {key}", got.get(key), want[key])
    for key in ("run_ms", "wait_ms", "distribution_ms", "helper_runs"):
        expect(f"intra_op {key}", got.get(key), want[key], 1e-9)
    got_nodes = {n["id"]: n for n in got.get("nodes", [])}
    expect("intra_op nodes", sorted(got_nodes), sorted(want["nodes"]))
    for name, w in want["nodes"].items():
        g = got_nodes.get(name, {})
        for key, value in w.items():
            exact = key == "calls" or value is None
            expect(f"intra_op {name} {key}", g.get(key), value, None if exact else 1e-9)


def thread_settings(events, extra_intra=0):
    nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    runs = {(e["pid"], e["tid"]) for e in events
            if e.get("cat") == "Session" and e.get("name") == "model_run"}
    threads = {(e["pid"], e["tid"]) for e in nodes}
    helpers = max((len(e["args"]["thread_scheduling_stats"]["sub_threads"]) for e in nodes
                   if isinstance(e["args"].get("thread_scheduling_stats"), dict)), default=0)
    intra = helpers + 1 + extra_intra
    return (f"ops on {len(threads)} CPU thread{'' if len(threads) == 1 else 's'}, "
            f"{intra} intra-op thread{'' if intra == 1 else 's'}, "
            f"{'parallel' if threads - runs else 'sequential'} executor")


def check_diff(cookgraph, before, after, perturb):
    with open(before, encoding="utf-8") as f:
        was = thread_settings(json.load(f))
    with open(after, encoding="utf-8") as f:
        now = thread_settings(json.load(f), 1 if perturb else 0)
    doc = json.loads(run(cookgraph, "diff", before, after, "--format", "json"))
    said = [w for w in doc["warnings"] if w.startswith("the thread settings changed")]
    want = [] if was == now else [
        f"the thread settings changed ({was} → {now}): the times measure another configuration"]
    if said != want:
        print(f"{before} → {after}: diff warns {said!r}, expected {want!r}")
        return 1
    print(f"{before} → {after}: {'settings ' + was + ' → ' + now if want else 'same settings'}")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cookgraph")
    parser.add_argument("trace")
    parser.add_argument("--perturb", nargs="?", const="outside", choices=["outside", "intra-op"])
    parser.add_argument("--against")
    args = parser.parse_args()
    if args.against:
        return check_diff(args.cookgraph, args.trace, args.against, args.perturb is not None)
    with open(args.trace, encoding="utf-8") as f:
        events = json.load(f)
    runs = sorted(((e["ts"], e["ts"] + e["dur"], e["tid"]) for e in events
                   if e.get("cat") == "Session" and e.get("name") == "model_run"),
                  key=lambda r: r[0])
    nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    spans = [b - a for a, b, _ in runs]
    warm = len(runs) >= 3 and 2 * spans[0] >= 3 * statistics.median(spans[1:])
    counted = runs[1:] if warm else runs
    work = [(e["ts"], e["ts"] + e["dur"]) for e in nodes]
    outside = [(b - a) - union_inside(work, a, b) for a, b, _ in counted]  # µs
    run_threads = {(e["pid"], e["tid"]) for e in events
                   if e.get("cat") == "Session" and e.get("name") == "model_run"}
    node_threads = len({(e["pid"], e["tid"]) for e in nodes} - run_threads)
    mean_ms = sum(outside) / len(outside) / 1000 + (0.01 if args.perturb == "outside" else 0)
    share = sum(outside) / sum(b - a for a, b, _ in counted)

    failures = []

    def expect(what, got, want, tolerance=None):
        ok = got == want if tolerance is None else (
            got is not None and abs(got - want) <= tolerance)
        if not ok:
            failures.append(f"{what}: cookgraph says {got!r}, expected {want!r}")

    doc = json.loads(run(args.cookgraph, "score", args.trace, "--format", "json"))
    s = doc["snapshots"][0]
    expect("engine", s["engine"], "onnxruntime")
    expect("frame budget", s["frame_budget_ms"], None)
    expect("runs counted", s["frames"], len(counted))
    expect("warm-up named", sum(" is a warm-up (" in w for w in s["warnings"]), 1 if warm else 0)
    o = s.get("outside_nodes") or {}
    expect("outside nodes: runs", o.get("steps"), len(counted))
    expect("outside nodes: mean ms", o.get("mean_ms"), mean_ms, 1e-6)
    expect("outside nodes: max ms", o.get("max_ms"), max(outside) / 1000, 1e-6)
    expect("outside nodes: share", o.get("share"), share, 1e-9)
    expect("outside nodes: node threads", o.get("node_threads"), node_threads)
    check_intra_op(nodes, counted, s.get("intra_op"), args.perturb == "intra-op", expect)
    for where, value in shares(doc):
        if value > 1 + 1e-9:
            failures.append(f"JSON {where} = {value}: a share over 100%")

    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.md")
        run(args.cookgraph, "report", args.trace, "--no-llm", "-o", report)
        with open(report, encoding="utf-8") as f:
            markdown = f.read()
    table = run(args.cookgraph, "score", args.trace)
    for name, text in (("score", table), ("report", markdown)):
        for match in re.finditer(r"(\d+(?:\.\d+)?)%", text):
            if float(match.group(1)) > 100:
                line = text[:match.start()].count("\n") + 1
                failures.append(f"{name} line {line}: {match.group(0)}, a share over 100%")
    overhead = share >= 0.5 and node_threads >= 1
    expect("executor-overhead finding", "rule: executor-overhead" in markdown, overhead)

    for line in failures:
        print(f"{args.trace}: {line}")
    if not failures:
        pool = s.get("intra_op")
        print(f"{args.trace}: {len(counted)} runs{' after a warm-up' if warm else ''}, "
              f"{mean_ms:.3f} ms outside nodes a run ({share:.1%}), nodes on {node_threads} "
              f"other thread(s){', executor-overhead found' if overhead else ''}; "
              + (f"intra-op: {pool['run_ms']:.3f} ms running and {pool['wait_ms']:.3f} ms "
                 f"waiting in parallel sections a run, {len(pool['nodes'])} nodes"
                 if pool else "no intra-op pool"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
