#!/usr/bin/env python3
"""Checks `cookgraph whatif` against an independent reading of the raw input.

    whatif_check.py --cookgraph BIN INPUT [--node ID=F ...] [--budget-ms MS]
                    [--perturb] [--offpath-zero]
                    [--expect-most-frames-saved ID] [--expect-largest-saving ID]
                    [--expect-off-path ID ...]
    whatif_check.py --cookgraph BIN --pair WITH WITHOUT --node ID=F ... [--budget-ms MS]
                    [--pair-tolerance 0.01]

Runs `cookgraph whatif INPUT --format json` (with the --node changes, or
without them for the per-node gains) and recomputes every number of it from
INPUT with the Python standard library, by the models of
docs/architecture.md#what-if-predicted-gains (metrics/whatif.h):

  serial frames (native snapshots, docs/formats.md#native-snapshot-format):
    frame k before = frames.frame_ms[k] when given, else the sum of the cook_ms
    of every node in frame k (docs/architecture.md#frame-time-and-the-frame-budget;
    every frame counts). After = before - sum over the changed nodes of
    (1 - f) x cook_ms[node][k] (no cook: 0). Nodes of family queue or mixer
    wait (docs/architecture.md#waiting-nodes) and gain nothing.
  streaming threads (GStreamer recordings, docs/formats.md#gstreamer): the
    recording is read by tests/tools/gst_check.py (imported: its Dump,
    read_log and cooks_of); buffer k of a streaming thread takes the sum of
    the k-th cooks in that thread of its working elements, each scaled by its
    factor; the frame is the slowest thread's; a buffer no thread worked on is
    not counted.
  step critical paths (Chrome / Kineto traces, docs/formats.md#chrome-traces):
    per step (ProfilerStep#N marker; the whole trace without markers) and
    rank, HTA's event graph as tests/tools/critical_path_check.py builds it
    (imported; HTA's library default: no zero-weight launch edges). Each
    `operator` edge belongs to one event: an edge into an event's end to that
    event (a kernel's span to the kernel), an edge into an event's start to
    the nearest enclosing event of the call stack that has graph points.
    Scaling a node by f multiplies the weights of the operator edges of its
    events (the event's node: its name, "name [family]" where a name is taken
    by another family first, as tests/tools/chrome_trace_check.py reads
    node ids). L = the longest path, L' = the longest path with the weights
    scaled; the step after = the marker's span - (L - L'); a job's step is
    the slowest rank's. A step no rank has a graph for (the last of two or
    more steps, which HTA leaves out) is out of the prediction, before and
    after alike.

Budget: --budget-ms, else frame_budget_ms, else 1000 / fps, else 16.667 ms;
pytorch, tensorflow and onnxruntime steps have none unless given (then no
frame is over budget). A GStreamer recording's budget is gst_check's.
Means are plain means and p95 NumPy's linear percentile, over the counted
frames. Numbers agree when |a - b| <= 1e-6 x max(|a|, |b|) + 1e-9 (ms).

What is compared: model, frames, budget_ms, before (mean, p95, over-budget
frames), changes, after, series (with --node) and nodes: every working node
that cooked, at each factor the output lists (with --node: each change
alone), with saved_ms, saved_p95_ms and frames_saved, sorted by saved_ms,
then frames_saved, then saved_p95_ms, largest first.

--perturb alters the model input before the independent computation (one
cook of a snapshot or a recording +1 ms; one operator edge on a step's
critical path +1 ms); a correct check then reports a MISMATCH.
--offpath-zero (traces): every node without an operator edge of positive
weight on any step's critical path must show saved_ms, saved_p95_ms and
frames_saved of exactly 0.
--expect-off-path ID (traces; implies --offpath-zero): ID has no time on any
step's critical path, and cookgraph lists it with gains of exactly 0.
--expect-most-frames-saved ID: at factor 0, ID saves the most over-budget
frames (strictly), all of them. --expect-largest-saving ID: at every factor
listed, ID has the largest saved_ms (strictly).
--pair WITH WITHOUT: checks WITH as above with the --node changes, then the
predicted after mean against the measured mean of WITHOUT (read here, and by
cookgraph), within --pair-tolerance (relative, default 1%).

Exit 0 when everything agrees; 1 on any mismatch (lines start with
"whatif_check: MISMATCH"); 2 when cookgraph fails or the input cannot be read;
77 when INPUT is missing.
"""

import argparse
import gzip
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import critical_path_check as cpc  # noqa: E402  (HTA's graph, independent of cookgraph)
import chrome_trace_check as ctc  # noqa: E402  (the trace reading: families, slices)

REL = 1e-6
ABS = 1e-9
DEFAULT_BUDGET_MS = 16.667
STEP_ENGINES = ("pytorch", "tensorflow", "onnxruntime")
WAITING = ("queue", "mixer")
MODEL_SERIAL = "serial frames"
MODEL_STREAMING = "streaming threads"
MODEL_STEPS = "step critical paths"
EXIT_OK, EXIT_MISMATCH, EXIT_ERROR, EXIT_SKIP = 0, 1, 2, 77


class Error(Exception):
    pass


def percentile(values, p):
    """NumPy's default (linear) percentile (docs/architecture.md#node-statistics)."""
    v = sorted(values)
    h = (len(v) - 1) * p / 100.0
    lo = int(math.floor(h))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def summarise(series, budget):
    """(mean, p95, over budget) over the counted frames (None = not counted)."""
    vals = [v for v in series if v is not None]
    if not vals:
        return dict(mean=0.0, p95=0.0, over=0)  # no counted frame: 0, as metrics/whatif.h
    over = sum(1 for v in vals if v > budget) if budget is not None else 0
    return dict(mean=sum(vals) / len(vals), p95=percentile(vals, 95), over=over)


def budget_of(engine, frame_budget_ms, fps, given):
    """docs/architecture.md#frame-time-and-the-frame-budget and #steps-are-not-frames."""
    if given is not None:
        return given
    ok = lambda v: isinstance(v, (int, float)) and math.isfinite(v) and v > 0  # noqa: E731
    if engine in STEP_ENGINES and not ok(frame_budget_ms) and not ok(fps):
        return None
    if ok(frame_budget_ms):
        return float(frame_budget_ms)
    if ok(fps):
        return 1000.0 / fps
    return DEFAULT_BUDGET_MS


def is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def read_json(path):
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


# --------------------------------------------------------------------------
# The models. Each has: model, engine, budget, frames (count), counted working
# node ids, and frame_times(changes: {id: f}) -> per frame ms or None.


class Serial(object):
    """Native snapshots (docs/formats.md#native-snapshot-format)."""

    model = MODEL_SERIAL

    def __init__(self, doc, given_budget):
        self.engine = doc.get("engine", "")
        self.budget = budget_of(self.engine, doc.get("frame_budget_ms"), doc.get("fps"),
                                given_budget)
        frames = doc.get("frames") or {}
        self.n = len(frames.get("index") or [])
        self.frame_ms = frames.get("frame_ms")
        self.family = dict((nd["id"], nd.get("family", "")) for nd in doc["nodes"])
        self.cook = {}
        for nid, metrics in (frames.get("series") or {}).items():
            if "cook_ms" in metrics:
                self.cook[nid] = list(metrics["cook_ms"])
        self.working = [nid for nid in self.family
                        if self.family[nid] not in WAITING
                        and any(v is not None for v in self.cook.get(nid, []))]

    def perturb(self):
        # One cook of the costliest working node, in its first frame with one.
        nid = max(self.working, key=lambda i: sum(v for v in self.cook[i] if v is not None))
        k = next(k for k, v in enumerate(self.cook[nid]) if v is not None)
        self.cook[nid][k] += 1.0
        return "cook_ms of %s in frame %d + 1 ms" % (nid, k)

    def before(self):
        out = []
        for k in range(self.n):
            m = self.frame_ms[k] if self.frame_ms is not None and k < len(self.frame_ms) else None
            if m is None:
                m = sum(c[k] for c in self.cook.values() if k < len(c) and c[k] is not None)
            out.append(float(m))
        return out

    def frame_times(self, changes):
        out = self.before()
        for nid, f in changes.items():
            if self.family.get(nid) in WAITING or nid not in self.cook:
                continue
            c = self.cook[nid]
            for k in range(self.n):
                if k < len(c) and c[k] is not None:
                    out[k] -= (1.0 - f) * c[k]
        return out


class Streaming(object):
    """GStreamer recordings, read by tests/tools/gst_check.py."""

    model = MODEL_STREAMING

    def __init__(self, directory, given_budget):
        import gst_check as gc
        self.engine = "gstreamer"
        exp = gc.expected(directory)
        self.budget = given_budget if given_budget is not None else exp["budget"]
        self.waiting = set(exp["waiting"])
        self.family = dict((nid, n["family"]) for nid, n in exp["nodes"].items())
        dump = gc.Dump(gc.pick_dump(directory))
        log = gc.read_log(os.path.join(directory, "trace.log"))
        by_pointer = dict((c["pointer"], cid) for cid, c in dump.clusters.items())
        cooks = {}
        clocks = gc.clocks_of(log)
        for pointer, e in log["elements"].items():
            nid = dump.ids[by_pointer[pointer]]
            cooks[nid] = gc.scored_cooks(e["records"], clocks, nid not in self.waiting)
        self.n = max([len(c) for c in cooks.values()] or [0])
        # Per streaming thread: working element -> its cooks in that thread (ms or None).
        self.threads = []
        for thread in log["threads"]:
            if thread not in exp["frame_threads"]:  # another rate: not in the frame time
                continue
            mine = {}
            for nid, cs in cooks.items():
                if nid in self.waiting:
                    continue
                here = [c[0] for c in cs if c[1] == thread]
                if here:
                    mine[nid] = here
            self.threads.append(mine)
        self.working = [nid for nid, cs in cooks.items()
                        if nid not in self.waiting and any(c[0] is not None for c in cs)]
        self._check_against = exp["frame_ms"]

    def perturb(self):
        # One cook of the slowest thread's busiest element in the first frame.
        for k in range(self.n):
            best = None
            for t in self.threads:
                here = [(nid, cs[k]) for nid, cs in t.items() if k < len(cs) and cs[k] is not None]
                if here:
                    total = sum(v for _n, v in here)
                    if best is None or total > best[0]:
                        best = (total, t, max(here, key=lambda h: h[1])[0])
            if best is not None:
                best[1][best[2]][k] += 1.0
                return "cook %d of %s (the slowest thread's) + 1 ms" % (k, best[2])
        raise Error("nothing to perturb")

    def frame_times(self, changes):
        out = []
        for k in range(self.n):
            values = []
            for t in self.threads:
                here = [(nid, cs[k]) for nid, cs in t.items() if k < len(cs) and cs[k] is not None]
                if here:
                    values.append(sum(v * changes.get(nid, 1.0) for nid, v in here))
            out.append(max(values) if values else None)
        return out

    def before(self):
        return self.frame_times({})


class StepGraph(cpc.Analysis):
    """critical_path_check.Analysis over the window [start, end] (a step marker's
    span) instead of an annotation's instance."""

    def __init__(self, trace, start, end, zero_weight_launch_edges):  # noqa: super not called
        self.trace = trace
        self.zero_weight_launch_edges = zero_weight_launch_edges
        # Kineto's 2021 names read as today's, as cookgraph reads them
        # (docs/architecture.md#event-critical-path, its stated departure).
        self.kineto_2021_names = True
        self.warnings = list(trace.warnings)
        self.start, self.end = start, end
        self.clipped = cpc.clip(trace, start, end)
        self.clipped_by_idx = dict((r.idx, r) for r in self.clipped)
        self.graph = cpc.Graph()
        self.attribution = {}
        self._create_event_nodes()
        self._construct_graph_from_cuda_runtime_events()
        self._construct_graph_from_call_stacks()
        self._construct_graph_from_kernels()
        self._validate_graph()
        self._critical_path()


class Step(object):
    """One (step, rank): the graph in arrays, the owner node of each operator edge."""

    def __init__(self, graph, node_of):
        g = graph.graph
        index = dict((n, i) for i, n in enumerate(g.nodes))
        self.count = len(index)
        # Parents in the call stacks, for the owner of an edge into an event's start.
        parent = {}
        for _key, cs in graph.cpu_stacks:
            parent.update(cs.parent)

        def enclosing(ev):
            p = parent.get(ev, -1)
            while p >= 0 and not graph.has_nodes(p):
                p = parent.get(p, -1)
            return p

        self.preds = [[] for _ in range(self.count)]  # v -> [(u, weight, owner node id or None)]
        self.owned = {}  # node id -> [(u, v, weight)]
        for (u, v), e in g.edges.items():
            owner = None
            if e[0] == cpc.OPERATOR:
                ev = v[0] if v[1] == "e" else enclosing(v[0])
                owner = node_of.get(ev) if ev >= 0 else None
            w = e[1]
            self.preds[index[v]].append([index[u], w, owner])
            if owner is not None:
                self.owned.setdefault(owner, []).append((u, v, w))
        # Topological order (the graph is a DAG: critical_path_check checked it).
        indeg = [len(p) for p in self.preds]
        succ = [[] for _ in range(self.count)]
        for v, ps in enumerate(self.preds):
            for u, _w, _o in ps:
                succ[u].append(v)
        order = [i for i in range(self.count) if indeg[i] == 0]
        for i in order:
            for c in succ[i]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    order.append(c)
        self.order = order
        self.length = self.longest({})
        if self.length != graph.length:
            raise Error("longest path %d ns here, %d in critical_path_check" % (self.length,
                                                                              graph.length))
        path = graph.path_nodes
        on_path = set((path[i], path[i + 1]) for i in range(len(path) - 1))
        # Nodes with time on this step's critical path (the one HTA reports).
        self.path_edges = set((index[u], index[v]) for u, v in on_path)
        self.on_path = set()
        for nid, edges in self.owned.items():
            if any(w > 0 and (u, v) in on_path for u, v, w in edges):
                self.on_path.add(nid)

    def longest(self, changes):
        dist = [0] * self.count
        best = 0
        for v in self.order:
            d = 0
            for u, w, owner in self.preds[v]:
                if owner is not None and owner in changes:
                    w = w * changes[owner]
                c = dist[u] + w
                if c > d:
                    d = c
            dist[v] = d
            if d > best:
                best = d
        return best


def _ids(slices, producer):
    step = re.compile(r"^ProfilerStep#(\d+)$")
    for s in slices:
        s["family"] = ctc.family_of(producer, s["cat"])
        s["gpu"] = s["family"] in ctc.GPU_FAMILIES
    nodes_slices = []
    for s in slices:
        if step.match(s["name"]) or (producer == "onnxruntime" and s["name"] == "model_run"):
            continue
        if producer == "pytorch" and s["cat"] == "Trace":
            continue
        if producer == "onnxruntime" and (s["cat"] == "Session" or s["name"].endswith(
                ("_fence_before", "_fence_after"))):
            continue
        if s["family"] in ctc.GPU_NOT_WORK:
            continue
        nodes_slices.append(s)
    ids, first_family, of_event = {}, {}, {}
    for s in sorted(nodes_slices, key=lambda s: (s["start"], s["event"])):
        key = ctc.node_key(s, producer)
        if key not in ids:
            ids[key] = ctc.new_node_id(s, producer, key, first_family)
        of_event[s["event"]] = ids[key]
    return of_event, nodes_slices, producer


class Steps(object):
    """Chrome / Kineto traces: one file, or a folder of ranks of one job."""

    model = MODEL_STEPS

    def __init__(self, paths, given_budget, zero_weight_launch_edges=False):
        self.steps = {}      # frame key -> [(span ns, Step or None)] per rank
        self.warnings = []
        self.working = set()
        keys = set()
        engine = None
        ranks = []
        for path in paths:
            doc = read_json(path)
            top = doc if isinstance(doc, dict) else {}
            events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
            slices = ctc.read_slices(events)
            producer = ctc.producer_of(top, slices)
            engine = engine or producer
            of_event, nodes_slices, _ = _ids(slices, producer)
            markers = [s for s in slices if re.match(r"^ProfilerStep#(\d+)$", s["name"])
                       and not s["gpu"]]
            markers.sort(key=ctc.sort_key)
            kept = []
            for m in markers:
                if not kept or m["start"] >= kept[-1]["end"]:
                    kept.append(m)
            if kept:
                windows = [(int(re.match(r"^ProfilerStep#(\d+)$", m["name"]).group(1)),
                            m["start"], m["end"]) for m in kept]
            else:
                windows = [(0, min(s["start"] for s in nodes_slices),
                            max(s["end"] for s in nodes_slices))]
            # Counted nodes: slices in some frame (by their start; a GPU slice by its launch
            # call's frame, found by correlation).
            starts = [(a, b) for _n, a, b in windows]

            def frame_of(ts):
                for i, (a, b) in enumerate(starts):
                    if a <= ts < b or (not kept and a <= ts <= b):
                        return i
                return None
            by_corr = {}
            for s in nodes_slices:
                c = s["args"].get("correlation") if isinstance(s["args"], dict) else None
                if c is not None and not s["gpu"]:
                    by_corr[str(c)] = s
            for s in nodes_slices:
                ts = s["start"]
                if s["gpu"]:
                    c = s["args"].get("correlation") if isinstance(s["args"], dict) else None
                    if c is not None and str(c) in by_corr:
                        ts = by_corr[str(c)]["start"]
                if frame_of(ts) is not None:
                    self.working.add(of_event[s["event"]])
            trace = cpc.Trace(path)
            for number, a, b in windows:
                keys.add(number)
                try:
                    g = StepGraph(trace, a, b, zero_weight_launch_edges)
                    step = Step(g, of_event)
                except cpc.Fatal as err:
                    self.warnings.append("%s step %d: no critical path (%s)"
                                         % (os.path.basename(path), number, err))
                    step = None
                self.steps.setdefault(number, []).append((b - a, step))
            ranks.append(path)
        self.engine = engine
        self.keys = sorted(keys)
        self.n = len(self.keys)
        self.budget = budget_of(engine, None, None, given_budget)

    def perturb(self):
        for key in self.keys:
            for _span, step in self.steps[key]:
                if step is None or not step.on_path:
                    continue
                nid = sorted(step.on_path)[0]
                for v, ps in enumerate(step.preds):
                    for p in ps:
                        if p[2] == nid and p[1] > 0 and (p[0], v) in step.path_edges:
                            p[1] += 1000000
                            step.length = step.longest({})
                            return "an operator edge of %s in step %d + 1 ms" % (nid, key)
        raise Error("nothing to perturb")

    def frame_times(self, changes):
        """Per step: None when no rank has a graph (out of the prediction); else
        the step's time less what the slowest graphed rank's step loses."""
        out = []
        for key in self.keys:
            ranks = self.steps[key]
            graphed = [(span, step) for span, step in ranks if step is not None]
            if not graphed:
                out.append(None)
                continue
            before = max(span for span, _step in ranks)
            measured = max(span for span, _step in graphed)
            slowest = None
            for span, step in graphed:
                t = span
                relevant = dict((n, f) for n, f in changes.items() if n in step.owned)
                if relevant:
                    t = span - (step.length - step.longest(relevant))
                if slowest is None or t > slowest:
                    slowest = t
            out.append((before - (measured - slowest)) / 1e6)
        return out

    def before(self):
        return self.frame_times({})

    def gains_possible(self, nid):
        """False when no step's critical path holds time of nid: its gain at f <= 1 is 0."""
        return any(step is not None and nid in step.on_path
                   for key in self.keys for _s, step in self.steps[key])


def gst_recording(path):
    return os.path.isdir(path) and os.path.exists(os.path.join(path, "trace.log")) and any(
        n.endswith(".dot") for n in os.listdir(path))


def load_model(path, given_budget):
    if gst_recording(path):
        return Streaming(path, given_budget)
    if os.path.isdir(path):
        files = sorted(os.path.join(path, n) for n in os.listdir(path)
                       if n.endswith((".json", ".json.gz")))
        return Steps(files, given_budget)
    doc = read_json(path)
    if isinstance(doc, dict) and "cookgraph" in doc:
        return Serial(doc, given_budget)
    return Steps([path], given_budget)


# --------------------------------------------------------------------------
# Comparison


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= REL * max(abs(a), abs(b)) + ABS


class Checker(object):
    def __init__(self, label):
        self.label = label
        self.problems = []
        self.checked = 0

    def num(self, what, got, want):
        self.checked += 1
        if not close(got, want):
            self.problems.append("%s: cookgraph %r, expected %r (diff %s)" % (
                what, got, want, "-" if got is None or want is None else "%.3g" % (got - want)))

    def exact(self, what, got, want):
        self.checked += 1
        if got != want:
            self.problems.append("%s: cookgraph %r, expected %r" % (what, got, want))


def run_whatif(cookgraph, path, changes, budget):
    cmd = [cookgraph, "whatif", path, "--format", "json", "--top", "1000000"]
    for nid, f in changes:
        cmd += ["--node", "%s=%s" % (nid, repr(f))]
    if budget is not None:
        cmd += ["--budget-ms", repr(budget)]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if run.returncode != 0:
        raise Error("%s exited %d: %s" % (" ".join(cmd), run.returncode,
                                          run.stderr.decode("utf-8", "replace")[-2000:]))
    return json.loads(run.stdout.decode("utf-8"))


def frames_block(out, key):
    b = out[key]
    return b["frame_ms"]["mean"], b["frame_ms"]["p95"], b["over_budget_frames"]


def check(model, out, changes, ck, offpath_zero=False, expect_frames=None, expect_saving=None,
          expect_off_path=None):
    ck.exact("model", out.get("model"), model.model)
    ck.exact("frames", out.get("frames"), sum(1 for v in model.before() if v is not None))
    ck.num("budget_ms", out.get("budget_ms"), model.budget)
    before = model.before()
    sb = summarise(before, model.budget)
    mean, p95, over = frames_block(out, "before")
    ck.num("before.frame_ms.mean", mean, sb["mean"])
    ck.num("before.frame_ms.p95", p95, sb["p95"])
    ck.exact("before.over_budget_frames", over,
             sb["over"] if model.budget is not None else out["before"]["over_budget_frames"])
    if model.budget is None and over not in (0, None):
        ck.problems.append("before.over_budget_frames is %r without a budget" % over)

    def gain(change):
        after = model.frame_times(change)
        sa = summarise(after, model.budget)
        return after, sa, dict(saved_ms=sb["mean"] - sa["mean"],
                               saved_p95_ms=sb["p95"] - sa["p95"],
                               frames_saved=sb["over"] - sa["over"])

    # changes / after
    got_changes = [(c["id"], c["factor"]) for c in out.get("changes", [])]
    if changes:
        want_changes = changes
    else:
        nodes = out.get("nodes") or []
        want_changes = [(nodes[0]["id"], nodes[0]["factor"])] if nodes else []
    ck.exact("changes ids", [c[0] for c in got_changes], [c[0] for c in want_changes])
    for (gid, gf), (_wid, wf) in zip(got_changes, want_changes):
        ck.num("changes factor of %s" % gid, gf, wf)
    after, sa, _ = gain(dict(want_changes))
    mean, p95, over = frames_block(out, "after")
    ck.num("after.frame_ms.mean", mean, sa["mean"])
    ck.num("after.frame_ms.p95", p95, sa["p95"])
    ck.exact("after.over_budget_frames", over, sa["over"] if model.budget is not None else over)
    if changes:
        series = out.get("series") or {}
        for name, want in (("before", before), ("after", after)):
            got = series.get(name)
            if got is None or len(got) != len(want):
                ck.problems.append("series.%s: %s values, expected %d" % (
                    name, "no" if got is None else len(got), len(want)))
                continue
            bad = [k for k in range(len(want)) if not close(got[k], want[k])]
            ck.checked += len(want)
            if bad:
                k = bad[0]
                ck.problems.append("series.%s: %d frames differ, first frame %d: cookgraph %r, "
                                   "expected %r" % (name, len(bad), k, got[k], want[k]))

    # nodes
    nodes = out.get("nodes") or []
    if changes:
        want_entries = [(nid, f) for nid, f in changes]
    else:
        factors = sorted(set(n["factor"] for n in nodes), reverse=True) or [0.5, 0.0]
        want_entries = [(nid, f) for f in factors for nid in model.working]
        ck.exact("node ids listed", sorted(set(n["id"] for n in nodes)), sorted(model.working))
    got = dict(((n["id"], n["factor"]), n) for n in nodes)
    if len(got) != len(nodes):
        ck.problems.append("nodes: an (id, factor) is listed twice")
    computed = {}
    for nid, f in want_entries:
        if (nid, f) not in got:
            ck.problems.append("nodes: no entry for %s at factor %r" % (nid, f))
            continue
        n = got[(nid, f)]
        if isinstance(model, Steps) and f <= 1 and not model.gains_possible(nid):
            g = dict(saved_ms=0.0, saved_p95_ms=0.0, frames_saved=0)
        else:
            g = gain({nid: f})[2]
        computed[(nid, f)] = g
        ck.num("nodes[%s @ %r].saved_ms" % (nid, f), n["saved_ms"], g["saved_ms"])
        ck.num("nodes[%s @ %r].saved_p95_ms" % (nid, f), n["saved_p95_ms"], g["saved_p95_ms"])
        ck.exact("nodes[%s @ %r].frames_saved" % (nid, f), n["frames_saved"], g["frames_saved"])
        if offpath_zero and isinstance(model, Steps) and not model.gains_possible(nid):
            for key in ("saved_ms", "saved_p95_ms", "frames_saved"):
                if n[key] != 0:
                    ck.problems.append("off-path node %s @ %r: %s is %r, not exactly 0"
                                       % (nid, f, key, n[key]))
    # Order: by saved_ms, then frames_saved, then saved_p95_ms, largest first (ties: NodeIndex).
    if not changes:
        keyed = [(n["saved_ms"], n["frames_saved"], n["saved_p95_ms"]) for n in nodes]
        for i in range(len(keyed) - 1):
            a, b = keyed[i], keyed[i + 1]
            if a[0] < b[0] - (REL * max(abs(a[0]), abs(b[0])) + ABS):
                ck.problems.append("nodes out of order at %d: %s saves %r, %s after it %r"
                                   % (i, nodes[i]["id"], a[0], nodes[i + 1]["id"], b[0]))
                break
            if a[0] == b[0] and (a[1], a[2]) < (b[1], b[2]):
                ck.problems.append("nodes out of order at %d (tie on saved_ms): %s %r, %s %r"
                                   % (i, nodes[i]["id"], a, nodes[i + 1]["id"], b))
                break
    if offpath_zero and isinstance(model, Steps):
        off = [nid for nid in model.working if not model.gains_possible(nid)]
        print("whatif_check: %d of %d nodes have no time on any step's critical path; "
              "their gains are exactly 0" % (len(off), len(model.working)))
    for nid in expect_off_path or []:
        listed = [n for n in nodes if n["id"] == nid]
        if not isinstance(model, Steps) or nid not in model.working or model.gains_possible(nid):
            ck.problems.append("%s was expected off every step's critical path" % nid)
        elif not listed or any(n[k] != 0 for n in listed
                               for k in ("saved_ms", "saved_p95_ms", "frames_saved")):
            ck.problems.append("%s is off the critical path; cookgraph lists %s" % (nid, listed))
        else:
            print("whatif_check: %s is off every step's critical path and gains exactly 0 "
                  "(%d entries)" % (nid, len(listed)))
    if expect_frames:
        at0 = [(g["frames_saved"], nid) for (nid, f), g in computed.items() if f == 0]
        at0.sort(reverse=True)
        top = at0[0] if at0 else None
        gotf = got.get((expect_frames, 0.0)) or got.get((expect_frames, 0))
        if (top is None or top[1] != expect_frames or (len(at0) > 1 and at0[1][0] == top[0])
                or gotf is None or gotf["frames_saved"] != sb["over"]
                or max(n["frames_saved"] for n in nodes if n["factor"] == 0) != sb["over"]
                or sum(1 for n in nodes if n["factor"] == 0 and n["frames_saved"] == sb["over"]) != 1):
            ck.problems.append("expected %s to save the most over-budget frames at factor 0, all "
                               "%d; computed %s, cookgraph %s" % (
                                   expect_frames, sb["over"], at0[:3],
                                   gotf and gotf["frames_saved"]))
        else:
            print("whatif_check: %s saves %d of %d over-budget frames at factor 0, the most"
                  % (expect_frames, gotf["frames_saved"], sb["over"]))
    if expect_saving:
        for f in sorted(set(n["factor"] for n in nodes)):
            listed = sorted(((n["saved_ms"], n["id"]) for n in nodes if n["factor"] == f),
                            reverse=True)
            mine = sorted(((g["saved_ms"], nid) for (nid, ff), g in computed.items() if ff == f),
                          reverse=True)
            ok = (listed and listed[0][1] == expect_saving and mine and mine[0][1] == expect_saving
                  and (len(listed) < 2 or listed[1][0] < listed[0][0]))
            if not ok:
                ck.problems.append("expected %s to save the most mean ms at factor %r; "
                                   "cookgraph %s, computed %s" % (expect_saving, f, listed[:3],
                                                                  mine[:3]))
            else:
                print("whatif_check: %s saves the most at factor %r: %.3f ms a frame"
                      % (expect_saving, f, listed[0][0]))
    return sb, sa


def parse_changes(items):
    out = []
    for item in items or []:
        if "=" not in item:
            raise Error("--node %r: expected ID=F" % item)
        nid, f = item.rsplit("=", 1)
        out.append((nid, float(f)))
    return out


def report(ck):
    if ck.problems:
        for p in ck.problems:
            print("whatif_check: MISMATCH %s: %s" % (ck.label, p))
        print("whatif_check: %s: %d of %d comparisons differ" % (ck.label, len(ck.problems),
                                                                ck.checked))
        return EXIT_MISMATCH
    print("whatif_check: %s: %d comparisons agree" % (ck.label, ck.checked))
    return EXIT_OK


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument("input", nargs="?")
    p.add_argument("--cookgraph", required=True)
    p.add_argument("--node", action="append", default=[])
    p.add_argument("--budget-ms", type=float)
    p.add_argument("--perturb", action="store_true")
    p.add_argument("--offpath-zero", action="store_true")
    p.add_argument("--expect-most-frames-saved")
    p.add_argument("--expect-largest-saving")
    p.add_argument("--expect-off-path", action="append", default=[])
    p.add_argument("--pair", nargs=2, metavar=("WITH", "WITHOUT"))
    p.add_argument("--pair-tolerance", type=float, default=0.01)
    args = p.parse_args(argv)
    try:
        changes = parse_changes(args.node)
        if args.pair:
            return pair(args, changes)
        if not args.input:
            p.error("INPUT is required")
        if not os.path.exists(args.input):
            print("whatif_check: SKIP: %s is missing" % args.input)
            return EXIT_SKIP
        model = load_model(args.input, args.budget_ms)
        for w in getattr(model, "warnings", []):
            print("whatif_check: note: %s" % w)
        if args.perturb:
            print("whatif_check: perturbed: %s" % model.perturb())
        out = run_whatif(args.cookgraph, args.input, changes, args.budget_ms)
        ck = Checker(args.input)
        check(model, out, changes, ck, args.offpath_zero or bool(args.expect_off_path),
              args.expect_most_frames_saved, args.expect_largest_saving, args.expect_off_path)
        return report(ck)
    except Error as err:
        print("whatif_check: error: %s" % err)
        return EXIT_ERROR


def pair(args, changes):
    with_path, without_path = args.pair
    for path in (with_path, without_path):
        if not os.path.exists(path):
            print("whatif_check: SKIP: %s is missing" % path)
            return EXIT_SKIP
    if not changes:
        raise Error("--pair needs --node")
    model = load_model(with_path, args.budget_ms)
    out = run_whatif(args.cookgraph, with_path, changes, args.budget_ms)
    ck = Checker(with_path)
    _sb, sa = check(model, out, changes, ck)
    status = report(ck)
    # The measured WITHOUT: read here, and by cookgraph (its "before").
    other = load_model(without_path, args.budget_ms)
    so = summarise(other.before(), other.budget)
    out2 = run_whatif(args.cookgraph, without_path, [], args.budget_ms)
    ck2 = Checker(without_path)
    ck2.num("before.frame_ms.mean (WITHOUT)", out2["before"]["frame_ms"]["mean"], so["mean"])
    predicted = out["after"]["frame_ms"]["mean"]
    error = (predicted - so["mean"]) / so["mean"]
    p95_error = (out["after"]["frame_ms"]["p95"] - so["p95"]) / so["p95"]
    print("whatif_check: pair %s -> %s, %s: predicted mean %.6f ms, measured %.6f ms "
          "(error %+.4f%%); p95 predicted %.6f, measured %.6f (%+.4f%%); over budget "
          "predicted %s, measured %s; before %.6f ms" % (
              os.path.basename(with_path), os.path.basename(without_path),
              " ".join("%s=%r" % c for c in changes), predicted, so["mean"], 100 * error,
              out["after"]["frame_ms"]["p95"], so["p95"], 100 * p95_error,
              out["after"]["over_budget_frames"], so["over"] if other.budget is not None else None,
              out["before"]["frame_ms"]["mean"]))
    if abs(error) > args.pair_tolerance:
        ck2.problems.append("predicted after mean %.6f ms is %.3f%% from WITHOUT's measured %.6f "
                            "ms (tolerance %.3f%%)" % (predicted, 100 * error, so["mean"],
                                                       100 * args.pair_tolerance))
    status2 = report(ck2)
    return max(status, status2)


if __name__ == "__main__":
    sys.exit(main())
