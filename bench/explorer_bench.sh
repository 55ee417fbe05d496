#!/usr/bin/env bash
# The explorer's benchmark (docs/performance.md#the-explorer): makes a
# 100k-node, 600-frame snapshot (bench/gen_native.py, seeded) and a flat one
# (100k nodes in one container, chains of 50, 10 frames), then measures
# `cookgraph serve` on them in headless Chromium (bench/explorer_bench.mjs).
#
#   bench/explorer_bench.sh [--build DIR] [--work DIR] [--nodes N]
#
# Results: bench/results/explorer.json. Needs Debian's chromium and the
# browser tests' playwright-core (tests/browser/setup.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build"
work="${TMPDIR:-/tmp}/cookgraph-bench"
nodes=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    *) echo "explorer_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
sh "$root/tests/browser/setup.sh" >/dev/null
snapshot="$work/explorer_${nodes}x600.json"
[ -s "$snapshot" ] || python3 "$here/gen_native.py" "$nodes" 600 --out "$snapshot"
flat="$work/explorer_flat_${nodes}.json"
if [ ! -s "$flat" ]; then
  python3 - "$nodes" "$flat" <<'PY'
import json, random, sys
n, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(7)
nodes, series = [], {}
for i in range(n):
    node = {"id": f"op{i}", "type": "levelTOP", "family": "TOP"}
    if i % 50:
        node["inputs"] = [f"op{i - 1}"]
    if i % 50 == 49:
        node["output"] = True
    nodes.append(node)
    series[f"op{i}"] = {"cook_ms": [round(rng.uniform(0.001, 0.2), 4) for _ in range(10)]}
json.dump({"cookgraph": 1, "engine": "touchdesigner", "name": "flat", "fps": 60, "nodes": nodes,
           "frames": {"index": list(range(10)), "series": series}}, open(out, "w"))
PY
fi
cookgraph="$build/cli/cookgraph"
node "$here/explorer_bench.mjs" --cookgraph "$cookgraph" --input "$snapshot" --flat "$flat" \
  --out "$here/results/explorer.json"
