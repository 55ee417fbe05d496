#!/usr/bin/env python3
"""Checks cookgraph's GStreamer adapter against an independent reading.

gst_check.py DIR --dump GST_DUMP --cookgraph COOKGRAPH [--slow NAME] [--queue NAME]
             [--tee NAME] [--bin NAME] [--mixer NAME] [--no-latency] [--perturb WHAT]

DIR holds a recording made by tests/tools/gst_record.sh: .dot dumps and
trace.log. This script reads them itself (standard library only, its own
parsing: nothing is shared with the C++ reader), runs GST_DUMP (which writes
the adapter's Snapshot as native JSON) and compares:
  - nodes: ids "/<pipeline>/<bins>/<name>", GType, family (bin / queue /
    element), output flag, and the label's properties among the params;
  - element-level edges, resolved through ghost and proxy pads;
  - per element: the number of frames with a cook_ms and the mean cook_ms
    (frame k = the element's k-th buffer; with several src pads, the smallest
    of their k-th times), and a tee's per-pad avg_ms / buffers params;
  - per element, from `cookgraph score DIR --format json` (the CLI reading the
    recording folder itself): cooked_frames, avg_ms and std_ms, the population
    standard deviation of those samples (statistics.pstdev here), to a
    relative 1e-9 with a floor of 1e-12 ms for values near zero;
  - the frame count and the mean frame_ms (the largest k-th `latency` record
    over the sink pads, each pad's records in log order whichever source they
    name: behind a mixer the source changes now and then), or no frame_ms
    without such records.
Then it runs `cookgraph score --format json` and `cookgraph report --no-llm`
on that snapshot: --slow must be the costliest element that is not a queue,
--queue must be a queue that the report shows as back-pressure caused by
--slow. In the score of DIR, --slow must have rank 1 (the heavy element, not
the queue in front of it, ranks first) and --queue a larger rank (queues are
ranked after every element that works). --mixer must be an element with two
or more inputs and its own samples.

--perturb WHAT (mean, count, std, frame, edge, family, advice, rank) changes
one expected value first (advice: names another element as the slow one;
rank: swaps --slow and --queue, so the queue is expected first); the run then
succeeds only when the comparison catches it, which shows the check can
fail.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

REL = 1e-9
ABS_MS = 1e-12  # the floor for values near zero (a standard deviation of equal samples)

ELEMENT_RE = re.compile(
    r"element-latency, element-id=\(string\)(0x[0-9a-fA-F]+), element=\(string\)(.*), "
    r"src=\(string\)([^,]*), time=\(guint64\)(\d+), ts=\(guint64\)(\d+);")
LATENCY_RE = re.compile(
    r"(?<![\w-])latency, src-element-id=\(string\)(0x[0-9a-fA-F]+), src-element=\(string\)(.*?), "
    r"src=\(string\)(.*?), sink-element-id=\(string\)(0x[0-9a-fA-F]+), "
    r"sink-element=\(string\)(.*?), sink=\(string\)(.*?), time=\(guint64\)(\d+), "
    r"ts=\(guint64\)(\d+);")


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
        self.pads = {}       # pad id -> (cluster id, "src"/"sink", fill)
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

    def path(self, cid):
        parts = []
        while cid:
            parts.append(self.clusters[cid]["name"])
            cid = self.clusters[cid]["parent"]
        return "/" + self.name + "/" + "/".join(reversed(parts))

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
        result, peers = set(), {}
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
                    peers[(src, self.pads[a][3])] = self.ids[dst]
                    continue
                todo.extend(out.get(p, []))
        return result, peers


def read_log(path):
    elements = {}  # pointer -> dict(name, pads: {pad: [ns]})
    pairs = {}     # (sink ptr, sink pad) -> [ns], whichever source each record names
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = ELEMENT_RE.search(line)
            if m:
                e = elements.setdefault(m.group(1).lower(), dict(name=m.group(2), pads={}))
                e["pads"].setdefault(m.group(3), []).append(int(m.group(4)))
                continue
            m = LATENCY_RE.search(line)
            if m:
                key = (m.group(4).lower(), m.group(6))
                pairs.setdefault(key, []).append(int(m.group(7)))
    return elements, pairs


def expected(directory):
    dump = Dump(pick_dump(directory))
    elements, pairs = read_log(os.path.join(directory, "trace.log"))
    by_pointer = {c["pointer"]: cid for cid, c in dump.clusters.items()}
    sinks = {by_pointer[p[0]] for p in pairs if p[0] in by_pointer}
    nodes = {"/" + dump.name: dict(type=dump.pipeline[0].strip("<>"), family="bin", output=False,
                                   params=[])}
    for cid, c in dump.clusters.items():
        dirs = {dump.pads[p][1] for p in c["pads"]}
        family = "bin" if c["bin"] else ("queue" if "queue" in c["type"].lower() else "element")
        nodes[dump.ids[cid]] = dict(
            type=c["type"], family=family, params=c["params"],
            output=not c["bin"] and (dirs == {"sink"} or cid in sinks))
    edges, peers = dump.edges()
    samples, pad_stats = {}, {}
    frames = 0
    for pointer, e in elements.items():
        cid = by_pointer.get(pointer)
        if cid is None:
            sys.exit(f"gst_check: {e['name']} ({pointer}) of the log is not in the dump")
        series = list(e["pads"].values())
        n = max(len(s) for s in series)
        frames = max(frames, n)
        per_frame = [min(s[k] for s in series if k < len(s)) / 1e6 for k in range(n)]
        samples[dump.ids[cid]] = dict(count=n, mean=sum(per_frame) / n,
                                      std=statistics.pstdev(per_frame))
        if len(series) > 1:
            pad_stats[dump.ids[cid]] = {
                pad: dict(avg=sum(v) / len(v) / 1e6, buffers=len(v), peer=peers.get((cid, pad)))
                for pad, v in e["pads"].items()}
    frame_ms = None
    if pairs:
        n = max(len(v) for v in pairs.values())
        frames = max(frames, n)
        per_frame = [max(v[k] for v in pairs.values() if k < len(v)) / 1e6 for k in range(n)]
        frame_ms = dict(count=n, mean=sum(per_frame) / n)
    return dict(nodes=nodes, edges=edges, samples=samples, pads=pad_stats, frames=frames,
                frame_ms=frame_ms)


def perturb(exp, what):
    if what == "mean":
        node = max(exp["samples"], key=lambda k: exp["samples"][k]["mean"])
        exp["samples"][node]["mean"] += 1e-6  # one nanosecond
    elif what == "std":
        node = max(exp["samples"], key=lambda k: exp["samples"][k]["std"])
        exp["samples"][node]["std"] += 1e-6  # one nanosecond
    elif what == "count":
        node = sorted(exp["samples"])[0]
        exp["samples"][node]["count"] += 1
    elif what == "frame":
        if exp["frame_ms"] is None:
            exp["frame_ms"] = dict(count=exp["frames"], mean=1.0)
        else:
            exp["frame_ms"]["mean"] += 1e-6
    elif what == "edge":
        exp["edges"].discard(sorted(exp["edges"])[0])
    elif what in ("advice", "rank"):
        pass  # main() names another element as the slow one / swaps slow and queue
    elif what == "family":
        node = next(k for k, v in sorted(exp["nodes"].items()) if v["family"] == "element")
        exp["nodes"][node]["family"] = "queue"
    else:
        sys.exit(f"gst_check: unknown --perturb {what}")


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b), 1e-12)


def close_std(a, b):
    return abs(a - b) <= max(REL * max(abs(a), abs(b)), ABS_MS)


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
    for r in rows:
        if r.get("cooked_frames") and r["id"] not in exp["samples"]:
            problems.append(f"{r['id']}: {r['cooked_frames']} cooked frames in the score, expected none")


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
    for nid in sorted(set(series) | set(exp["samples"])):
        values = [v for v in series.get(nid, {}).get("cook_ms", []) if v is not None]
        e = exp["samples"].get(nid)
        if e is None:
            problems.append(f"{nid}: {len(values)} samples, expected none")
            continue
        if len(values) != e["count"]:
            problems.append(f"{nid}: {len(values)} samples, expected {e['count']}")
        elif not close(sum(values) / len(values), e["mean"]):
            problems.append(f"{nid}: mean cook_ms {sum(values) / len(values)!r}, expected {e['mean']!r}")
    for nid, pads in exp["pads"].items():
        params = nodes.get(nid, {}).get("params", {})
        for pad, e in pads.items():
            got = (params.get(pad + "::avg_ms"), params.get(pad + "::buffers"), params.get(pad + "::peer"))
            want = (f"{e['avg']:.3f}", str(e["buffers"]), e["peer"])
            # avg_ms is printed with 3 decimals: allow the last digit to round either way
            if got[1:] != want[1:] or got[0] is None or abs(float(got[0]) - e["avg"]) > 0.0005 + 1e-9:
                problems.append(f"{nid}: pad {pad} params {got}, expected {want}")
    frame_ms = [v for v in frames.get("frame_ms", []) if v is not None]
    if exp["frame_ms"] is None:
        if frame_ms:
            problems.append(f"{len(frame_ms)} frame_ms values, expected none")
    elif len(frame_ms) != exp["frame_ms"]["count"]:
        problems.append(f"{len(frame_ms)} frame_ms values, expected {exp['frame_ms']['count']}")
    elif not close(sum(frame_ms) / len(frame_ms), exp["frame_ms"]["mean"]):
        problems.append(f"mean frame_ms {sum(frame_ms) / len(frame_ms)!r}, "
                        f"expected {exp['frame_ms']['mean']!r}")


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
    work = [r for r in rows if family.get(r["id"]) not in ("queue", "bin")]
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
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--perturb")
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
    if args.perturb:
        perturb(exp, args.perturb)
    problems = []
    compare(exp, snap, problems)
    # The CLI reads the recording folder itself (no snapshot in between).
    score = subprocess.run([args.cookgraph, "score", args.dir, "--format", "json"],
                           capture_output=True, text=True)
    rows = []
    if score.returncode != 0:
        problems.append(f"cookgraph score {args.dir} failed: {score.stderr.strip()}")
    else:
        rows = json.loads(score.stdout)["snapshots"][0]["nodes"]
        compare_score(exp, rows, problems)
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
        if not m or m.get("family") != "element" or len(inputs) < 2 or m["id"] not in exp["samples"]:
            problems.append(f"{args.mixer} is not an element with two or more inputs and samples: "
                            f"inputs {inputs}")
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

    counts = ", ".join(f"{k.rsplit('/', 1)[-1]} {v['count']}x{v['mean']:.3f} ms "
                       f"(std {v['std']:.3f})" for k, v in sorted(exp["samples"].items()))
    fm = exp["frame_ms"]
    print(f"gst_check: {args.dir}: {len(exp['nodes'])} nodes, {len(exp['edges'])} edges, "
          f"{exp['frames']} frames, frame_ms "
          f"{'none' if fm is None else '%.3f ms mean' % fm['mean']}; {counts}")
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
