#!/usr/bin/env bash
# End-to-end benchmark of cookgraph against its baselines (issue 5).
#
#   bench/run.sh [--sizes SET[,SET...]] [--kinds KIND[,KIND...]] [--build DIR] [--work DIR]
#                [--results DIR]
#
# Generates seeded inputs of three sizes per kind (native snapshots, Kineto-style
# Chrome traces, batches of snapshots), times `cookgraph score` on each (and
# `score -j 1` against `-j 2` on the batches) with wall time and peak memory,
# runs the baselines on the same files in the same run (bench/simdjson_floor,
# bench/baseline_score.py, cat), prints the table with its ratios and writes
# results.md, results.svg and results.json to bench/results/ (or --results).
#
#   tiny    seconds: checks the script, numbers mean little
#   small   (default) 17-70 MB inputs; under 5 minutes on a 2-core machine
#   medium  one larger input per kind (~170 MB snapshot, 200 MB trace, 500 files)
#   target  only the issue's target sizes: 100k nodes x 600 frames, a 1 GB
#           trace, 1000 files; about 15 minutes
#   full    three sizes per kind up to the targets' (25k-100k nodes x 600
#           frames, 250 MB-1 GB traces, 250-1000 files): about 40 minutes,
#           ~5 GB of memory for the Python baseline, ~4 GB of disk in --work
#
# The build: --build DIR (default: build-bench if it has cookgraph, else build),
# configured with -DCMAKE_BUILD_TYPE=Release for numbers worth quoting. The
# inputs stay in --work (default $TMPDIR/cookgraph-bench) and are reused; the
# results go to --results (default bench/results). --kinds leaves kinds out
# (native, kineto, batch; default all three).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
sizes=small
kinds=native,kineto,batch
build=""
work="${TMPDIR:-/tmp}/cookgraph-bench"
results="$here/results"
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done

if [ -z "$build" ]; then
  for b in "$root/build-bench" "$root/build"; do
    if [ -x "$b/cli/cookgraph" ]; then build=$b; break; fi
  done
fi
cookgraph="${build:-$root/build}/cli/cookgraph"
if [ ! -x "$cookgraph" ]; then
  echo "run.sh: no cookgraph at $cookgraph; build it first:" >&2
  echo "  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-bench" >&2
  exit 2
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ "$build_type" != Release ]; then
  echo "run.sh: note: $build is a '${build_type:-unknown}' build, not Release" >&2
fi
floor="$build/bench/simdjson_floor"
if [ ! -x "$floor" ]; then
  echo "run.sh: no $floor (libsimdjson-dev missing when configured?): the simdjson column is left out" >&2
  floor=""
fi
if [ ! -x /usr/bin/time ]; then
  echo "run.sh: /usr/bin/time is missing (Debian package 'time', scripts/install-deps.sh)" >&2
  exit 2
fi
python=/usr/bin/python3
[ -x "$python" ] || python=python3
if ! "$python" -c 'import networkx' 2>/dev/null; then
  echo "run.sh: $python has no networkx (Debian package python3-networkx, scripts/install-deps.sh)" >&2
  exit 2
fi

exec "$python" "$here/measure.py" --sizes "$sizes" --kinds "$kinds" --cookgraph "$cookgraph" --floor "$floor" \
  --work "$work" --results "$results"
