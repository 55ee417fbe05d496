#!/usr/bin/env bash
# Runs the libFuzzer targets of a COOKGRAPH_FUZZ build for a bounded time
# each, on the seed corpus.
#
#   fuzz/run.sh [--build-dir DIR] [--seconds N] [--jobs J] [--target NAME]...
#
# Defaults: build-fuzz, 600 s a target, 2 targets at a time, every target.
# build-fuzz is configured and built here when its targets are missing:
# ASan+UBSan like build-asan, and every library compiled with libFuzzer's
# coverage (-fsanitize=fuzzer-no-link), which guides the search. build-asan
# (scripts/test-sanitizers.sh) instruments only the targets' own files, so
# that the suite runs at twice the speed: its 3-second smoke runs
# (ctest fuzz_smoke_*) pass --build-dir build-asan
# (docs/testing.md#fuzzing-and-sanitizers).
# The corpus each run grows is kept in DIR/fuzz-corpus/NAME (a later run starts
# from it); a crash is saved in DIR/fuzz-artifacts/NAME/ and the script fails,
# printing the input's path: copy it into fuzz/regressions/NAME/ once fixed, so
# the replay_NAME ctest keeps it tested. A summary (executions, coverage,
# corpus size) is printed and written to DIR/fuzz-summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build="" seconds=600 jobs=2 targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz/run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
all=(native_json native_yaml chrome_trace gstreamer_dot gstreamer_log config sse prompt input live session)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
if [ -z "$build" ]; then
  build=build-fuzz
  missing=()
  for t in "${targets[@]}"; do [ -x "$build/fuzz/fuzz_$t" ] || missing+=("fuzz_$t"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "fuzz/run.sh: building ${missing[*]} in $build (ASan+UBSan, libFuzzer's coverage)"
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DCOOKGRAPH_FUZZ=ON -DCOOKGRAPH_BENCH=OFF >/dev/null
    cmake --build "$build" -j "$(nproc)" --target "${missing[@]}"
  fi
fi
[ -d "$build" ] || { echo "fuzz/run.sh: no build folder $build" >&2; exit 2; }
build=$(cd "$build" && pwd)

dict_for() {
  case "$1" in
    native_json|chrome_trace|prompt|input|session) echo "$root/fuzz/json.dict" ;;
    native_yaml|config) echo "$root/fuzz/yaml.dict" ;;
    gstreamer_dot|gstreamer_log) echo "$root/fuzz/gstreamer.dict" ;;
    live) echo "$root/fuzz/live.dict" ;;
    *) echo "" ;;
  esac
}

# One seed tree per build (the fuzz_seeds ctest makes it too); made again when
# a target has none, as in a build older than the target.
python=/usr/bin/python3  # Debian's, with python3-yaml (as CMake picks)
[ -x "$python" ] || python=python3
for t in "${targets[@]}"; do
  [ -d "$build/fuzz-seeds/$t" ] || { "$python" fuzz/seeds.py "$build/fuzz-seeds" >/dev/null; break; }
done

run_one() {
  local t=$1
  local bin="$build/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "fuzz/run.sh: $bin is missing: build with -DCOOKGRAPH_FUZZ=ON" >&2; return 2; }
  local corpus="$build/fuzz-corpus/$t" artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  local dict args=()
  dict=$(dict_for "$t")
  [ -n "$dict" ] && args+=("-dict=$dict")
  local dirs=("$corpus" "$build/fuzz-seeds/$t")
  [ -d "$root/fuzz/regressions/$t" ] && dirs+=("$root/fuzz/regressions/$t")
  local log="$build/fuzz-logs/$t.log"
  mkdir -p "$build/fuzz-logs"
  local start=$SECONDS rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -malloc_limit_mb=3072 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "${args[@]}" "${dirs[@]}" >"$log" 2>&1 || rc=$?
  local execs cov files
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  files=$(find "$corpus" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    printf '%-14s %6ss %12s execs  cov %6s  corpus %6s  ok\n' "$t" $((SECONDS - start)) "$execs" "$cov" "$files"
  else
    printf '%-14s %6ss %12s execs  cov %6s  corpus %6s  FAILED (exit %s)\n' "$t" $((SECONDS - start)) "$execs" "$cov" "$files" "$rc"
    grep -E 'ERROR|FUZZ_CHECK|SUMMARY|Test unit written|runtime error' "$log" | head -8 | sed 's/^/    /'
    echo "    log: $log"
    return 1
  fi
}

summary="$build/fuzz-summary.txt"
[ ${#targets[@]} -eq 1 ] && summary="$build/fuzz-summary-${targets[0]}.txt"
echo "fuzz/run.sh: ${#targets[@]} targets, ${seconds} s each, $jobs at a time, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)" | tee "$summary"
failed=0
running=0
pids=() outs=()
for t in "${targets[@]}"; do
  out=$(mktemp)
  run_one "$t" >"$out" 2>&1 &
  pids+=($!) outs+=("$out")
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "${outs[$i]}" | tee -a "$summary"
  rm -f "${outs[$i]}"
done
exit $failed
