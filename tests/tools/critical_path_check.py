#!/usr/bin/env python3
"""An independent re-implementation of HTA's critical path analysis.

    critical_path_check.py TRACE [--annotation ProfilerStep] [--instance 0] --dump
    critical_path_check.py TRACE [--annotation A] [--instance I] --compare DUMP_BINARY [--perturb]
    critical_path_check.py --hta-tests [--fixtures DIR]
    critical_path_check.py TRACE [--annotation A] [--instance I] --summary

Meta's Holistic Trace Analysis (HTA, github.com/facebookresearch/HolisticTraceAnalysis)
builds a graph from a Kineto (PyTorch profiler) Chrome trace: one node at the
start and one at the end of every CPU operator, CUDA runtime call and GPU
kernel of an analysis window, edges for operator spans, nesting, kernel
launches, same-stream kernel order and CUDA synchronisation, and takes the
longest path of that DAG as the critical path.  This file redoes that with the
Python standard library only, reading the raw trace; it shares no code with
cookgraph.  Every rule cites the HTA file and function it follows.

The HTA revision followed is hta/analyzers/critical_path_analysis.py at commit
f4d0062 (events turned into nodes sorted by time, zero-weight edges into
blocking CUDA calls, the optional zero-weight launch edges, and since commit
009fc8175479, which this file followed before: the CUDA runtime lock, edges
between the calls that take it on any thread, with the call-stack edges
between two such calls left out; the backward (autograd) thread walked as the
forward thread; no kernel-kernel edge over a gap of 1,500 us or more).
--hta-tests checks the assertions HTA's tests/test_critical_path_analysis.py
made on the three fixtures here as of commits 040e7991 / 4f71f3ba (149 nodes
on the AlexNet path, the sync edges 33->41, 33->51, 24->84, 1109->1161); they
still hold under the rules of f4d0062.

Event identity: an event is its 0-based index in the file's traceEvents array;
HTA's default JSON parser (hta/common/trace_parser.py, _parse_trace_dataframe_json:
DataFrame(traceEvents).reset_index()) uses exactly that as its "index" column.
Times are read with Decimal and kept in integer nanoseconds (HTA keeps integer
microseconds; with --hta-us-rounding this file rounds the way HTA's parser does
for fractional traces: start = ceil(ts), end = floor(ts + dur), in microseconds,
then scales by 1000).

--dump prints, sorted, one per line:
    edge <kind> <from_event>:<b|e> <to_event>:<b|e> <weight_ns>
    path <position, 4 digits or more> <event> <name>
    length_ns <N>
kinds (HTA's CPEdgeType, all five of it): operator, dependency, launch_delay,
kernel_kernel_delay, sync_dependency.  The weight is the one the longest path
uses (negative weights clamped to 0, as CPGraph._validate_graph does).  Names
are written raw except that backslash, newline, carriage return and tab are
escaped as \\\\, \\n, \\r, \\t.

--compare runs `DUMP_BINARY TRACE --annotation A --instance I` (plus
--no-zero-weight-launch-edges / --hta-us-rounding when given here), sorts both
outputs and compares them: exit 0 equal, 1 different (the first 20 differing
lines are printed), 77 when TRACE is missing, 2 when this checker cannot
analyse the trace.  --perturb changes one weight of the expected output by 1 ns,
so a correct comparison must then fail (exit 1).

--hta-tests runs, against this file's graph, the assertions HTA's
tests/test_critical_path_analysis.py makes on the three fixtures copied from
HTA (tests/data/fixtures/traces/kineto_alexnet_sync.json.gz,
kineto_cuda_event_sync.json.gz, kineto_event_sync_multi_stream.json.gz), prints
each with PASS/FAIL and exits 0 only when all pass (77 when a fixture is
missing).

Zero-weight launch edges: HTA adds them only when the environment variable
CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 (hta/configs/env_options.py); its
tests set it, so this file adds them by default; --no-zero-weight-launch-edges
gives HTA's library default.

--kineto-2021-names is a DEPARTURE from HTA, for traces in Kineto's 2021
schema (categories Operator, Runtime, Kernel, Memcpy, Memset).  HTA's node
query compares the category with the symbols "cpu_op", "cuda_runtime" and
"cuda_driver" as written (trace_symbol_table.py, no mapping of older names
anywhere in its parser), so on such a trace no CPU event has nodes and HTA has
no result: the query holds `cat == None` ("cpu_op" is not a symbol), which
pandas 1.5's default query engine rejects with a TypeError; else the first
kernel whose launch-delay edge is due fails CPGraph._construct_graph_from_kernels'
`assert success` ("Could not find runtime index").  Without the option this
file follows HTA literally (no CPU nodes, those edges skipped with a warning).
With it, it reads the trace as cookgraph's reader does
(adapters/chrome/frames.cc FamilyOf): Operator as cpu_op and Runtime as
cuda_runtime, except that an Operator named ProfilerStep#N (the whole name) gets
no nodes, as cookgraph takes it for the step marker (today's Kineto writes it as
a user_annotation, which has none either).

Where HTA's result depends on pandas/numpy behaviour that is not specified
(ties in DataFrame.sort_values, whose default quicksort is not stable), this
file breaks ties by the trace order of the events; where HTA would crash
(a runtime call missing from the window, ...), this file skips the edge and
counts a warning (printed with --summary).
"""

import argparse
import functools
import gzip
import json
import os
import re
import subprocess
import sys
from decimal import Decimal, ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN

EXIT_OK = 0
EXIT_DIFF = 1
EXIT_ERROR = 2
EXIT_SKIP = 77

# hta/analyzers/critical_path_analysis.py, class CPEdgeType.
KIND_NAMES = {
    "OPERATOR_KERNEL": "operator",            # critical_path_operator
    "DEPENDENCY": "dependency",               # critical_path_dependency
    "KERNEL_LAUNCH_DELAY": "launch_delay",    # critical_path_kernel_launch_delay
    "KERNEL_KERNEL_DELAY": "kernel_kernel_delay",  # critical_path_kernel_kernel_delay
    "SYNC_DEPENDENCY": "sync_dependency",     # critical_path_sync_dependency
}
OPERATOR = "operator"
DEPENDENCY = "dependency"
LAUNCH = "launch_delay"
KK_DELAY = "kernel_kernel_delay"
SYNC = "sync_dependency"

# hta/analyzers/critical_path_analysis.py, CPGraph.BLOCKING_SYNC_CALLS: the edge
# into the end of one of these calls gets weight 0
# (CPGraph._construct_graph_from_call_stack, exit_func, zero_weight).
BLOCKING_SYNC_CALLS = frozenset([
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaEventQuery",
    "cudaEventSynchronize",
    "cudaMemcpy",
    "cudaMemcpyAsync",
])

# hta/common/trace_symbol_table.py, TraceSymbolTable.get_operator_or_cuda_runtime_query
# (…_mask in later revisions): the categories whose events become graph nodes
# on the CPU side.
OPERATOR_OR_RUNTIME_CATS = frozenset(["cpu_op", "cuda_runtime", "cuda_driver"])

# --kineto-2021-names (a DEPARTURE, see the module's docstring): Kineto's 2021
# names of the CPU categories, read as today's; a step marker among them
# (the whole name ProfilerStep#N, as cookgraph's reader matches it) gets no
# nodes.
KINETO_2021_CPU_CATS = {"Operator": "cpu_op", "Runtime": "cuda_runtime"}
STEP_MARKER_RE = re.compile(r"^ProfilerStep#\d+$")

# hta/common/trace_symbol_table.py, TraceSymbolTable.get_runtime_launch_events_mask
# (CUDA, ROCm, MTIA and XPU launch calls; "and index_correlation > 0" is added
# where it is used).
RUNTIME_LAUNCH_NAMES = frozenset([
    "cudaMemsetAsync", "cudaMemcpyAsync", "cudaLaunchKernel", "cudaLaunchKernelExC",
    "cuLaunchKernel", "cuLaunchKernelEx",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
    "hipMemcpyWithStream",
    "urEnqueueUSMFill", "urEnqueueUSMFill2D", "urEnqueueUSMMemcpy", "urEnqueueUSMMemcpy2D",
    "urEnqueueKernelLaunch", "urEnqueueKernelLaunchExp", "urEnqueueKernelLaunchCustomExp",
    "urEnqueueKernelLaunchWithArgsExp", "urEnqueueCooperativeKernelLaunchExp",
    "urEnqueueMemBufferFill", "urEnqueueMemBufferRead", "urEnqueueMemBufferWrite",
    "urEnqueueMemBufferCopy", "urUSMHostAlloc", "urUSMSharedAlloc", "urUSMDeviceAlloc",
])

# hta/analyzers/critical_path_analysis.py, CUDA_RUNTIME_EVENTS: the calls that
# take the CUDA runtime's lock (one of them makes progress at a time, whatever
# its thread).
CUDA_RUNTIME_LOCK_NAMES = frozenset(["cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"])

# hta/analyzers/critical_path_analysis.py, KERNEL_KERNEL_DELAY_THRESHOLD_US
# (1,500 us), in ns: a gap this long or longer between two kernels of a stream
# gets no kernel-kernel edge.
KERNEL_KERNEL_DELAY_THRESHOLD_NS = 1500 * 1000

# hta/common/trace_filter.py, _filter_gpu_kernels_with_cuda_sync: device-level
# sync events run "on the GPU" although their stream is -1.
EVENT_SYNC = "Event Sync"
CONTEXT_SYNC = "Context Sync"
STREAM_SYNC = "Stream Sync"
STREAM_WAIT_EVENT = "Stream Wait Event"
CUDA_SYNC_CAT = "cuda_sync"

# hta/configs/constants (ProfilerStepGroupingPattern) used by
# hta/common/trace.py, Trace._filter_irrelevant_gpu_kernels.
PROFILER_STEP_RE = re.compile(r"^ProfilerStep#(\d+)")

SYS_MAXSIZE = sys.maxsize


class Fatal(Exception):
    """The trace cannot be analysed (HTA would fail or return None)."""


# --------------------------------------------------------------------------
# Reading the trace (hta/common/trace_parser.py and hta/common/trace.py)


def _to_int(value, default):
    """An int arg, or the default (HTA's AttributeSpec default_value)."""
    if value is None:
        return default
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return default
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return default
    return default


def _key_value(value):
    """A sort key for pid/tid values that may mix ints and strings."""
    if isinstance(value, bool):
        return (0, int(value), "")
    if isinstance(value, (int, Decimal)):
        return (0, value, "")
    return (1, 0, str(value))


class Row(object):
    """One row of HTA's trace DataFrame (an event with "dur" and "cat")."""

    __slots__ = ("idx", "name", "cat", "pid", "tid", "ts", "dur", "end", "stream",
                 "correlation", "wait_on_stream", "wait_corr", "ic")

    def __init__(self, idx, name, cat, pid, tid, ts, dur, args):
        self.idx = idx
        self.name = name
        self.cat = cat
        self.pid = pid
        self.tid = tid
        self.ts = ts
        self.dur = dur
        self.end = ts + dur
        # hta/configs/event_args_formats/event_args_1.0.0.yaml: cuda::stream,
        # correlation::cpu_gpu, cuda_sync::stream, cuda_sync::event; all default -1.
        self.stream = _to_int(args.get("stream"), -1)
        self.correlation = _to_int(args.get("correlation"), -1)
        self.wait_on_stream = _to_int(args.get("wait_on_stream"), -1)
        self.wait_corr = _to_int(args.get("wait_on_cuda_event_record_corr_id"), -1)
        self.ic = -1  # index_correlation


def _is_gpu_or_sync(r):
    """hta/common/trace_filter.py, _filter_gpu_kernels_with_cuda_sync."""
    return (r.stream >= 0 and r.correlation >= 0) or r.name in (EVENT_SYNC, CONTEXT_SYNC)


class Trace(object):
    """The rows HTA keeps for one rank, in HTA's DataFrame order."""

    def __init__(self, path, hta_us_rounding=False):
        self.path = path
        self.warnings = []
        opener = gzip.open if _is_gzip(path) else open
        with opener(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"), parse_float=Decimal)
        if isinstance(doc, list):
            events = doc
        else:
            events = doc.get("traceEvents", [])
        self.events = events
        self.raw_count = len(events)
        any_fraction = hta_us_rounding and any(
            not isinstance(e.get("ts"), int) for e in events if isinstance(e, dict))
        rows = []
        self.nonintegral_ns = 0
        for idx, e in enumerate(events):
            if not isinstance(e, dict):
                continue
            # trace_parser.py, _compress_df: df.dropna(subset=["dur", "cat"]) and
            # df.drop(df[df["cat"] == "Trace"].index).
            dur = e.get("dur")
            cat = e.get("cat")
            if dur is None or cat is None or cat == "Trace":
                continue
            ts = e.get("ts")
            if ts is None:
                continue
            if any_fraction:
                # trace_parser.py, _parse_trace_dataframe_json: when the ts column is
                # float, end = ts + dur; ts = ceil(ts); end = floor(end); dur = end - ts
                # (done in float64 there, exactly here).
                start_us = Decimal(ts).to_integral_value(rounding=ROUND_CEILING)
                end_us = (Decimal(ts) + Decimal(dur)).to_integral_value(rounding=ROUND_FLOOR)
                ts_ns = int(start_us) * 1000
                dur_ns = int(end_us - start_us) * 1000
            else:
                ts_ns = self._ns(ts)
                dur_ns = self._ns(dur)
            args = e.get("args")
            if not isinstance(args, dict):
                args = {}
            rows.append(Row(idx, str(e.get("name", "")), str(cat), e.get("pid"), e.get("tid"),
                            ts_ns, dur_ns, args))
        self._index_correlation(rows)
        self.symbols = set()
        for r in rows:
            self.symbols.add(r.name)
            self.symbols.add(r.cat)
        rows = self._filter_irrelevant_gpu_kernels(rows)
        self.rows = rows
        self.by_idx = {}
        for r in rows:
            self.by_idx[r.idx] = r

    def _ns(self, value):
        d = Decimal(value) * 1000
        q = d.to_integral_value(rounding=ROUND_HALF_EVEN)
        if q != d:
            self.nonintegral_ns += 1
        return int(q)

    @staticmethod
    def _index_correlation(rows):
        """hta/common/trace.py, transform_correlation_to_index.

        index_correlation starts as min(correlation, 0); then every CPU-side
        event and every GPU-side event (kernel, memcpy, memset, cuda_sync) with
        the same correlation point at each other.  With several matches the last
        assignment wins: a CPU event points at the last matching GPU event in
        trace order, a GPU event at the last matching CPU event.
        """
        for r in rows:
            r.ic = min(r.correlation, 0)
        gpu_by_corr = {}
        for r in rows:
            if r.correlation != -1 and _is_gpu_or_sync(r):
                gpu_by_corr.setdefault(r.correlation, []).append(r)
        for r in rows:
            if r.correlation == -1 or _is_gpu_or_sync(r):
                continue
            for g in gpu_by_corr.get(r.correlation, ()):
                r.ic = g.idx
                g.ic = r.idx

    def _filter_irrelevant_gpu_kernels(self, rows):
        """hta/common/trace.py, Trace._filter_irrelevant_gpu_kernels (as called by
        load_traces with include_last_profiler_step=False, TraceAnalysis' default).

        Only when the trace holds two or more ProfilerStep#N names: keep the
        CPU-side events that start before the last ProfilerStep starts and the
        GPU-side events whose correlation one of those has; the DataFrame then
        holds the GPU-side events first, then the CPU-side ones.
        """
        steps = set(s for s in self.symbols if PROFILER_STEP_RE.search(s))
        if len(steps) < 2:
            return rows
        cpu = [r for r in rows if not _is_gpu_or_sync(r)]
        gpu = [r for r in rows if _is_gpu_or_sync(r)]
        step_rows = [r for r in cpu if r.name in steps]
        if step_rows:
            last_start = max(r.ts for r in step_rows)
        else:
            last_start = min(r.ts for r in cpu) if cpu else 0
        cpu = [r for r in cpu if r.ts < last_start]
        corrs = set(r.correlation for r in cpu)
        gpu = [r for r in gpu if r.correlation in corrs]
        self.filtered = True
        return gpu + cpu


def _is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


# --------------------------------------------------------------------------
# The analysis window (CriticalPathAnalysis.critical_path_analysis)


def select_window(trace, annotation, instance):
    """Returns (start_ns, end_ns) of the analysis window.

    hta/analyzers/critical_path_analysis.py, CriticalPathAnalysis.critical_path_analysis:
    annotation "" is the whole trace; otherwise the events whose name contains
    the annotation as a substring, in DataFrame order, and instances
    [first, last] of them (positional), from the smallest start to the
    largest end.  No name containing the annotation: HTA returns None.
    """
    rows = trace.rows
    if not rows:
        raise Fatal("the trace has no complete events")
    if annotation == "":
        return min(r.ts for r in rows), max(r.end for r in rows)
    if not any(annotation in s for s in trace.symbols):
        raise Fatal("could not find annotation %r in the trace" % annotation)
    first, last = instance
    ann = [r for r in rows if annotation in r.name]
    chosen = ann[first:last + 1]
    if not chosen:
        raise Fatal("annotation %r has no instance %d..%d (it has %d)"
                    % (annotation, first, last, len(ann)))
    return min(r.ts for r in chosen), max(r.end for r in chosen)


def clip(trace, start, end):
    """critical_path_analysis: the clipped DataFrame, in index order.

    a: events with stream == -1 that start inside [start, end] and last > 0.
    b: events with stream != -1 whose CPU-side correlated event (a stream -1
       event whose index_correlation is this event) starts inside the window
       and lasts > 0, and every "Stream Wait Event" whatever its time.
    """
    cpu_by_ic = {}
    for r in trace.rows:
        if r.stream == -1:
            cpu_by_ic.setdefault(r.ic, []).append(r)
    keep = []
    for r in trace.rows:
        if r.stream == -1:
            if start <= r.ts <= end and r.dur > 0:
                keep.append(r)
        else:
            ok = r.name == STREAM_WAIT_EVENT
            if not ok:
                for c in cpu_by_ic.get(r.idx, ()):
                    if start <= c.ts <= end and c.dur > 0:
                        ok = True
                        break
            if ok:
                keep.append(r)
    keep.sort(key=lambda r: r.idx)  # trace_df.loc[a.index.union(b.index)]
    return keep


# --------------------------------------------------------------------------
# Call stacks (hta/common/call_stack.py)

EVENT_START = 1
EVENT_END = -1


def compare_events(x, y):
    """hta/common/call_stack.py, compare_events, verbatim.

    x, y are (idx, time, dur, type).  When every event lasts > 0 (always so
    for the CPU threads of a clipped window) this is the total order
    (time, END before START, START: longer first then smaller index,
    END: shorter first then larger index).
    """
    xi, xt, xd, xty = x
    yi, yt, yd, yty = y
    if xi == yi:
        return -1 if xty == EVENT_START else 1
    result = xt - yt
    if result == 0:
        if xty == yty:
            if xty == EVENT_START:
                if xd == yd:
                    result = -1 if xi < yi else 1 if xi > yi else 0
                else:
                    result = 1 if xd < yd else -1
            else:
                if xd == yd:
                    result = 1 if xi < yi else -1 if xi > yi else 0
                else:
                    result = -1 if xd < yd else 1
        else:
            if xd > 0 and yd > 0:
                result = 1 if xty == EVENT_START else -1
            elif xd == 0 and yd == 0:
                result = xi - yi
            else:
                result = -1 if xty == EVENT_START else 1
    return result


class CallStack(object):
    """hta/common/call_stack.py, CallStackGraph for one CPU thread."""

    def __init__(self, rows):
        events = []
        for r in rows:
            dur = max(r.dur, 0)
            events.append((r.idx, r.ts, dur, EVENT_START))
            events.append((r.idx, r.ts + dur, dur, EVENT_END))
        events.sort(key=functools.cmp_to_key(compare_events))
        self.children = {-1: []}
        self.parent = {}
        stack = []
        for e in events:
            if e[3] == EVENT_START:
                parent = stack[-1][0] if stack else -1
                if e[0] not in self.parent:  # CallStackGraph._add_edge
                    self.children.setdefault(parent, []).append(e[0])
                    self.parent[e[0]] = parent
                    self.children.setdefault(e[0], [])
                stack.append(e)
            elif stack:
                stack.pop()  # pops the top, whichever event ends

    def dfs(self, enter, exit_):
        """CallStackGraph.dfs_traverse from the root (-1), children in order."""
        enter(-1, -1)
        todo = [(-1, 0)]
        while todo:
            node, i = todo.pop()
            kids = self.children.get(node, ())
            if i < len(kids):
                todo.append((node, i + 1))
                child = kids[i]
                enter(child, self.parent[child])
                todo.append((child, 0))
            else:
                exit_(node, self.parent.get(node, -1))


def call_stacks(clipped, remap=None):
    """hta/common/call_stack.py, CallGraph._construct_call_graph: one stack per
    (pid, tid), in sorted (pid, tid) order (pandas groupby); a group with any
    stream > 0 keeps only those rows (a GPU stream); CPU = every stream < 0
    (infer_device_type); only CPU stacks are used by the critical path.
    `remap` (CallGraph's remapped_tids, {old tid: new tid}) gives rows of a
    tid, in any pid, the other tid first."""
    groups = {}
    for r in clipped:
        tid = remap.get(r.tid, r.tid) if remap else r.tid
        groups.setdefault((r.pid, tid), []).append(r)
    out = []
    for key in sorted(groups, key=lambda k: (_key_value(k[0]), _key_value(k[1]))):
        if key[0] is None or key[1] is None:
            continue  # pandas groupby drops NaN keys
        rows = groups[key]
        if any(r.stream > 0 for r in rows):
            rows = [r for r in rows if r.stream > 0]
        streams = set(r.stream for r in rows)
        if streams and all(s < 0 for s in streams):
            out.append((key, CallStack(rows)))
    return out


# --------------------------------------------------------------------------
# The graph (hta/analyzers/critical_path_analysis.py, CPGraph)


class Graph(object):
    """A networkx.DiGraph as CPGraph uses it: nodes appear when an edge first
    names them (u before v); an edge added again keeps its place and takes the
    new weight and type; predecessor and successor lists keep edge order."""

    def __init__(self):
        self.nodes = {}     # node -> None, in insertion order
        self.succ = {}
        self.pred = {}
        self.edges = {}     # (u, v) -> [kind, weight, raw_weight]

    def add_edge(self, u, v, kind, weight):
        for n in (u, v):
            if n not in self.nodes:
                self.nodes[n] = None
                self.succ[n] = []
                self.pred[n] = []
        if (u, v) in self.edges:
            self.edges[(u, v)] = [kind, weight, weight]
            return
        self.edges[(u, v)] = [kind, weight, weight]
        self.succ[u].append(v)
        self.pred[v].append(u)


class Analysis(object):
    """CPGraph + CriticalPathAnalysis.critical_path_analysis for one trace."""

    def __init__(self, trace, annotation="ProfilerStep", instance=(0, 0),
                 zero_weight_launch_edges=True, kineto_2021_names=False):
        self.trace = trace
        self.zero_weight_launch_edges = zero_weight_launch_edges
        self.kineto_2021_names = kineto_2021_names
        self.warnings = list(trace.warnings)
        self.start, self.end = select_window(trace, annotation, instance)
        self.clipped = clip(trace, self.start, self.end)
        self.clipped_by_idx = dict((r.idx, r) for r in self.clipped)
        self.graph = Graph()
        self.attribution = {}
        self._create_event_nodes()
        self._construct_graph_from_cuda_runtime_events()
        self._construct_graph_from_call_stacks()
        self._construct_graph_from_kernels()
        self._validate_graph()
        self._critical_path()

    # CPGraph._create_event_nodes -------------------------------------------------
    def _create_event_nodes(self):
        """A start and an end node for every clipped event that is a CPU
        operator / CUDA runtime / driver call (by category) or a GPU-side event
        (stream != -1 and index_correlation >= 0).  A node is (event, 'b'|'e');
        its time is ts or ts + dur.  The categories are compared as written
        (HTA maps no older name); --kineto-2021-names departs from that."""
        self.node_ts = {}
        self.blocking = set()
        for r in self.clipped:
            cat = r.cat
            if self.kineto_2021_names and cat in KINETO_2021_CPU_CATS:
                cat = None if STEP_MARKER_RE.match(r.name) else KINETO_2021_CPU_CATS[cat]
            if cat in OPERATOR_OR_RUNTIME_CATS or (r.stream != -1 and r.ic >= 0):
                self.node_ts[(r.idx, "b")] = r.ts
                self.node_ts[(r.idx, "e")] = r.end
                if r.name in BLOCKING_SYNC_CALLS:
                    self.blocking.add(r.idx)

    def has_nodes(self, idx):
        return (idx, "b") in self.node_ts

    # CPGraph._is_cuda_runtime_event_node / _shares_cuda_runtime_lock ----------
    def _locks(self, node):
        return self.clipped_by_idx[node[0]].name in CUDA_RUNTIME_LOCK_NAMES

    def _shares_lock(self, first, second):
        """Both points are of lock-taking calls and are not (an end, then a start)."""
        return (self._locks(first) and self._locks(second)
                and (first[1] == "b" or second[1] == "e"))

    # CPGraph._construct_graph_from_cuda_runtime_events ---------------------------
    def _construct_graph_from_cuda_runtime_events(self):
        """Every node of a lock-taking call with nodes, sorted by (ts, event):
        a start is kept; at an end every kept start is popped (last first) and
        joined to it, by an operator edge when it is the same call's start,
        else by a dependency; then, when the node before was an end, that end
        -> this end (dependency)."""
        nodes = []
        for (idx, side), ts in self.node_ts.items():
            if self.clipped_by_idx[idx].name in CUDA_RUNTIME_LOCK_NAMES:
                nodes.append((ts, idx, side))
        nodes.sort()
        starts = []
        last = None
        for ts, idx, side in nodes:
            node = (idx, side)
            if side == "b":
                starts.append(node)
            else:
                while starts:
                    prev = starts.pop()
                    if prev[0] == idx:
                        self._add_edge(prev, node, OPERATOR)
                        self._attribute(prev, node, OPERATOR, idx)
                    else:
                        self._add_edge(prev, node, DEPENDENCY)
                if last is not None and last[1] == "e":
                    self._add_edge(last, node, DEPENDENCY)
            last = node

    def _thread_naming(self, word):
        """CPGraph._get_tid_for_event: the tid of the clipped cpu_op and
        user_annotation rows whose name holds `word`, when there is exactly one
        (a tid 0 counts as none, as HTA tests it for truth)."""
        tids = set()
        for r in self.clipped:
            cat = r.cat
            if self.kineto_2021_names and cat in KINETO_2021_CPU_CATS:
                cat = KINETO_2021_CPU_CATS[cat]
            if cat in ("cpu_op", "user_annotation") and word in r.name:
                tids.add(r.tid)
        if len(tids) != 1:
            return None
        tid = next(iter(tids))
        return tid if tid else None

    # CPGraph._add_edge_helper ----------------------------------------------------
    def _add_edge(self, u, v, kind, zero_weight=False):
        """Weight: 0 for dependency and sync edges and when zero_weight, else
        ts(v) - ts(u)."""
        if u == v:
            raise Fatal("edge from a node to itself: %r" % (u,))
        if kind in (DEPENDENCY, SYNC) or zero_weight:
            w = 0
        else:
            w = self.node_ts[v] - self.node_ts[u]
        self.graph.add_edge(u, v, kind, w)

    def _attribute(self, u, v, kind, src_parent):
        """CPGraph._attribute_edge (only used for the breakdown assertion)."""
        if kind not in (OPERATOR, KK_DELAY):
            return
        if kind == KK_DELAY:
            ev = u[0]
        elif u[1] == "b":
            ev = u[0]
        elif v[1] == "e":
            ev = v[0]
        else:
            ev = src_parent
        self.attribution[(u, v)] = ev

    # CPGraph._construct_graph_from_call_stacks / _construct_graph_from_call_stack
    def _construct_graph_from_call_stacks(self):
        """Per CPU thread, a depth-first walk of the call stack; events without
        nodes (user annotations, ...) are walked through but add nothing.

        enter(ev): if at depth 0 and a previous top-level op ended: dependency
          edge prev_top.end -> ev.begin (weight 0); depth += 1; if last_node:
          operator edge last_node -> ev.begin; last_node = ev.begin.
        exit(ev): depth -= 1; if last_node: operator edge last_node -> ev.end
          (weight 0 when ev is a blocking sync call); at depth 0: last_node =
          None, prev_top = ev.end; else last_node = ev.end.
        No edge joins two points that share the CUDA runtime lock
        (_shares_lock; the lock's own pass joins them).  When the window has
        one "forward" thread and another "autograd" thread (_thread_naming),
        the autograd thread's rows are walked with the forward thread's
        (CallGraph's remapped_tids).
        """
        fwd = self._thread_naming("forward")
        bwd = self._thread_naming("autograd")
        remap = {bwd: fwd} if fwd and bwd and fwd != bwd else None
        self.cpu_stacks = call_stacks(self.clipped, remap)
        for _key, cs in self.cpu_stacks:
            state = {"last": None, "top": None, "depth": 0, "parent": None}

            def enter(ev, parent, state=state):
                if ev < 0 or not self.has_nodes(ev):
                    return
                start = (ev, "b")
                if (state["depth"] == 0 and state["top"] is not None
                        and not self._shares_lock(state["top"], start)):
                    self._add_edge(state["top"], start, DEPENDENCY)
                state["depth"] += 1
                if state["last"] is not None and not self._shares_lock(state["last"], start):
                    self._add_edge(state["last"], start, OPERATOR)
                    self._attribute(state["last"], start, OPERATOR, state["parent"])
                state["last"] = start
                state["parent"] = parent

            def exit_(ev, parent, state=state):
                if ev < 0 or not self.has_nodes(ev):
                    return
                end = (ev, "e")
                state["depth"] -= 1
                if state["last"] is not None and not self._shares_lock(state["last"], end):
                    self._add_edge(state["last"], end, OPERATOR,
                                   zero_weight=ev in self.blocking)
                    self._attribute(state["last"], end, OPERATOR, state["parent"])
                if state["depth"] == 0:
                    state["last"] = None
                    state["top"] = end
                else:
                    state["last"] = end
                    state["parent"] = parent

            cs.dfs(enter, exit_)

    # TraceCounters._get_queue_length_time_series_for_rank --------------------------
    def _queue_lengths(self):
        """hta/analyzers/trace_counters.py: on the whole (unclipped) trace, every
        launch call (RUNTIME_LAUNCH_NAMES, index_correlation > 0) counts +1 and
        every GPU-side event (stream != -1) whose correlation a launch has
        counts -1, on the stream of the GPU event; sorted by ts (ties: launches
        before GPU events, then trace order), the running sum per stream is the
        queue length recorded at each of these events."""
        rows = self.trace.rows
        launches = [r for r in rows if r.name in RUNTIME_LAUNCH_NAMES and r.ic > 0]
        gpu = [r for r in rows if r.stream != -1]
        gpu_by_corr = {}
        for g in gpu:
            gpu_by_corr.setdefault(g.correlation, []).append(g)
        launch_corrs = set(r.correlation for r in launches)
        items = []
        order = 0
        for r in launches:
            for g in gpu_by_corr.get(r.correlation, ()):
                items.append((r.ts, order, r.idx, g.stream, 1))
                order += 1
        for g in gpu:
            if g.correlation in launch_corrs:
                items.append((g.ts, order, g.idx, g.stream, -1))
                order += 1
        items.sort()
        running = {}
        q = {}
        for _ts, _o, idx, stream, delta in items:
            running[stream] = running.get(stream, 0) + delta
            q[idx] = running[stream]
        return q

    # CPGraph._get_cuda_runtime_calls_df ------------------------------------------
    def _runtime_calls(self):
        """Launch calls (ts order, ties in trace order) whose index_correlation
        is a GPU event with stream != -1 and index_correlation > 0; each gets the
        kernel's stream and GPU (the kernel's pid) and a launch id 0, 1, ..."""
        rows = self.trace.rows
        by_idx = self.trace.by_idx
        launches = sorted((r for r in rows if r.name in RUNTIME_LAUNCH_NAMES and r.ic > 0),
                          key=lambda r: r.ts)
        out = []
        for r in launches:
            g = by_idx.get(r.ic)
            if g is None or not (g.stream != -1 and g.ic > 0):
                continue
            out.append({"row": r, "stream": g.stream, "gpu": g.pid, "launch_id": len(out)})
        return out

    # CPGraph._get_cuda_event_record_df --------------------------------------------
    def cuda_event_records(self):
        """For every cudaEventRecord that some sync event waits on (a row with
        wait_on_stream > -1 names its correlation in
        wait_on_cuda_event_record_corr_id, and gives the stream and the GPU (its
        pid) the event was recorded on), the last launch call to that GPU and
        stream at or before the record (any CPU thread; ts order, launches
        before records at equal ts).  Returns the records sorted by ts, each a
        dict with correlation, index_previous_launch (-1: none) and
        correlation_launch_event (None: none)."""
        if "cudaEventRecord" not in self.trace.symbols:
            return None
        rows = self.trace.rows
        runtime = self._runtime_calls()
        ev_stream = {}
        for r in rows:
            if r.wait_on_stream > -1:
                key = (r.wait_on_stream, r.pid)
                old = ev_stream.setdefault(r.wait_corr, key)
                if old != key:
                    # merge(..., validate="one_to_one") raises in HTA.
                    raise Fatal("cudaEventRecord correlation %d is waited on for two streams"
                                % r.wait_corr)
        records = sorted((r for r in rows if r.name == "cudaEventRecord"), key=lambda r: r.ts)
        records = [(r, ev_stream[r.correlation]) for r in records if r.correlation in ev_stream]
        groups = sorted(set((gpu, stream) for _r, (stream, gpu) in records),
                        key=lambda k: (_key_value(k[0]), _key_value(k[1])))
        out = []
        for gpu, stream in groups:
            comb = []
            for n, lc in enumerate(runtime):
                if lc["gpu"] == gpu and lc["stream"] == stream:
                    comb.append((lc["row"].ts, 0, n, lc))
            for n, (r, (s, g)) in enumerate(records):
                if g == gpu and s == stream:
                    comb.append((r.ts, 1, n, r))
            comb.sort(key=lambda t: (t[0], t[1], t[2]))
            prev = None
            for _ts, kind, _n, item in comb:
                if kind == 0:
                    prev = item
                else:
                    out.append({
                        "row": item,
                        "correlation": item.correlation,
                        "ts": item.ts,
                        "index_previous_launch": prev["row"].idx if prev else -1,
                        "correlation_launch_event": prev["row"].correlation if prev else None,
                    })
        out.sort(key=lambda d: d["ts"])
        return out

    # CPGraph._get_cuda_stream_wait_event_df ----------------------------------------
    def _stream_wait_events(self):
        """For every cudaStreamWaitEvent call (index_correlation > 0, its GPU-side
        "Stream Wait Event" on stream S), the next launch call from the same
        pid and tid to stream S (ts order; a launch at the same ts as the wait
        counts as before it).  Returns {wait call index: next launch index or
        -1}."""
        if "cudaStreamWaitEvent" not in self.trace.symbols or \
                STREAM_WAIT_EVENT not in self.trace.symbols:
            return None
        rows = self.trace.rows
        by_idx = self.trace.by_idx
        runtime = self._runtime_calls()
        waits = []
        for r in sorted((r for r in rows if r.name == "cudaStreamWaitEvent" and r.ic > 0),
                        key=lambda r: r.ts):
            g = by_idx.get(r.ic)
            if g is None or not (g.stream != -1 and g.ic > 0):
                continue
            waits.append((r, g.stream))
        out = {}
        for n, (w, stream) in enumerate(waits):
            nxt = -1
            best = None
            for lc in runtime:
                r = lc["row"]
                if r.pid == w.pid and r.tid == w.tid and lc["stream"] == stream and \
                        r.ts > w.ts:
                    if best is None or lc["launch_id"] < best["launch_id"]:
                        best = lc
            if best is not None:
                nxt = best["row"].idx
            out[w.idx] = nxt
        return out

    # CPGraph._construct_graph_from_kernels ----------------------------------------
    def _construct_graph_from_kernels(self):
        """GPU kernels, memcpys, memsets and CUDA sync events of the window in
        order of start time (sync events: of end time).  See the report for the
        rules; each is cited below."""
        q = self._queue_lengths()
        records = self.cuda_event_records()
        self.records = records
        waits = self._stream_wait_events()
        prev_launch_by_corr = {}
        if records is not None:
            for d in records:
                prev_launch_by_corr[d["correlation"]] = d["index_previous_launch"]
        full = self.trace.by_idx
        gpu_rows = [r for r in self.clipped
                    if (r.stream != -1 or r.name in (EVENT_SYNC, CONTEXT_SYNC)) and r.ic >= 0]
        # "Sort kernels by start timestamp but use end time_stamp for sync events."
        gpu_rows.sort(key=lambda r: (r.end if r.cat == CUDA_SYNC_CAT else r.ts, r.idx))

        last_node = {}     # stream -> end node of the last kernel seen on it
        kernel_sync = {}   # dest kernel -> src kernel (cudaStreamWaitEvent)

        def prev_launch(row):
            # merge on wait_on_cuda_event_record_corr_id, fillna(-1): only when a
            # cudaEventRecord table exists (_check_event_sync_helper).
            if records is None:
                return -1
            return prev_launch_by_corr.get(row.wait_corr, -1)

        def gpu_cpu_sync(gpu_node, runtime_idx):
            # CPGraph._add_gpu_cpu_sync_edge: GPU node -> end of the CPU call.
            if not self.has_nodes(runtime_idx):
                self.warnings.append("sync event's CPU call %d has no graph node; "
                                     "no edge (HTA fails here)" % runtime_idx)
                return
            self._add_edge(gpu_node, (runtime_idx, "e"), SYNC)

        for row in gpu_rows:
            if row.cat == CUDA_SYNC_CAT:
                # handle_cuda_sync
                name = row.name
                if name in (STREAM_WAIT_EVENT, EVENT_SYNC):
                    pl = prev_launch(row)
                    if pl == -1:
                        continue
                    launch = full.get(pl)
                    src_kernel = launch.ic if launch is not None else -1
                    if name == STREAM_WAIT_EVENT:
                        if waits is None or row.ic not in waits:
                            self.warnings.append("Stream Wait Event %d: no cudaStreamWaitEvent "
                                                 "entry (HTA fails here)" % row.idx)
                            continue
                        dest_launch = waits[row.ic]
                        if dest_launch < 0:
                            continue
                        dest_kernel = full[dest_launch].ic
                        kernel_sync[dest_kernel] = src_kernel
                    else:
                        if self.has_nodes(src_kernel):
                            gpu_cpu_sync((src_kernel, "e"), row.ic)
                    continue
                if name == STREAM_SYNC:
                    nodes = [last_node.get(row.stream)]
                elif name == CONTEXT_SYNC:
                    nodes = list(last_node.values())
                else:
                    self.warnings.append("unknown cuda_sync event %r at %d (HTA asserts)"
                                         % (name, row.idx))
                    continue
                for n in nodes:
                    if n is not None:
                        gpu_cpu_sync(n, row.ic)
                continue

            eid, stream = row.idx, row.stream
            start, end = (eid, "b"), (eid, "e")
            self._add_edge(start, end, OPERATOR)
            self._attribute(start, end, OPERATOR, -1)
            runtime_idx = row.ic
            ql_runtime = q.get(runtime_idx)
            ql = q.get(eid)
            ks = kernel_sync.get(eid)
            ks_end = None
            edge_added = False
            launch_added = False
            if ks is not None:
                if self.has_nodes(ks):
                    ks_end = (ks, "e")
                    self._add_edge(ks_end, start, SYNC)
                    edge_added = True
                else:
                    ks = None
                kernel_sync[eid] = None
            runtime_row = full.get(runtime_idx)
            runtime_ts = runtime_row.ts if runtime_row is not None else None
            prev = last_node.get(stream)
            if (ql_runtime == 1 and ql == 0 and runtime_ts is not None
                    and (prev is None or self.node_ts[prev] < runtime_ts)
                    and (ks is None or self.node_ts[ks_end] < runtime_ts)):
                # kernel launch delay: the stream was idle when the kernel was launched
                if self.has_nodes(runtime_idx):
                    self._add_edge((runtime_idx, "b"), start, LAUNCH)
                    edge_added = True
                    launch_added = True
                else:
                    self.warnings.append("launch call %d of kernel %d has no graph node; "
                                         "no launch edge (HTA's assert fails)" % (runtime_idx, eid))
            elif (prev is not None
                  and self.node_ts[start] - self.node_ts[prev] < KERNEL_KERNEL_DELAY_THRESHOLD_NS
                  and (ks is None or self.node_ts[ks_end] < self.node_ts[prev])):
                # kernel-kernel delay on the same stream, a gap under the threshold
                self._add_edge(prev, start, KK_DELAY)
                self._attribute(prev, start, KK_DELAY, -1)
                edge_added = True
            if not edge_added:
                self.warnings.append("no incoming edge for kernel %d on stream %s"
                                     % (eid, stream))
            if self.zero_weight_launch_edges and not launch_added:
                # CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE: runtime.begin -> kernel.begin, 0
                if self.has_nodes(runtime_idx):
                    self._add_edge((runtime_idx, "b"), start, LAUNCH, zero_weight=True)
            last_node[stream] = end

    # CPGraph._validate_graph -------------------------------------------------------
    def _validate_graph(self):
        """Negative weights become 0 (HTA's default, non-strict check); a sync
        edge between two events on the same stream (!= -1) fails the analysis;
        so does a cycle (found by the topological sort below)."""
        self.negative_edges = 0
        for (u, v), e in self.graph.edges.items():
            if e[1] < 0:
                self.negative_edges += 1
                e[1] = 0
            if e[0] == SYNC:
                su = self.clipped_by_idx[u[0]].stream
                sv = self.clipped_by_idx[v[0]].stream
                if su != -1 and su == sv:
                    raise Fatal("CUDA sync edge between events on the same stream: %r -> %r"
                                % (u, v))

    # CPGraph.critical_path: networkx.dag_longest_path(G, weight="weight") -------------
    def _critical_path(self):
        """networkx's topological_sort (topological_generations: Kahn's
        algorithm by generations; the first generation is every in-degree-0
        node in node order, each next generation the nodes whose in-degree
        drops to 0 while walking the previous one's successors in edge order),
        then dag_longest_path: dist[v] = max over predecessors u, in edge
        order, of dist[u] + w(u, v), the first maximum winning, (0, v) when
        none; the end is the first node in topological order with the largest
        dist; the path follows the chosen predecessors back."""
        g = self.graph
        indeg = dict((n, len(g.pred[n])) for n in g.nodes)
        gen = [n for n in g.nodes if indeg[n] == 0]
        order = []
        while gen:
            nxt = []
            for n in gen:
                for c in g.succ[n]:
                    indeg[c] -= 1
                    if indeg[c] == 0:
                        nxt.append(c)
            order.extend(gen)
            gen = nxt
        if len(order) != len(g.nodes):
            raise Fatal("the graph has a cycle")
        dist = {}
        for v in order:
            best = None
            for u in g.pred[v]:
                cand = dist[u][0] + g.edges[(u, v)][1]
                if best is None or cand > best[0]:
                    best = (cand, u)
            if best is None:
                best = (0, v)
            dist[v] = best if best[0] >= 0 else (0, v)
        self.path_nodes = []
        self.length = 0
        if not order:
            raise Fatal("the critical path graph is empty")
        v = order[0]
        for n in order:
            if dist[n][0] > dist[v][0]:
                v = n
        self.length = dist[v][0]
        path = []
        u = None
        while u != v:
            path.append(v)
            u = v
            v = dist[v][1]
        path.reverse()
        if len(path) < 2:
            raise Fatal("the critical path has fewer than 2 nodes")
        self.path_nodes = path
        self.path_events = []
        seen = set()
        for n in path:
            if n[0] not in seen:
                seen.add(n[0])
                self.path_events.append(n[0])

    # Output ---------------------------------------------------------------------------
    def dump_lines(self):
        lines = []
        for (u, v), e in self.graph.edges.items():
            lines.append("edge %s %d:%s %d:%s %d" % (e[0], u[0], u[1], v[0], v[1], e[1]))
        for pos, ev in enumerate(self.path_events):
            lines.append("path %04d %d %s" % (pos, ev, escape(self.trace.events[ev].get("name", ""))))
        lines.append("length_ns %d" % self.length)
        lines.sort()
        return lines

    def path_edges(self):
        return [(self.path_nodes[i], self.path_nodes[i + 1])
                for i in range(len(self.path_nodes) - 1)]

    def bound_by(self, u, v):
        """hta/analyzers/critical_path_analysis.py, bound_by (for the
        breakdown of get_critical_path_breakdown / summary)."""
        kind = self.graph.edges[(u, v)][0]
        if kind == KK_DELAY:
            return "gpu_kernel_kernel_overhead"
        if kind == LAUNCH:
            return "gpu_kernel_launch_overhead"
        if kind in (DEPENDENCY, SYNC):
            return ""
        ev = self.attribution.get((u, v))
        row = self.clipped_by_idx.get(ev) if ev is not None else None
        if row is None:
            return None  # HTA: assert not pd.isna(row["s_name"]) fails
        if row.stream < 0:
            return "cpu_bound"
        # hta/utils/utils.py, is_comm_kernel
        if "ncclKernel" in row.name or "ncclDevKernel" in row.name:
            return "gpu_communication_bound"
        return "gpu_compute_bound"

    def summary(self):
        kinds = {}
        for e in self.graph.edges.values():
            kinds[e[0]] = kinds.get(e[0], 0) + 1
        gpu_path = sum(1 for ev in self.path_events
                       if self.trace.by_idx[ev].stream != -1)
        return {
            "window_ns": (self.start, self.end),
            "clipped_events": len(self.clipped),
            "events_with_nodes": len(self.node_ts) // 2,
            "graph_nodes": len(self.graph.nodes),
            "edges": len(self.graph.edges),
            "edges_by_kind": kinds,
            "path_nodes": len(self.path_nodes),
            "path_events": len(self.path_events),
            "path_gpu_events": gpu_path,
            "length_ns": self.length,
            "negative_weights_clamped": self.negative_edges,
            "warnings": len(self.warnings),
        }


def _norm(line):
    """A line as it reads back after being written as UTF-8."""
    return line.encode("utf-8", "backslashreplace").decode("utf-8", "replace")


def escape(name):
    return (str(name).replace("\\", "\\\\").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\t", "\\t"))


def parse_instance(text):
    """"I" or "A:B" (HTA's instance_id int or (start, end) tuple, inclusive)."""
    if text is None or text == "" or text == "None":
        return (0, 0)
    if ":" in text:
        a, b = text.split(":", 1)
        return (int(a), int(b))
    i = int(text)
    return (i, i)


# --------------------------------------------------------------------------
# HTA's tests (tests/test_critical_path_analysis.py)

ALEXNET_ANNOTATION = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
FFT_C2R = ("void fft2d_c2r_32x32<float, false, false, 0u, false, false>(float*, float2 const*, "
           "int, int, int, int, int, int, int, int, int, float, float, cudnn::reduced_divisor, "
           "bool, float*, float*, int2, int, int)")


def _hta_tests(fixtures, zero_weight_launch_edges):
    results = []

    def check(label, ok, detail=""):
        results.append(bool(ok))
        print("%s  %s%s" % ("PASS" if ok else "FAIL", label, ("  (" + detail + ")") if detail else ""))

    def edge(a, u, v, kind, weight):
        e = a.graph.edges.get((u, v))
        label = "edge %d:%s -> %d:%s has type %s and weight %d" % (u[0], u[1], v[0], v[1], kind, weight)
        check(label, e is not None and e[0] == kind and e[1] == weight,
              "got %s" % (("%s %d" % (e[0], e[1])) if e else "no such edge"))

    def name(a, idx, expected):
        got = a.trace.events[idx].get("name") if idx < len(a.trace.events) else None
        check("event %d is named %r" % (idx, expected[:60] + ("..." if len(expected) > 60 else "")),
              got == expected, "" if got == expected else "got %r" % got)

    def run(fname, annotation, instance):
        path = os.path.join(fixtures, fname)
        trace = Trace(path)
        try:
            a = Analysis(trace, annotation, instance, zero_weight_launch_edges)
        except Fatal as err:
            check("%s: critical_path_analysis succeeds" % fname, False, str(err))
            return None
        check("%s: critical_path_analysis succeeds (annotation %r, instance %d)"
              % (fname, annotation, instance[0]), True)
        return a

    missing = [f for f in ("kineto_cuda_event_sync.json.gz",
                           "kineto_event_sync_multi_stream.json.gz",
                           "kineto_alexnet_sync.json.gz")
               if not os.path.exists(os.path.join(fixtures, f))]
    if missing:
        print("SKIP: missing fixtures %s in %s" % (", ".join(missing), fixtures))
        return EXIT_SKIP

    # test_critical_path_analysis_event_sync: "ProfilerStep", instance 0.
    print("== test_critical_path_analysis_event_sync (kineto_cuda_event_sync.json.gz)")
    a = run("kineto_cuda_event_sync.json.gz", "ProfilerStep", (0, 0))
    if a is not None:
        name(a, 33, "at::cuda::(anonymous namespace)::spin_kernel(long)")
        name(a, 41, "cudaEventSynchronize")
        name(a, 45, "cudaEventQuery")
        name(a, 51, "cudaDeviceSynchronize")
        # check_sync_edge(cuda_kernel_end, cuda_event_sync_end), (…, cuda_device_sync_end)
        edge(a, (33, "e"), (41, "e"), SYNC, 0)
        edge(a, (33, "e"), (51, "e"), SYNC, 0)
        # The newest test revision only asks for >0 sync edges, all of weight 0.
        syncs = [e for e in a.graph.edges.values() if e[0] == SYNC]
        check("the graph has sync edges, all of weight 0", syncs and all(e[1] == 0 for e in syncs),
              "%d sync edges" % len(syncs))
        check("every start/end node pair has end ts >= start ts",
              all(a.node_ts[(ev, "e")] >= a.node_ts[(ev, "b")]
                  for ev, s in a.node_ts if s == "b"))

    # test_critical_path_analysis_event_sync_multistream: annotation "", instance None.
    print("== test_critical_path_analysis_event_sync_multistream "
          "(kineto_event_sync_multi_stream.json.gz)")
    a = run("kineto_event_sync_multi_stream.json.gz", "", (0, 0))
    if a is not None:
        recs = a.records or []
        check("_get_cuda_event_record_df has 3 records", len(recs) == 3, "got %d" % len(recs))
        if len(recs) == 3:
            check("record 2 has correlation 1385", recs[2]["correlation"] == 1385,
                  "got %s" % recs[2]["correlation"])
            check("record 2's previous launch has correlation 27 (kernel 1 on stream 20, "
                  "not kernel 2)", recs[2]["correlation_launch_event"] == 27,
                  "got %s" % recs[2]["correlation_launch_event"])
        check("no record has index_previous_launch NaN (filled with -1)",
              all(isinstance(d["index_previous_launch"], int) for d in recs))
        name(a, 24, "ampere_sgemm_128x64_nn")
        name(a, 84, "Memset (Device)")
        edge(a, (24, "e"), (84, "b"), SYNC, 0)
        syncs = [e for e in a.graph.edges.values() if e[0] == SYNC]
        check("the graph has sync edges, all of weight 0", syncs and all(e[1] == 0 for e in syncs),
              "%d sync edges" % len(syncs))

    # test_critical_path_analysis (second half) + test_critical_path_breakdown(_and_save_restore)
    print("== test_critical_path_analysis / test_critical_path_breakdown "
          "(kineto_alexnet_sync.json.gz)")
    a = run("kineto_alexnet_sync.json.gz", ALEXNET_ANNOTATION, (1, 1))
    if a is not None:
        check("len(critical_path_nodes) == 149", len(a.path_nodes) == 149,
              "got %d" % len(a.path_nodes))
        name(a, 1109, FFT_C2R)
        # GPU->GPU sync edge between kernel on stream 20 -> stream 7 (corr 5606 -> 5629)
        edge(a, (1109, "e"), (1161, "b"), SYNC, 0)
        pe = a.path_edges()
        check("len(critical_path_edges_set) == len(critical_path_nodes) - 1",
              len(set(pe)) == len(a.path_nodes) - 1)
        cats = [a.bound_by(u, v) for u, v in pe]
        check("every critical path edge has a bound_by value (no NaN)",
              all(c is not None for c in cats))
        distinct = sorted(set(c for c in cats if c is not None))
        check("summary() has 5 rows (distinct bound_by values on the path)", len(distinct) == 5,
              "got %s" % distinct)
        syncs = [e for e in a.graph.edges.values() if e[0] == SYNC]
        check("the graph has sync edges, all of weight 0", syncs and all(e[1] == 0 for e in syncs),
              "%d sync edges" % len(syncs))

    npass = sum(results)
    nfail = len(results) - npass
    print("%d passed, %d failed" % (npass, nfail))
    return EXIT_OK if nfail == 0 else EXIT_DIFF


# --------------------------------------------------------------------------
# Command line


def _default_fixtures():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "data", "fixtures", "traces"))


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Independent re-implementation of HTA's critical path analysis.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("trace", nargs="?")
    p.add_argument("--annotation", default="ProfilerStep")
    p.add_argument("--instance", default="0")
    p.add_argument("--dump", action="store_true")
    p.add_argument("--summary", action="store_true")
    p.add_argument("--compare", metavar="DUMP_BINARY")
    p.add_argument("--perturb", action="store_true")
    p.add_argument("--hta-tests", action="store_true")
    p.add_argument("--fixtures", default=_default_fixtures())
    p.add_argument("--no-zero-weight-launch-edges", action="store_true")
    p.add_argument("--hta-us-rounding", action="store_true")
    p.add_argument("--kineto-2021-names", action="store_true",
                   help="DEPARTURE from HTA: read Kineto's 2021 categories as cookgraph does")
    args = p.parse_args(argv)

    zw = not args.no_zero_weight_launch_edges
    if args.hta_tests:
        return _hta_tests(args.fixtures, zw)
    if not args.trace:
        p.error("TRACE is required")
    if not os.path.exists(args.trace):
        print("SKIP: trace %s is missing" % args.trace)
        return EXIT_SKIP
    fatal = None
    try:
        instance = parse_instance(args.instance)
        trace = Trace(args.trace, args.hta_us_rounding)
        a = Analysis(trace, args.annotation, instance, zw, args.kineto_2021_names)
    except (Fatal, ValueError) as err:
        fatal = str(err)
        print("critical_path_check: %s: %s" % (args.trace, err), file=sys.stderr)
        if not args.compare:
            return EXIT_ERROR
        a = None
    expected = [_norm(l) for l in a.dump_lines()] if a is not None else []

    if args.summary and a is not None:
        s = a.summary()
        for k in sorted(s):
            print("%s: %s" % (k, s[k]))
        for w in a.warnings[:20]:
            print("warning: %s" % w)
    if args.dump:
        out = sys.stdout.buffer
        for line in expected:
            out.write(line.encode("utf-8", "backslashreplace") + b"\n")
        out.flush()
    if args.compare:
        if args.perturb:
            for i, line in enumerate(expected):
                if line.startswith("edge "):
                    head, w = line.rsplit(" ", 1)
                    expected[i] = "%s %d" % (head, int(w) + 1)
                    break
            expected.sort()
        cmd = [args.compare, args.trace, "--annotation", args.annotation,
               "--instance", args.instance]
        if args.no_zero_weight_launch_edges:
            cmd.append("--no-zero-weight-launch-edges")
        if args.hta_us_rounding:
            cmd.append("--hta-us-rounding")
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as err:
            print("cannot run %s: %s" % (args.compare, err))
            return EXIT_DIFF
        if fatal is not None:
            # HTA cannot analyse this trace (no such annotation or instance, an
            # empty graph, a cycle, ...): the binary must refuse it too.
            if proc.returncode != 0:
                print("critical path of %s: both refuse (%s)" % (args.trace, fatal))
                return EXIT_OK
            print("critical path of %s: expected a refusal (%s), %s exited 0"
                  % (args.trace, fatal, args.compare))
            return EXIT_DIFF
        if proc.returncode != 0:
            print("%s exited %d: %s" % (args.compare, proc.returncode,
                                        proc.stderr.decode("utf-8", "replace")[-2000:]))
            return EXIT_DIFF
        actual = sorted(l for l in proc.stdout.decode("utf-8", "replace").splitlines() if l)
        if actual == expected:
            print("critical path of %s: %d lines agree" % (args.trace, len(expected)))
            return EXIT_OK
        exp_set, act_set = set(expected), set(actual)
        diff = [("- " + l) for l in expected if l not in act_set]
        diff += [("+ " + l) for l in actual if l not in exp_set]
        diff.sort(key=lambda s: s[2:])
        if not diff:
            diff = ["(same lines, different multiplicities: %d expected, %d actual)"
                    % (len(expected), len(actual))]
        print("critical path of %s differs (- expected, + %s):" % (args.trace, args.compare))
        for l in diff[:20]:
            print(l)
        return EXIT_DIFF
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
