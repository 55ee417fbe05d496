#!/usr/bin/env python3
"""Independent reading of a Chrome trace, compared with cookgraph's.

    chrome_trace_check.py TRACE --dump CHROME_TRACE_DUMP [--perturb]

Reads TRACE with the standard library only (json, gzip, decimal), applies the
rules adapters/chrome/chrome_trace.h documents (markers, nesting, self time, flows,
node identity, outputs), prints the facts in the format of
tests/tools/chrome_trace_dump.cc, runs that program on TRACE and compares the
two sorted outputs line by line. Exit 0 when they agree, 1 when they differ,
77 (ctest's skip) when TRACE does not exist.

The algorithms differ on purpose from the C++ ones: times are exact Decimals,
the parent of a slice is found by brute force over all slices of its thread
(the deepest one that contains it), flows bind by scanning. --perturb adds
1 ns to one expected cook time, to prove the comparison can fail.
"""

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
from decimal import Decimal

KINETO_KEYS = {"schemaVersion", "deviceProperties", "computeProperties", "distributedInfo",
               "baseTimeNanoseconds", "traceName"}
KINETO_CATS = {"cpu_op", "Operator", "cuda_runtime", "Runtime", "kernel", "Kernel",
               "python_function", "gpu_memcpy", "user_annotation"}
OLD_KINETO = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Kernel": "kernel",
              "Memcpy": "gpu_memcpy", "Memset": "gpu_memset"}
GPU_FAMILIES = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync"}
# GPU-side slices that are not work: on the timeline, never nodes.
GPU_NOT_WORK = {"gpu_user_annotation", "cuda_sync"}


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f, parse_float=Decimal)
    if isinstance(data, list):
        return {}, data
    return data, data["traceEvents"]


def ns(value):
    return int(Decimal(value) * 1000)


def thread_of(e):
    pid = e.get("pid", "")
    return (str(pid), str(e.get("tid", pid)))


def producer_of(top, slices):
    if KINETO_KEYS & set(top):
        return "pytorch"
    if any((s["cat"] == "Session" and s["name"] == "model_run") or
           (s["cat"] == "Node" and s["name"].endswith("_kernel_time")) for s in slices):
        return "onnxruntime"
    if any(s["cat"] == "Op" and s["label"] is not None for s in slices):
        return "tensorflow"
    if any(s["cat"] in KINETO_CATS for s in slices):
        return "pytorch"
    # PyTorch's legacy (autograd-profiler) export: no categories at all, and
    # the one process it writes named "CPU functions".
    if all(not s["cat"] for s in slices) and any(s["thread"][0] == "CPU functions" for s in slices):
        return "pytorch-legacy"
    return "chrome-trace"


def tensorflow_streams(events, slices):
    """TensorFlow 1's GPU tracer (timeline.py and the GPU tracer's devices):
    the slices of "DEVICE/stream:N Compute" processes become kernels, or
    copies when named MEMCPY...; "DEVICE/stream:all" repeats them and
    "DEVICE/memcpy" repeats the copies, so those are left out (returned, by
    id) where the device has per-stream processes (memcpy: or stream:all)."""
    names = {str(e["pid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"
             and isinstance(e.get("args"), dict) and "name" in e["args"]}
    place = {}
    for s in slices:
        name = names.get(s["thread"][0], "")
        name = name[:-len(" Compute")] if name.endswith(" Compute") else name
        m = re.fullmatch(r"(.*)/stream:(.*)", name)
        if m:
            place[id(s)] = (m.group(1), "all" if m.group(2) == "all" else "stream")
        elif name.endswith("/memcpy"):
            place[id(s)] = (name[:-len("/memcpy")], "memcpy")
    kinds = {}
    for device, kind in place.values():
        kinds.setdefault(device, set()).add(kind)
    copies = set()
    for s in slices:
        if id(s) not in place:
            continue
        device, kind = place[id(s)]
        if (kind == "all" and "stream" in kinds[device]) or \
                (kind == "memcpy" and kinds[device] & {"stream", "all"}):
            copies.add(id(s))
        else:
            s["cat"] = "gpu_memcpy" if s["name"].startswith("MEMCPY") else "kernel"
    return copies


def family_of(producer, cat):
    if producer == "tensorflow":
        return cat if cat in ("kernel", "gpu_memcpy") else "op"
    if producer == "onnxruntime":
        return cat or "Node"
    if producer == "pytorch-legacy":
        return "cpu_op"
    if producer == "pytorch" and cat in OLD_KINETO:
        return OLD_KINETO[cat]
    return cat or "event"


def read_slices(events):
    slices, marks = [], []
    for index, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("X", "B", "E") or "ts" not in e:
            continue
        args = e.get("args") or {}
        s = {"name": e.get("name", ""), "cat": e.get("cat", ""), "thread": thread_of(e),
             "start": ns(e["ts"]), "event": index, "label": args.get("name"),
             "type": args.get("op_name"), "args": args, "ph": ph}
        if ph != "X":
            marks.append(s)
        elif "dur" in e and Decimal(e["dur"]) >= 0:
            s["end"] = s["start"] + ns(e["dur"])
            slices.append(s)
    # In time order, each E closes the latest B still open on its thread.
    open_ = {}
    for m in sorted(marks, key=lambda m: (m["start"], m["event"])):
        stack = open_.setdefault(m["thread"], [])
        if m["ph"] == "B":
            stack.append(m)
        elif stack:
            b = stack.pop()
            b["end"] = m["start"]
            slices.append(b)
    return slices


def sort_key(s):
    return (s["start"], -s["end"], s["event"])


def node_key(s, producer):
    """What one node of a slice is: (its primary name, its category)."""
    primary = s["label"] if producer == "tensorflow" and s["label"] is not None else s["name"]
    return (primary, s["cat"])


def new_node_id(s, producer, key, first_family):
    """The id of the node `key` names, first seen at slice `s` (slices in start
    order): ONNX Runtime's _kernel_time cut, a family suffix when the name was
    first seen with another family."""
    nid = key[0]
    if producer == "onnxruntime" and nid.endswith("_kernel_time"):
        nid = nid[:-len("_kernel_time")]
    nid = nid or "[no name]"
    first_family.setdefault(nid, s["family"])
    if first_family[nid] != s["family"]:
        nid += f" [{s['family']}]"
    return nid


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--dump", required=True)
    parser.add_argument("--perturb", action="store_true")
    args = parser.parse_args()
    top, events = load(args.trace)
    slices = read_slices(events)
    producer = producer_of(top, slices)
    copies = tensorflow_streams(events, slices) if producer == "tensorflow" else set()
    for s in slices:
        s["family"] = family_of(producer, s["cat"])
        s["gpu"] = s["family"] in GPU_FAMILIES

    # Roles: frame markers, ignored slices, nodes.
    step = re.compile(r"^ProfilerStep#(\d+)$")
    if any(step.match(s["name"]) and not s["gpu"] for s in slices):
        is_marker, numbered = (lambda s: step.match(s["name"])), True
    else:
        is_marker, numbered = (lambda s: s["name"] == "model_run"), False
    markers, nodes_slices, bindable = [], [], []
    for s in slices:
        if is_marker(s):
            if not s["gpu"]:
                markers.append(s)
            else:
                bindable.append(s)  # a marker's GPU copy: flows may end on it
        elif producer == "pytorch" and s["cat"] == "Trace":
            pass
        elif id(s) in copies:
            pass
        elif producer == "onnxruntime" and (s["cat"] == "Session" or s["name"].endswith(
                ("_fence_before", "_fence_after"))):
            pass
        elif s["family"] in GPU_NOT_WORK:
            bindable.append(s)
        else:
            nodes_slices.append(s)

    # Nesting by brute force: the parent is the latest-opened slice of the
    # thread still open at the slice's start ([start, end) spans, the outer
    # one sorting first). GPU slices never nest: work on a stream runs one
    # piece after another. A slice that outlives its parent (PyTorch's legacy
    # export truncates times to whole µs) takes from the parent's self time
    # only what overlaps it.
    by_thread = {}
    for s in nodes_slices + bindable:
        by_thread.setdefault(s["thread"], []).append(s)
    for s in nodes_slices + bindable:
        s["node"] = None
        around = [p for p in by_thread[s["thread"]] if p is not s and sort_key(p) < sort_key(s)
                  and not s["gpu"]
                  and p["start"] <= s["start"] < p["end"]]
        s["parent"] = max(around, key=sort_key) if around else None
        s["self"] = s["end"] - s["start"]
    for s in nodes_slices:
        if s["parent"] is not None:
            s["parent"]["self"] -= min(s["end"], s["parent"]["end"]) - s["start"]

    # The forward thread's wait for PyTorch's autograd thread is not self
    # time. Per pid: the forward thread is the one thread with a node slice
    # of category cpu_op or user_annotation named "...forward...", the
    # autograd thread the one other thread with such a slice named
    # "...autograd..." (HTA's _get_fwd_tid/_get_bwd_tid, the forward thread
    # left out of the second search). A forward-thread slice's window is from
    # the earliest start to the latest end of the autograd thread's top-level
    # node slices that overlap it, when that lies inside the slice; its self
    # time loses the window less the parts of the window its direct children
    # cover.
    def named(word, besides=None):
        found = {}
        for s in nodes_slices:
            pid = s["thread"][0]
            if (s["cat"] in ("cpu_op", "user_annotation") and word in s["name"]
                    and (besides is None or besides.get(pid) != s["thread"])):
                found.setdefault(pid, set()).add(s["thread"])
        return {pid: next(iter(ts)) for pid, ts in found.items() if len(ts) == 1}
    forward = named("forward")
    for pid, bwd in named("autograd", forward).items():
        if pid not in forward:
            continue
        top = [b for b in nodes_slices if b["thread"] == bwd and b["parent"] is None and not b["gpu"]]
        fwd = [f for f in nodes_slices if f["thread"] == forward[pid] and not f["gpu"]]
        windows = {}
        for f in fwd:
            over = [b for b in top if b["start"] < f["end"] and b["end"] > f["start"]]
            if over:
                lo = min(b["start"] for b in over)
                hi = max(b["end"] for b in over)
                if f["start"] <= lo and hi <= f["end"] and hi > lo:
                    windows[id(f)] = (lo, hi)
        cut = {id(f): windows[id(f)][1] - windows[id(f)][0] for f in fwd if id(f) in windows}
        for c in fwd:
            p = c["parent"]
            if p is None or id(p) not in windows:
                continue
            lo, hi = windows[id(p)]
            cut[id(p)] -= max(0, min(hi, c["end"], p["end"]) - max(lo, c["start"]))
        for f in fwd:
            if id(f) in cut:
                f["self"] -= max(cut[id(f)], 0)
                f["self"] = max(f["self"], 0)

    # Flows (v1): bind, then follow each (cat, id) in time order.
    def enclosing(thread, ts):
        around = [p for p in by_thread.get(thread, []) if p["start"] <= ts <= p["end"]]
        return max(around, key=sort_key) if around else None

    def following(thread, ts):
        after = [p for p in by_thread.get(thread, []) if p["start"] >= ts]
        return min(after, key=sort_key) if after else None

    flows = {}
    for index, e in enumerate(events):
        if e.get("ph") in ("s", "t", "f") and "id" in e and "ts" in e:
            t, ts = thread_of(e), ns(e["ts"])
            bound = following(t, ts) if e["ph"] == "f" and e.get("bp") != "e" else enclosing(t, ts)
            flows.setdefault((e.get("cat", ""), str(e["id"])), []).append(
                (ts, "stf".index(e["ph"]), index, bound))
    links = []
    for (cat, _), marks in flows.items():
        open_ = None
        for ts, phase, index, bound in sorted(marks, key=lambda m: m[:3]):
            if phase > 0 and open_ is not None and bound is not None and bound is not open_:
                links.append((open_, bound, cat == "fwdbwd"))
            open_ = None if phase == 2 else bound
    # TensorFlow 1: a GPU slice was launched by the host op of its node (the
    # same args.name) that started last at or before it, else the first.
    if producer == "tensorflow":
        for s in nodes_slices:
            if not s["gpu"] or s["label"] is None:
                continue
            ops = [h for h in nodes_slices if not h["gpu"] and h["label"] == s["label"]]
            if ops:
                before = [h for h in ops if h["start"] <= s["start"]]
                links.append((max(before, key=lambda h: (h["start"], ops.index(h)))
                              if before else min(ops, key=lambda h: h["start"]), s, False))

    # Frames.
    markers.sort(key=sort_key)
    kept = []
    for m in markers:
        if not kept or m["start"] >= kept[-1]["end"]:
            kept.append(m)
    if kept:
        index = [int(step.match(m["name"]).group(1)) if numbered else i
                 for i, m in enumerate(kept)]
        # A warm-up: in a trace of an ML engine, the first of three or more
        # steps, at least 1.5 times the median of the others, is left out
        # with everything in it.
        spans_ns = [m["end"] - m["start"] for m in kept]
        if (producer != "chrome-trace" and len(kept) >= 3
                and 2 * spans_ns[0] >= 3 * statistics.median(spans_ns[1:])):
            kept, index = kept[1:], index[1:]
        spans = [(m["start"], m["end"]) for m in kept]
    else:
        index = [0]
        spans = [(min(s["start"] for s in nodes_slices), max(s["end"] for s in nodes_slices))]

    def frame_at(ts):
        if not kept:
            return 0
        for f, (start, end) in enumerate(spans):
            if start <= ts < end:
                return f
        return None

    launcher = {}
    for a, b, _ in links:
        if b["gpu"] and not a["gpu"]:
            launcher.setdefault(id(b), a)
    for s in sorted(nodes_slices, key=lambda s: s["gpu"]):
        s["frame"] = launcher[id(s)]["frame"] if id(s) in launcher else frame_at(s["start"])
    counted = sorted((s for s in nodes_slices if s["frame"] is not None),
                     key=lambda s: (s["start"], s["event"]))

    # Nodes.
    ids, first_family, nodes = {}, {}, {}
    for s in counted:
        key = node_key(s, producer)
        if key not in ids:
            nid = ids[key] = new_node_id(s, producer, key, first_family)
            if nid not in nodes:
                nodes[nid] = {"family": s["family"], "gpu": s["gpu"],
                              "type": (s["type"] or "") if producer == "onnxruntime" else s["name"],
                              "inputs": [v for k, v in s["args"].items()
                                         if re.fullmatch(r"input\d+", k) and isinstance(v, str)],
                              "top": False, "feeds": False}
        s["node"] = ids[key]

    edges = set()
    for nid, node in nodes.items():
        for name in node["inputs"]:
            producer_id = re.sub(r":\d+$", "", name.lstrip("^"))
            if producer_id in nodes and producer_id != nid:
                edges.add(("data", producer_id, nid))
    launched = set()
    for s in counted:
        p = s["parent"]
        if p is not None and p.get("frame") is not None and p["node"] != s["node"]:
            edges.add(("call", p["node"], s["node"]))
    for a, b, fwdbwd in links:
        if a.get("node") is None or b.get("node") is None or a["node"] == b["node"]:
            continue
        if a.get("frame") is None or b.get("frame") is None:
            continue
        kind = "launch" if b["gpu"] and not a["gpu"] else "fwdbwd" if fwdbwd else "flow"
        if kind == "launch":
            launched.add(id(b))
        if kind != "launch" and ("data", a["node"], b["node"]) in edges:
            continue
        edges.add((kind, a["node"], b["node"]))
    for s in counted:
        p = s["parent"]
        if (p is None or p.get("frame") is None) and id(s) not in launched:
            nodes[s["node"]]["top"] = True
    for kind, a, b in edges:
        if kind in ("data", "flow"):
            nodes[a]["feeds"] = True

    # Samples.
    cook, cooks, whole = {}, {}, {}  # self time, calls, inclusive time (the spans)
    for s in counted:
        key = (index[s["frame"]], s["node"])
        cook[key] = cook.get(key, 0) + s["self"]
        whole[key] = whole.get(key, 0) + s["end"] - s["start"]
        cooks[key] = cooks.get(key, 0) + 1
    if args.perturb:
        first = sorted(cook)[0]
        cook[first] += 1

    def ms(value):
        return f"{value // 1000000}.{value % 1000000:06d}"

    lines = [f"engine {'pytorch' if producer == 'pytorch-legacy' else producer}"]
    lines += [f"frame {i} {ms(end - start)}" for i, (start, end) in zip(index, spans)]
    for nid, node in nodes.items():
        output = int(node["top"] and not node["feeds"])
        lines.append(f"node {nid}\t{node['family']}\t{node['type']}\t{output}")
    lines += [f"edge {kind}\t{a}\t{b}" for kind, a, b in edges]
    for (frame, nid), value in cook.items():
        gpu = ms(value) if nodes[nid]["gpu"] else "-"
        lines.append(f"sample {frame}\t{nid}\t{ms(value)}\t{gpu}\t{cooks[(frame, nid)]}"
                     f"\t{ms(whole[(frame, nid)])}")

    run = subprocess.run([args.dump, args.trace], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"chrome_trace_dump failed ({run.returncode}): {run.stderr}")
        return 1
    expected, got = sorted(lines), sorted(run.stdout.splitlines())
    if expected == got:
        print(f"{os.path.basename(args.trace)}: {len(nodes)} nodes, {len(edges)} edges, "
              f"{len(index)} frames, {len(cook)} samples agree")
        return 0
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    for line in missing[:20]:
        print(f"expected, not in cookgraph's: {line[:300]}")
    for line in extra[:20]:
        print(f"in cookgraph's, not expected: {line[:300]}")
    if not missing and not extra:
        print("the same lines, repeated a different number of times")
    return 1


if __name__ == "__main__":
    sys.exit(main())
