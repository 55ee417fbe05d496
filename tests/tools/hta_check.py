#!/usr/bin/env python3
"""Independent re-implementation of Holistic Trace Analysis (HTA) metrics on raw
Kineto (PyTorch profiler) Chrome traces, to check cookgraph against.

    hta_check.py TRACE_OR_FOLDER [more files]        prints the expected JSON
    hta_check.py --compare COOKGRAPH TRACE... [--perturb]
    hta_check.py --self-test

Python standard library only; shares no code with the C++ implementation.
Everything is computed in integer nanoseconds (ts/dur are microseconds with up
to three decimals, read exactly with Decimal) and divided by 1e6 at the very
end, so the printed milliseconds are exact up to float rounding.

All files named on the command line (or found in a folder: *.json, *.json.gz,
*.gz) are ONE job; each file is one rank, the rank being the top-level
"distributedInfo": {"rank"} (0 when absent), as HTA's hta/common/trace_file.py
get_trace_files / create_rank_to_trace_dict read it.

Output (sorted keys, indent 1, all times in ms):

{"gpu": null | {"ranks": [{"rank", "kernel_span_ms", "idle_ms", "compute_ms",
                           "non_compute_ms",
                           "steps": [{"step", "kernels", "kernel_span_ms", "idle_ms",
                                      "compute_ms", "non_compute_ms"}],
                           "streams": [{"stream", "kernel_ms", "idle_ms",
                                        "idle_host_wait_ms", "idle_kernel_wait_ms",
                                        "idle_other_ms"}]}],
                "launches": {"count", "delay_ms": {"mean", "p50", "p95", "max"},
                             "cpu_ms", "kernels_under_10us"},
                "overlap": {"communication_ms", "overlapped_ms"}},
 "memory": {"devices": [{"rank", "device", "peak_allocated_mb", "peak_reserved_mb",
                         "steps": [{"step", "peak_allocated_mb", "peak_reserved_mb"}]}]},
 "ranks": [{"rank", "steps", "step_ms", "straggler"}]}

Definitions (HTA = facebookresearch/HolisticTraceAnalysis; the functions cited
are the ones this file follows line by line; see the comments at each step):

 Events. A trace event is an HTA "row" when it has both "dur" and "cat" and cat
   is not "Trace" (hta/common/trace_parser.py _compress_df drops the others:
   metadata, flows, instants), plus the "[memory]" instants (kept with dur 0 by
   the same function). gpu_user_annotation rows are dropped
   (hta/configs/parser_config.py ParserConfig.drop_gpu_user_annotation = True).
   HTA's "stream" is int(args.stream) else -1 and "correlation" is
   args.correlation else -1 (hta/configs/default_event_args.py cuda::stream,
   correlation::cpu_gpu; hta/utils/utils.py normalize_gpu_stream_numbers).
   An HTA "GPU row" is stream >= 0 and correlation >= 0, or a row named
   "Event Sync"/"Context Sync"; every other row is an HTA "CPU row"
   (hta/common/trace_filter.py _filter_gpu_kernels_with_cuda_sync,
   GPUKernelFilter, CPUOperatorFilter).

 GPU kernels. Rows whose cat is kernel, gpu_memcpy, gpu_memset, or the 2021
   names Kernel, Memcpy, Memset. Stream = args.stream, else tid.
   DEPARTURE: HTA's analyzers take every row with stream != -1
   (breakdown_analysis.py get_temporal_breakdown: trace_df["stream"].ne(-1)),
   which also counts cuda_sync rows (they carry args.stream) as kernels, and
   drop kernels that lack args.stream; we count by category as the brief says.

 Iteration filter (HTA's default load, hta/common/trace.py
   Trace._filter_irrelevant_gpu_kernels with include_last_profiler_step=False):
   if the job holds two or more distinct names matching ^ProfilerStep#(\\d+)
   (trace_symbol_table.py get_profiler_step_ids, types.py
   ProfilerStepGroupingPattern; counted over all ranks), then on every rank
   that has CPU rows: last_start = the largest ts of that rank's ProfilerStep
   CPU rows (when it has none: the smallest ts of its CPU rows); CPU rows with
   ts >= last_start are dropped (so the whole LAST profiler step is excluded);
   a GPU kernel is kept only when its correlation (>= 0) equals the
   correlation of a kept CPU row, i.e. kernels launched in the last step and
   kernels with no launcher in the trace (launched before profiling began)
   are dropped. With zero or one step name nothing is filtered, and kernels
   without a launcher stay. --include-last-step keeps CPU rows with
   ts <= the largest ProfilerStep end instead (HTA's include_last_profiler_step
   =True). Every "gpu" number below is computed on the filtered rows; the
   "memory" and "ranks" sections use the whole trace.

 Kernel type (hta/utils/utils.py get_kernel_type / is_comm_kernel /
   is_memory_kernel): COMMUNICATION if the name starts with "nccl" or contains
   "gloo:" (newest is_nccl_kernel / is_gloo_kernel; the older
   "ncclKernel" in name misses NCCL >= 2.19's ncclDevKernel_*), else MEMORY if
   the name contains "Memcpy" or "Memset", else COMPUTATION. By name only.

 Per rank (breakdown_analysis.py get_temporal_breakdown,
   _get_idle_time_for_kernels, utils.py merge_kernel_intervals):
   kernel_span = max(end) - min(ts) over the rank's kernels (all streams);
   idle = span - |union of all kernel intervals|; compute = |union of
   COMPUTATION kernels|; non_compute = span - compute - idle.

 Per step (cookgraph's own breakdown, docs/architecture.md#gpu-time "Per
   step"; HTA has no per-step breakdown). Step events: the rank's CPU rows
   named ProfilerStep#N (all of them, the last step and overlapping ones
   included; N = "step"). A kernel (of the filtered ones above) belongs to the
   step whose [ts, ts + dur) holds the ts of its launcher (the same launcher
   as for host wait below: the kept CPU row with its correlation, last in
   file order); when step events overlap, to the first of them in time order
   (ts, then the longer one, then file order) that holds it. A kernel whose
   launcher is in no step, or that has no launcher, is in no step; a kernel
   may run past its step's end. Per step: kernels = their count; kernel_span
   = max(end) - min(ts); busy = |union of their intervals|; idle = span -
   busy; compute = |union of their COMPUTATION kernels|; non_compute = busy -
   compute (= span - compute - idle, as per rank). One entry per step event
   that holds a kernel, in step order (N, then ts); --compare matches the
   entries by "step".

 Per stream (breakdown_analysis.py get_idle_time_breakdown /
   _analyze_idle_time_for_stream): kernels of the stream sorted by ts (ties:
   by end, then file order; HTA's sort is unstable); for each kernel after the
   first, gap = ts - end of the PREVIOUS kernel in that order (not the
   running maximum; a negative gap is summed as it is, as HTA does).
   host wait: the kernel's launcher started after the previous kernel ended
   (ts_runtime > prev_end); the launcher is the CPU row with the same
   correlation, whatever its name (transform_correlation_to_index in
   hta/common/trace.py; so cudaGraphLaunch, cudaMemcpyAsync... count too);
   kernel wait: not host wait and gap < 30 us (consecutive_kernel_delay = 30,
   hta/trace_analysis.py get_idle_time_breakdown; HTA's times are in trace
   units, microseconds, although that docstring says "nanoseconds");
   other: the rest. A kernel with no launcher is never host wait.
   (HTA maps such a kernel to index_correlation 0 and joins the ts of the
   trace's event number 0, when that event is a row; it then compares that
   unrelated time. We read that as "no launcher".)
   idle_ms = sum of all gaps; kernel_ms = sum of the stream's kernel
   durations (HTA sums durations per kernel name in get_gpu_kernel_breakdown;
   so that kernel_ms + idle_ms = last kernel's end - first kernel's start).

 Launches (hta/analyzers/cuda_kernel_analysis.py cuda_kernel_launch_stats,
   include_memory_events=True): launch calls are the rows named
   cudaLaunchKernel, cudaLaunchKernelExC,
   "runFunction - job_prep_and_submit_for_execution" (MTIA), cudaMemcpyAsync,
   cudaMemsetAsync (not cuLaunchKernel, not cudaGraphLaunch). Every (CPU row
   with that correlation, kernel with that correlation) pair is one launch.
   delay = max(kernel ts - (launch call ts + call dur), 0): from the call's
   end to the kernel's start, clipped at 0, as HTA's code computes it
   (ts_y - ts_x - dur_x, .clip(lower=0), at commit f4d0062) and its
   docstring says ("difference between gpu kernel starting and cpu op
   ending"). LAUNCH_DELAY_MODE "start" measures from the call's start
   instead (what cookgraph did before issue 35). count = number of pairs; mean; p50, p95
   with NumPy's default "linear" method (h = (n-1)q, x[floor h] + (h - floor
   h)(x[floor h + 1] - x[floor h])); max; cpu_ms = sum of the paired calls'
   durations; kernels_under_10us = paired kernels with dur < 10 us. Pooled
   over all ranks (HTA's default analyzes rank 0 only).

 Overlap (hta/analyzers/communication_analysis.py get_comm_comp_overlap):
   communication_ms = |union of COMMUNICATION kernels|, overlapped_ms =
   |that union intersected with the union of COMPUTATION kernels| (HTA's
   running status == 3); HTA reports the ratio overlapped/communication per
   rank over the whole (filtered) trace, not per iteration. Summed over ranks.

 Memory: "[memory]" instants (cat cpu_instant_event): device "cpu" for
   "Device Type" 0, "cuda:ID" for 1 (c10::DeviceType CPU = 0, CUDA = 1),
   "devtypeT:ID" otherwise; peak = max "Total Allocated" / "Total Reserved"
   over the whole trace, per (rank, device); MB = bytes / 2**20. Per step
   ("steps"): for each CPU ProfilerStep#N row of the rank (as in Per step
   above, overlapping ones included), the max "Total Allocated" / "Total
   Reserved" over that device's [memory] events whose ts lies in [step ts,
   step ts + dur); steps without such an event are left out; in step order
   (N, then ts); matched by "step" in --compare.

 Ranks: steps = N of the rank's ProfilerStep#N CPU rows, step_ms = their
   durations, both in step order (N, then ts). straggler = null for a
   one-rank job; otherwise a list aligned with step_ms whose entry is, when
   this rank has the LONGEST step N among the ranks that have step N (ties:
   lowest rank; at least two ranks), that step's duration minus the median
   (statistics.median) of step N over those ranks, in ms; else null.

Traces without GPU kernels (after filtering, in every rank): "gpu": null.
TensorFlow timelines have no Kineto categories; their GPU rows (pid
"/device:GPU:0/stream:all" duplicates the per-stream pids) are not counted.

--compare runs `COOKGRAPH score TRACE... --format json` and looks for these
keys in the object returned by cookgraph_section() (snapshots[0]); every number
must agree within 1e-6 relative (1e-9 absolute when the expected value is 0).
Exit 0: all agree; 1: any disagreement (one line each, JSON path and both
values) or cookgraph failed; 77: a trace does not exist.
--perturb adds max(1e-3, 1e-4 * |v|) ms (1 us at least) to the checker's own
gpu.ranks[0].idle_ms (else the first other number found) so the comparison
must fail.
"""

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from decimal import Decimal, ROUND_HALF_EVEN
from fractions import Fraction

# HTA hta/trace_analysis.py get_idle_time_breakdown: consecutive_kernel_delay: int = 30
# (trace units = microseconds; HTA renamed its columns "(us)" in 0.2.0).
CONSECUTIVE_KERNEL_DELAY_NS = 30 * 1000

# The brief's categories; HTA uses stream != -1 instead (see the docstring).
GPU_KERNEL_CATEGORIES = frozenset(
    ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"))

# HTA hta/analyzers/cuda_kernel_analysis.py cuda_kernel_launch_stats:
# cudaLaunchKernel, cudaLaunchKernelExC, the MTIA launch, and, with
# include_memory_events=True (the default), cudaMemcpyAsync, cudaMemsetAsync.
LAUNCH_CALL_NAMES = frozenset((
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "runFunction - job_prep_and_submit_for_execution",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
))

# "hta": max(kernel ts - (call ts + call dur), 0), HTA's code and docstring at
# f4d0062. "start": kernel ts - call ts (cookgraph before issue 35).
LAUNCH_DELAY_MODE = "hta"

SHORT_KERNEL_NS = 10 * 1000

# HTA hta/common/types.py ProfilerStepGroupingPattern (re.match: anchored at the start).
PROFILER_STEP_RE = re.compile(r"^ProfilerStep#(\d+)")

# HTA hta/common/trace_filter.py _filter_gpu_kernels_with_cuda_sync.
DEVICE_SYNC_NAMES = frozenset(("Event Sync", "Context Sync"))

RTOL = 1e-6
ATOL = 1e-9


class Fatal(Exception):
    """The inputs cannot be read (exit 2)."""


# --------------------------------------------------------------------------
# Reading


def to_ns(value):
    """Microseconds (int, Decimal, or numeric string) to integer nanoseconds, exactly.
    More than three decimals are rounded half to even (never seen in Kineto)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value * 1000
    if isinstance(value, float):  # not produced by our parser; kept for safety
        value = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            value = Decimal(value.strip())
        except Exception:
            return None
    if not isinstance(value, Decimal) or not value.is_finite():
        return None
    q = value * 1000
    return int(q.to_integral_value(rounding=ROUND_HALF_EVEN))


def as_int(value, default):
    """HTA's normalize_gpu_stream_numbers: int(value), or the default."""
    if value is None or isinstance(value, bool):
        return default
    try:
        if isinstance(value, Decimal):
            return int(value) if value == value.to_integral_value() else default
        return int(value)
    except (TypeError, ValueError):
        return default


def read_json(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        return json.loads(data.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, ValueError) as e:
        raise Fatal(f"{path}: not JSON: {e}")


class Row:
    __slots__ = ("idx", "cat", "name", "ts", "dur", "end", "args", "tid",
                 "stream", "corr", "hta_gpu")


class RankTrace:
    def __init__(self, path, rank, rows, memory_events):
        self.path = path
        self.rank = rank
        self.rows = rows              # HTA rows (see module docstring), file order
        self.memory_events = memory_events  # (ts ns or None, args), file order


def load_rank(path):
    doc = read_json(path)
    if isinstance(doc, list):
        events, meta = doc, {}
    elif isinstance(doc, dict):
        events, meta = doc.get("traceEvents") or [], doc
    else:
        raise Fatal(f"{path}: neither a trace object nor an event array")
    dist = meta.get("distributedInfo") if isinstance(meta, dict) else None
    rank = as_int(dist.get("rank"), 0) if isinstance(dist, dict) else 0

    rows, memory = [], []
    for idx, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        cat = e.get("cat")
        name = e.get("name")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if (e.get("ph") == "i" and name == "[memory]" and cat == "cpu_instant_event"):
            memory.append((to_ns(e.get("ts")), args))
            continue  # HTA keeps it as a row with dur 0; no GPU metric uses it
        # HTA hta/common/trace_parser.py _compress_df: dropna(subset=["dur", "cat"]),
        # drop cat == "Trace".
        if cat is None or e.get("dur") is None or cat == "Trace":
            continue
        # HTA ParserConfig.drop_gpu_user_annotation = True.
        if cat == "gpu_user_annotation":
            continue
        ts, dur = to_ns(e.get("ts")), to_ns(e.get("dur"))
        if ts is None or dur is None:
            continue
        r = Row()
        r.idx, r.cat, r.name = idx, str(cat), str(name) if name is not None else ""
        r.ts, r.dur, r.end, r.args = ts, dur, ts + dur, args
        r.tid = e.get("tid")
        r.stream = as_int(args.get("stream"), -1)
        r.corr = as_int(args.get("correlation"), -1)
        # HTA trace_filter.py _filter_gpu_kernels_with_cuda_sync.
        r.hta_gpu = (r.stream >= 0 and r.corr >= 0) or r.name in DEVICE_SYNC_NAMES
        rows.append(r)
    return RankTrace(path, rank, rows, memory)


def expand_inputs(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(f for f in os.listdir(p)
                           if f.endswith(".json") or f.endswith(".gz"))
            files.extend(os.path.join(p, f) for f in found)
        else:
            files.append(p)
    if not files:
        raise Fatal("no trace files found")
    return files


def load_job(paths):
    ranks = {}
    for f in expand_inputs(paths):
        rt = load_rank(f)
        if rt.rank in ranks:
            raise Fatal(f"rank {rt.rank} appears twice ({ranks[rt.rank].path}, {f})")
        ranks[rt.rank] = rt
    return [ranks[r] for r in sorted(ranks)]


# --------------------------------------------------------------------------
# Intervals


def union(intervals):
    """HTA utils.py merge_kernel_intervals: sort by ts, a new group starts when
    ts > the running maximum end (touching intervals merge)."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def length(merged):
    return sum(e - s for s, e in merged)


def intersection_length(a, b):
    """|A n B| for two merged (sorted, disjoint) interval lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


# --------------------------------------------------------------------------
# HTA definitions


def kernel_type(name):
    """HTA hta/utils/utils.py get_kernel_type (newest is_comm_kernel)."""
    if name.startswith("nccl") or "gloo:" in name:
        return "COMMUNICATION"
    if "Memcpy" in name or "Memset" in name:
        return "MEMORY"
    return "COMPUTATION"


def stream_of(row):
    s = row.args.get("stream")
    if s is None:
        s = row.tid
    if isinstance(s, Decimal):
        s = int(s) if s == s.to_integral_value() else str(s)
    return s


def stream_sort_key(s):
    """Integer streams first, in numeric order, then any others by text."""
    return (0, s, "") if isinstance(s, int) else (1, 0, str(s))


def is_step_row(row):
    return PROFILER_STEP_RE.match(row.name) is not None


def step_events(rt):
    """The rank's CPU ProfilerStep#N rows as (N, ts, end, idx), in time order:
    ts, then the longer one first, then file order (the order in which
    "the first step whose span holds it" is looked for)."""
    out = []
    for r in rt.rows:
        m = PROFILER_STEP_RE.match(r.name)
        if m and not r.hta_gpu:
            out.append((int(m.group(1)), r.ts, r.end, r.idx))
    out.sort(key=lambda s: (s[1], -s[2], s[3]))
    return out


def step_holding(steps, ts):
    """The first step (in the order of step_events) whose [ts, end) holds ts, or None."""
    if ts is None:
        return None
    for st in steps:
        if st[1] > ts:
            break  # sorted by ts: no later step can hold it
        if ts < st[2]:
            return st
    return None


def step_breakdown(rt, kernels, launcher_ts):
    """The per-step temporal breakdown (module docstring, "Per step")."""
    steps = step_events(rt)
    by_step = {}
    for k in kernels:
        st = step_holding(steps, launcher_ts.get(k.corr) if k.corr >= 0 else None)
        if st is not None:
            by_step.setdefault(st, []).append(k)
    out = []
    for st in sorted(by_step, key=lambda s: (s[0], s[1], s[3])):
        ks = by_step[st]
        span = max(k.end for k in ks) - min(k.ts for k in ks)
        busy = length(union((k.ts, k.end) for k in ks))
        compute = length(union((k.ts, k.end) for k in ks
                               if kernel_type(k.name) == "COMPUTATION"))
        out.append({
            "step": st[0],
            "kernels": len(ks),
            "kernel_span_ms": ms(span),
            "idle_ms": ms(span - busy),
            "compute_ms": ms(compute),
            "non_compute_ms": ms(busy - compute),
        })
    return out


def filtered_rank(rt, apply_filter, include_last_step):
    """HTA hta/common/trace.py Trace._filter_irrelevant_gpu_kernels
    (filter_gpu_kernels_with_cpu_correlation). Returns (cpu rows, kernels)."""
    cpu = [r for r in rt.rows if not r.hta_gpu]
    kernels = [r for r in rt.rows if r.cat in GPU_KERNEL_CATEGORIES]
    # "if cpu_kernels.empty: return trace_df" / fewer than two step names: no filter.
    if not apply_filter or not cpu:
        return cpu, kernels
    steps = [r for r in cpu if is_step_row(r)]
    if steps:
        last_start = max(r.ts for r in steps)
        last_end = max(r.end for r in steps)
    else:
        last_start = min(r.ts for r in cpu)
        last_end = max(r.end for r in cpu)
    if include_last_step:
        cpu = [r for r in cpu if r.ts <= last_end]
    else:
        cpu = [r for r in cpu if r.ts < last_start]
    corrs = {r.corr for r in cpu if r.corr >= 0}
    # gpu_kernels.merge(cpu_kernels["correlation"], on="correlation", how="inner");
    # GPUKernelFilter only holds correlation >= 0.
    kernels = [k for k in kernels if k.corr >= 0 and k.corr in corrs]
    return cpu, kernels


def stream_breakdown(stream, kernels, launcher_ts):
    """HTA breakdown_analysis.py _analyze_idle_time_for_stream."""
    ks = sorted(kernels, key=lambda k: (k.ts, k.end, k.idx))
    host = kwait = other = 0
    prev_end = None
    for k in ks:
        if prev_end is not None:
            gap = k.ts - prev_end  # idle_interval = ts - prev_end_ts
            rt = launcher_ts.get(k.corr) if k.corr >= 0 else None
            if rt is not None and rt > prev_end:  # is_host_wait
                host += gap
            elif gap < CONSECUTIVE_KERNEL_DELAY_NS:  # ~is_host_wait & < delay
                kwait += gap
            else:
                other += gap
        prev_end = k.end
    return {
        "stream": stream,
        "kernel_ms": sum(k.dur for k in ks),
        "idle_ms": host + kwait + other,
        "idle_host_wait_ms": host,
        "idle_kernel_wait_ms": kwait,
        "idle_other_ms": other,
    }


def percentile_linear(sorted_values, q):
    """NumPy's default percentile (method="linear"), exact (Fraction)."""
    n = len(sorted_values)
    h = Fraction(n - 1) * Fraction(q)
    lo = int(h)  # h >= 0
    if lo + 1 >= n:
        return Fraction(sorted_values[-1])
    return sorted_values[lo] + (h - lo) * (sorted_values[lo + 1] - sorted_values[lo])


def launch_delay(kernel, call):
    if LAUNCH_DELAY_MODE == "start":
        return kernel.ts - call.ts
    return max(kernel.ts - (call.ts + call.dur), 0)


def ms(ns):
    """Integer (or Fraction) nanoseconds to float milliseconds, rounded once."""
    return float(Fraction(ns) / 1_000_000)


def analyze(ranks, include_last_step=False):
    """The whole expected document for one job (list of RankTrace)."""
    step_names = {r.name for rt in ranks for r in rt.rows if is_step_row(r)}
    apply_filter = len(step_names) >= 2  # trace.py: len(profiler_step_ids) >= 2

    gpu_ranks = []
    any_kernel = False
    delays, cpu_ns, short = [], 0, 0
    comm_total = overlap_total = 0
    for rt in ranks:
        cpu, kernels = filtered_rank(rt, apply_filter, include_last_step)
        any_kernel = any_kernel or bool(kernels)

        # transform_correlation_to_index: the CPU row with the kernel's correlation
        # (the last one in file order wins, as df.loc assignment does).
        launcher_ts, calls_by_corr = {}, {}
        for r in cpu:
            if r.corr < 0:
                continue
            launcher_ts[r.corr] = r.ts
        launch_corrs = {r.corr for r in cpu if r.name in LAUNCH_CALL_NAMES and r.corr >= 0}
        for r in cpu:  # cuda_kernel_launch_stats: cpu side = stream == -1, corr in set
            if r.corr in launch_corrs and r.stream == -1:
                calls_by_corr.setdefault(r.corr, []).append(r)

        # get_temporal_breakdown / _get_idle_time_for_kernels.
        if kernels:
            span = max(k.end for k in kernels) - min(k.ts for k in kernels)
            all_union = union((k.ts, k.end) for k in kernels)
            idle = span - length(all_union)
            comp_union = union((k.ts, k.end) for k in kernels
                               if kernel_type(k.name) == "COMPUTATION")
            comm_union = union((k.ts, k.end) for k in kernels
                               if kernel_type(k.name) == "COMMUNICATION")
            compute = length(comp_union)
            non_compute = span - compute - idle
            # get_comm_comp_overlap: running status == 3.
            comm_total += length(comm_union)
            overlap_total += intersection_length(comm_union, comp_union)
        else:
            span = idle = compute = non_compute = 0

        by_stream = {}
        for k in kernels:
            by_stream.setdefault(stream_of(k), []).append(k)
        streams = [stream_breakdown(s, by_stream[s], launcher_ts)
                   for s in sorted(by_stream, key=stream_sort_key)]
        for s in streams:
            for key in ("kernel_ms", "idle_ms", "idle_host_wait_ms",
                        "idle_kernel_wait_ms", "idle_other_ms"):
                s[key] = ms(s[key])
        gpu_ranks.append({
            "rank": rt.rank,
            "kernel_span_ms": ms(span),
            "idle_ms": ms(idle),
            "compute_ms": ms(compute),
            "non_compute_ms": ms(non_compute),
            "steps": step_breakdown(rt, kernels, launcher_ts),
            "streams": streams,
        })

        # cuda_kernel_launch_stats: inner join of calls and kernels on correlation.
        for k in kernels:
            for call in calls_by_corr.get(k.corr, ()):
                delays.append(launch_delay(k, call))
                cpu_ns += call.dur
                if k.dur < SHORT_KERNEL_NS:
                    short += 1

    if any_kernel:
        delays.sort()
        if delays:
            delay = {
                "mean": ms(Fraction(sum(delays), len(delays))),
                "p50": ms(percentile_linear(delays, Fraction(1, 2))),
                "p95": ms(percentile_linear(delays, Fraction(95, 100))),
                "max": ms(delays[-1]),
            }
        else:
            delay = {"mean": None, "p50": None, "p95": None, "max": None}
        gpu = {
            "ranks": gpu_ranks,
            "launches": {"count": len(delays), "delay_ms": delay, "cpu_ms": ms(cpu_ns),
                         "kernels_under_10us": short},
            "overlap": {"communication_ms": ms(comm_total),
                        "overlapped_ms": ms(overlap_total)},
        }
    else:
        gpu = None

    return {"gpu": gpu, "memory": memory_section(ranks), "ranks": ranks_section(ranks)}


def device_name(dev_type, dev_id):
    # c10::DeviceType: CPU = 0, CUDA = 1.
    if dev_type == 0:
        return "cpu"
    if dev_type == 1:
        return f"cuda:{dev_id}"
    return f"devtype{dev_type}:{dev_id}"


def _raise_peak(p, alloc, res):
    if alloc is not None and (p[0] is None or alloc > p[0]):
        p[0] = alloc
    if res is not None and (p[1] is None or res > p[1]):
        p[1] = res


def _mb(b):
    return None if b is None else float(Fraction(b, 2 ** 20))


def memory_section(ranks):
    devices = []
    for rt in ranks:
        # Per step: every ProfilerStep#N row (overlapping ones too), in step order.
        steps = sorted(step_events(rt), key=lambda s: (s[0], s[1], s[3]))
        peaks, step_peaks = {}, {}
        for ts, a in rt.memory_events:
            t, i = as_int(a.get("Device Type"), None), as_int(a.get("Device Id"), -1)
            if t is None:
                continue
            alloc = as_int(a.get("Total Allocated"), None)
            res = as_int(a.get("Total Reserved"), None)
            _raise_peak(peaks.setdefault((t, i), [None, None]), alloc, res)
            if ts is None:
                continue
            for pos, (_, lo, hi, _) in enumerate(steps):
                if lo <= ts < hi:
                    _raise_peak(step_peaks.setdefault((t, i, pos), [None, None]), alloc, res)
        for (t, i) in sorted(peaks):
            a, r = peaks[(t, i)]
            per_step = []
            for pos, st in enumerate(steps):
                sp = step_peaks.get((t, i, pos))
                if sp is not None:
                    per_step.append({"step": st[0], "peak_allocated_mb": _mb(sp[0]),
                                     "peak_reserved_mb": _mb(sp[1])})
            devices.append({
                "rank": rt.rank,
                "device": device_name(t, i),
                "peak_allocated_mb": _mb(a),
                "peak_reserved_mb": _mb(r),
                "steps": per_step,
            })
    return {"devices": devices}


def ranks_section(ranks):
    per_rank = {}
    for rt in ranks:
        steps = []
        for r in rt.rows:
            m = PROFILER_STEP_RE.match(r.name)
            if m and not r.hta_gpu:
                steps.append((int(m.group(1)), r.ts, r.dur))
        steps.sort()
        per_rank[rt.rank] = steps

    straggle = {rk: [None] * len(st) for rk, st in per_rank.items()}
    if len(ranks) > 1:
        by_step = {}
        for rk, st in per_rank.items():
            for pos, (n, _, dur) in enumerate(st):
                by_step.setdefault(n, []).append((rk, pos, dur))
        for n, entries in by_step.items():
            if len(entries) < 2:
                continue
            med = statistics.median(Fraction(d) for _, _, d in entries)
            rk, pos, dur = max(entries, key=lambda x: (x[2], -x[0]))
            straggle[rk][pos] = ms(dur - med)

    out = []
    for rt in ranks:
        st = per_rank[rt.rank]
        out.append({
            "rank": rt.rank,
            "steps": [n for n, _, _ in st],
            "step_ms": [ms(d) for _, _, d in st],
            "straggler": straggle[rt.rank] if len(ranks) > 1 else None,
        })
    return out


def expected_for(paths, include_last_step=False):
    return analyze(load_job(paths), include_last_step)


def dump(doc):
    return json.dumps(doc, sort_keys=True, indent=1)


# --------------------------------------------------------------------------
# Comparison


def cookgraph_section(doc):
    """Where cookgraph's `score --format json` puts these keys. Change here only."""
    return doc["snapshots"][0]


def identity(item):
    if not isinstance(item, dict):
        return None
    if "stream" in item:
        return ("stream", item["stream"])
    if "step" in item:  # gpu.ranks[].steps[], memory.devices[].steps[]
        return ("step", item["step"])
    if "device" in item:
        return ("device", item.get("rank"), item["device"])
    if "rank" in item:
        return ("rank", item["rank"])
    return None


def numbers_agree(expected, got):
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    if expected == 0:
        return abs(got) <= ATOL
    return abs(expected - got) <= RTOL * max(abs(expected), abs(got))


def compare(expected, got, path, out):
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            out.append(f"{path}: expected an object, cookgraph {json.dumps(got)}")
            return
        for key in sorted(expected):
            sub = f"{path}.{key}" if path else key
            if key not in got:
                out.append(f"{sub}: expected {json.dumps(expected[key])}, cookgraph missing")
            else:
                compare(expected[key], got[key], sub, out)
    elif isinstance(expected, list):
        if not isinstance(got, list):
            out.append(f"{path}: expected a list, cookgraph {json.dumps(got)}")
            return
        ids = [identity(x) for x in expected]
        if expected and all(i is not None for i in ids):
            got_by_id = {}
            for x in got:
                got_by_id.setdefault(identity(x), x)
            for i, x in zip(ids, expected):
                label = f"{path}[{i[0]}={','.join(str(v) for v in i[1:])}]"
                if i not in got_by_id:
                    out.append(f"{label}: expected present, cookgraph missing")
                else:
                    compare(x, got_by_id[i], label, out)
            for x in got:
                if identity(x) not in set(ids):
                    out.append(f"{path}: cookgraph has an unexpected entry {json.dumps(identity(x))}")
        else:
            if len(expected) != len(got):
                out.append(f"{path}: expected {len(expected)} entries, cookgraph {len(got)}")
            for n, (x, y) in enumerate(zip(expected, got)):
                compare(x, y, f"{path}[{n}]", out)
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        if expected != got:
            out.append(f"{path}: expected {json.dumps(expected)}, cookgraph {json.dumps(got)}")
    elif isinstance(expected, (int, float)):
        if not numbers_agree(expected, got):
            out.append(f"{path}: expected {expected!r}, cookgraph {json.dumps(got)}")
    else:
        out.append(f"{path}: cannot compare {expected!r}")


def perturb(doc):
    """Changes one expected number so that a correct cookgraph must disagree:
    gpu.ranks[0].idle_ms, else the first number in sorted-key order. Returns its path."""
    def bump(v):
        if isinstance(v, int):
            return v + 1
        return v + max(1e-3, 1e-4 * abs(v))

    if doc.get("gpu") and doc["gpu"]["ranks"]:
        r0 = doc["gpu"]["ranks"][0]
        r0["idle_ms"] = bump(r0["idle_ms"])
        return "gpu.ranks[0].idle_ms"

    def walk(node, path):
        if isinstance(node, dict):
            for key in sorted(node):
                v = node[key]
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    node[key] = bump(v)
                    return f"{path}.{key}"
                found = walk(v, f"{path}.{key}")
                if found:
                    return found
        elif isinstance(node, list):
            for n, v in enumerate(node):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    node[n] = bump(v)
                    return f"{path}[{n}]"
                found = walk(v, f"{path}[{n}]")
                if found:
                    return found
        return None

    found = walk(doc, "")
    if found:
        return found.lstrip(".")
    doc["gpu"] = {"perturbed": 1.0}  # nothing numeric at all: force a difference
    return "gpu"


def run_compare(binary, traces, do_perturb, include_last_step=False):
    for t in traces:
        if not os.path.exists(t):
            print(f"{t}: does not exist")
            return 77
    try:
        expected = expected_for(traces, include_last_step)
    except Fatal as e:
        print(f"error: {e}")
        return 2
    if do_perturb:
        print(f"perturbed the checker's {perturb(expected)}")
    cmd = [binary, "score"] + list(traces) + ["--format", "json"]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        print(f"cannot run {binary}: {e}")
        return 1
    if proc.returncode != 0:
        print(f"{' '.join(cmd)} exited {proc.returncode}: "
              f"{proc.stderr.decode('utf-8', 'replace').strip()[:2000]}")
        return 1
    try:
        got = cookgraph_section(json.loads(proc.stdout.decode("utf-8")))
    except (ValueError, KeyError, IndexError, TypeError) as e:
        print(f"cookgraph output has no snapshots[0]: {e!r}")
        return 1
    out = []
    compare(expected, got, "", out)
    for line in out:
        print(line)
    if out:
        return 1
    print(f"checked {len(traces)} trace(s): ok")
    return 0


# --------------------------------------------------------------------------
# Self-test: hand-made traces whose numbers were worked out by hand.


def _ev(cat, name, ts, dur, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1,
            "ts": ts, "dur": dur, "args": args}


def _kernel(name, stream, ts, dur, corr, cat="kernel"):
    e = _ev(cat, name, ts, dur, stream=stream, correlation=corr, device=0)
    e["pid"], e["tid"] = 0, stream
    return e


def _mem(ts, dev_type, dev_id, alloc, reserved):
    return {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
            "pid": 1, "tid": 1, "ts": ts,
            "args": {"Device Type": dev_type, "Device Id": dev_id, "Bytes": 1,
                     "Total Allocated": alloc, "Total Reserved": reserved}}


SELF_TEST_ONE_RANK = {
    # One profiler step: nothing is filtered, kernel E keeps no launcher.
    "traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
        _ev("user_annotation", "ProfilerStep#1", 0, 1000),
        _ev("cuda_runtime", "cudaLaunchKernel", 10, 5, correlation=1),
        _ev("cuda_runtime", "cudaLaunchKernel", 16, 4, correlation=2),
        _ev("cuda_runtime", "cudaLaunchKernel", 30, 5, correlation=4),
        _ev("cuda_runtime", "cudaLaunchKernel", 40, 6, correlation=5),
        _ev("cuda_runtime", "cudaMemcpyAsync", 200, 10, correlation=3),
        _ev("cuda_runtime", "cudaLaunchKernel", 250, 3, correlation=6),
        _ev("cuda_runtime", "cudaStreamSynchronize", 480, 40, correlation=7),
        # stream 7
        _kernel("gemm_kernel", 7, 20, 100, 1),                              # A [20,120]
        _kernel("elementwise_kernel", 7, 130, 50, 2),                       # B [130,180] gap 10 kernel wait
        _kernel("Memcpy HtoD (Pinned -> Device)", 7, 215, 5, 3, "gpu_memcpy"),  # C gap 35 host wait
        _kernel("relu_kernel", 7, Decimal("300.000"), Decimal("20.5"), 4),  # D gap 80 other
        _kernel("old_kernel", 7, 330, 10, 99),                              # E no launcher, gap 9.5
        # stream 20: communication
        _kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 20, 100, 100, 5),
        _kernel("ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20, 400, 8, 6),
        # a cuda_sync row carries a stream but is not a kernel
        dict(_kernel("Stream Sync", 7, 500, 10, 7), cat="cuda_sync"),
        {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 10},
        _mem(5, 1, 0, 1048576, 2097152),
        _mem(6, 1, 0, 3145728, 4194304),
        _mem(7, 1, 0, 2097152, 4194304),
        _mem(8, 0, -1, 512, 0),
    ]
}

SELF_TEST_ONE_RANK_EXPECTED = {
    "gpu": {
        "ranks": [{
            "rank": 0, "kernel_span_ms": 0.388, "idle_ms": 0.1645,
            "compute_ms": 0.1805, "non_compute_ms": 0.043,
            # Step 1 = [0,1000): every launcher (ts 10..250) is in it; E (corr 99)
            # has no launcher, so it is in no step although it runs at [330,340].
            # Kernels A B C D and the two nccl ones: 6. span = 408 - 20 = 388;
            # union [20,200] (A, nccl 100-200, B) + C 5 + D 20.5 + nccl 8 = 213.5;
            # idle = 388 - 213.5 = 174.5; compute = A 100 + B 50 + D 20.5 = 170.5;
            # non_compute = 213.5 - 170.5 = 43.
            "steps": [{"step": 1, "kernels": 6, "kernel_span_ms": 0.388,
                       "idle_ms": 0.1745, "compute_ms": 0.1705,
                       "non_compute_ms": 0.043}],
            "streams": [
                {"stream": 7, "kernel_ms": 0.1855, "idle_ms": 0.1345,
                 "idle_host_wait_ms": 0.035, "idle_kernel_wait_ms": 0.0195,
                 "idle_other_ms": 0.08},
                {"stream": 20, "kernel_ms": 0.108, "idle_ms": 0.2,
                 "idle_host_wait_ms": 0.2, "idle_kernel_wait_ms": 0.0,
                 "idle_other_ms": 0.0},
            ]}],
        # delays from each call's end (us): A 20-15 = 5, B 130-20 = 110,
        # C 215-210 = 5, D 300-35 = 265, nccl 100-46 = 54, nccl 400-253 = 147;
        # sorted 5 5 54 110 147 265: p50 54 + 0.5 * 56 = 82, p95 (h = 4.75)
        # 147 + 0.75 * 118 = 235.5
        "launches": {"count": 6,
                     "delay_ms": {"mean": 0.586 / 6, "p50": 0.082, "p95": 0.2355,
                                  "max": 0.265},
                     "cpu_ms": 0.033, "kernels_under_10us": 2},
        "overlap": {"communication_ms": 0.108, "overlapped_ms": 0.07},
    },
    "memory": {"devices": [
        # every [memory] event (ts 5..8) lies in step 1 = [0,1000)
        {"rank": 0, "device": "cpu", "peak_allocated_mb": 512 / 2 ** 20,
         "peak_reserved_mb": 0.0,
         "steps": [{"step": 1, "peak_allocated_mb": 512 / 2 ** 20,
                    "peak_reserved_mb": 0.0}]},
        {"rank": 0, "device": "cuda:0", "peak_allocated_mb": 3.0,
         "peak_reserved_mb": 4.0,
         "steps": [{"step": 1, "peak_allocated_mb": 3.0, "peak_reserved_mb": 4.0}]},
    ]},
    "ranks": [{"rank": 0, "steps": [1], "step_ms": [1.0], "straggler": None}],
}

SELF_TEST_TWO_RANKS = [
    {"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [
        _ev("user_annotation", "ProfilerStep#1", 0, 100),
        _ev("user_annotation", "ProfilerStep#2", 100, 150),
        _ev("cuda_runtime", "cudaLaunchKernel", 10, 2, correlation=1),
        _ev("cuda_runtime", "cudaMemcpyAsync", 60, 4, correlation=3),
        _ev("cuda_runtime", "cudaLaunchKernel", 120, 2, correlation=2),  # last step
        _kernel("launched_before_profiling", 7, 0, 5, 50),                 # dropped
        _kernel("gemm", 7, 20, 30, 1),                                     # [20,50]
        _kernel("Memcpy DtoH (Device -> Pinned)", 7, 70, 6, 3, "gpu_memcpy"),  # host wait 20
        _kernel("gemm", 7, 130, 10, 2),                                    # dropped
    ]},
    {"distributedInfo": {"rank": 1, "world_size": 2}, "traceEvents": [
        _ev("user_annotation", "ProfilerStep#1", 0, 130),
        _ev("user_annotation", "ProfilerStep#2", 130, 100),
        _ev("cuda_runtime", "cudaLaunchKernel", 5, 3, correlation=1),
        _ev("cuda_runtime", "cudaLaunchKernel", 15, 3, correlation=2),
        _kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 13, 10, 40, 1),  # [10,50]
        _kernel("gemm", 7, 30, 40, 2),                                          # [30,70]
    ]},
]

SELF_TEST_TWO_RANKS_EXPECTED = {
    "gpu": {
        "ranks": [
            {"rank": 0, "kernel_span_ms": 0.056, "idle_ms": 0.02, "compute_ms": 0.03,
             "non_compute_ms": 0.006,
             # both kept kernels were launched in step 1 = [0,100) (ts 10, 60):
             # span 76 - 20 = 56, busy 30 + 6 = 36, idle 20, compute 30, non 6
             "steps": [{"step": 1, "kernels": 2, "kernel_span_ms": 0.056,
                        "idle_ms": 0.02, "compute_ms": 0.03, "non_compute_ms": 0.006}],
             "streams": [{"stream": 7, "kernel_ms": 0.036, "idle_ms": 0.02,
                          "idle_host_wait_ms": 0.02, "idle_kernel_wait_ms": 0.0,
                          "idle_other_ms": 0.0}]},
            {"rank": 1, "kernel_span_ms": 0.06, "idle_ms": 0.0, "compute_ms": 0.04,
             "non_compute_ms": 0.02,
             # launchers at 5 and 15, in step 1 = [0,130): span 70 - 10 = 60,
             # busy [10,70] = 60, idle 0, compute (gemm) 40, non 60 - 40 = 20
             "steps": [{"step": 1, "kernels": 2, "kernel_span_ms": 0.06,
                        "idle_ms": 0.0, "compute_ms": 0.04, "non_compute_ms": 0.02}],
             "streams": [{"stream": 7, "kernel_ms": 0.04, "idle_ms": 0.0,
                          "idle_host_wait_ms": 0.0, "idle_kernel_wait_ms": 0.0,
                          "idle_other_ms": 0.0},
                         {"stream": 13, "kernel_ms": 0.04, "idle_ms": 0.0,
                          "idle_host_wait_ms": 0.0, "idle_kernel_wait_ms": 0.0,
                          "idle_other_ms": 0.0}]},
        ],
        # delays from each call's end (us): rank 0 20-12 = 8, 70-64 = 6; rank 1
        # 10-8 = 2, 30-18 = 12; sorted 2 6 8 12: p50 7, p95 (h = 2.85) 8 + 0.85 * 4
        "launches": {"count": 4,
                     "delay_ms": {"mean": 0.007, "p50": 0.007, "p95": 0.0114, "max": 0.012},
                     "cpu_ms": 0.012, "kernels_under_10us": 1},
        "overlap": {"communication_ms": 0.04, "overlapped_ms": 0.02},
    },
    "memory": {"devices": []},
    "ranks": [
        {"rank": 0, "steps": [1, 2], "step_ms": [0.1, 0.15], "straggler": [None, 0.025]},
        {"rank": 1, "steps": [1, 2], "step_ms": [0.13, 0.1], "straggler": [0.015, None]},
    ],
}

# Per-step sections: steps 1 [1000,1100), 2 [1100,1200), 9 [1150,1180) (starts
# inside step 2: overlapping) and 3 [1200,1300). Four step names: the filter
# applies, last_start = 1200 (the largest step ts), so CPU rows from 1200 on
# and the kernels they launched (k8) are dropped.
SELF_TEST_STEPS = {"traceEvents": [
    _ev("user_annotation", "ProfilerStep#1", 1000, 100),
    _ev("user_annotation", "ProfilerStep#2", 1100, 100),
    _ev("user_annotation", "ProfilerStep#9", 1150, 30),
    _ev("user_annotation", "ProfilerStep#3", 1200, 100),
    _ev("cuda_runtime", "cudaLaunchKernel", 990, 2, correlation=6),    # before every step
    _ev("cuda_runtime", "cudaLaunchKernel", 1010, 2, correlation=1),   # step 1
    _ev("cuda_runtime", "cudaLaunchKernel", 1020, 2, correlation=7),   # superseded below
    _ev("cuda_runtime", "cudaLaunchKernel", 1030, 2, correlation=2),   # step 1
    _ev("cuda_runtime", "cudaMemcpyAsync", 1050, 2, correlation=3),    # step 1
    _ev("cuda_runtime", "cudaLaunchKernel", 1100, 2, correlation=4),   # = step 2's ts: step 2
    _ev("cuda_runtime", "cudaMemsetAsync", 1110, 2, correlation=7),    # last with corr 7: step 2
    _ev("cuda_runtime", "cudaLaunchKernel", 1160, 2, correlation=5),   # steps 2 and 9: step 2
    _ev("cuda_runtime", "cudaLaunchKernel", 1210, 2, correlation=8),   # last step: dropped
    _kernel("gemm", 7, 1005, 5, 6),                                    # k6: launcher in no step
    _kernel("gemm", 7, 1020, 40, 1),                                   # k1 [1020,1060]
    _kernel("ncclKernel_AllReduce", 20, 1040, 50, 2),                  # k2 [1040,1090]
    _kernel("Memcpy DtoD (Device -> Device)", 7, 1095, 35, 3, "gpu_memcpy"),  # k3 [1095,1130]
    _kernel("gemm", 7, 1140, 30, 4),                                   # k4 [1140,1170]
    _kernel("Memset (Device)", 8, 1120, 8, 7, "gpu_memset"),           # k7 [1120,1128]
    _kernel("relu", 8, 1165, 15, 5),                                   # k5 [1165,1180]
    _kernel("gemm", 7, 1220, 10, 8),                                   # k8: dropped
    _mem(990, 0, -1, 2048, 0),               # cpu, in no step
    _mem(1000, 1, 0, 1048576, 2097152),      # step 1 (its start is in)
    _mem(1050, 1, 0, 3145728, 2097152),      # step 1
    _mem(1100, 1, 0, 524288, 4194304),       # step 2 (step 1's end is out)
    _mem(1120, 0, -1, 1024, 0),              # cpu, step 2
    _mem(1170, 1, 0, 2097152, 4194304),      # steps 2 and 9
    _mem(1250, 1, 0, 6291456, 8388608),      # step 3 (memory keeps the last step)
    _mem(1300, 1, 0, 7340032, 8388608),      # step 3's end: in no step
]}

SELF_TEST_STEPS_EXPECTED = {
    # step 1: k1, k2, k3 (k3 runs past the step's end; k6 runs inside step 1 but
    #   its launcher at 990 is in no step). span = 1130 - 1020 = 110;
    #   union [1020,1090] 70 + [1095,1130] 35 = 105; idle = 110 - 105 = 5;
    #   compute = k1 40; non_compute = 105 - 40 = 65.
    # step 2: k4 (launcher at 1100), k7 (its last launcher, at 1110), k5 (1160,
    #   in steps 2 and 9: the first in time order, step 2). span = 1180 - 1120 =
    #   60; union [1120,1128] 8 + [1140,1180] 40 = 48; idle = 12; compute =
    #   k4, k5 = [1140,1180] 40; non_compute = 48 - 40 = 8 (the memset).
    # steps 9 and 3: no kernel, no entry.
    "gpu_steps": [
        {"step": 1, "kernels": 3, "kernel_span_ms": 0.11, "idle_ms": 0.005,
         "compute_ms": 0.04, "non_compute_ms": 0.065},
        {"step": 2, "kernels": 3, "kernel_span_ms": 0.06, "idle_ms": 0.012,
         "compute_ms": 0.04, "non_compute_ms": 0.008},
    ],
    # cpu: only 1120 is in a step (2): 1024 B; cuda:0: step 1 max(1, 3) MiB
    # allocated, 2 reserved; step 2 (1100, 1170) max(0.5, 2) = 2, 4; step 3 (1250)
    # 6, 8; step 9 (1170) 2, 4. In step order 1, 2, 3, 9.
    "memory_steps": {
        "cpu": [{"step": 2, "peak_allocated_mb": 1024 / 2 ** 20, "peak_reserved_mb": 0.0}],
        "cuda:0": [
            {"step": 1, "peak_allocated_mb": 3.0, "peak_reserved_mb": 2.0},
            {"step": 2, "peak_allocated_mb": 2.0, "peak_reserved_mb": 4.0},
            {"step": 3, "peak_allocated_mb": 6.0, "peak_reserved_mb": 8.0},
            {"step": 9, "peak_allocated_mb": 2.0, "peak_reserved_mb": 4.0},
        ],
    },
}

FAKE_COOKGRAPH = r'''#!{python}
import json, subprocess, sys
# stands in for cookgraph: `score TRACE... --format json` -> the checker's own output
args = [a for a in sys.argv[1:] if a not in ("score", "--format", "json")]
out = subprocess.run([sys.executable, {checker!r}] + args, stdout=subprocess.PIPE, check=True)
print(json.dumps({{"snapshots": [json.loads(out.stdout)]}}))
'''


def self_test():
    failures = []

    def check(label, got, expected):
        out = []
        compare(expected, got, label, out)
        # and the other way round, so that nothing extra is produced either
        compare(got, expected, label + "(reverse)", out)
        failures.extend(out)

    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.json")
        with open(one, "w") as f:  # Decimal values are written as JSON numbers
            f.write(json.dumps(SELF_TEST_ONE_RANK, default=float))
        check("one_rank", expected_for([one]), SELF_TEST_ONE_RANK_EXPECTED)

        # The same trace gzipped and as a bare array reads the same.
        gz = os.path.join(tmp, "one_array.json.gz")
        with gzip.open(gz, "wt") as f:
            f.write(json.dumps(SELF_TEST_ONE_RANK["traceEvents"], default=float))
        check("one_rank_gz_array", expected_for([gz]), SELF_TEST_ONE_RANK_EXPECTED)

        folder = os.path.join(tmp, "job")
        os.mkdir(folder)
        for n, doc in enumerate(SELF_TEST_TWO_RANKS):
            with gzip.open(os.path.join(folder, f"rank-{n}.json.gz"), "wt") as f:
                f.write(json.dumps(doc))
        check("two_ranks", expected_for([folder]), SELF_TEST_TWO_RANKS_EXPECTED)

        # the per-step sections on their own trace (only those are checked here)
        st = os.path.join(tmp, "steps.json")
        with open(st, "w") as f:
            f.write(json.dumps(SELF_TEST_STEPS))
        got = expected_for([st])
        got_steps = {
            "gpu_steps": got["gpu"]["ranks"][0]["steps"],
            "memory_steps": {d["device"]: d["steps"] for d in got["memory"]["devices"]},
        }
        check("steps", got_steps, SELF_TEST_STEPS_EXPECTED)
        # in step order, as written (compare matches by "step" and would not see it)
        if ([x["step"] for x in got_steps["memory_steps"].get("cuda:0", [])] != [1, 2, 3, 9]
                or [x["step"] for x in got_steps["gpu_steps"]] != [1, 2]):
            failures.append(f"steps: not in step order: {dump(got_steps)}")

        # --include-last-step keeps the rank-0 kernel launched in step 2 (not the
        # one without a launcher): stream 7 then has [20,50] [70,76] [130,140];
        # gap 54 with launcher at 120 > 76: host wait.
        inc = analyze(load_job([folder]), include_last_step=True)
        s7 = inc["gpu"]["ranks"][0]["streams"][0]
        if (inc["gpu"]["ranks"][0]["kernel_span_ms"] != 0.12
                or s7["idle_host_wait_ms"] != 0.074 or s7["kernel_ms"] != 0.046):
            failures.append(f"include_last_step: {dump(inc['gpu']['ranks'][0])}")

        # percentile helper against NumPy's documented results
        for values, q, want in (([1, 2, 3, 4], Fraction(1, 2), Fraction(5, 2)),
                                ([10], Fraction(95, 100), 10),
                                ([1, 3], Fraction(95, 100), Fraction(29, 10))):
            if percentile_linear(values, q) != want:
                failures.append(f"percentile {values} {q}")

        # exact ns reading
        for v, want in ((Decimal("1.5"), 1500), (Decimal("1669783687464300.123"),
                                                  1669783687464300123), (7, 7000)):
            if to_ns(v) != want:
                failures.append(f"to_ns({v}) = {to_ns(v)}")

        # --compare end to end, with a stand-in cookgraph that prints our own output
        fake = os.path.join(tmp, "fake_cookgraph")
        with open(fake, "w") as f:
            f.write(FAKE_COOKGRAPH.format(python=sys.executable,
                                          checker=os.path.abspath(__file__)))
        os.chmod(fake, 0o755)
        me = [sys.executable, os.path.abspath(__file__)]
        for args, want in (([one], 0), ([folder], 0), ([one, "--perturb"], 1),
                           ([folder, "--perturb"], 1),
                           ([os.path.join(tmp, "missing.json")], 77)):
            p = subprocess.run(me + ["--compare", fake] + args,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode != want:
                failures.append(f"--compare {args}: exit {p.returncode}, want {want}: "
                                f"{p.stdout.decode()[:500]}")
            elif want == 1 and b"idle_ms: expected" not in p.stdout:
                failures.append(f"--compare {args}: no idle_ms line: {p.stdout.decode()}")

        # perturbing a document without a GPU section still changes something
        doc = {"gpu": None, "memory": {"devices": []},
               "ranks": [{"rank": 0, "steps": [], "step_ms": [], "straggler": None}]}
        before = dump(doc)
        perturb(doc)
        if dump(doc) == before:
            failures.append("perturb changed nothing")

    for line in failures:
        print(line)
    if failures:
        print(f"self-test: {len(failures)} failure(s)")
        return 1
    print("self-test: ok")
    return 0


# --------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="*", help="trace files or folders (one job)")
    ap.add_argument("--compare", metavar="COOKGRAPH",
                    help="run COOKGRAPH score TRACE... --format json and compare")
    ap.add_argument("--perturb", action="store_true",
                    help="with --compare: change one expected number so it must fail")
    ap.add_argument("--include-last-step", action="store_true",
                    help="HTA's include_last_profiler_step=True")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args(argv)

    if a.self_test:
        return self_test()
    if not a.traces:
        ap.error("no trace given")
    if a.compare:
        return run_compare(a.compare, a.traces, a.perturb, a.include_last_step)
    if a.perturb:
        ap.error("--perturb needs --compare")
    for t in a.traces:
        if not os.path.exists(t):
            print(f"{t}: does not exist", file=sys.stderr)
            return 77
    try:
        print(dump(expected_for(a.traces, a.include_last_step)))
    except Fatal as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
