#!/usr/bin/env python3
"""Checks cookgraph's output against a second, independent implementation.

    independent_check.py SNAPSHOT --score score.json --graph graph.json

SNAPSHOT is a native snapshot (docs/formats.md#native-snapshot-format: .json, .json.gz or
.yaml); score.json is the output of `cookgraph score --format json`, graph.json
that of `cookgraph graph --format json`. Either may be left out.

Everything here is recomputed from the raw series with the Python standard
library, following docs/architecture.md#definitions word for word, and shares no code or
logic files with the C++ implementation:

  score: for every node listed, cooked_frames, avg_ms, std_ms (population),
         score = avg * (1 + std), p95_ms (NumPy's linear percentile), max_ms,
         per_frame_ms (sum over cooked frames / all frames); and, when the
         output carries them, p50_ms, p99_ms, share, cooks_per_frame,
         gpu_avg_ms, cpu_mem_mb, gpu_mem_mb, latency_avg_ms, latency_std_ms,
         latency_max_ms, inclusive_avg_ms, upstream_ms and dead.
  graph: `order` holds every node exactly once, puts u before v for every
         non-feedback edge u -> v between different strongly connected
         components, and keeps each component together; `loops` reports every
         component of more than one node, every self-loop and every cycle a
         feedback edge closes (as the component's own entry when both ends lie
         in one cyclic component), and nothing else; `edges`, when present, are the
         snapshot's edges; `critical_path`, when present, is a path of the
         condensed graph whose weight is the largest.

Numbers agree when they are within --rtol relative (default 1e-9) or --atol
absolute (default 1e-12, for values near zero). Prints each mismatch and exits
1, or prints one summary line ("checked 364 nodes, 5 loops: ok") and exits 0.
Exit 2: the inputs cannot be read or the snapshot itself is invalid.
"""

import argparse
import gzip
import json
import math
import os
import sys

EDGE_KINDS = ("data", "ref", "feedback", "call", "launch", "flow")
METRICS = ("cook_ms", "gpu_ms", "cpu_mem_mb", "gpu_mem_mb", "cooks", "latency_ms", "inclusive_ms")
# Statistics that are null for a node that never cooked.
COOK_STATS = ("avg_ms", "std_ms", "score", "p50_ms", "p95_ms", "p99_ms", "max_ms")
REQUIRED_STATS = ("avg_ms", "std_ms", "score", "p95_ms", "max_ms", "per_frame_ms",
                  "cooked_frames")


class Fatal(Exception):
    """The inputs cannot be checked at all (exit 2)."""


# --------------------------------------------------------------------------
# Reading


def load_document(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    name = path[:-3] if path.endswith(".gz") else path
    if name.endswith((".yaml", ".yml")):
        try:
            import yaml  # python3-yaml; only needed for YAML snapshots
        except ImportError as e:
            raise Fatal(f"{path}: reading YAML needs python3-yaml ({e})")
        return yaml.safe_load(data)
    try:
        return json.loads(data)
    except ValueError as e:
        raise Fatal(f"{path}: not valid JSON: {e}")


class Snapshot:
    """The parts of a snapshot the checks need, with edges resolved."""

    def __init__(self, doc, path):
        if not isinstance(doc, dict):
            raise Fatal(f"{path}: the top level is not an object")
        if doc.get("cookgraph") != 1:
            raise Fatal(f"{path}: format version {doc.get('cookgraph')!r}, expected 1")
        nodes = doc.get("nodes")
        if not isinstance(nodes, list) or not nodes:
            raise Fatal(f"{path}: no nodes")
        self.ids = []
        self.pos = {}
        self.output = []
        for i, n in enumerate(nodes):
            nid = n.get("id") if isinstance(n, dict) else None
            if not isinstance(nid, str) or not nid:
                raise Fatal(f"{path}: nodes[{i}] has no id")
            if nid in self.pos:
                raise Fatal(f"{path}: duplicate node id {nid!r}")
            self.pos[nid] = i
            self.ids.append(nid)
            self.output.append(n.get("output") is True)
        # Edges as (from, to, kind) index triples, in declaration order.
        self.edges = []
        for to, n in enumerate(nodes):
            declared = [(a, "data") for a in n.get("inputs", [])]
            declared += [(a, "ref") for a in n.get("refs", [])]
            declared += [(a, "feedback") for a in n.get("feedback", [])]
            for e in n.get("edges", []):
                declared.append((e.get("from"), e.get("kind")))
            for a, kind in declared:
                if kind not in EDGE_KINDS:
                    raise Fatal(f"{path}: node {self.ids[to]!r}: unknown edge kind {kind!r}")
                if a not in self.pos:
                    raise Fatal(f"{path}: node {self.ids[to]!r}: unknown node {a!r} ({kind})")
                self.edges.append((self.pos[a], to, kind))
        frames = doc.get("frames") or {}
        self.index = list(frames.get("index", []))
        F = len(self.index)
        self.frame_ms = frames.get("frame_ms")
        if self.frame_ms is not None and len(self.frame_ms) != F:
            raise Fatal(f"{path}: frame_ms has {len(self.frame_ms)} values for {F} frames")
        self.series = [dict() for _ in self.ids]  # node -> metric -> list
        for nid, metrics in (frames.get("series") or {}).items():
            if nid not in self.pos:
                raise Fatal(f"{path}: series for unknown node {nid!r}")
            for m, vals in metrics.items():
                if m not in METRICS:
                    continue  # unknown metrics are allowed (forward compatibility)
                if len(vals) != F:
                    raise Fatal(f"{path}: series {nid!r}.{m} has {len(vals)} values for "
                                f"{F} frames")
                for v in vals:
                    if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)
                                          or v < 0 or v != v):
                        raise Fatal(f"{path}: series {nid!r}.{m}: bad value {v!r}")
                self.series[self.pos[nid]][m] = vals

    def __len__(self):
        return len(self.ids)


# --------------------------------------------------------------------------
# Statistics (docs/architecture.md#node-statistics)


def percentile(sorted_values, p):
    """NumPy's default ('linear'): h = (n-1) p/100, interpolate x[floor h], x[floor h + 1]."""
    n = len(sorted_values)
    h = (n - 1) * p / 100.0
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def mean_of(values):
    vals = [v for v in values if v is not None]
    return math.fsum(vals) / len(vals) if vals else None


def frame_times(snap):
    F = len(snap.index)
    sums = [[] for _ in range(F)]
    for s in snap.series:
        c = s.get("cook_ms")
        if c:
            for f, v in enumerate(c):
                if v is not None:
                    sums[f].append(v)
    times = []
    for f in range(F):
        measured = snap.frame_ms[f] if snap.frame_ms is not None else None
        times.append(measured if measured is not None else math.fsum(sums[f]))
    return times


def node_stats(snap, i, mean_frame_ms):
    F = len(snap.index)
    s = snap.series[i]
    cooked = [v for v in s.get("cook_ms", []) if v is not None]
    n = len(cooked)
    st = {"cooked_frames": n}
    if n:
        avg = math.fsum(cooked) / n
        std = math.sqrt(math.fsum((v - avg) ** 2 for v in cooked) / n)
        ordered = sorted(cooked)
        st.update(avg_ms=avg, std_ms=std, score=avg * (1 + std), max_ms=ordered[-1],
                  p50_ms=percentile(ordered, 50), p95_ms=percentile(ordered, 95),
                  p99_ms=percentile(ordered, 99))
    else:
        st.update({k: None for k in COOK_STATS})
    st["per_frame_ms"] = math.fsum(cooked) / F if F else None
    st["share"] = (st["per_frame_ms"] / mean_frame_ms
                   if F and mean_frame_ms else (0.0 if F else None))
    if "cooks" in s:
        st["cooks_per_frame"] = math.fsum(v for v in s["cooks"] if v is not None) / F if F \
            else None
    else:
        st["cooks_per_frame"] = n / F if F else None
    st["gpu_avg_ms"] = mean_of(s.get("gpu_ms", []))
    st["cpu_mem_mb"] = mean_of(s.get("cpu_mem_mb", []))
    st["gpu_mem_mb"] = mean_of(s.get("gpu_mem_mb", []))
    st["inclusive_avg_ms"] = mean_of(s.get("inclusive_ms", []))
    # The tracer's own times (latency_ms, GStreamer): mean, population
    # standard deviation and largest over the frames that have one.
    latency = [v for v in s.get("latency_ms", []) if v is not None]
    if latency:
        mean = math.fsum(latency) / len(latency)
        st.update(latency_avg_ms=mean, latency_max_ms=max(latency),
                  latency_std_ms=math.sqrt(math.fsum((v - mean) ** 2 for v in latency) / len(latency)))
    else:
        st.update(latency_avg_ms=None, latency_std_ms=None, latency_max_ms=None)
    return st


# --------------------------------------------------------------------------
# Graph (non-feedback edges unless said otherwise)


def adjacency(snap):
    succ = [[] for _ in range(len(snap))]
    pred = [[] for _ in range(len(snap))]
    for a, b, kind in snap.edges:
        if kind != "feedback":
            succ[a].append(b)
            pred[b].append(a)
    return succ, pred


def tarjan(succ):
    """Iterative Tarjan. Returns (component of each node, components), the
    components in reverse topological order (sinks first), as Tarjan emits them."""
    n = len(succ)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    comps = []
    stack = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, k = work[-1]
            if k < len(succ[v]):
                work[-1] = (v, k + 1)
                w = succ[v][k]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = len(comps)
                    members.append(w)
                    if w == v:
                        break
                comps.append(sorted(members))
    return comp, comps


def reachable(starts, nbrs):
    seen = set(starts)
    todo = list(starts)
    while todo:
        u = todo.pop()
        for v in nbrs[u]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def live_nodes(snap, outputs, pred):
    """Nodes whose cooks serve an output: those that reach one through
    non-feedback edges, those a live node calls or launches (a nested op or a
    kernel serves the op that issued it), and whatever feeds a live node."""
    callees = [[] for _ in snap.ids]
    for a, b, kind in snap.edges:
        if kind in ("call", "launch"):
            callees[a].append(b)
    live = set()
    todo = list(outputs)
    while todo:
        v = todo.pop()
        if v in live:
            continue
        live.add(v)
        todo.extend(pred[v])
        todo.extend(callees[v])
    return live


def expected_loops(snap, succ, pred, comp, comps):
    """Every loop of docs/architecture.md#feedback-loops: (kind, required node set, full node set, label)."""
    loops = []
    for members in comps:
        if len(members) > 1:
            s = frozenset(members)
            loops.append(("cycle", s, s, "cycle of " + ", ".join(snap.ids[m] for m in members[:4])
                          + (" ..." if len(members) > 4 else "")))
    for a, b, kind in snap.edges:
        if kind != "feedback" and a == b and len(comps[comp[a]]) == 1:
            s = frozenset([a])
            if not any(k == "self-loop" and r == s for k, r, _, _ in loops):
                loops.append(("self-loop", s, s, f"self-loop on {snap.ids[a]}"))
    cyclic = {comp[a] for a, b, kind in snap.edges if kind != "feedback" and a == b}
    cyclic |= {c for c, members in enumerate(comps) if len(members) > 1}
    for a, b, kind in snap.edges:
        if kind != "feedback":
            continue
        if comp[a] == comp[b] and comp[a] in cyclic:
            continue  # every node on its paths is in that component: its cycle is the loop
        fwd = reachable([b], succ)
        if a not in fwd:
            continue  # closes no loop
        # Every node on a non-feedback path from `to` to `from`; a feedback edge from a
        # node to itself closes a loop of that one node.
        closure = frozenset([a]) if a == b else frozenset(fwd & reachable([a], pred))
        loops.append(("feedback", frozenset([a, b]), closure,
                      f"feedback loop {snap.ids[a]} -> {snap.ids[b]}"))
    return loops


# --------------------------------------------------------------------------
# Comparison


class Report:
    def __init__(self, limit):
        self.errors = []
        self.notes = []
        self.limit = limit

    def error(self, msg):
        self.errors.append(msg)

    def note(self, msg):
        self.notes.append(msg)

    def flush(self):
        for msg in self.notes:
            print(f"note: {msg}")
        for msg in self.errors[:self.limit]:
            print(f"mismatch: {msg}")
        if len(self.errors) > self.limit:
            print(f"... and {len(self.errors) - self.limit} more mismatches")


def close(a, b, rtol, atol):
    if a is None or b is None:
        return a is None and b is None
    for x in (a, b):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= max(rtol * max(abs(a), abs(b)), atol)


def select_snapshot_entry(score, snap_path, rep):
    entries = score.get("snapshots")
    if not isinstance(entries, list) or not entries:
        raise Fatal("score output has no \"snapshots\" array")
    if len(entries) == 1:
        return entries[0]
    want = os.path.realpath(snap_path)
    for e in entries:
        f = e.get("file")
        if isinstance(f, str) and (os.path.realpath(f) == want
                                   or os.path.basename(f) == os.path.basename(snap_path)):
            return e
    raise Fatal(f"score output has {len(entries)} snapshots and none is {snap_path}")


def check_score(snap, score, snap_path, rep, rtol, atol, succ, pred):
    if score.get("cookgraph") != 1:
        rep.error(f"score: \"cookgraph\" is {score.get('cookgraph')!r}, expected 1")
    for e in score.get("errors") or []:
        rep.note(f"score output lists an error: {json.dumps(e)[:200]}")
    entry = select_snapshot_entry(score, snap_path, rep)
    rows = entry.get("nodes")
    if not isinstance(rows, list):
        raise Fatal("score output: the snapshot has no \"nodes\" array")
    times = frame_times(snap)
    mean_frame = math.fsum(times) / len(times) if times else 0.0
    seen = set()
    extra_checked = set()
    outputs = [i for i, o in enumerate(snap.output) if o]
    live = live_nodes(snap, outputs, pred) if outputs else None
    upstream_cache = {}
    upstream_work = [0]
    per_frame = None
    for row in rows:
        nid = row.get("id")
        if nid not in snap.pos:
            rep.error(f"score: unknown node id {nid!r}")
            continue
        if nid in seen:
            rep.error(f"score: node {nid!r} listed twice")
            continue
        seen.add(nid)
        i = snap.pos[nid]
        want = node_stats(snap, i, mean_frame)
        for key in REQUIRED_STATS:
            if key not in row:
                rep.error(f"score: {nid}: no \"{key}\"")
        for key, expected in want.items():
            if key not in row:
                continue
            got = row[key]
            if key != "cooked_frames" and key not in REQUIRED_STATS:
                extra_checked.add(key)
            if want["cooked_frames"] == 0 and key in ("per_frame_ms", "share", "cooks_per_frame") \
                    and got is None and expected == 0:
                continue  # 0 or null both say "never cooked"
            if key == "cooked_frames":
                if got != expected:
                    rep.error(f"score: {nid}: cooked_frames {got!r}, expected {expected}")
            elif not close(got, expected, rtol, atol):
                rep.error(f"score: {nid}: {key} {got!r}, expected {expected!r}")
        if "dead" in row:
            extra_checked.add("dead")
            expected = bool(live is not None and want["cooked_frames"] > 0 and i not in live)
            if row["dead"] is not expected:
                rep.error(f"score: {nid}: dead {row['dead']!r}, expected {expected}")
        if "upstream_ms" in row:
            extra_checked.add("upstream_ms")
            if per_frame is None:
                per_frame = [node_stats(snap, j, mean_frame)["per_frame_ms"] or 0.0
                             for j in range(len(snap))]
            # Each check is a graph walk; stop after a few million visited nodes, which
            # is plenty to catch a wrong rule and keeps 100k-node networks quick.
            if upstream_work[0] < 5_000_000:
                anc = reachable([i], pred)
                upstream_work[0] += len(anc)
                upstream_cache[i] = math.fsum(per_frame[j] for j in anc)
                if not close(row["upstream_ms"], upstream_cache[i], rtol, atol):
                    rep.error(f"score: {nid}: upstream_ms {row['upstream_ms']!r}, "
                              f"expected {upstream_cache[i]!r}")
    if upstream_work[0] >= 5_000_000:
        rep.note(f"upstream_ms checked on {len(upstream_cache)} nodes only (work limit)")
    if len(seen) < len(snap):
        rep.note(f"score lists {len(seen)} of {len(snap)} nodes (--top?); checked those")
    if extra_checked:
        rep.note("also checked " + ", ".join(sorted(extra_checked)))
    return len(seen)


def check_graph(snap, graph, rep, rtol, atol, strict, succ, pred, comp, comps, loops):
    n = len(snap)
    # order
    order = graph.get("order")
    if not isinstance(order, list):
        rep.error("graph: no \"order\" array")
    else:
        where = {}
        for k, nid in enumerate(order):
            if nid not in snap.pos:
                rep.error(f"graph: order names unknown node {nid!r}")
            elif snap.pos[nid] in where:
                rep.error(f"graph: order lists {nid!r} twice")
            else:
                where[snap.pos[nid]] = k
        missing = [snap.ids[i] for i in range(n) if i not in where]
        if missing:
            rep.error(f"graph: order misses {len(missing)} nodes, e.g. {missing[:3]}")
        for a, b, kind in snap.edges:
            if kind == "feedback" or comp[a] == comp[b]:
                continue
            if a in where and b in where and where[a] > where[b]:
                rep.error(f"graph: order puts {snap.ids[b]!r} before {snap.ids[a]!r} "
                          f"but {kind} edge {snap.ids[a]} -> {snap.ids[b]}")
        for members in comps:
            if len(members) > 1 and all(m in where for m in members):
                ks = [where[m] for m in members]
                if max(ks) - min(ks) + 1 != len(members):
                    rep.error(f"graph: the strongly connected component of "
                              f"{snap.ids[members[0]]!r} ({len(members)} nodes) is split "
                              f"in order (positions {min(ks)}..{max(ks)})")
    # loops
    reported = graph.get("loops")
    if not isinstance(reported, list):
        rep.error("graph: no \"loops\" array")
        reported = []
    parsed = []
    for k, lp in enumerate(reported):
        kind = lp.get("kind") if isinstance(lp, dict) else None
        ids = lp.get("nodes") if isinstance(lp, dict) else None
        if not isinstance(ids, list):
            rep.error(f"graph: loops[{k}] has no \"nodes\" array")
            continue
        unknown = [x for x in ids if x not in snap.pos]
        if unknown:
            rep.error(f"graph: loops[{k}] names unknown nodes {unknown[:3]}")
        parsed.append((k, kind, frozenset(snap.pos[x] for x in ids if x in snap.pos)))
    for kind, required, full, label in loops:
        same = [p for p in parsed if p[1] == kind and required <= p[2]]
        if not same:
            other = [p for p in parsed if required <= p[2]]
            hint = f" (loops[{other[0][0]}] of kind {other[0][1]!r} contains it)" if other else ""
            rep.error(f"graph: {label} ({len(full)} nodes) is not in loops{hint}")
            continue
        if not any(p[2] == full for p in same):
            msg = (f"graph: {label}: reported with {len(same[0][2])} nodes, expected the "
                   f"{len(full)} nodes on its paths")
            (rep.error if strict else rep.note)(msg)
    self_edges = {a for a, b, kind in snap.edges if kind != "feedback" and a == b}
    for k, kind, members in parsed:
        if kind not in ("cycle", "self-loop", "feedback"):
            rep.error(f"graph: loops[{k}] has unknown kind {kind!r}")
            continue
        if kind == "self-loop":  # also accepted inside a larger component
            fits = len(members) == 1 and next(iter(members)) in self_edges
        elif kind == "cycle":  # a component is unambiguous: exactly its members
            fits = any(lk == kind and members == full for lk, _, full, _ in loops)
        else:  # the feedback edge's ends, and (with --strict) nothing off its paths
            fits = any(lk == kind and required <= members and (members <= full or not strict)
                       for lk, required, full, _ in loops)
        if not fits:
            rep.error(f"graph: loops[{k}] ({kind}, {len(members)} nodes, e.g. "
                      f"{[snap.ids[m] for m in sorted(members)[:3]]}) is not a loop of the "
                      f"snapshot")
    # edges
    if "edges" in graph:
        got = []
        for e in graph["edges"] or []:
            a, b, kind = e.get("from"), e.get("to"), e.get("kind")
            if a not in snap.pos or b not in snap.pos:
                rep.error(f"graph: edge {a!r} -> {b!r} names an unknown node")
                continue
            got.append((snap.pos[a], snap.pos[b], kind))
        want_set, got_set = set(snap.edges), set(got)
        for a, b, kind in sorted(want_set - got_set)[:10]:
            rep.error(f"graph: edges misses {kind} {snap.ids[a]} -> {snap.ids[b]}")
        for a, b, kind in sorted(got_set - want_set)[:10]:
            rep.error(f"graph: edges has {kind} {snap.ids[a]} -> {snap.ids[b]}, not in the "
                      f"snapshot")
        if want_set == got_set and len(got) != len(snap.edges):
            rep.note(f"graph: {len(got)} edges listed, the snapshot declares "
                     f"{len(snap.edges)} (parallel edges merged or repeated)")
    # critical path
    if "critical_path" in graph:
        check_critical_path(snap, graph["critical_path"], rep, rtol, atol, succ, comp, comps)


def check_critical_path(snap, cp, rep, rtol, atol, succ, comp, comps):
    ids = cp.get("nodes") if isinstance(cp, dict) else cp if isinstance(cp, list) else None
    if not isinstance(ids, list) or any(x not in snap.pos for x in ids):
        rep.note("graph: critical_path has a shape this checker does not know; skipped")
        return
    times = frame_times(snap)
    mean_frame = math.fsum(times) / len(times) if times else 0.0
    w = [node_stats(snap, i, mean_frame)["per_frame_ms"] or 0.0 for i in range(len(snap))]
    cw = [math.fsum(w[m] for m in members) for members in comps]
    # Longest path over the condensation; Tarjan's list is sinks first.
    csucc = [set() for _ in comps]
    for a in range(len(snap)):
        for b in succ[a]:
            if comp[a] != comp[b]:
                csucc[comp[a]].add(comp[b])
    best = [0.0] * len(comps)
    for c in range(len(comps)):
        best[c] = cw[c] + max((best[d] for d in csucc[c]), default=0.0)
    top = max(best) if best else 0.0
    path_comps = []
    for x in ids:
        c = comp[snap.pos[x]]
        if not path_comps or path_comps[-1] != c:
            path_comps.append(c)
    if len(set(path_comps)) != len(path_comps):
        rep.error("graph: critical_path visits a component twice")
        return
    for c, d in zip(path_comps, path_comps[1:]):
        if d not in csucc[c]:
            rep.error(f"graph: critical_path steps from {snap.ids[comps[c][0]]!r} to "
                      f"{snap.ids[comps[d][0]]!r} without an edge")
    if set(snap.pos[x] for x in ids) != set(m for c in path_comps for m in comps[c]):
        rep.error("graph: critical_path does not list every member of the components it crosses")
    weight = math.fsum(cw[c] for c in path_comps)
    if not close(weight, top, max(rtol, 1e-12), atol):
        rep.error(f"graph: critical_path weighs {weight!r} ms, the heaviest path weighs {top!r}")
    if isinstance(cp, dict):
        for key in ("weight", "per_frame_ms", "total_ms", "weight_ms"):
            if key in cp and not close(cp[key], top, rtol, atol):
                rep.error(f"graph: critical_path.{key} {cp[key]!r}, expected {top!r}")


# --------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("snapshot")
    ap.add_argument("--score", help="output of `cookgraph score --format json`")
    ap.add_argument("--graph", help="output of `cookgraph graph --format json`")
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--atol", type=float, default=1e-12)
    ap.add_argument("--strict", action="store_true",
                    help="a feedback loop must list exactly the nodes on its paths")
    ap.add_argument("--max-mismatches", type=int, default=50, help="how many to print")
    args = ap.parse_args(argv)
    rep = Report(args.max_mismatches)
    try:
        snap = Snapshot(load_document(args.snapshot), args.snapshot)
        succ, pred = adjacency(snap)
        comp, comps = tarjan(succ)
        loops = expected_loops(snap, succ, pred, comp, comps)
        checked = len(snap)
        if args.score:
            checked = check_score(snap, load_document(args.score), args.snapshot, rep,
                                  args.rtol, args.atol, succ, pred)
        if args.graph:
            check_graph(snap, load_document(args.graph), rep, args.rtol, args.atol, args.strict,
                        succ, pred, comp, comps, loops)
    except (Fatal, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rep.flush()
    status = "ok" if not rep.errors else f"{len(rep.errors)} mismatches"
    print(f"checked {checked} nodes, {len(loops)} loops: {status}")
    return 0 if not rep.errors else 1


if __name__ == "__main__":
    sys.exit(main())
