#!/usr/bin/env bash
# Batch scoring with two workers under ThreadSanitizer (issue 6), run by
# scripts/test-sanitizers.sh with a -fsanitize=thread build of cookgraph:
#
#   tests/tools/tsan_batch.sh path/to/cookgraph
#
# Scores a folder of 40-odd inputs (every example in JSON, gzip and YAML,
# Chrome traces of every producer, GStreamer recordings, and bad inputs mixed
# in) with -j 2 and with -j 1. Fails on any ThreadSanitizer report, on an exit
# code other than 2 (the bad inputs), when the good inputs' results differ
# between the two runs, or when one is missing.
set -euo pipefail
cookgraph=$(realpath "$1")
cd "$(dirname "$0")/../.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

in="$work/in"
mkdir -p "$in/gst_tee" "$in/gst_prefix"
good=0
for copy in 1 2 3; do
  for example in examples/*.json; do
    base=$(basename "$example" .json)
    cp "$example" "$in/${base}_$copy.json"
    gzip -c "$example" >"$in/${base}_$copy.json.gz"
    good=$((good + 2))
  done
done
for example in examples/*.json; do
  "$cookgraph" convert "$example" -o "$in/$(basename "$example" .json).yaml" >/dev/null 2>&1
  good=$((good + 1))
done
for trace in tests/data/chrome/*.json tests/data/fixtures/traces/*.json*; do
  [ -f "$trace" ] || continue
  case "$trace" in *.json) cp "$trace" "$in/chrome_$(basename "$trace")" ;;
                   *.json.gz) cp "$trace" "$in/chrome_$(basename "$trace")" ;; esac
  good=$((good + 1))
done
cp tests/data/gstreamer/tee_bin.dot tests/data/gstreamer/tee_bin.log "$in/gst_tee/"
cp tests/data/gstreamer/node_prefix.dot tests/data/gstreamer/node_prefix.log "$in/gst_prefix/"
good=$((good + 2))
bad=0
for f in tests/data/bad/*.json tests/data/bad/*.yaml tests/data/bad/*.json.gz; do
  cp "$f" "$in/bad_$(basename "$f")"
  bad=$((bad + 1))
done

status=0
for jobs in 2 1; do
  rc=0
  "$cookgraph" score "$in" --format json -j "$jobs" >"$work/out$jobs.json" 2>"$work/err$jobs.txt" || rc=$?
  if grep -q "ThreadSanitizer" "$work/err$jobs.txt"; then
    echo "tsan_batch: ThreadSanitizer reported a race with -j $jobs:" >&2
    sed -n '1,60p' "$work/err$jobs.txt" >&2
    exit 1
  fi
  if [ "$rc" -ne 2 ]; then
    echo "tsan_batch: -j $jobs exited $rc, expected 2 (bad inputs in the batch)" >&2
    tail -5 "$work/err$jobs.txt" >&2
    status=1
  fi
done
python3 - "$work/out2.json" "$work/out1.json" "$work/err2.txt" "$good" "$bad" <<'PY' || status=1
import json, sys
two, one = (json.load(open(p)) for p in sys.argv[1:3])
errors = open(sys.argv[3]).read().splitlines()
good, bad = int(sys.argv[4]), int(sys.argv[5])
files = [s["file"] for s in two["snapshots"]]
assert two == one, "-j 2 and -j 1 gave different results"
assert len(files) == good, f"{len(files)} results for {good} good inputs"
reported = [l for l in errors if "error" in l]
assert len(reported) >= bad, f"{len(reported)} errors reported for {bad} bad inputs"
print(f"tsan_batch: {good} good inputs scored alike with -j 2 and -j 1, {bad} bad ones reported, no race")
PY
exit $status
