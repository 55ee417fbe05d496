#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz target from the project's test data.

    fuzz/seeds.py OUT_DIR

writes OUT_DIR/<target>/ for each target: the committed hand-made seeds in
fuzz/seeds/<target>/, the small test inputs of the format (tests/data, the
real traces of tests/data/fixtures, decompressed when gzipped) and the three examples cut down to
a few dozen nodes and frames (a fuzzer mutates small inputs best), as JSON and
as YAML. Deterministic: the same tree gives the same files.
"""

import gzip
import json
import pathlib
import shutil
import struct
import sys
import zlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "fixtures" / "traces"
MAX_SEED = 96 * 1024
TARGETS = ["native_json", "native_yaml", "chrome_trace", "gstreamer_dot", "gstreamer_log",
           "config", "sse", "prompt", "input", "live", "session"]
# What live_fuzz.cc cuts its input into datagrams at.
DATAGRAM_CUT = b"\xff\xfe\xfd\xfc"


def osc_string(text):
    """An OSC string: the bytes, a NUL, padded with NULs to a multiple of 4."""
    data = text.encode() + b"\0"
    return data + b"\0" * (-len(data) % 4)


def osc_message(address, *args):
    """An OSC message; each argument is (type tag, value) with tags i h f d s N."""
    tags = "," + "".join(t for t, _ in args)
    body = b""
    for tag, value in args:
        body += {"i": lambda v: struct.pack(">i", v), "h": lambda v: struct.pack(">q", v),
                 "f": lambda v: struct.pack(">f", v), "d": lambda v: struct.pack(">d", v),
                 "s": osc_string, "N": lambda v: b""}[tag](value)
    return osc_string(address) + osc_string(tags) + body


def osc_bundle(*messages):
    """"#bundle", an immediate time tag, then each message with its size."""
    data = osc_string("#bundle") + struct.pack(">Q", 1)
    for m in messages:
        data += struct.pack(">i", len(m)) + m
    return data


def live_seeds():
    """Datagram sequences as `cookgraph watch` receives them, in both forms."""
    json_frames = [
        b'{"frame": 1, "frame_ms": 16.4, "nodes": {"/p/a": 0.61, "/p/b": {"cook_ms": 1.2, '
        b'"gpu_ms": 0.9, "cooks": 2}}}',
        b'{"frame": 2, "more": true, "nodes": {"/p/a": 0.5}}\n{"frame": 2, "nodes": {"/p/b": 1.5}}',
        b'{"frame": 4, "nodes": {"/p/a": 0.7, "/p/c": {"cook_ms": 0.1, "cooks": 0}}}',
    ]
    osc_frames = [
        osc_bundle(osc_message("/cookgraph/frame", ("i", 1), ("f", 16.5)),
                   osc_message("/cookgraph/cook", ("s", "/p/a"), ("f", 0.61)),
                   osc_message("/cookgraph/cook", ("s", "/p/b"), ("d", 1.2), ("f", 0.9), ("i", 2))),
        osc_bundle(osc_message("/cookgraph/frame", ("h", 2)),
                   osc_message("/cookgraph/cook", ("s", "/p/a"), ("f", 0.5), ("N", None), ("i", 1)),
                   osc_message("/cookgraph/more")),
        osc_bundle(osc_message("/cookgraph/frame", ("h", 2)),
                   osc_message("/cookgraph/cook", ("s", "/p/b"), ("f", 1.5))),
    ]
    return {"json_lines.bin": DATAGRAM_CUT.join(json_frames),
            "osc_bundles.bin": DATAGRAM_CUT.join(osc_frames),
            "mixed.bin": DATAGRAM_CUT.join([json_frames[0], osc_frames[1], osc_frames[2]])}


def small_example(path, nodes=40, frames=20):
    """The first `nodes` nodes of an example and their first `frames` frames,
    with every reference to a node left out dropped, so it is still valid."""
    doc = json.loads(path.read_text())
    kept = doc["nodes"][:nodes]
    ids = {n["id"] for n in kept}
    for n in kept:
        for key in ("inputs", "refs", "feedback"):
            if key in n:
                n[key] = [i for i in n[key] if i in ids]
    doc["nodes"] = kept
    if "edges" in doc:
        doc["edges"] = [e for e in doc["edges"] if e.get("from") in ids and e.get("to") in ids]
    fr = doc["frames"]
    fr["index"] = fr["index"][:frames]
    if "frame_ms" in fr:
        fr["frame_ms"] = fr["frame_ms"][:frames]
    fr["series"] = {k: {m: v[:frames] for m, v in s.items()}
                    for k, s in fr["series"].items() if k in ids}
    return doc


def read_maybe_gzip(path):
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error):  # tests/data/bad holds broken gzip on purpose
            return None
    return data


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: seeds.py OUT_DIR")
    out = pathlib.Path(sys.argv[1])
    if out.exists():
        shutil.rmtree(out)
    dirs = {t: out / t for t in TARGETS}
    for d in dirs.values():
        d.mkdir(parents=True)

    def put(target, name, data):
        if isinstance(data, str):
            data = data.encode()
        if data is not None and len(data) <= MAX_SEED:
            (dirs[target] / name).write_bytes(data)

    for target in TARGETS:
        committed = ROOT / "fuzz" / "seeds" / target
        if committed.is_dir():
            for f in sorted(committed.iterdir()):
                put(target, f.name, f.read_bytes())

    for example in sorted((ROOT / "examples").glob("*.json")):
        doc = small_example(example)
        text = json.dumps(doc, indent=1)
        for target in ("native_json", "prompt", "input"):
            put(target, example.stem + ".json", text)
        put("native_yaml", example.stem + ".yaml", yaml.safe_dump(doc, sort_keys=False))
        put("input", example.stem + ".json.gz", gzip.compress(text.encode(), mtime=0))

    data_dir = ROOT / "tests" / "data"
    for f in sorted(data_dir.rglob("*")):
        if not f.is_file() or f.name in ("README.md", "cases.tsv"):
            continue
        if FIXTURES in f.parents:
            continue  # the real traces: below, as traces
        data = read_maybe_gzip(f)
        name = f.parent.name + "_" + f.name
        # The folder under tests/data, or under tests/data/bad (its corpus is
        # kept by format: native, chrome, config, pack, gstreamer, gzip, accepted).
        parts = f.relative_to(data_dir).parts
        group = parts[1] if parts[0] == "bad" and len(parts) > 2 else parts[0]
        put("input", name, f.read_bytes())
        if group == "config" or f.name.endswith("_config.yaml"):
            put("config", name, data)
        elif f.suffix == ".yaml" or f.name.endswith(".yaml.gz"):
            put("native_yaml", name, data)  # snapshots, and packs (read by yaml-cpp)
        elif group == "chrome" or "kineto" in f.name:
            put("chrome_trace", name, data)
        elif group in ("bad", "native", "accepted", "heatmap") and (
                f.name.endswith(".json") or f.name.endswith(".json.gz")):
            put("native_json", name, data)
            put("prompt", name, data)
        elif f.suffix == ".dot":
            put("gstreamer_dot", name, data)
            log = f.with_suffix(".log")
            if log.exists():
                put("gstreamer_log", f.stem + ".dot_log", data + b"\0" + log.read_bytes())
        elif f.suffix == ".log":
            put("gstreamer_log", name, data)

    for f in sorted(FIXTURES.rglob("*")):
        if f.is_file() and f.name != "README.md":
            data = read_maybe_gzip(f)
            put("chrome_trace", f.name.removesuffix(".gz"), data)
            put("input", f.name, f.read_bytes())

    for name, data in live_seeds().items():
        put("live", name, data)

    for pack in sorted((ROOT / "advisor" / "packs").glob("*.yaml")):
        put("native_yaml", "pack_" + pack.name, pack.read_bytes())
    for config in sorted((ROOT / "examples").rglob("*.yaml")):
        put("config", config.name, config.read_bytes())

    counts = {t: len(list(d.iterdir())) for t, d in dirs.items()}
    empty = [t for t, n in counts.items() if n == 0]
    if empty:
        sys.exit(f"seeds.py: no seeds for {', '.join(empty)}")
    print("seeds: " + ", ".join(f"{t} {n}" for t, n in counts.items()))


if __name__ == "__main__":
    main()
