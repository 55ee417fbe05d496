#!/usr/bin/env python3
"""Nothing is lost in a batch: `cookgraph score` over one folder holding every
input of the bad-input corpus (tests/data/bad and the cases bad_corpus.py
generates) together with good inputs (the examples, a Chrome trace, a
GStreamer recording).

  bad_input_batch.py COOKGRAPH SOURCE_DIR GEN_DIR WORK_DIR [--alone ALONE_COOKGRAPH]

Each input found in the folder (found as cookgraph's folder search finds
them, mirrored here; a file it would pass over fails the test, so nothing is
dropped unseen) is first scored alone. Then the whole folder, with -j 1 and
-j 2, in --format json and --format csv, and in three shards:
- the exit code is 2 (some inputs are bad);
- JSON: every bad input is under "errors" with the message it gets alone, every
  good one under "snapshots" exactly as alone, in the order of the inputs,
  nothing else;
- CSV: every good input's rows are its rows alone, and every bad input's
  error line is on standard error;
- --shard 1/3, 2/3, 3/3: disjoint, and together the whole run.
The batch reads with --limit input-size=64M, as do the runs alone: the
gigabyte cases then end in a second, and their results do not change with
the order or the number of threads.

With --alone, ALONE_COOKGRAPH makes the runs alone and COOKGRAPH the
batches: the ThreadSanitizer half of the test command
(scripts/test-sanitizers.sh) runs its batches against the normal build's
runs alone, which give the same bytes in a tenth of the time.
"""

import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import zlib

EXTENSIONS = (".json", ".json.gz", ".yaml", ".yml", ".yaml.gz", ".yml.gz")
NOT_INPUTS = ("README.md", "cases.tsv")  # the corpus's own notes, not inputs
LIMIT = ["--limit", "input-size=64M"]
TIMEOUT_S = 300


def head(path, size=256 << 10):
    with open(path, "rb") as f:
        opener = gzip.open if f.read(2) == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as f:
            return f.read(size)
    except (OSError, EOFError, zlib.error):
        return b""


def looks_like_dump(path):
    """adapters/gstreamer/gstreamer.cc LooksLikeGstreamerDot, on the decompressed head."""
    text = head(path)
    if text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    text = text.lstrip(b" \t\r\n")
    return text.startswith(b"digraph pipeline") and any(
        marker in text for marker in (b"Element-States", b"subgraph cluster_", b'label="<'))


def holds_dump(folder):
    return any(entry.is_file() and entry.name.endswith((".dot", ".dot.gz")) and looks_like_dump(entry.path)
               for entry in os.scandir(folder))


def find_inputs(root):
    """adapters/input_files.cc ExpandInputs for one folder: the inputs, and the
    files that belong to none (which a batch would pass over)."""
    inputs, stack = [], [root]
    while stack:
        folder = stack.pop()
        if holds_dump(folder):
            inputs.append(folder)
            continue
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.is_file() and entry.name.endswith(EXTENSIONS):
                inputs.append(entry.path)
    covered = set()
    for path in inputs:
        if os.path.isdir(path):
            covered.update(os.path.join(path, name) for name in os.listdir(path))
        else:
            covered.add(path)
    passed_over = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if path not in covered and name not in NOT_INPUTS:
                passed_over.append(path)
    return sorted(inputs), sorted(passed_over)


def link(source, target):
    """A hard link (the 2 GB sparse files take no room), else a sparse copy."""
    try:
        os.link(source, target)
    except OSError:  # another file system
        subprocess.run(["cp", "--sparse=always", source, target], check=True)


def link_tree(source, target):
    for folder, _, names in os.walk(source):
        out = os.path.join(target, os.path.relpath(folder, source))
        os.makedirs(out, exist_ok=True)
        for name in names:
            link(os.path.join(folder, name), os.path.join(out, name))


def build_folder(source, gen, work):
    batch = os.path.join(work, "batch")
    shutil.rmtree(batch, ignore_errors=True)
    link_tree(os.path.join(source, "tests", "data", "bad"), os.path.join(batch, "corpus"))
    link_tree(gen, os.path.join(batch, "generated"))
    good = os.path.join(batch, "good")
    os.makedirs(os.path.join(good, "gstreamer"))
    for name in ("touchdesigner_feedback.json", "gstreamer_pipeline.json", "pytorch_model.json"):
        link(os.path.join(source, "examples", name), os.path.join(good, name))
    fixture = os.path.join(source, "tests", "data", "fixtures", "traces", "kineto_cpu_only.json.gz")
    shutil.copyfile(fixture, os.path.join(good, os.path.basename(fixture)))
    for name in ("tee_bin.dot", "tee_bin.log"):
        link(os.path.join(source, "tests", "data", "gstreamer", name), os.path.join(good, "gstreamer", name))
    return batch


def run(cookgraph, args):
    done = subprocess.run([cookgraph] + args, capture_output=True, timeout=TIMEOUT_S,
                          env=dict(os.environ, NO_COLOR="1"))
    if done.returncode not in (0, 2):  # a signal is negative
        sys.exit(f"FAIL: cookgraph {' '.join(args)} ended with {done.returncode}")
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def csv_rows(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0] if rows else [], rows[1:]


def main():
    args = sys.argv[1:]
    alone_cookgraph = None
    if len(args) == 6 and args[4] == "--alone":
        alone_cookgraph = os.path.abspath(args[5])
        args = args[:4]
    if len(args) != 4:
        sys.exit(__doc__)
    cookgraph, source, gen, work = (os.path.abspath(a) for a in args)
    alone_cookgraph = alone_cookgraph or cookgraph
    batch = build_folder(source, gen, work)
    inputs, passed_over = find_inputs(batch)
    failures = []
    if passed_over:
        failures.append(f"files a folder search would pass over: {passed_over}")

    # Each input alone.
    alone, alone_csv, alone_err = {}, {}, {}
    for path in inputs:
        code, out, err = run(alone_cookgraph, ["score", path, "--format", "json"] + LIMIT)
        doc = json.loads(out)
        entries = doc["snapshots"] + doc["errors"]
        # An error names the file it is about: the input, or a file of a recording.
        named = entries[0]["file"] if len(entries) == 1 else ""
        if (named != path and not named.startswith(path + "/")) or code != (2 if doc["errors"] else 0):
            failures.append(f"{path} alone: exit code {code}, {out[:300]}")
            continue
        alone[path] = ("error", entries[0]) if doc["errors"] else ("snapshot", entries[0])
        if doc["errors"]:
            alone_err[path] = [line for line in err.splitlines() if line.startswith("cookgraph: error: ")]
        else:
            alone_csv[path] = csv_rows(run(alone_cookgraph, ["score", path, "--format", "csv"] + LIMIT)[1])[1]
    bad = sorted(p for p, (kind, _) in alone.items() if kind == "error")
    good = sorted(p for p, (kind, _) in alone.items() if kind == "snapshot")
    print(f"{len(inputs)} inputs: {len(bad)} bad, {len(good)} good")
    corpus_inputs = [p for p in inputs if "/corpus/" in p or "/generated/" in p]
    if len(corpus_inputs) < 100 or len(good) < 5:
        failures.append(f"too few inputs: {len(corpus_inputs)} from the corpus, {len(good)} good")

    def check_json(args, expected_inputs, what):
        expected_inputs = [p for p in expected_inputs if p in alone]  # the others failed above
        code, out, err = run(cookgraph, ["score", batch] + args + ["--format", "json"] + LIMIT)
        doc = json.loads(out)
        want_snapshots = [alone[p][1] for p in expected_inputs if alone[p][0] == "snapshot"]
        want_errors = [alone[p][1] for p in expected_inputs if alone[p][0] == "error"]
        if code != (2 if want_errors else 0):
            failures.append(f"{what}: exit code {code}")
        if doc["snapshots"] != want_snapshots:
            got = [s["file"] for s in doc["snapshots"]]
            failures.append(f"{what}: snapshots differ from the runs alone; files {got}")
        if doc["errors"] != want_errors:
            got = [(e["file"], e["message"][:120]) for e in doc["errors"]]
            failures.append(f"{what}: errors differ from the runs alone: {got}")
        for path in expected_inputs:
            for line in alone_err.get(path, []):
                if line not in err.splitlines():
                    failures.append(f"{what}: standard error lacks {line[:160]}")

    for jobs in ("1", "2"):
        check_json(["-j", jobs], inputs, f"--format json -j {jobs}")
        code, out, err = run(cookgraph, ["score", batch, "-j", jobs, "--format", "csv"] + LIMIT)
        header, rows = csv_rows(out)
        if code != 2:
            failures.append(f"--format csv -j {jobs}: exit code {code}")
        file_column = header.index("file") if "file" in header else 0
        for path in good:
            mine = [row for row in rows if row[file_column] == path]
            if mine != alone_csv[path]:
                failures.append(f"--format csv -j {jobs}: the rows of {path} differ from its rows alone")
        if sum(len(alone_csv[p]) for p in good) != len(rows):
            failures.append(f"--format csv -j {jobs}: {len(rows)} rows, expected those of the good inputs")
        for path in bad:
            for line in alone_err[path]:
                if line not in err.splitlines():
                    failures.append(f"--format csv -j {jobs}: standard error lacks {line[:160]}")

    # Shards: contiguous slices of the sorted inputs, together the whole.
    for k in (1, 2, 3):
        begin, end = len(inputs) * (k - 1) // 3, len(inputs) * k // 3
        check_json(["-j", "2", "--shard", f"{k}/3"], inputs[begin:end], f"--shard {k}/3")

    for failure in failures:
        print("FAIL: " + failure[:2000])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
