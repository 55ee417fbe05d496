#!/usr/bin/env bash
# compare-outputs.sh BEFORE_BINARY AFTER_BINARY [WORK_DIR]: checks that a
# refactor changes no output. Every cookgraph command's standard output,
# standard error, exit code and written files, on every example, fixture
# trace, bad input and GStreamer recording (tests/tools/output_corpus.py says
# which runs), must be byte-identical between the binary built before the
# refactor and the one built after it.
#
# Prepares the inputs once into WORK_DIR/inputs (kept: a later call reuses
# them; delete the folder to prepare afresh), runs the corpus with BEFORE into
# WORK_DIR/before and with AFTER into WORK_DIR/after, and compares the two with
# diff -r. Exit 0 when every output is identical, 1 when any differs, 2 on a
# usage or setup error. WORK_DIR defaults to a new folder under /tmp.
#
# Environment: COOKGRAPH_FIXTURES, the folder of real traces (default
# tests/data/fixtures/traces);
# COOKGRAPH_SOURCE, the source tree the inputs are copied from (default this
# repository); COOKGRAPH_CORPUS_JOBS, runs at once (default 2).
#
# For example, with the commit before a refactor built in ../before:
#   git worktree add ../before HEAD~1 && (cd ../before && bash scripts/build.sh)
#   scripts/compare-outputs.sh ../before/build/cli/cookgraph build/cli/cookgraph /tmp/compare
set -u

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BEFORE_BINARY AFTER_BINARY [WORK_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/tests/tools/output_corpus.py
for bin in "$1" "$2"; do
  if [ ! -x "$bin" ] || [ -d "$bin" ]; then
    echo "compare-outputs: $bin is not an executable" >&2
    exit 2
  fi
done
before_bin=$(realpath "$1")
after_bin=$(realpath "$2")
work=${3:-$(mktemp -d /tmp/compare-outputs.XXXXXX)}
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 2

fixtures=${COOKGRAPH_FIXTURES:-$root/tests/data/fixtures/traces}
source_dir=${COOKGRAPH_SOURCE:-$root}
jobs=${COOKGRAPH_CORPUS_JOBS:-2}

python3 "$corpus" --prepare "$work/inputs" --source "$source_dir" --fixtures "$fixtures" || exit 2
for side in before after; do
  bin=$before_bin
  [ "$side" = after ] && bin=$after_bin
  echo "compare-outputs: $side: $bin"
  python3 "$corpus" "$bin" "$work/inputs" "$work/$side" -j "$jobs" || exit 2
done

# Every output file of either side (relative path), and those that differ or
# exist on one side only.
cd "$work" || exit 2
all=$( { (cd before && find . -type f); (cd after && find . -type f); } | sort -u)
total=$(printf '%s\n' "$all" | grep -c .)
differ=()
while IFS= read -r f; do
  [ -n "$f" ] || continue
  if ! cmp -s "before/$f" "after/$f"; then
    differ+=("${f#./}")
  fi
done <<<"$all"

if [ ${#differ[@]} -eq 0 ]; then
  if diff -r before after >/dev/null; then
    echo "compare-outputs: $total outputs compared, all identical"
    exit 0
  fi
  diff -r before after | head -n 20  # e.g. an empty folder on one side only
  echo "compare-outputs: 1 of $total outputs differ"
  exit 1
fi

echo "compare-outputs: differing outputs (runs.tsv in $work/before gives each run's command line):"
shown=0
for f in "${differ[@]}"; do
  echo "--- $f"
  if [ ! -e "before/$f" ]; then
    echo "    only in after/"
  elif [ ! -e "after/$f" ]; then
    echo "    only in before/"
  elif [ $shown -lt 40 ]; then
    diff -u --label "before/$f" --label "after/$f" "before/$f" "after/$f" 2>&1 | head -n 12 |
      cut -c1-300 | sed 's/^/    /'
    shown=$((shown + 1))
  fi
done
[ ${#differ[@]} -gt 40 ] && echo "(first lines shown for the first 40; diff -r $work/before $work/after shows all)"
echo "compare-outputs: ${#differ[@]} of $total outputs differ"
exit 1
