#!/usr/bin/env bash
# The one-file page's benchmark (docs/performance.md#the-page): the size of
# build-web/cookgraph.html, and the time to read and analyse a 20 MB
# Kineto-style trace (bench/gen_kineto.py, seeded) in the page, in headless
# Chromium, against the native `cookgraph score --format json` on the same
# file in the same run (bench/web_bench.mjs).
#
#   bench/web_bench.sh [--build DIR] [--work DIR] [--megabytes N] [--runs N]
#
# Results: bench/results/web.json. Needs the page (scripts/build-web.sh), the
# normal build's cookgraph, Debian's chromium and the browser tests'
# playwright-core (tests/browser/setup.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build"
work="${TMPDIR:-/tmp}/cookgraph-bench"
megabytes=20
runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --megabytes) megabytes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "web_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
sh "$root/tests/browser/setup.sh" >/dev/null
trace="$work/kineto_${megabytes}mb.json"
[ -s "$trace" ] || python3 "$here/gen_kineto.py" "$megabytes" --out "$trace"
node "$here/web_bench.mjs" --cookgraph "$build/cli/cookgraph" --page "$root/build-web/cookgraph.html" \
  --trace "$trace" --runs "$runs" --out "$here/results/web.json"
