#!/usr/bin/env python3
"""Checks cookgraph's GStreamer adapter against an independent reading.

gst_check.py DIR --dump GST_DUMP --cookgraph COOKGRAPH [--slow NAME] [--queue NAME]
             [--tee NAME] [--bin NAME] [--mixer NAME] [--waiter NAME] [--no-latency]
             [--perturb WHAT] [--show]

DIR holds a recording made by tests/tools/gst_record.sh: .dot dumps and
trace.log (the latency tracer with flags=element+pipeline and the rusage
tracer). This script reads them itself (standard library only, its own
parsing: nothing is shared with the C++ reader) and compares what it finds
with GST_DUMP (the adapter's Snapshot as native JSON), with
`cookgraph score DIR --format json` (the CLI reading the folder itself) and
with `cookgraph graph DIR --format svg` (the heatmap).

How the recording is read (the definitions cookgraph follows):
  - Log lines are `<time> <pid> <thread pointer> <LEVEL> ...`: the third field
    (lower case) is the thread that logged the record.
  - Node ids are "/<pipeline>/<bins>/<name>" from the PAUSED_PLAYING dump;
    family "bin" for bins, "queue" for a GType containing "queue" (any case:
    GstQueue, GstQueue2, GstMultiQueue), "mixer" for an element with two or
    more linked sink pads and a src pad (compositor, audiomixer, oggmux),
    "element" otherwise. Queues and mixers are "waiting" elements: their time
    includes waiting for other threads or inputs; the rest "work".
  - Cooks: all element-latency records of an element (by element-id), in log
    order over all its src pads and threads. A record's entry time is
    ts - time. A run of consecutive records of the element sharing one entry
    time is ONE cook (a tee logs once per src pad for the same buffer; a
    demuxer may push several buffers out of one input); its ms is the
    smallest time of the run / 1e6, its thread the thread of the run's first
    record. A record whose time is unreadable or above 2^63-1 is a missing
    cook of its own: it keeps its place but is left out of the statistics.
    Frame k of an element is its k-th cook; frames = the largest number of
    cooks of any element.
  - Work and waiting: a record's window runs from its entry (ts - time) to
    its ts, in the thread that logged it. The thread's CPU time at a moment
    is its thread-rusage record's `time` at that ts, on the straight line
    between the records around it, the first's before them and the last's
    after them (records whose ts or time runs back are left out). With q the
    thread's last thread-rusage record strictly between entry and ts:
    work = max(cpu(q) - cpu(entry), 0) + (ts - q), never more than time, and
    work = time when there is no such q. A cook's work is that of its
    smallest-time record.
    Elements that work are scored on it (cook_ms, avg_ms, std_ms, threads,
    frames) where the thread has rusage records; queues and mixers on the
    time. latency_ms (the snapshot's series) and the score's latency_avg_ms,
    latency_std_ms and latency_max_ms are the cooks' times, always.
  - Threads (streaming threads: those that logged an element-latency record,
    in the order of their first such record): elements = those with a cook in
    the thread, in the order of their first cook there; work_elements = those
    that do not wait; buffers = the most cooks in the thread of one of its
    elements; busy_ms_per_buffer = the summed ms of the thread's cooks of its
    work elements / buffers; buffer_period_ms = the first of the thread's
    elements (in that order) that gives one, from the caps of the src pads its
    cooks in this thread were made on (the pad of each cook's first record),
    else from the caps feeding it when exactly one distinct caps does: a
    framerate N/D (N > 0) gives 1000*D/N, audio/x-raw rate R gives 1000*S/R
    with S the samplesperbuffer property of an element in the dump, else 1024
    when the pipeline holds a GstAudioTestSrc (its default), else nothing (a
    multiqueue's vorbis pad gives none; the vorbisdec after it gives 23.220
    ms); utilisation = busy / period. cpu_ms = the time of the thread's last
    thread-rusage record / 1e6; cpu_load_pct = 100 * (time_last - time_first)
    / (ts_last - ts_first) over its thread-rusage records (with one record:
    its average-cpuload / 10); cpu_load_pct_over_time = points at the records
    where ts first reaches ts_first + j*100 ms (j = 1, 2, ...) plus the last
    record, each [ts ms, the same load against the previous point].
    process_cpu_load_pct: the same load over all proc-rusage records (100 =
    one core busy).
  - bottleneck_thread: among the threads with work, the largest utilisation
    when all of them have a period, else the largest busy_ms_per_buffer (the
    first on ties); its element = its work element with the most summed ms in
    that thread.
  - frame_ms of frame k = the largest over threads of the sum of the k-th
    cooks IN THAT THREAD of the thread's work elements (missing ignored;
    missing when no thread has one), over the threads whose buffer period is
    unknown or the bottleneck thread's (all when that one has none). `latency` records are never frame time.
    The score's mean, p95 and max are over the frames that have one: a
    buffer index no thread worked on (only queues and mixers logged it) is
    not a frame of work.
  - latency_ms = records, mean, p95 (linear interpolation, NumPy's default)
    and max of all readable `latency` records (ns / 1e6); null without them.
  - frame_budget_ms = 1000 / fps: fps = the framerate of the caps feeding the
    outputs (the largest if several), else the largest framerate of any caps
    in the dump, else the audio buffer rate R/S (caps feeding the outputs
    first); without any, cookgraph's default budget of 16.667 ms.

What is compared:
  - nodes (native snapshot): ids, GType, family, output flag (no src pad, or
    the sink of `latency` records), the label's properties among the params;
  - element-level edges, resolved through ghost and proxy pads;
  - per element (native snapshot): the cook_ms series, value by value, and a
    tee's per-pad avg_ms / buffers / peer params (over that pad's records);
  - per element (score): cooked_frames (cooks that are not missing), avg_ms
    and std_ms (statistics.pstdev), latency_avg_ms, latency_std_ms and
    latency_max_ms, to a relative 1e-9 with a floor of 1e-9 ms (1 ps) near
    zero; the snapshot's latency_ms series value by value;
  - the frame count, frame_ms value by value (native snapshot) and its mean,
    p95 and max (score), which must not be the latency mean where the two
    differ (in one thread without queues a `latency` record spans exactly
    the elements' cooks, so there they agree);
  - threads (score), field by field; process_cpu_load_pct; latency_ms;
    frame_budget_ms; bottleneck_thread;
  - the critical path (score): no waiting element on it or marked
    on_critical_path;
  - with --slow: the costliest work element of the snapshot, rank 1 in the
    score of DIR, on the critical path, the element of bottleneck_thread and
    one of that thread's elements; in the heatmap every waiting element is
    drawn with class "waiting" and without "critical", and --slow has the
    hottest viridis fill of the cooked nodes. --queue must be a queue that
    `cookgraph report --no-llm` shows as back-pressure caused by --slow, and
    rank after it. --mixer must be a mixer with two or more inputs and cooks.
  - with --waiter (an element whose pushes wait downstream): the recording
    must show it waiting (latency_avg_ms at least twice avg_ms plus 1 ms);
    it ranks after the top three, no critical or spike finding of `cookgraph
    report --no-llm` names it, `cookgraph whatif` saves at most 1 ms halving
    or removing it, and names --slow first, as a finding does.
  - every recording: no line of the findings of `cookgraph report --no-llm
    DIR` says "n/a", and every property a finding names for its element
    (written "NAME (" or "NAME=", NAME among the properties cookgraph's
    packs name) is one gst-inspect-1.0 lists for the element's factory.
  - threads: name = "<element> thread" after the thread's work element with
    the most summed ms (its first element without work; "#2" where a name
    repeats), route = "first → … → last" of its elements.
A field missing from cookgraph's output fails the run at once with one line.

--perturb WHAT changes one expected value first; the run then succeeds only
when the comparison catches it, which shows the check can fail:
  mean, std, count (one element's statistics), frame (the mean frame_ms),
  edge, family, thread (one element moved to another thread), cpu (one
  thread's cpu_load_pct + 1%), latency (latency_ms mean), budget
  (frame_budget_ms), bottleneck (another element and thread), critical (the
  queue in front of --slow expected on the critical path), advice (another
  element named the slow one), rank (--slow and --queue swapped), elatency
  (one element's latency_avg_ms), nowait (every record taken as all work, as
  the tracer counts it; caught only where an element waits: --waiter), name
  (the thread with the most elements named after another of them), terms
  (the report's first property named for a finding's element renamed to one
  the element lacks).
--show prints the whole reading (per element cooks, threads, loads).
"""

import argparse
import bisect
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET

REL = 1e-9
# The floor for values near zero (a standard deviation of equal samples; the
# work of a record, whose CPU times are read on a line between two rusage
# records and so rounded differently here and in C++): 1 ps, a thousandth of
# the log's resolution.
ABS_MS = 1e-9
INT64_MAX = 2**63 - 1
DEFAULT_BUDGET_MS = 16.667  # cookgraph's budget without an fps
CPU_STEP_NS = 100_000_000   # cpu_load_pct_over_time: a point every 100 ms

ELEMENT_RE = re.compile(
    r"element-latency, element-id=\(string\)(0x[0-9a-fA-F]+), element=\(string\)(.*), "
    r"src=\(string\)([^,]*), time=\(guint64\)([^,;]*), ts=\(guint64\)([^,;]*);")
LATENCY_RE = re.compile(
    r"(?<![\w-])latency, src-element-id=\(string\)(0x[0-9a-fA-F]+), src-element=\(string\)(.*?), "
    r"src=\(string\)(.*?), sink-element-id=\(string\)(0x[0-9a-fA-F]+), "
    r"sink-element=\(string\)(.*?), sink=\(string\)(.*?), time=\(guint64\)([^,;]*), "
    r"ts=\(guint64\)([^,;]*);")
RUSAGE_RE = re.compile(
    r"(thread|proc)-rusage, (?:thread|process)-id=\(guint64\)(\d+), ts=\(guint64\)(\d+), "
    r"average-cpuload=\(uint\)(\d+), current-cpuload=\(uint\)(\d+), time=\(guint64\)(\d+);")

# matplotlib's viridis at t = 0, 0.1, ..., 1 (the heatmap's scale).
VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884",
           "#44bf70", "#7ad151", "#bddf26", "#fde725"]
SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"


class Missing(Exception):
    """A field cookgraph's output lacks: the run fails at once, perturbed or not."""


def need(obj, key, where):
    if not isinstance(obj, dict) or key not in obj:
        raise Missing(f"{where} has no `{key}` field")
    return obj[key]


def unescape_label(raw):
    """Lines of a dot label: \\n and \\l split lines, \\" and \\\\ are characters."""
    out, line, i = [], "", 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            d = raw[i + 1]
            if d in "nlr":
                out.append(line)
                line = ""
            elif d in '"\\':
                line += d
            else:
                line += c + d
            i += 2
            continue
        line += c
        i += 1
    out.append(line)
    while out and out[-1] == "":
        out.pop()
    return out


def parse_caps(raw):
    """A dot caps label ("video/x-raw\\l   framerate: 30/1\\l ...") -> (media type, fields)."""
    lines = unescape_label(raw)
    if not lines:
        return None, {}
    fields = {}
    for l in lines[1:]:
        if ":" in l:
            k, v = l.split(":", 1)
            fields[k.strip()] = v.strip()
    return lines[0].strip(), fields


def to_ns(text):
    """A guint64 field as an int, or None when unreadable or negative (above 2^63-1)."""
    try:
        v = int(text)
    except ValueError:
        return None
    return v if 0 <= v <= INT64_MAX else None


def pick_dump(directory):
    dumps = sorted(glob.glob(os.path.join(directory, "*.dot")))
    playing = [d for d in dumps if "PAUSED_PLAYING" in os.path.basename(d)]
    if not playing:
        sys.exit(f"gst_check: no PAUSED_PLAYING dump in {directory}")
    return playing[-1]


class Dump:
    """The dot file read line by line: GStreamer writes one statement a line."""

    def __init__(self, path):
        self.clusters = {}   # cluster id -> dict(type, name, params, parent, pads, children, fill)
        self.pads = {}       # pad id -> (cluster id, "src"/"sink", fill, name)
        self.links = []      # (from pad, to pad, dashed, caps)
        self.pipeline = None
        stack = []           # [cluster id or None (pad cluster: (owner, dir)) ...]
        with open(path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                line = raw.strip()
                m = re.match(r"subgraph cluster_(\S+) \{$", line)
                if m:
                    cid = m.group(1)
                    owner = next((s for s in reversed(stack) if isinstance(s, str)), None)
                    if owner and cid in (owner + "_src", owner + "_sink"):
                        stack.append((owner, "src" if cid.endswith("_src") else "sink"))
                    else:
                        self.clusters[cid] = dict(parent=owner, label=None, fill=None, pads=[],
                                                  children=[])
                        if owner:
                            self.clusters[owner]["children"].append(cid)
                        stack.append(cid)
                    continue
                if line == "}" and stack:
                    stack.pop()
                    continue
                m = re.match(r'label="(.*)";$', line)
                if m:
                    if not stack and self.pipeline is None:
                        self.pipeline = unescape_label(m.group(1))
                    elif stack and isinstance(stack[-1], str) and self.clusters[stack[-1]]["label"] is None:
                        self.clusters[stack[-1]]["label"] = unescape_label(m.group(1))
                    continue
                m = re.match(r'fillcolor="(.*)";$', line)
                if m and stack and isinstance(stack[-1], str):
                    self.clusters[stack[-1]]["fill"] = m.group(1)
                    continue
                m = re.match(r"(\S+) -> (\S+)(?: \[(.*)\])?;?$", line)
                if m:
                    attrs = m.group(3) or ""
                    if "invis" in attrs:
                        continue
                    caps = re.search(r'(?:taillabel|(?<![a-z])label)="([^"]*)"', attrs)
                    self.links.append((m.group(1), m.group(2), "dashed" in attrs,
                                       caps.group(1) if caps else ""))
                    continue
                m = re.match(r'(\S+) \[color=black, fillcolor="([^"]*)", label="([^"]*)"', line)
                if m and stack and isinstance(stack[-1], tuple):
                    owner, direction = stack[-1]
                    self.pads[m.group(1)] = (owner, direction, m.group(2), unescape_label(m.group(3))[0])
                    self.clusters[owner]["pads"].append(m.group(1))
        for cid, c in self.clusters.items():
            c["type"], c["name"] = c["label"][0], c["label"][1]
            rest = c["label"][2:]
            if rest and rest[0].startswith("["):
                rest = rest[1:]
            c["params"] = [tuple(p.split("=", 1)) if "=" in p else (p, "") for p in rest]
            c["pointer"] = re.search(r"_(0x[0-9a-fA-F]+)$", cid).group(1).lower()
            ghost = any(self.pads[p][2] in ("#ffdddd", "#ddddff") for p in c["pads"])
            c["bin"] = bool(c["children"]) or ghost or c["type"].endswith("Bin")
        self.name = self.pipeline[1]
        self.ids = {}
        for cid in self.clusters:
            self.ids[cid] = self.path(cid)
        self.caps_out = {a: caps for a, _, _, caps in self.links if caps}  # src pad -> caps
        self.caps_in = {b: caps for _, b, _, caps in self.links if caps}   # sink pad -> caps
        linked_in = {b for _, b, _, _ in self.links}
        for c in self.clusters.values():
            c["linked_sinks"] = [p for p in c["pads"] if self.pads[p][1] == "sink" and p in linked_in]
            c["srcs"] = [p for p in c["pads"] if self.pads[p][1] == "src"]

    def path(self, cid):
        parts = []
        while cid:
            parts.append(self.clusters[cid]["name"])
            cid = self.clusters[cid]["parent"]
        return "/" + self.name + "/" + "/".join(reversed(parts))

    def family(self, cid):
        c = self.clusters[cid]
        if c["bin"]:
            return "bin"
        if "queue" in c["type"].lower():
            return "queue"
        if len(c["linked_sinks"]) >= 2 and c["srcs"]:
            return "mixer"
        return "element"

    def leaf_of(self, pad):
        if pad not in self.pads:
            return None
        owner = self.pads[pad][0]
        return None if self.clusters[owner]["bin"] else owner

    def edges(self):
        """Element-level edges, walking through pads of bins (ghost and proxy pads)."""
        out = {}
        for a, b, _, _ in self.links:
            out.setdefault(a, []).append(b)
        result, peers, self.feeders = set(), {}, {}
        for a, b, dashed, _ in self.links:
            src = self.leaf_of(a)
            if dashed or src is None:
                continue
            todo, seen = [b], set()
            while todo:
                p = todo.pop()
                if p in seen:
                    continue
                seen.add(p)
                dst = self.leaf_of(p)
                if dst is not None:
                    result.add((self.ids[src], self.ids[dst]))
                    self.feeders.setdefault(dst, []).append(a)
                    peers[(src, self.pads[a][3])] = self.ids[dst]
                    continue
                todo.extend(out.get(p, []))
        return result, peers

    def samples_per_buffer(self):
        for c in self.clusters.values():
            for k, v in c["params"]:
                if k == "samplesperbuffer":
                    return int(v)
        if any(c["type"] == "GstAudioTestSrc" for c in self.clusters.values()):
            return 1024
        return None

    def fps_of(self, caps):
        """(video fps, audio buffers per second) a caps label gives, each or None."""
        media, fields = parse_caps(caps)
        video = audio = None
        m = re.fullmatch(r"(\d+)/(\d+)", fields.get("framerate", ""))
        if m and int(m.group(1)) > 0 and int(m.group(2)) > 0:  # any media type with a framerate
            video = int(m.group(1)) / int(m.group(2))
        s = self.samples_per_buffer()
        if media == "audio/x-raw" and s and fields.get("rate", "").isdigit() and int(fields["rate"]) > 0:
            audio = int(fields["rate"]) / s
        return video, audio

    def caps_period_ms(self, caps):
        """The buffer period one caps label gives: 1000*D/N for framerate=N/D, 1000*S/R for
        audio/x-raw rate=R (S samples per buffer), else None."""
        video, audio = self.fps_of(caps)
        if video:
            return 1000 / video
        return 1000 / audio if audio else None

    def period_ms(self, cid, pad_names):
        """An element's buffer period: the caps of its src pads `pad_names` (those its cooks in
        the thread were made on, in order), else the one distinct caps feeding it."""
        by_name = {self.pads[p][3]: p for p in self.clusters[cid]["srcs"]}
        for name in pad_names:
            caps = self.caps_out.get(by_name.get(name))
            period = self.caps_period_ms(caps) if caps else None
            if period:
                return period
        feeding = {self.caps_out[p] for p in self.feeders.get(cid, []) if p in self.caps_out}
        if len(feeding) == 1:
            return self.caps_period_ms(next(iter(feeding)))
        return None

    def budget_ms(self, outputs):
        feeding = [self.caps_in[p] for cid in outputs for p in self.clusters[cid]["pads"]
                   if self.pads[p][1] == "sink" and p in self.caps_in]
        every = [caps for _, _, _, caps in self.links if caps]
        for group in (feeding, every):
            rates = [v for v, _ in map(self.fps_of, group) if v]
            if rates:
                return 1000 / max(rates)
        for group in (feeding, every):
            rates = [a for _, a in map(self.fps_of, group) if a]
            if rates:
                return 1000 / rates[0]
        return DEFAULT_BUDGET_MS


def read_log(path):
    elements = {}   # pointer -> dict(name, records: [(pad, time ns|None, ts ns|None, thread, line)])
    pads = {}       # pointer -> {pad: [ns]} (readable records only), for the per-pad params
    threads = []    # streaming threads, by their first element-latency record
    latency = []    # readable `latency` record times, ns
    rusage = {}     # thread id (int) -> [(ts, average-cpuload, time)]
    proc = []       # [(ts, average-cpuload, time)]
    sinks = set()   # pointers named as the sink of `latency` records
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f):
            m = ELEMENT_RE.search(line)
            if m:
                fields = line.split()
                thread = fields[2].lower() if len(fields) > 2 else "?"
                if thread not in threads:
                    threads.append(thread)
                pointer = m.group(1).lower()
                e = elements.setdefault(pointer, dict(name=m.group(2), records=[]))
                time, ts = to_ns(m.group(4)), to_ns(m.group(5))
                e["records"].append((m.group(3), time, ts, thread, number))
                if time is not None:
                    pads.setdefault(pointer, {}).setdefault(m.group(3), []).append(time)
                continue
            m = LATENCY_RE.search(line)
            if m:
                sinks.add(m.group(4).lower())
                time = to_ns(m.group(7))
                if time is not None:
                    latency.append(time)
                continue
            m = RUSAGE_RE.search(line)
            if m:
                rec = (int(m.group(3)), int(m.group(4)), int(m.group(6)))
                if m.group(1) == "thread":
                    rusage.setdefault(int(m.group(2)), []).append(rec)
                else:
                    proc.append(rec)
    return dict(elements=elements, pads=pads, threads=threads, latency=latency, rusage=rusage,
                proc=proc, sinks=sinks)


def rising(values, key=lambda v: v):
    """The values whose key is not below the one before (a clock does not run back)."""
    out = []
    for v in values:
        if not out or all(a >= b for a, b in zip(key(v), key(out[-1]))):
            out.append(v)
    return out


class ThreadClock:
    """One thread's CPU time, as the work of a record needs it."""

    def __init__(self, rusage):
        # (ts, CPU time) of every thread-rusage record, out-of-order ones left out
        self.points = rising([(r[0], r[2]) for r in rusage], key=lambda p: p)
        self.ts = [p[0] for p in self.points]

    def cpu(self, t):
        """CPU ns at t: a record's at its ts, linear between records, the first's
        before them, the last's after them."""
        pts = self.points
        lo = bisect.bisect_right(self.ts, t)   # the first record with ts > t
        if lo == 0:
            return pts[0][1]
        t0, c0 = pts[lo - 1]
        if lo == len(pts) or t0 == t:
            return c0
        t1, c1 = pts[lo]
        return c0 + (c1 - c0) * (t - t0) / (t1 - t0)

    def work(self, entry, end):
        """ns of the record [entry, end] that were the element's own: from the
        thread's last rusage record q strictly inside it to the end, all of it;
        before q, the CPU time the thread spent."""
        i = bisect.bisect_left(self.ts, end)   # the first record with ts >= end
        if i == 0 or self.ts[i - 1] <= entry:
            return end - entry
        q, cq = self.points[i - 1]
        own = max(cq - self.cpu(entry), 0) + (end - q)
        return min(max(own, 0), end - entry)


def clocks_of(log):
    """thread pointer -> ThreadClock, for the streaming threads."""
    return {th: ThreadClock(log["rusage"].get(int(th, 16), [])) for th in log["threads"]
            if re.fullmatch(r"0x[0-9a-f]+", th)}


def scored(cooks, working):
    """cooks (cooks_of's) as cookgraph scores them: [(ms|None, thread, log
    line, src pad)], each cook's work for an element that works (where its
    thread's rusage records give it), its time otherwise."""
    return [(w if working and w is not None and v is not None else v, th, line, pad)
            for v, th, line, pad, w in cooks]


def scored_cooks(records, clocks, working):
    """scored(cooks_of(records, clocks), working)."""
    return scored(cooks_of(records, clocks), working)


def cooks_of(records, clocks):
    """Runs of consecutive records sharing one entry time (ts - time) ->
    [(ms|None, thread, log line, src pad of the run's first record, work ms|None)]:
    the smallest time of the run and that record's work (None without the
    thread's rusage records)."""
    cooks, entry = [], None
    for pad, time, ts, thread, line in records:
        if time is None or ts is None or time > INT64_MAX:
            cooks.append([None, thread, line, pad, None])   # missing: a cook of its own
            entry = None
            continue
        here = ts - time
        clock = clocks.get(thread)
        work = clock.work(here, ts) if clock and clock.points and here >= 0 else None
        if entry is not None and here == entry:
            if time < cooks[-1][0]:
                cooks[-1][0], cooks[-1][4] = time, work
            continue
        cooks.append([time, thread, line, pad, work])
        entry = here
    return [(None if t is None else t / 1e6, th, line, pad, None if w is None else w / 1e6)
            for t, th, line, pad, w in cooks]


def percentile(values, p):
    """NumPy's default (linear) percentile of non-empty values."""
    v = sorted(values)
    h = (len(v) - 1) * p / 100
    lo = math.floor(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def load_pct(recs, process=False):
    """cpu load (percent of one core) over rusage records [(ts, average-cpuload, time)].

    Without time between the first and last record: a thread's own average
    (per mille), none for the process (GStreamer divides its by the cores)."""
    if not recs:
        return None
    if recs[-1][0] != recs[0][0]:
        return 100 * (recs[-1][2] - recs[0][2]) / (recs[-1][0] - recs[0][0])
    return None if process else recs[-1][1] / 10


def load_over_time(recs):
    if len(recs) < 2:
        return []
    t0, j, prev, points = recs[0][0], 1, recs[0], []
    for i, r in enumerate(recs[1:], 1):
        last = i == len(recs) - 1
        if r[0] >= t0 + j * CPU_STEP_NS or (last and r[0] != prev[0]):
            points.append([r[0] / 1e6, 100 * (r[2] - prev[2]) / (r[0] - prev[0])])
            prev = r
            while t0 + j * CPU_STEP_NS <= r[0]:
                j += 1
    return points


def expected(directory):
    dump = Dump(pick_dump(directory))
    log = read_log(os.path.join(directory, "trace.log"))
    by_pointer = {c["pointer"]: cid for cid, c in dump.clusters.items()}
    nodes = {"/" + dump.name: dict(type=dump.pipeline[0].strip("<>"), family="bin", output=False,
                                   params=[])}
    outputs = []
    for cid, c in dump.clusters.items():
        dirs = {dump.pads[p][1] for p in c["pads"]}
        output = not c["bin"] and (dirs == {"sink"} or c["pointer"] in log["sinks"])
        if output:
            outputs.append(cid)
        nodes[dump.ids[cid]] = dict(type=c["type"], family=dump.family(cid), params=c["params"],
                                    output=output)
    waiting = {nid for nid, n in nodes.items() if n["family"] in ("queue", "mixer")}
    edges, peers = dump.edges()

    # Cooks and per-element statistics. An element that works is scored on
    # its work where its thread's rusage records give it; queues and mixers on
    # the tracer's time.
    clocks = clocks_of(log)
    cooks, samples, pad_stats, frames, latencies = {}, {}, {}, 0, {}
    for pointer, e in log["elements"].items():
        cid = by_pointer.get(pointer)
        if cid is None:
            sys.exit(f"gst_check: {e['name']} ({pointer}) of the log is not in the dump")
        nid = dump.ids[cid]
        raw = cooks_of(e["records"], clocks)
        cooks[nid] = scored(raw, nid not in waiting)
        latencies[nid] = [v for v, *_ in raw]
        frames = max(frames, len(cooks[nid]))
        ms = [c[0] for c in cooks[nid] if c[0] is not None]
        lat = [v for v in latencies[nid] if v is not None]
        if ms:
            samples[nid] = dict(count=len(ms), mean=sum(ms) / len(ms), std=statistics.pstdev(ms),
                                cooks=len(cooks[nid]), latency_mean=sum(lat) / len(lat),
                                latency_std=statistics.pstdev(lat), latency_max=max(lat))
        pads = log["pads"].get(pointer, {})
        if len(pads) > 1:
            pad_stats[nid] = {pad: dict(avg=sum(v) / len(v) / 1e6, buffers=len(v),
                                        peer=peers.get((cid, pad)))
                              for pad, v in pads.items()}
    cid_of = {v: k for k, v in dump.ids.items()}

    # Threads.
    threads = []
    for thread in log["threads"]:
        mine, first, on_pads = {}, {}, {}  # per element: ms of its cooks here, first line, pads
        for nid, cs in cooks.items():
            here = [(v, line, pad) for v, th, line, pad in cs if th == thread]
            if here:
                mine[nid] = [v for v, _, _ in here]
                first[nid] = here[0][1]
                on_pads[nid] = list(dict.fromkeys(pad for _, _, pad in here))
        order = sorted(mine, key=first.get)  # by their first cook in this thread
        work = [nid for nid in order if nid not in waiting]
        buffers = max((len(mine[nid]) for nid in order), default=0)
        busy_sum = sum(v for nid in work for v in mine[nid] if v is not None)
        busy = busy_sum / buffers if buffers else None
        period = next((p for p in (dump.period_ms(cid_of[nid], on_pads[nid]) for nid in order) if p),
                      None)
        recs = log["rusage"].get(int(thread, 16), []) if thread.startswith("0x") else []
        threads.append(dict(
            thread=thread, elements=order, work_elements=work, buffers=buffers,
            busy_ms_per_buffer=busy, buffer_period_ms=period,
            utilisation=None if period is None or busy is None else busy / period,
            cpu_ms=recs[-1][2] / 1e6 if recs else None, cpu_load_pct=load_pct(recs),
            cpu_load_pct_over_time=load_over_time(recs),
            _sums={nid: sum(v for v in mine[nid] if v is not None) for nid in work},
            _cooks={nid: mine[nid] for nid in work}))

    # Bottleneck.
    busy_threads = [t for t in threads if t["work_elements"]]
    bottleneck = None
    if busy_threads:
        if all(t["buffer_period_ms"] for t in busy_threads):
            key = "utilisation"
        else:
            key = "busy_ms_per_buffer"
        best = busy_threads[0]
        for t in busy_threads[1:]:
            if t[key] > best[key]:
                best = t
        element = best["work_elements"][0]
        for nid in best["work_elements"][1:]:
            if best["_sums"][nid] > best["_sums"][element]:
                element = nid
        bottleneck = dict(thread=best["thread"], element=element,
                          busy_ms_per_buffer=best["busy_ms_per_buffer"],
                          buffer_period_ms=best["buffer_period_ms"], utilisation=best["utilisation"])

    # Frames: the slowest thread's k-th buffer, of the threads at the
    # bottleneck's rate (a thread with a known, different buffer period, such
    # as audio beside video, does not set the frame).
    period = None
    if bottleneck is not None:
        period = next(t["buffer_period_ms"] for t in threads if t["thread"] == bottleneck["thread"])
    frame_threads = [t["thread"] for t in threads
                     if period is None or t["buffer_period_ms"] is None
                     or abs(t["buffer_period_ms"] - period) <= 1e-9 * period]
    for t in threads:
        t["sets_frame"] = t["thread"] in frame_threads
    frame_ms = []
    for k in range(frames):
        values = []
        for t in threads:
            if t["thread"] not in frame_threads:
                continue
            here = [cs[k] for cs in t["_cooks"].values() if k < len(cs) and cs[k] is not None]
            if here:
                values.append(sum(here))
        frame_ms.append(max(values) if values else None)
    # The score's summary leaves out the frames no thread worked on (only
    # queues and mixers logged that buffer index).
    worked = [v for v in frame_ms if v is not None]
    frame_summary = None
    if worked:
        frame_summary = dict(mean=sum(worked) / len(worked), p95=percentile(worked, 95),
                             max=max(worked), measured=True)

    lat = [v / 1e6 for v in log["latency"]]
    latency = None
    if lat:
        latency = dict(records=len(lat), mean=sum(lat) / len(lat), p95=percentile(lat, 95),
                       max=max(lat))
    # Names: "<element> thread" after the work element with the most summed
    # ms (the first on ties), else the first element; "#2", "#3" where a
    # name repeats; route: first → … → last element.
    seen = {}
    for t in threads:
        if t["work_elements"]:
            named = t["work_elements"][0]
            for nid in t["work_elements"][1:]:
                if t["_sums"][nid] > t["_sums"][named]:
                    named = nid
            t["name"] = short(named) + " thread"
        elif t["elements"]:
            t["name"] = short(t["elements"][0]) + " thread"
        else:
            t["name"] = "thread " + t["thread"]
        seen[t["name"]] = seen.get(t["name"], 0) + 1
        if seen[t["name"]] > 1:
            t["name"] += f" #{seen[t['name']]}"
        el = [short(n) for n in t["elements"]]
        t["route"] = " → ".join(el if len(el) <= 2 else [el[0], "…", el[-1]])
    for t in threads:
        t.pop("_sums")
        t.pop("_cooks")
    return dict(nodes=nodes, edges=edges, samples=samples, pads=pad_stats, frames=frames,
                cooks={nid: [c[0] for c in cs] for nid, cs in cooks.items()},
                latencies=latencies, frame_threads=frame_threads,
                frame_ms=frame_ms, frame_summary=frame_summary, threads=threads,
                bottleneck=bottleneck, latency=latency, budget=dump.budget_ms(outputs),
                process_cpu=load_pct(log["proc"], process=True), waiting=waiting)


def perturb(exp, what, args):
    # One nanosecond, or a hundred times the comparison's relative tolerance
    # where that is more (a queue's mean of a second).
    def nudge(v):
        return v + max(1e-6, 100 * REL * abs(v))
    if what == "mean":
        node = max(exp["samples"], key=lambda k: exp["samples"][k]["mean"])
        exp["samples"][node]["mean"] = nudge(exp["samples"][node]["mean"])
    elif what == "std":
        node = max(exp["samples"], key=lambda k: exp["samples"][k]["std"])
        exp["samples"][node]["std"] = nudge(exp["samples"][node]["std"])
    elif what == "elatency":
        node = max(exp["samples"], key=lambda k: exp["samples"][k]["latency_mean"])
        exp["samples"][node]["latency_mean"] = nudge(exp["samples"][node]["latency_mean"])
    elif what == "nowait":
        # Every record all work, as the latency tracer counts it: the waiting
        # of --waiter must then be found in its score.
        for nid, e in exp["samples"].items():
            lat = [v for v in exp["latencies"][nid] if v is not None]
            if nid not in exp["waiting"]:
                e["mean"], e["std"] = sum(lat) / len(lat), statistics.pstdev(lat)
    elif what == "count":
        node = sorted(exp["samples"])[0]
        exp["samples"][node]["count"] += 1
    elif what == "frame":
        s = exp["frame_summary"]
        if s is None:
            exp["frame_summary"] = dict(mean=1.0, p95=1.0, max=1.0, measured=True)
        else:
            s["mean"] += 1e-6
    elif what == "edge":
        exp["edges"].discard(sorted(exp["edges"])[0])
    elif what == "family":
        node = next(k for k, v in sorted(exp["nodes"].items()) if v["family"] == "element")
        exp["nodes"][node]["family"] = "queue"
    elif what == "name":
        t = max(exp["threads"], key=lambda t: len(t["elements"]))
        t["name"] = short(t["elements"][0]) + " thread" if t["name"] != short(t["elements"][0]) + " thread" \
            else short(t["elements"][-1]) + " thread"
    elif what == "thread":
        # Move the last element of the first thread to the next thread (or a new one).
        src = next(t for t in exp["threads"] if t["elements"])
        others = [t for t in exp["threads"] if t is not src]
        dst = others[0] if others else dict(thread="0x0", elements=[], work_elements=[])
        nid = src["elements"].pop()
        dst["elements"].append(nid)
        if nid in src["work_elements"]:
            src["work_elements"].remove(nid)
            dst["work_elements"].append(nid)
    elif what == "cpu":
        t = next((t for t in exp["threads"] if t["cpu_load_pct"]), exp["threads"][0])
        t["cpu_load_pct"] = (t["cpu_load_pct"] or 1.0) * 1.01
    elif what == "latency":
        if exp["latency"] is None:
            exp["latency"] = dict(records=1, mean=1.0, p95=1.0, max=1.0)
        else:
            exp["latency"]["mean"] += 1e-6
    elif what == "budget":
        exp["budget"] *= 1.001
    elif what == "bottleneck":
        b = exp["bottleneck"]
        work = [(t["thread"], nid) for t in exp["threads"] for nid in t["work_elements"]]
        other = next(((th, nid) for th, nid in work if b is None or (th != b["thread"] and nid != b["element"])),
                     next(((th, nid) for th, nid in work if nid != (b or {}).get("element")),
                          ("0x0", "/none")))
        exp["bottleneck"] = dict(b or dict(busy_ms_per_buffer=0, buffer_period_ms=None, utilisation=None),
                                 thread=other[0], element=other[1])
        if args.slow:
            args.slow_expect = other[1].rsplit("/", 1)[-1]
    elif what == "critical":
        queue = args.queue or next(iter(sorted(exp["waiting"])), "").rsplit("/", 1)[-1]
        exp["waiting"] = {n for n in exp["waiting"] if not n.endswith("/" + queue)}
        exp["on_path"] = [n for n in exp["nodes"] if n.endswith("/" + queue)]
    elif what in ("advice", "rank", "terms"):
        pass  # main() names another element as the slow one / swaps slow and queue
    else:
        sys.exit(f"gst_check: unknown --perturb {what}")


def close(a, b):
    return abs(a - b) <= max(REL * max(abs(a), abs(b)), ABS_MS)


def close_std(a, b):
    return abs(a - b) <= max(REL * max(abs(a), abs(b)), ABS_MS)


def same(a, b):
    """Numbers (or None) equal to a relative 1e-9."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return close(float(a), float(b))


def compare_score(exp, rows, problems):
    """Per element: cooked_frames, avg_ms and std_ms of `cookgraph score DIR`."""
    by_id = {r["id"]: r for r in rows}
    for nid, e in sorted(exp["samples"].items()):
        r = by_id.get(nid)
        if r is None:
            problems.append(f"{nid}: not in the score of the recording")
            continue
        if r.get("cooked_frames") != e["count"]:
            problems.append(f"{nid}: score cooked_frames {r.get('cooked_frames')}, expected {e['count']}")
            continue
        if r.get("avg_ms") is None or not close(r["avg_ms"], e["mean"]):
            problems.append(f"{nid}: score avg_ms {r.get('avg_ms')!r}, expected {e['mean']!r}")
        if r.get("std_ms") is None or not close_std(r["std_ms"], e["std"]):
            problems.append(f"{nid}: score std_ms {r.get('std_ms')!r}, expected the population "
                            f"standard deviation {e['std']!r}")
        # The tracer's own times, waiting included: exactly its records.
        for key, want in (("latency_avg_ms", e["latency_mean"]), ("latency_std_ms", e["latency_std"]),
                          ("latency_max_ms", e["latency_max"])):
            got = need(r, key, nid)
            if got is None or not close_std(got, want):
                problems.append(f"{nid}: score {key} {got!r}, expected {want!r} (the element-latency "
                                "records)")
    for r in rows:
        if r.get("cooked_frames") and r["id"] not in exp["samples"]:
            problems.append(f"{r['id']}: {r['cooked_frames']} cooked frames in the score, expected none")


def compare_streaming(exp, s, problems):
    """threads, process_cpu_load_pct, latency_ms, frame_ms, frame_budget_ms, bottleneck_thread."""
    where = "snapshots[0]"
    got = need(s, "threads", where)
    want = exp["threads"]
    if [t.get("thread", "").lower() for t in got] != [t["thread"] for t in want]:
        problems.append(f"threads {[t.get('thread') for t in got]}, expected "
                        f"{[t['thread'] for t in want]}")
    by_thread = {t.get("thread", "").lower(): t for t in got}
    for w in want:
        g = by_thread.get(w["thread"])
        if g is None:
            continue
        name = f"thread {w['thread']}"
        for key in ("name", "route", "sets_frame", "elements", "work_elements", "buffers"):
            if need(g, key, f"{where}.threads[{name}]") != w[key]:
                problems.append(f"{name}: {key} {g[key]}, expected {w[key]}")
        for key in ("busy_ms_per_buffer", "buffer_period_ms", "utilisation", "cpu_ms",
                    "cpu_load_pct"):
            if not same(need(g, key, f"{where}.threads[{name}]"), w[key]):
                problems.append(f"{name}: {key} {g[key]!r}, expected {w[key]!r}")
        points = need(g, "cpu_load_pct_over_time", f"{where}.threads[{name}]")
        wp = w["cpu_load_pct_over_time"]
        if len(points) != len(wp) or not all(
                len(a) == 2 and same(a[0], b[0]) and same(a[1], b[1]) for a, b in zip(points, wp)):
            bad = next((i for i, (a, b) in enumerate(zip(points, wp))
                        if not (same(a[0], b[0]) and same(a[1], b[1]))), min(len(points), len(wp)))
            problems.append(f"{name}: cpu_load_pct_over_time has {len(points)} points, expected "
                            f"{len(wp)}; first difference at {bad}: "
                            f"{points[bad] if bad < len(points) else None} vs "
                            f"{wp[bad] if bad < len(wp) else None}")
    pc = need(s, "process_cpu_load_pct", where)
    if not same(pc, exp["process_cpu"]):
        problems.append(f"process_cpu_load_pct {pc!r}, expected {exp['process_cpu']!r}")

    def compare_stats(name, keys, note=""):
        """The object `name` of the score against exp's, key by key (both may be null)."""
        got = need(s, name, where)
        want = exp["latency" if name == "latency_ms" else "frame_summary"]
        if want is None or got is None:
            if got != want:
                problems.append(f"{name} {got!r}, expected {want!r}")
            return got, want
        for key in keys:
            if not same(need(got, key, f"{where}.{name}"), want[key]):
                problems.append(f"{name}.{key} {got[key]!r}, expected {want[key]!r}{note}")
        return got, want

    compare_stats("latency_ms", ("records", "mean", "p95", "max"))
    fm, want = compare_stats("frame_ms", ("mean", "p95", "max"),
                             " (the slowest thread's k-th buffer)")
    if fm is not None and want is not None:
        # In one thread without queues a `latency` record spans exactly the
        # elements' cooks, so the two agree there: object only where they differ.
        lat = exp["latency"]
        if lat and not close(want["mean"], lat["mean"]) and close(fm["mean"], lat["mean"]):
            problems.append(f"frame_ms.mean {fm['mean']!r} is the mean of the `latency` records: "
                            "latency is not frame time")
    if need(s, "frames", where) != exp["frames"]:
        problems.append(f"score frames {s['frames']}, expected {exp['frames']}")

    budget = need(s, "frame_budget_ms", where)
    if not same(budget, exp["budget"]):
        problems.append(f"frame_budget_ms {budget!r}, expected {exp['budget']!r}")

    b = need(s, "bottleneck_thread", where)
    w = exp["bottleneck"]
    if b is None or w is None:
        if b != w:
            problems.append(f"bottleneck_thread {b!r}, expected {w!r}")
    else:
        for key in ("thread", "element"):
            if str(need(b, key, where + ".bottleneck_thread")).lower() != w[key].lower():
                problems.append(f"bottleneck_thread.{key} {b[key]!r}, expected {w[key]!r}")
        for key in ("busy_ms_per_buffer", "buffer_period_ms", "utilisation"):
            if not same(need(b, key, where + ".bottleneck_thread"), w[key]):
                problems.append(f"bottleneck_thread.{key} {b[key]!r}, expected {w[key]!r}")


def check_critical(args, exp, s, problems):
    """Waiting elements are never on the critical path; --slow is."""
    path = need(need(s, "critical_path", "snapshots[0]"), "nodes", "snapshots[0].critical_path")
    rows = {r["id"]: r for r in s["nodes"]}
    for nid in sorted(exp["waiting"]):
        if nid in path or (nid in rows and need(rows[nid], "on_critical_path", nid)):
            problems.append(f"{nid} ({exp['nodes'][nid]['family']}) is on the critical path "
                            f"{path}: a waiting element is never on it")
    on_path = list(exp.get("on_path", []))
    if args.slow:
        on_path += [n for n in exp["nodes"] if n.endswith("/" + args.slow)]
    for nid in on_path:
        row = rows.get(nid)
        if nid not in path or row is None or not need(row, "on_critical_path", nid):
            problems.append(f"{nid} is not on the critical path {path}")


def check_bottleneck_slow(args, exp, s, problems):
    """--slow is the element of bottleneck_thread, and in that thread."""
    b = need(s, "bottleneck_thread", "snapshots[0]")
    slow = getattr(args, "slow_expect", args.slow)
    if b is None or not str(b.get("element", "")).endswith("/" + slow):
        problems.append(f"bottleneck_thread {b!r}: expected {slow} as its element")
        return
    thread = next((t for t in s["threads"] if t.get("thread", "").lower() == str(b["thread"]).lower()), None)
    if thread is None or b["element"] not in thread.get("elements", []):
        problems.append(f"{b['element']} is not among the elements of the bottleneck thread "
                        f"{b['thread']}")


def viridis_position(fill):
    """Where a colour lies on the viridis scale (0..1), or None when it is not on it."""
    m = re.fullmatch(r"#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})", fill or "")
    if not m:
        return None
    c = [int(x, 16) for x in m.groups()]
    rgb = [[int(h[i:i + 2], 16) for i in (1, 3, 5)] for h in VIRIDIS]
    best = (None, 1e9)
    for i in range(len(rgb) - 1):
        a, b = rgb[i], rgb[i + 1]
        d = [b[j] - a[j] for j in range(3)]
        t = sum((c[j] - a[j]) * d[j] for j in range(3)) / sum(x * x for x in d)
        t = min(1.0, max(0.0, t))
        dist = math.dist(c, [a[j] + t * d[j] for j in range(3)])
        if dist < best[1]:
            best = ((i + t) / (len(rgb) - 1), dist)
    return best[0] if best[1] <= 2.0 else None


def check_heatmap(args, exp, out, problems):
    """Waiting elements are drawn "waiting", never "critical"; --slow has the hottest fill."""
    svg = os.path.join(out, "heatmap.svg")
    run = subprocess.run([args.cookgraph, "graph", args.dir, "--format", "svg", "-o", svg],
                         capture_output=True, text=True)
    if run.returncode != 0:
        problems.append(f"cookgraph graph --format svg failed: {run.stderr.strip()}")
        return
    groups = {}
    for g in ET.parse(svg).getroot().iter(SVG + "g"):
        cls = g.get("class", "").split()
        if "node" not in cls:
            continue
        title = next((a.get(XLINK_TITLE) for a in g.iter(SVG + "a") if a.get(XLINK_TITLE)), None)
        if title is None:
            continue
        nid = title.split("\n")[0].rsplit(" (", 1)[0]
        fill = next((e.get("fill") for e in g.iter() if e.tag in (SVG + "path", SVG + "polygon",
                                                                   SVG + "ellipse")), None)
        groups[nid] = (cls, fill)
    for nid in sorted(exp["waiting"]):
        if nid not in groups:
            continue
        cls, _ = groups[nid]
        if "waiting" not in cls or "critical" in cls:
            problems.append(f"heatmap: {nid} has classes {cls}, expected waiting and not critical")
    slow = getattr(args, "slow_expect", args.slow)
    slow_id = next((n for n in groups if n.endswith("/" + slow)), None)
    if slow_id is None:
        problems.append(f"heatmap: {slow} is not drawn")
        return
    heat = {n: viridis_position(f) for n, (c, f) in groups.items() if "cooked" in c}
    heat = {n: v for n, v in heat.items() if v is not None}
    hottest = max(heat, key=heat.get) if heat else None
    if heat.get(slow_id) is None or heat[slow_id] < heat[hottest]:
        problems.append(f"heatmap: {slow_id} has fill {groups[slow_id][1]}, the hottest is "
                        f"{hottest} ({groups[hottest][1] if hottest else None})")


def check_rank(args, rows, problems):
    """The heavy element ranks first; the queue in front of it comes after it."""
    ranks = {r["id"].rsplit("/", 1)[-1]: r.get("rank") for r in rows}
    slow = ranks.get(args.slow)
    if slow != 1:
        first = next((r["id"] for r in rows if r.get("rank") == 1), None)
        problems.append(f"{args.slow} has rank {slow}, expected 1 (rank 1 is {first})")
    if args.queue:
        queue = ranks.get(args.queue)
        if queue is None or slow is None or queue <= slow:
            problems.append(f"{args.queue} has rank {queue}, expected after {args.slow} ({slow}): "
                            "a queue waits, it is ranked after the elements that work")


def compare(exp, snap, problems):
    nodes = {n["id"]: n for n in snap["nodes"]}
    if set(nodes) != set(exp["nodes"]):
        problems.append(f"node ids differ: only expected {sorted(set(exp['nodes']) - set(nodes))}, "
                        f"only in the snapshot {sorted(set(nodes) - set(exp['nodes']))}")
    for nid, e in exp["nodes"].items():
        n = nodes.get(nid)
        if n is None:
            continue
        if n.get("type") != e["type"] or n.get("family") != e["family"]:
            problems.append(f"{nid}: type/family {n.get('type')}/{n.get('family')}, "
                            f"expected {e['type']}/{e['family']}")
        if bool(n.get("output", False)) != e["output"]:
            problems.append(f"{nid}: output {n.get('output', False)}, expected {e['output']}")
        params = n.get("params", {})
        for key, value in e["params"]:
            if params.get(key) != value:
                problems.append(f"{nid}: param {key}={params.get(key)!r}, expected {value!r}")
    edges = {(src, n["id"]) for n in snap["nodes"] for src in n.get("inputs", [])}
    if edges != exp["edges"]:
        problems.append(f"edges differ: only expected {sorted(exp['edges'] - edges)}, "
                        f"only in the snapshot {sorted(edges - exp['edges'])}")
    frames = snap.get("frames", {})
    index = frames.get("index", [])
    if len(index) != exp["frames"]:
        problems.append(f"{len(index)} frames, expected {exp['frames']}")
    series = frames.get("series", {})
    for nid in sorted(set(series) | set(exp["cooks"])):
        got = series.get(nid, {}).get("cook_ms", [])
        values = [v for v in got if v is not None]
        e = exp["samples"].get(nid)
        if e is None:
            if values:
                problems.append(f"{nid}: {len(values)} samples, expected none")
            continue
        if len(values) != e["count"]:
            problems.append(f"{nid}: {len(values)} samples, expected {e['count']}")
        elif not close(sum(values) / len(values), e["mean"]):
            problems.append(f"{nid}: mean cook_ms {sum(values) / len(values)!r}, expected {e['mean']!r}")
        else:
            want = exp["cooks"][nid]
            got = got + [None] * (len(want) - len(got))
            bad = next((k for k, w in enumerate(want) if not same(got[k], w)), None)
            if bad is not None:
                problems.append(f"{nid}: cook_ms[{bad}] {got[bad]!r}, expected its cook {bad} "
                                f"{want[bad]!r}")
    for nid, want in sorted(exp["latencies"].items()):
        got = list(series.get(nid, {}).get("latency_ms", []))
        got += [None] * (len(want) - len(got))
        bad = next((k for k, w in enumerate(want) if not same(got[k], w)), None)
        if bad is not None:
            problems.append(f"{nid}: latency_ms[{bad}] {got[bad]!r}, expected its record's time "
                            f"{want[bad]!r}")
    for nid, pads in exp["pads"].items():
        params = nodes.get(nid, {}).get("params", {})
        for pad, e in pads.items():
            got = (params.get(pad + "::avg_ms"), params.get(pad + "::buffers"), params.get(pad + "::peer"))
            want = (f"{e['avg']:.3f}", str(e["buffers"]), e["peer"])
            # avg_ms is printed with 3 decimals: allow the last digit to round either way
            if got[1:] != want[1:] or got[0] is None or abs(float(got[0]) - e["avg"]) > 0.0005 + 1e-9:
                problems.append(f"{nid}: pad {pad} params {got}, expected {want}")
    got = list(frames.get("frame_ms", []))
    want = exp["frame_ms"]
    got += [None] * (len(want) - len(got))
    bad = next((k for k, w in enumerate(want) if not same(got[k], w)), None)
    if bad is None and len(got) > len(want) and any(v is not None for v in got[len(want):]):
        bad = len(want)
        want = want + [None]
    if bad is not None:
        problems.append(f"frame_ms[{bad}] {got[bad]!r}, expected {want[bad]!r} (the slowest "
                        "thread's buffer)")
    elif exp["frame_summary"] and exp["frame_summary"]["measured"]:
        worked = [v for v in want if v is not None]
        mean = sum(worked) / len(worked)
        if not close(mean, exp["frame_summary"]["mean"]):
            problems.append(f"mean frame_ms {mean!r}, expected {exp['frame_summary']['mean']!r}")


def check_advice(args, snap, snapshot_path, out, problems):
    """What `cookgraph score` and `report` make of the slow element and its queue."""
    ids = {n["id"].rsplit("/", 1)[-1]: n for n in snap["nodes"]}
    score = subprocess.run([args.cookgraph, "score", snapshot_path, "--format", "json"],
                           capture_output=True, text=True)
    if score.returncode != 0:
        problems.append(f"cookgraph score failed: {score.stderr.strip()}")
        return
    rows = json.loads(score.stdout)["snapshots"][0]["nodes"]
    family = {n["id"]: n.get("family") for n in snap["nodes"]}
    work = [r for r in rows if family.get(r["id"]) not in ("queue", "mixer", "bin")]
    costliest = max(work, key=lambda r: r["per_frame_ms"])
    if args.slow and costliest["id"] != ids[args.slow]["id"]:
        problems.append(f"costliest work is {costliest['id']} ({costliest['per_frame_ms']} ms), "
                        f"expected {args.slow}")
    if not args.queue:
        return
    queue = ids[args.queue]
    if queue.get("family") != "queue":
        problems.append(f"{queue['id']} has family {queue.get('family')}, expected queue")
    report = os.path.join(out, "report.md")
    run = subprocess.run([args.cookgraph, "report", snapshot_path, "-o", report, "--no-llm"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        problems.append(f"cookgraph report failed: {run.stderr.strip()}")
        return
    text = open(report, encoding="utf-8").read()
    slow_id = ids[args.slow]["id"]
    lines = [l for l in text.splitlines() if "waiting for" in l and queue["id"] in l]
    if not any(slow_id in l for l in lines):
        problems.append(f"the report shows no back-pressure finding for {queue['id']} naming "
                        f"{slow_id}: {lines}")


def findings_of(text):
    """The report's findings: [(severity, rule, nodes, title)] from its Markdown."""
    out = []
    for block in re.split(r"\n(?=### )", text.split("\n## Findings", 1)[-1].split("\n## ", 1)[0]):
        m = re.match(r"### (\w+): (.*)", block)
        if not m:
            continue
        rule = re.search(r"^- rule: (.*)$", block, re.M)
        nodes = re.search(r"^- nodes: (.*)$", block, re.M)
        out.append((m.group(1), rule.group(1) if rule else "",
                    nodes.group(1).split(", ") if nodes else [], m.group(2)))
    return out


def check_waiter(args, rows, out, problems):
    """--waiter only waits downstream (an encoder whose pushes block in a muxer):
    the recording must show it (its tracer time well above its work), and then
    it is not in the top three, has no critical or spike finding, and halving
    or removing it saves at most 1 ms; --slow is what `whatif` and the
    findings name."""
    by_name = {r["id"].rsplit("/", 1)[-1]: r for r in rows}
    w = by_name.get(args.waiter)
    if w is None or w.get("avg_ms") is None:
        problems.append(f"{args.waiter}: not cooked in the score")
        return
    lat, avg = need(w, "latency_avg_ms", w["id"]), w["avg_ms"]
    if lat is None or lat < 2 * avg + 1:
        problems.append(f"{args.waiter}: tracer time {lat!r} ms against work {avg!r} ms: the "
                        "recording shows no waiting, so this check proves nothing")
    if w.get("rank") is not None and w["rank"] <= 3:
        problems.append(f"{args.waiter} ranks {w['rank']}: an element that waits is not in the top three")
    report = os.path.join(out, "report-waiter.md")
    run = subprocess.run([args.cookgraph, "report", args.dir, "-o", report, "--no-llm"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        problems.append(f"cookgraph report failed: {run.stderr.strip()}")
        return
    found = findings_of(open(report, encoding="utf-8").read())
    for severity, rule, nodes, title in found:
        if w["id"] in nodes and (severity == "critical" or "spike" in rule):
            problems.append(f"{args.waiter} has a {severity} {rule} finding: {title}")
    slow = by_name.get(args.slow, {}).get("id")
    if not any(slow in nodes for _, _, nodes, _ in found):
        problems.append(f"no finding names {slow}: {[(s, r, n) for s, r, n, _ in found]}")
    run = subprocess.run([args.cookgraph, "whatif", args.dir, "--format", "json"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        problems.append(f"cookgraph whatif failed: {run.stderr.strip()}")
        return
    nodes = need(json.loads(run.stdout), "nodes", "whatif")
    for n in nodes:
        if n.get("id") == w["id"] and (n.get("saved_ms") or 0) > 1.0:
            problems.append(f"whatif: {args.waiter} x{n.get('factor')} saves {n['saved_ms']} ms "
                            "per frame, expected at most 1 (it only waits)")
    if not nodes or nodes[0].get("id") != slow:
        problems.append(f"whatif names {nodes[0].get('id') if nodes else None} first, expected {slow}")


# Properties cookgraph's advice may name (advisor/packs/gstreamer.yaml and the
# generic pack), whichever element they belong to: a mention of one of these
# written as a property ("NAME (...", "NAME=") must be a property of the
# finding's element, as gst-inspect-1.0 lists it.
PROPERTY_TERMS = {
    "bitrate", "speed-preset", "key-int-max", "threads", "tune", "deadline", "cpu-used",
    "keyframe-max-dist", "speed-level", "keyframe-freq", "quality", "complexity", "n-threads",
    "method", "idct-method", "leaky", "max-size-buffers", "max-size-time", "max-size-bytes",
    "sync", "width", "height", "format"}


def element_properties(factory, cache={}):
    """The property names gst-inspect-1.0 lists for `factory`; None if it has no such element."""
    if factory not in cache:
        run = subprocess.run(["gst-inspect-1.0", factory], capture_output=True, text=True)
        props = None
        if run.returncode == 0:
            body = run.stdout.split("Element Properties:", 1)[-1]
            props = set(re.findall(r"^  ([a-z][a-z0-9-]*)\s*:", body, re.M))
        cache[factory] = props
    return cache[factory]


def advice_lines(text):
    """(finding's first node id, line) for each line of each finding of a report."""
    out = []
    for block in re.split(r"\n(?=### )", text.split("\n## Findings", 1)[-1].split("\n## ", 1)[0]):
        if not block.startswith("### "):
            continue
        nodes = re.search(r"^- nodes: (.*)$", block, re.M)
        first = nodes.group(1).split(", ")[0] if nodes else None
        out.extend((first, line) for line in block.splitlines() if line.strip())
    return out


def check_advice_terms(args, snap, text, problems):
    """No line of the report's findings says "n/a"; each property a finding
    names for its element (NAME followed by " (" or "=") is one that
    element's factory has (gst-inspect-1.0; the factory is the GType without
    "Gst", lower case, as gst-launch-1.0 names it)."""
    types = {n["id"]: n.get("type", "") for n in snap["nodes"]}
    for node, line in advice_lines(text):
        if "n/a" in line:
            problems.append(f"advice says n/a: {line.strip()}")
        if node not in types:
            continue
        factory = re.sub(r"^Gst", "", types[node]).lower()
        props = element_properties(factory)
        # Not a caps field ("video/x-raw, width=640"): those follow a comma.
        for term in re.findall(r"(?<![\w,-])(?<!, )([a-z][a-z0-9-]*)(?= \(|=)", line):
            if term in PROPERTY_TERMS and (props is None or term not in props):
                problems.append(f"advice for {short(node)} ({factory}) names {term!r}, which "
                                f"{factory} does not have: {line.strip()}")


def misname_property(snap, text):
    """The report with the first property a finding names for its element
    renamed to one of PROPERTY_TERMS that element lacks (as the x264-only
    advice named speed-preset for theoraenc); None when no finding names one."""
    types = {n["id"]: n.get("type", "") for n in snap["nodes"]}
    for node, line in advice_lines(text):
        if node not in types:
            continue
        props = element_properties(re.sub(r"^Gst", "", types[node]).lower()) or set()
        for m in re.finditer(r"(?<![\w,-])(?<!, )([a-z][a-z0-9-]*)(?= \(|=)", line):
            if m.group(1) in PROPERTY_TERMS and m.group(1) in props:
                other = sorted(PROPERTY_TERMS - props)[0]
                return text.replace(line, line[:m.start(1)] + other + line[m.end(1):], 1)
    return None


def short(nid):
    return nid.rsplit("/", 1)[-1]


def fmt(v, spec=".3f"):
    return "null" if v is None else format(v, spec)


def show(exp):
    """The whole reading, for a person comparing by hand."""
    for nid, s in sorted(exp["samples"].items()):
        print(f"  element {nid} ({exp['nodes'][nid]['family']}): {s['count']} cooks "
              f"({s['cooks']} with missing), mean {s['mean']:.6f} ms, std {s['std']:.6f} ms")
    for t in exp["threads"]:
        pts = t["cpu_load_pct_over_time"]
        print(f"  thread {t['thread']}: elements {[short(n) for n in t['elements']]}, work "
              f"{[short(n) for n in t['work_elements']]}, buffers {t['buffers']}, busy "
              f"{fmt(t['busy_ms_per_buffer'])} ms/buffer, period {fmt(t['buffer_period_ms'])} ms, "
              f"utilisation {fmt(t['utilisation'])}, cpu {fmt(t['cpu_ms'])} ms, load "
              f"{fmt(t['cpu_load_pct'], '.2f')} %, {len(pts)} load points"
              + (f" (first {pts[0][0]:.1f} ms {pts[0][1]:.1f} %, last {pts[-1][0]:.1f} ms "
                 f"{pts[-1][1]:.1f} %)" if pts else ""))
    b = exp["bottleneck"]
    print(f"  bottleneck: {'none' if b is None else b['thread'] + ' ' + short(b['element'])}; "
          f"process load {fmt(exp['process_cpu'], '.2f')} %; budget {exp['budget']:.6f} ms")
    lat = exp["latency"]
    fs = exp["frame_summary"]
    print(f"  latency: " + ("none" if lat is None else
                           f"{lat['records']} records, mean {lat['mean']:.6f}, p95 {lat['p95']:.6f}, "
                           f"max {lat['max']:.6f} ms")
          + f"; frame_ms: " + ("none" if fs is None else
                               f"mean {fs['mean']:.6f}, p95 {fs['p95']:.6f}, max {fs['max']:.6f} ms, "
                               f"measured {fs['measured']}"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--dump", required=True)
    parser.add_argument("--cookgraph", required=True)
    parser.add_argument("--slow")
    parser.add_argument("--queue")
    parser.add_argument("--tee")
    parser.add_argument("--bin")
    parser.add_argument("--mixer")
    parser.add_argument("--waiter")
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--perturb")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()

    out = os.path.join(args.dir, "check" + ("-" + args.perturb if args.perturb else ""))
    os.makedirs(out, exist_ok=True)
    snapshot_path = os.path.join(out, "snapshot.json")
    run = subprocess.run([args.dump, snapshot_path, args.dir], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"gst_check: gst_dump failed: {run.stderr.strip()}")
    warnings = [l for l in run.stderr.splitlines() if l.startswith("warning: ")]
    with open(snapshot_path, encoding="utf-8") as f:
        snap = json.load(f)

    exp = expected(args.dir)
    if args.show:
        show(exp)
    if args.perturb:
        perturb(exp, args.perturb, args)
    problems = []
    try:
        compare(exp, snap, problems)
        # The CLI reads the recording folder itself (no snapshot in between).
        score = subprocess.run([args.cookgraph, "score", args.dir, "--format", "json"],
                               capture_output=True, text=True)
        rows = []
        if score.returncode != 0:
            problems.append(f"cookgraph score {args.dir} failed: {score.stderr.strip()}")
            s = None
        else:
            s = json.loads(score.stdout)["snapshots"][0]
            rows = s["nodes"]
            compare_score(exp, rows, problems)
            compare_streaming(exp, s, problems)
            check_critical(args, exp, s, problems)
            if args.slow:
                check_bottleneck_slow(args, exp, s, problems)
        if args.slow:
            check_heatmap(args, exp, out, problems)
    except Missing as e:
        print(f"gst_check: {args.dir}: cookgraph's output is missing a field: {e}", file=sys.stderr)
        return 1
    if snap.get("engine") != "gstreamer":
        problems.append(f"engine {snap.get('engine')!r}")
    if args.no_latency != any("no `latency`" in w for w in warnings):
        problems.append(f"the no-latency warning is {'missing' if args.no_latency else 'there'}: {warnings}")
    names = {n["id"].rsplit("/", 1)[-1]: n for n in snap["nodes"]}
    if args.tee and not any(k.endswith("::avg_ms") for k in names[args.tee].get("params", {})):
        problems.append(f"{args.tee} has no per-pad params")
    if args.bin:
        b = names.get(args.bin)
        kids = [n for n in snap["nodes"] if b and n["id"].startswith(b["id"] + "/")]
        if not b or b.get("family") != "bin" or not kids:
            problems.append(f"{args.bin} is not a bin holding elements")
    if args.mixer:
        m = names.get(args.mixer)
        inputs = m.get("inputs", []) if m else []
        if not m or m.get("family") != "mixer" or len(inputs) < 2 or m["id"] not in exp["samples"]:
            problems.append(f"{args.mixer} is not a mixer with two or more inputs and samples: "
                            f"family {m.get('family') if m else None}, inputs {inputs}")
    if args.slow and args.perturb not in ("advice", "rank"):
        check_rank(args, rows, problems)
    if args.perturb == "rank":
        # Expect the queue first and the heavy element after it, as a ranking
        # that puts waiting before work would: the rank check must object.
        problems = []
        args.slow, args.queue = args.queue, args.slow
        check_rank(args, rows, problems)
    elif args.perturb == "advice":
        # Claim that another element that cooks is the slow one: the score and
        # report checks must then object.
        problems = []
        others = sorted(k.rsplit("/", 1)[-1] for k, v in exp["samples"].items()
                        if exp["nodes"][k]["family"] == "element" and not k.endswith("/" + args.slow))
        args.slow = others[0]
        check_advice(args, snap, snapshot_path, out, problems)
    elif not args.perturb:
        check_advice(args, snap, snapshot_path, out, problems)
    if args.waiter and not args.perturb:
        check_waiter(args, rows, out, problems)
    if not args.perturb or args.perturb == "terms":
        report = os.path.join(out, "report-terms.md")
        run = subprocess.run([args.cookgraph, "report", args.dir, "-o", report, "--no-llm"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"cookgraph report failed: {run.stderr.strip()}")
        else:
            text = open(report, encoding="utf-8").read()
            if args.perturb == "terms":
                problems = []
                text = misname_property(snap, text)
                if text is None:
                    print("gst_check: no finding names a property of its element to misname",
                          file=sys.stderr)
                    return 1
            check_advice_terms(args, snap, text, problems)

    counts = ", ".join(f"{k.rsplit('/', 1)[-1]} {v['count']}x{v['mean']:.3f} ms "
                       f"(std {v['std']:.3f})" for k, v in sorted(exp["samples"].items()))
    fs = exp["frame_summary"]
    b = exp["bottleneck"]
    print(f"gst_check: {args.dir}: {len(exp['nodes'])} nodes, {len(exp['edges'])} edges, "
          f"{exp['frames']} frames, frame_ms {'none' if fs is None else '%.3f ms mean' % fs['mean']}, "
          f"{len(exp['threads'])} threads, bottleneck "
          f"{'none' if b is None else short(b['element'])}, budget {exp['budget']:.3f} ms; {counts}")
    for w in warnings:
        print(w)
    if rows and args.slow:
        ranked = sorted((r for r in rows if r.get("rank")), key=lambda r: r["rank"])
        print("gst_check: ranks: " + ", ".join(
            f"{r['rank']} {r['id'].rsplit('/', 1)[-1]} {r['avg_ms']:.3f} ms" for r in ranked))
    if args.perturb:
        if problems:
            print(f"gst_check: the perturbed {args.perturb} was caught: {problems[0]}")
            return 0
        print(f"gst_check: the perturbed {args.perturb} was NOT caught", file=sys.stderr)
        return 1
    for p in problems:
        print("gst_check: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
