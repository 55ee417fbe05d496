#!/usr/bin/env python3
"""Holistic Trace Analysis' own GPU figures, kept, and cookgraph's against them.

hta_oracle.py --regenerate --hta HTA_DIR FIGURES TRACE...
hta_oracle.py --compare COOKGRAPH FIGURES [--perturb]
hta_oracle.py --critical-path --regenerate --hta HTA_DIR FIGURES CASE...
hta_oracle.py --critical-path --compare CRITICAL_PATH_DUMP FIGURES [--perturb]

--regenerate runs Meta's HTA itself (HTA_DIR: a checkout at commit f4d0062,
with Debian's python3-pandas, python3-plotly and python3-pydot installed) on
each TRACE (a Kineto trace file, or a folder of one trace file per rank),
each copied into a folder of its own and read with
`TraceAnalysis(trace_dir=...)` and HTA's defaults (the last ProfilerStep left
out, as cookgraph does). Per TRACE it keeps, in FIGURES (JSON, with the HTA
commit and each TRACE's path relative to the repository):
- "launches": `get_cuda_kernel_launch_stats` over every rank, one launch
  delay per (launch call, GPU event) pair, kernel start minus the call's end
  clipped at 0; pooled over the ranks, their count, mean, p50 and p95
  (NumPy's linear percentile) and max, in ms;
- "breakdown": per rank, `get_temporal_breakdown`'s kernel time (span), idle,
  compute and non-compute time, and `get_idle_time_breakdown`'s host wait,
  kernel wait and other idle time per stream, in ms;
- "cuda_sync_removed": HTA's analyzers take every row with a stream as a
  kernel, Kineto's cuda_sync waits ("Stream Sync", "Context Sync") too;
  cookgraph counts kernels, copies and memsets only (docs/architecture.md#gpu-time
  says why), so HTA is given the trace without its cuda_sync events, and this
  says how many were taken out;
- "fractional": whether some ts is a fraction of a µs, where HTA rounds.

--compare runs `cookgraph score TRACE --format json --hta-rounding` on each
TRACE of FIGURES and compares gpu.launches and gpu.ranks with HTA's: counts
exactly, times to 0.5 ns (floating-point noise). On a fractional TRACE it also
runs without --hta-rounding, the exact variant, and requires that one to
differ from HTA somewhere (else the rounding was not tested). --perturb adds
5 µs to HTA's p50 of every trace first: the comparison must then fail (exit
1), which shows it can. Exit 0 when every trace agrees, 1 otherwise.

--critical-path does the same for the event critical path
(docs/architecture.md#event-critical-path). Each CASE is
TRACE|ANNOTATION|INSTANCE (an empty ANNOTATION is the whole trace; a folder
TRACE is read as its first rank's file; with no CASE, those already in FIGURES
are run again): --regenerate runs HTA's
`critical_path_analysis(rank, annotation, instance_id)` with its defaults
(no zero-weight launch edges) and keeps the path's length (the sum of its
edges' weights, us), its number of events, and its GPU events (stream != -1):
their count and the SHA-256 of their sorted "name<TAB>ts" lines, ts in the
file's own microseconds; a window HTA finds no path for (its critical path
needs GPU kernels: a CPU-only trace fails its assertion "Queue length time
series is required") is kept under "refused" with HTA's reason, and not
compared. A trace in Kineto's 2021 schema, which HTA cannot
read, is given to it with today's category names (Operator as cpu_op,
Runtime as cuda_runtime, Kernel, Memcpy and Memset as kernel, gpu_memcpy and
gpu_memset, a ProfilerStep#N as user_annotation), as cookgraph reads it.
--compare runs `CRITICAL_PATH_DUMP TRACE --annotation A --instance I
--no-zero-weight-launch-edges` (tests/tools/critical_path_dump.cc: cookgraph's
metrics/event_critical_path.h on cookgraph's reading of the trace) and requires the
length within 1% of HTA's and the same GPU events (count and hash);
--perturb takes 2% off every expected length first, which must fail.
"""

import argparse
import gzip
import hashlib
import math
import json
import os
import shutil
import subprocess
import sys
import tempfile

HTA_COMMIT = "f4d0062c382f42bd8a74838bcdad1916c7d5d2da"
TOLERANCE_MS = 5e-7
PATH_TOLERANCE = 0.01  # relative, on the critical path's length
# Kineto's 2021 category names and today's (see --critical-path).
KINETO_2021_CATS = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Kernel": "kernel",
                    "Memcpy": "gpu_memcpy", "Memset": "gpu_memset"}
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def percentile(values, q):
    """NumPy's default (linear) percentile of sorted `values`."""
    h = (len(values) - 1) * q
    lo = int(h)
    if lo + 1 >= len(values):
        return values[-1]
    return values[lo] + (h - lo) * (values[lo + 1] - values[lo])


def without_cuda_sync(path, folder):
    """Writes the trace at `path` into `folder` without its cuda_sync events;
    how many were taken out, and whether some ts is fractional."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    kept = [e for e in events if not (isinstance(e, dict) and e.get("cat") == "cuda_sync")]
    fractional = any(isinstance(e, dict) and isinstance(e.get("ts"), float)
                     and e["ts"] != int(e["ts"]) for e in events)
    if isinstance(doc, dict):
        doc["traceEvents"] = kept
    else:
        doc = kept
    name = os.path.basename(path)
    name = name[:-3] if name.endswith(".gz") else name
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return len(events) - len(kept), fractional


def hta_figures(trace, work):
    """HTA's launch statistics (ms, pooled over ranks) and GPU time breakdown
    (per rank) of `trace`, given without its cuda_sync events."""
    from hta.trace_analysis import TraceAnalysis  # after sys.path names HTA_DIR
    folder = os.path.join(work, os.path.basename(trace.rstrip("/")) + ".d")
    os.makedirs(folder)
    files = ([os.path.join(trace, n) for n in sorted(os.listdir(trace))]
             if os.path.isdir(trace) else [trace])
    removed, fractional = 0, False
    for path in files:
        n, frac = without_cuda_sync(path, folder)
        removed, fractional = removed + n, fractional or frac
    analysis = TraceAnalysis(trace_dir=folder)
    ranks = sorted(analysis.t.traces.keys())
    stats = analysis.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    delays = sorted(float(v) for rank in ranks for v in stats[rank]["launch_delay"])
    launches = {"count": len(delays)}
    if delays:
        launches.update(mean=sum(delays) / len(delays) / 1000,
                        p50=percentile(delays, 0.5) / 1000,
                        p95=percentile(delays, 0.95) / 1000, max=delays[-1] / 1000)
    breakdown = {}
    temporal = analysis.get_temporal_breakdown(visualize=False)
    for row in temporal.to_dict("records"):
        breakdown[str(int(row["rank"]))] = {
            "kernel_span_ms": float(row["kernel_time(us)"]) / 1000,
            "idle_ms": float(row["idle_time(us)"]) / 1000,
            "compute_ms": float(row["compute_time(us)"]) / 1000,
            "non_compute_ms": float(row["non_compute_time(us)"]) / 1000,
            "streams": {}}
    idle = analysis.get_idle_time_breakdown(ranks=ranks, visualize=False)[0]
    names = {"host_wait": "idle_host_wait_ms", "kernel_wait": "idle_kernel_wait_ms",
             "other": "idle_other_ms"}
    for row in idle.to_dict("records"):
        rank = breakdown.setdefault(str(int(row["rank"])), {"streams": {}})
        stream = rank["streams"].setdefault(str(int(row["stream"])), {})
        stream[names[row["idle_category"]]] = float(row["idle_time"]) / 1000
    return {"launches": launches, "breakdown": breakdown, "cuda_sync_removed": removed,
            "fractional": fractional}


def regenerate(hta_dir, figures, traces):
    sys.path.insert(0, os.path.abspath(hta_dir))
    doc = {"hta_commit": HTA_COMMIT,
           "what": "get_cuda_kernel_launch_stats launch delays, pooled over ranks, and "
                   "get_temporal_breakdown / get_idle_time_breakdown per rank and stream, ms; "
                   "HTA given each trace without its cuda_sync events",
           "traces": {}}
    with tempfile.TemporaryDirectory() as work:
        for trace in traces:
            key = os.path.relpath(os.path.abspath(trace), ROOT)
            doc["traces"][key] = hta_figures(trace, work)
            print(f"hta_oracle: {key}: {doc['traces'][key]}")
    with open(figures, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


def score_gpu(cookgraph, trace, *options):
    """`score --format json`'s "gpu" of `trace` (None without), or an error text."""
    run = subprocess.run([cookgraph, "score", trace, "--format", "json", *options],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, f"cookgraph score exited {run.returncode}: {run.stderr.strip()[:500]}"
    return json.loads(run.stdout)["snapshots"][0].get("gpu"), None


def differences(key, want, gpu):
    """Each way `gpu` (cookgraph's) departs from HTA's figures `want`."""
    problems = []
    launches = (gpu or {}).get("launches")
    w = want["launches"]
    if launches is None:
        return [f"{key}: cookgraph gives no gpu.launches; HTA has {w['count']}"]
    if launches["count"] != w["count"]:
        problems.append(f"{key}: {launches['count']} launches, HTA {w['count']}")
    for stat in ("mean", "p50", "p95", "max"):
        if stat in w:
            g = launches["delay_ms"].get(stat)
            if g is None or abs(g - w[stat]) > TOLERANCE_MS:
                problems.append(f"{key}: launch delay {stat} {g} ms, HTA {w[stat]:.6f} ms")
    ranks = {str(r["rank"]): r for r in gpu.get("ranks", [])}
    for rank, wr in sorted(want["breakdown"].items()):
        r = ranks.get(rank)
        if r is None:
            problems.append(f"{key}: no GPU time for rank {rank}; HTA has some")
            continue
        for field in ("kernel_span_ms", "idle_ms", "compute_ms", "non_compute_ms"):
            if field in wr and abs(r[field] - wr[field]) > TOLERANCE_MS:
                problems.append(f"{key}: rank {rank} {field} {r[field]}, HTA {wr[field]:.6f}")
        streams = {str(s["stream"]): s for s in r["streams"]}
        for stream, ws in sorted(wr["streams"].items()):
            s = streams.get(stream)
            if s is None:
                problems.append(f"{key}: rank {rank} has no stream {stream}; HTA has it")
                continue
            for field, value in sorted(ws.items()):
                if abs(s[field] - value) > TOLERANCE_MS:
                    problems.append(f"{key}: rank {rank} stream {stream} {field} {s[field]}, "
                                    f"HTA {value:.6f}")
    return problems


def compare(cookgraph, figures, perturb):
    with open(figures, encoding="utf-8") as f:
        doc = json.load(f)
    problems = []
    for key, want in sorted(doc["traces"].items()):
        want = json.loads(json.dumps(want))
        if perturb and "p50" in want["launches"]:
            want["launches"]["p50"] += 0.005
        trace = os.path.join(ROOT, key)
        gpu, error = score_gpu(cookgraph, trace, "--hta-rounding")
        if error:
            problems.append(f"{key}: {error}")
            continue
        found = differences(key, want, gpu)
        problems += found
        r = (gpu or {}).get("ranks", [{}])
        print(f"hta_oracle: {key}: {want['launches']['count']} launches, "
              f"{len(want['breakdown'])} rank(s), idle {[x.get('idle_ms') for x in r]} ms, "
              f"{want['cuda_sync_removed']} cuda_sync left out of HTA's input: "
              f"{'agrees' if not found else 'differs'}")
        if want["fractional"] and not perturb:
            exact, error = score_gpu(cookgraph, trace)
            if error:
                problems.append(f"{key}: {error}")
            elif not differences(key, want, exact):
                problems.append(f"{key}: fractional, but without --hta-rounding cookgraph still "
                                "equals HTA: the rounding is not tested")
            else:
                print(f"hta_oracle: {key}: without --hta-rounding (nanoseconds) it differs, "
                      f"first: {differences(key, want, exact)[0]}")
    for key, reason in sorted(doc.get("refused", {}).items()):
        print(f"hta_oracle: {key}: not compared, HTA has no path ({reason})")
    for p in problems:
        print("hta_oracle: " + p)
    if perturb:
        print("hta_oracle: the perturbed p50 was " + ("caught" if problems else "NOT caught"))
    return 1 if problems else 0


def read_doc(trace):
    """The JSON of a trace file, or of a folder's first file."""
    if os.path.isdir(trace):
        trace = os.path.join(trace, sorted(os.listdir(trace))[0])
    with open(trace, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def read_events(trace):
    doc = read_doc(trace)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def gpu_digest(lines):
    """The count and SHA-256 of a path's GPU events, given as "name\tts" lines."""
    lines = sorted(lines)
    return len(lines), hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def split_case(case):
    trace, rest = case.split("|", 1)
    annotation, instance = rest.rsplit("|", 1)
    return trace, annotation, int(instance)


def hta_path(case, work):
    """HTA's critical path of one CASE: its length (us), events and GPU events."""
    from hta.trace_analysis import TraceAnalysis  # after sys.path names HTA_DIR
    trace, annotation, instance = split_case(case)
    folder = tempfile.mkdtemp(dir=work)
    doc = read_doc(trace)
    renamed = False
    for e in (doc if isinstance(doc, list) else doc.get("traceEvents", [])):
        if isinstance(e, dict) and e.get("cat") in KINETO_2021_CATS:
            renamed = True
            if str(e.get("name", "")).startswith("ProfilerStep#"):
                e["cat"] = "user_annotation"
            else:
                e["cat"] = KINETO_2021_CATS[e["cat"]]
    with open(os.path.join(folder, "rank.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f)
    analysis = TraceAnalysis(trace_dir=folder)
    rank = sorted(analysis.t.traces.keys())[0]
    result = analysis.critical_path_analysis(rank=rank, annotation=annotation,
                                             instance_id=instance)
    if result is None or not result[1]:
        raise RuntimeError(f"HTA finds no critical path for {case}")
    cp = result[0]
    df = analysis.t.get_trace(rank)
    names = analysis.t.symbol_table.sym_table
    lines = [f"{names[int(df.name.loc[i])]}\t{int(df.ts.loc[i]) + int(analysis.t.min_ts)}"
             for i in cp.critical_path_events_set if df.stream.loc[i] != -1]
    count, digest = gpu_digest(lines)
    return {"annotation": annotation, "instance": instance,
            "length_us": int(sum(e.weight for e in cp.critical_path_edges_set)),
            "events": len(cp.critical_path_events_set), "gpu_events": count,
            "gpu_sha256": digest, "kineto_2021_renamed": renamed}


def regenerate_paths(hta_dir, figures, cases):
    sys.path.insert(0, os.path.abspath(hta_dir))
    doc = {"hta_commit": HTA_COMMIT,
           "what": "critical_path_analysis of one window per case: the path's length (us), "
                   "events, and GPU events (count, SHA-256 of sorted name<TAB>ts lines)",
           "cases": {},
           "refused": {}}
    with tempfile.TemporaryDirectory() as work:
        for case in cases:
            trace, annotation, instance = split_case(case)
            key = "|".join([os.path.relpath(os.path.abspath(trace), ROOT), annotation,
                            str(instance)])
            try:
                doc["cases"][key] = hta_path(case, work)
            except (AssertionError, KeyError, RuntimeError) as e:
                # HTA has no path for this window: kept, with its reason, so
                # that the figures say which fixtures HTA cannot check.
                doc["refused"][key] = f"{type(e).__name__}: {str(e).strip()}"
                print(f"hta_oracle: {key}: HTA refuses: {doc['refused'][key]}")
                continue
            print(f"hta_oracle: {key}: {doc['cases'][key]}")
    with open(figures, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


def compare_paths(dump, figures, perturb):
    with open(figures, encoding="utf-8") as f:
        doc = json.load(f)
    problems = []
    for key, want in sorted(doc["cases"].items()):
        trace, annotation, instance = split_case(key)
        trace = os.path.join(ROOT, trace)
        expected_us = want["length_us"] * (0.98 if perturb else 1)
        run = subprocess.run([dump, trace, "--annotation=" + annotation, "--instance",
                              str(instance), "--no-zero-weight-launch-edges"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{key}: critical_path_dump exited {run.returncode}: "
                            f"{run.stderr.strip()[:500]}")
            continue
        events = read_events(trace)
        path, length_ns = [], None
        for line in run.stdout.splitlines():
            fields = line.split(" ")
            if fields[0] == "path":
                path.append(int(fields[2]))
            elif fields[0] == "length_ns":
                length_ns = int(fields[1])
        lines = []
        for i in path:
            e = events[i]
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            # A GPU-side event: HTA's stream column is args.stream there.
            if "stream" in args and e.get("cat") not in ("cpu_op", "cuda_runtime", "cuda_driver",
                                                         "Operator", "Runtime"):
                # HTA's ts: rounded up to a whole µs (the fractional traces).
                lines.append(f"{e.get('name', '')}\t{math.ceil(float(e['ts']))}")
        count, digest = gpu_digest(lines)
        got_us = (length_ns or 0) / 1000
        off = abs(got_us - expected_us) / expected_us if expected_us else abs(got_us)
        print(f"hta_oracle: {key}: length {got_us:.3f} us (HTA {expected_us:.3f}, "
              f"{100 * off:.4f}% off), {len(set(path))} events (HTA {want['events']}), "
              f"{count} on the GPU (HTA {want['gpu_events']})")
        if off > PATH_TOLERANCE:
            problems.append(f"{key}: length {got_us:.3f} us, HTA {expected_us:.3f} us")
        if count != want["gpu_events"] or digest != want["gpu_sha256"]:
            problems.append(f"{key}: {count} GPU events on the path, HTA {want['gpu_events']}"
                            + ("" if count != want["gpu_events"] else " (other events)"))
    for p in problems:
        print("hta_oracle: " + p)
    if perturb:
        print("hta_oracle: the perturbed lengths were " + ("caught" if problems else "NOT caught"))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--hta")
    ap.add_argument("--compare", metavar="COOKGRAPH")
    ap.add_argument("--perturb", action="store_true")
    ap.add_argument("--critical-path", action="store_true")
    ap.add_argument("figures")
    ap.add_argument("traces", nargs="*")
    a = ap.parse_args()
    if a.regenerate and a.critical_path and a.hta and not a.traces and os.path.exists(a.figures):
        # The cases already kept, run again (their traces relative to the repository).
        with open(a.figures, encoding="utf-8") as f:
            kept = json.load(f)
        a.traces = [os.path.join(ROOT, key)
                    for key in sorted([*kept["cases"], *kept.get("refused", {})])]
    if a.regenerate:
        if not a.hta or not a.traces:
            ap.error("--regenerate needs --hta HTA_DIR and traces")
        if a.critical_path:
            return regenerate_paths(a.hta, a.figures, a.traces)
        return regenerate(a.hta, a.figures, a.traces)
    if not a.compare:
        ap.error("give --regenerate or --compare COOKGRAPH")
    if a.critical_path:
        return compare_paths(a.compare, a.figures, a.perturb)
    return compare(a.compare, a.figures, a.perturb)


if __name__ == "__main__":
    sys.exit(main())
