#!/usr/bin/env python3
"""Checks `cookgraph record` end to end with a real gst-launch-1.0.

    record_check.py COOKGRAPH GST_LAUNCH WORK

  1. `record -o WORK/rec -- GST_LAUNCH <a pipeline with a slow identity>`:
     exit 0, the score table on standard output with identity0 ranked first,
     and in WORK/rec exactly the PAUSED_PLAYING dump and trace.log, which
     `cookgraph score WORK/rec --format json` reads (identity0 rank 1);
  2. the same folder again: exit 2, one error line naming the folder, the
     folder untouched;
  3. a program that does not exist: exit 2, one line naming it, no folder left;
  4. a pipeline that fails (an element GStreamer does not have): exit 2, one
     line with the exit code, no folder left;
  5. no command: exit 2, one line saying what to give;
  6. `record --env -o DIR`: `mkdir -p` and five `export` lines, which a shell
     evaluates before running gst-launch-1.0 itself: the folder it fills is
     read by `cookgraph score`.
Exit 0 when all hold; otherwise each failure on its own line, exit 1.
"""

import json
import os
import shutil
import subprocess
import sys

PIPELINE = ["videotestsrc", "num-buffers=30", "!", "video/x-raw,framerate=30/1", "!",
            "videoconvert", "!", "queue", "!", "identity", "sleep-time=3000", "!",
            "fakesink", "sync=false"]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cookgraph, launch, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []

    def run(args, **kw):
        return subprocess.run([cookgraph] + args, capture_output=True, text=True, **kw)

    def one_error(r, what, expect):
        # cookgraph's own: one line (GStreamer's messages may come before it)
        lines = [l for l in r.stderr.strip().splitlines() if l.startswith("cookgraph: ")]
        if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith("cookgraph: error: ") \
                or expect not in lines[0]:
            failures.append(f"{what}: expected exit 2 and one error line with {expect!r}, got "
                            f"{r.returncode}: {r.stderr.strip()!r}")

    rec = os.path.join(work, "rec")
    r = run(["record", "-o", rec, "--", launch] + PIPELINE)
    if r.returncode != 0:
        failures.append(f"record: exit {r.returncode}: {r.stderr.strip()}")
    else:
        files = sorted(os.listdir(rec))
        dots = [f for f in files if f.endswith(".dot")]
        if len(files) != 2 or "trace.log" not in files or len(dots) != 1 \
                or ".PAUSED_PLAYING." not in dots[0]:
            failures.append(f"record: the folder holds {files}, expected the PAUSED_PLAYING dump "
                            "and trace.log")
        table = [l for l in r.stdout.splitlines() if l.startswith("1 ")]
        if not table or "identity0" not in table[0]:
            failures.append(f"record: the printed score does not rank identity0 first: {table}")
        s = run(["score", rec, "--format", "json"])
        if s.returncode != 0:
            failures.append(f"score of the recording: exit {s.returncode}: {s.stderr.strip()}")
        else:
            nodes = json.loads(s.stdout)["snapshots"][0]["nodes"]
            first = next((n["id"] for n in nodes if n.get("rank") == 1), None)
            if first is None or not first.endswith("/identity0"):
                failures.append(f"score of the recording ranks {first} first, expected identity0")
        before = sorted(os.listdir(rec))
        again = run(["record", "-o", rec, "--", launch] + PIPELINE)
        one_error(again, "record into a folder that is not empty", "is not empty")
        if sorted(os.listdir(rec)) != before:
            failures.append("record into a folder that is not empty changed it")

    missing = os.path.join(work, "missing")
    r = run(["record", "-o", missing, "--", os.path.join(work, "no-such-gst-launch")] + PIPELINE)
    one_error(r, "record with a program that does not exist", "no-such-gst-launch")
    if os.path.exists(missing):
        failures.append(f"record with a program that does not exist left {missing}")

    failed = os.path.join(work, "failed")
    r = run(["record", "-o", failed, "--", launch, "no-such-element-cookgraph", "!", "fakesink"])
    one_error(r, "record of a pipeline that fails", "the pipeline failed (exit code 1)")
    if os.path.exists(failed):
        failures.append(f"record of a pipeline that fails left {failed}")

    r = run(["record", "-o", os.path.join(work, "none")])
    one_error(r, "record without a command", "give the pipeline's command after --")

    env_dir = os.path.join(work, "env rec")  # a space, which the quoting must keep
    r = run(["record", "--env", "-o", env_dir])
    lines = r.stdout.splitlines()
    if r.returncode != 0 or len(lines) != 6 or not lines[0].startswith("mkdir -p ") \
            or not all(l.startswith("export GST_") for l in lines[1:]):
        failures.append(f"record --env: exit {r.returncode}, lines {lines}")
    else:
        script = r.stdout + " ".join(["'" + w + "'" for w in [launch, "-q"] + PIPELINE]) + "\n"
        sh = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
        s = run(["score", env_dir, "--format", "json"])
        if sh.returncode != 0 or s.returncode != 0:
            failures.append(f"a pipeline run under record --env's variables: sh exit "
                            f"{sh.returncode} ({sh.stderr.strip()}), score exit {s.returncode} "
                            f"({s.stderr.strip()})")

    for f in failures:
        print("record_check: " + f, file=sys.stderr)
    if not failures:
        print("record_check: record, its errors and --env hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
