#!/usr/bin/env python3
"""Sharded `cookgraph score` merged by `cookgraph merge` is the unsharded run,
byte for byte (docs/commands.md#shards-and-merging).

    shard_merge_check.py COOKGRAPH INPUT... [--quick]

For each mergeable format (json, csv, summary-json, summary-csv) the inputs
(with a missing path and an unreadable file among them, so that errors are
merged too) are scored once unsharded, then as N shards under simulated Slurm
array variables (SLURM_ARRAY_TASK_ID, _COUNT, _MIN) and Kubernetes indexed-Job
variables (JOB_COMPLETION_INDEX, JOB_COMPLETIONS), both 0-based, and as
--shard K/N; the parts, given to merge in reverse order, must give the same
bytes. Then the refusals: parts that overlap, miss a shard, come from other
options or another input list, were cut short or hand-edited, and a file that is
no shard's output; each must exit 2 with its message and write nothing. And
`--shard auto` without or with wrong variables must exit 2.
"""

import os
import shutil
import subprocess
import sys
import tempfile

FORMATS = ["json", "csv", "summary-json", "summary-csv"]
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run(cmd, env=None, expect=None):
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("SLURM_", "JOB_COMPLETION"))}
    full_env.update(env or {})
    p = subprocess.run(cmd, capture_output=True, env=full_env)
    if expect is not None and p.returncode not in expect:
        raise SystemExit(f"{cmd} exited {p.returncode}: {p.stderr.decode()[:400]}")
    return p


def main():
    # The sanitizer build: JSON and CSV (the summaries go through the same
    # merge), and the two splits the refusals use.
    quick = "--quick" in sys.argv
    argv = [a for a in sys.argv[1:] if a != "--quick"]
    cookgraph, inputs = argv[0], argv[1:]
    tmp = tempfile.mkdtemp(prefix="shard_merge_")
    try:
        bad = os.path.join(tmp, "broken.json")
        with open(bad, "w") as f:
            f.write('{"cookgraph": 1, "nodes": [')
        args = inputs + [bad, os.path.join(tmp, "no-such-input.json")]
        for fmt in FORMATS[:2] if quick else FORMATS:
            base = [cookgraph, "score", *args, "--format", fmt, "-j", "2"]
            whole = run(base, expect={2}).stdout
            check(len(whole) > 200, f"{fmt}: the unsharded run wrote {len(whole)} bytes")
            splits = [(3, "slurm"), (4, "k8s")] + ([] if quick else [(2, "kn"), (40, "slurm")])
            for n, style in splits:
                parts = []
                for i in range(n):
                    if style == "slurm":  # an array --array=1-N: ids 1..N, min 1
                        env = {"SLURM_ARRAY_TASK_ID": str(i + 1), "SLURM_ARRAY_TASK_MIN": "1",
                               "SLURM_ARRAY_TASK_COUNT": str(n)}
                        extra = ["--shard", "auto"]
                    elif style == "k8s":
                        env = {"JOB_COMPLETION_INDEX": str(i), "JOB_COMPLETIONS": str(n)}
                        extra = ["--shard", "auto"]
                    else:
                        env, extra = {}, ["--shard", f"{i + 1}/{n}"]
                    part = os.path.join(tmp, f"{fmt}-{style}-{n}-{i}.part")
                    with open(part, "wb") as f:
                        f.write(run(base + extra, env=env, expect={0, 2}).stdout)
                    parts.append(part)
                out = os.path.join(tmp, f"{fmt}-{style}-{n}.merged")
                p = run([cookgraph, "merge", *reversed(parts), "-o", out])
                check(p.returncode == 0, f"{fmt} {style} {n}: merge exited {p.returncode}: "
                      f"{p.stderr.decode()[:300]}")
                merged = open(out, "rb").read() if os.path.exists(out) else b""
                check(merged == whole, f"{fmt} {style} {n}: merged parts differ from the "
                      f"unsharded run ({len(merged)} against {len(whole)} bytes)")
                stdout = run([cookgraph, "merge", *parts]).stdout
                check(stdout == whole, f"{fmt} {style} {n}: merge to standard output differs")
            refusals(cookgraph, base, tmp, fmt)
        auto_errors(cookgraph, args)
    finally:
        shutil.rmtree(tmp)
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print("shard_merge_check: all merges equal the unsharded runs; every bad part refused")
    return 0


def refusals(cookgraph, base, tmp, fmt):
    parts = [os.path.join(tmp, f"{fmt}-k8s-4-{i}.part") for i in range(4)]

    def refused(what, given, message):
        out = os.path.join(tmp, "refused.out")
        p = run([cookgraph, "merge", *given, "-o", out])
        err = p.stderr.decode()
        check(p.returncode == 2, f"{fmt} {what}: exit {p.returncode}, not 2")
        check(message in err, f"{fmt} {what}: message {err.strip()!r} lacks {message!r}")
        check(err.count("\n") == 1, f"{fmt} {what}: not one line: {err!r}")
        check(not os.path.exists(out), f"{fmt} {what}: wrote {out}")

    refused("same part twice", parts + [parts[1]], "the parts overlap")
    refused("a missing part", parts[:2] + parts[3:], "shard 2 is missing")
    refused("parts of two splits", parts[:3] + [os.path.join(tmp, f"{fmt}-slurm-3-2.part")],
            "the parts overlap")
    other = os.path.join(tmp, "other-options.part")
    with open(other, "wb") as f:
        f.write(run(base + ["--top", "3", "--shard", "4/4"], expect={0, 2}).stdout)
    refused("other options", parts[:3] + [other], "made with other options")
    fewer = os.path.join(tmp, "other-list.part")
    with open(fewer, "wb") as f:
        f.write(run(base[:2] + base[3:] + ["--shard", "4/4"], expect={0, 2}).stdout)
    refused("another input list", parts[:3] + [fewer], "scored another input list")
    data = open(parts[3], "rb").read()
    cut = os.path.join(tmp, "cut.part")
    with open(cut, "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    refused("a part cut short", parts[:3] + [cut], "cut short")
    whole = os.path.join(tmp, "whole.out")
    with open(whole, "wb") as f:
        f.write(run(base, expect={2}).stdout)
    refused("not a shard", parts[:3] + [whole], "not the output of a shard")
    if fmt.endswith("json"):
        # A row whose file is also in another part (hand-edited).
        rows = [l for p in parts[:3] for l in open(p, "rb").read().split(b"\n")[1:]
                if l.startswith(b"{")]
        check(rows, f"{fmt}: shards 0-2 have no row to copy")
        row = rows[0] if rows else b"{}"
        first_of_3 = open(parts[3], "rb").read().split(b"\n")
        first_of_3.insert(1, row.rstrip(b",") + b",")
        edited = os.path.join(tmp, "edited.part")
        with open(edited, "wb") as f:
            f.write(b"\n".join(first_of_3))
        refused("a file in two parts", parts[:3] + [edited], "the parts overlap")


def auto_errors(cookgraph, args):
    for env, message in [
        ({}, "neither SLURM_ARRAY_TASK_ID"),
        ({"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "not below"),
        ({"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "8"}, "not a whole number"),
        ({"SLURM_ARRAY_TASK_ID": "1"}, "SLURM_ARRAY_TASK_COUNT is not"),
        ({"JOB_COMPLETION_INDEX": "0"}, "JOB_COMPLETIONS is not"),
        ({"JOB_COMPLETION_INDEX": "4", "JOB_COMPLETIONS": "4"}, "not below"),
    ]:
        p = run([cookgraph, "score", *args[:1], "--format", "csv", "--shard", "auto"], env=env)
        err = p.stderr.decode()
        check(p.returncode == 2 and message in err and p.stdout == b"",
              f"--shard auto with {env}: exit {p.returncode}, {err.strip()!r}")


if __name__ == "__main__":
    sys.exit(main())
