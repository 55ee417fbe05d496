#!/usr/bin/env bash
# The sanitizer half of the test command, run by scripts/test.sh
# (docs/testing.md#how-the-test-command-runs):
#  1. build-asan: clang, AddressSanitizer + UndefinedBehaviorSanitizer (any
#     report fails the test that hit it), warnings as errors; every test of
#     the suite runs in it once, including each fuzz target for a short time
#     (fuzz_smoke_*, COOKGRAPH_FUZZ_SMOKE_SECONDS each);
#  2. build-tsan: g++, ThreadSanitizer: batch scoring with -j 2 over good and
#     bad inputs through the pipeline's batch pool (tests/tools/tsan_batch.sh)
#     and the explorer's server under hostile requests
#     (tests/tools/serve_safety.py), floods and slow clients
#     (tests/tools/serve_flood.py). The longer TSan checks (the whole
#     bad-input corpus in one batch, the reader, graph, statistics and
#     explorer tests) are scripts/test-threads.sh's, run before a change to
#     threaded code (docs/testing.md#fuzzing-and-sanitizers).
# Suppressions, each with its reason: tests/sanitizers/*.supp.
# Assumes scripts/install-deps.sh has run. COOKGRAPH_ALONE_BINARY (set by
# scripts/test.sh to the normal build's cookgraph) makes the bad-input
# batch's runs of each input alone, which the TSan batches are compared with.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
python=/usr/bin/python3  # Debian's, with the packages install-deps.sh adds (as CMake picks)
[ -x "$python" ] || python=python3
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
step() { echo "test-sanitizers.sh: $* ($SECONDS s)"; }

export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Graphviz 2.42 and the font libraries under it leak inside themselves; each
# suppression is explained in the file.
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
# The builds, each a function so that scripts/test.sh can start one in the
# background at the lowest priority while tests run: the tests keep the
# CPUs they use, the build takes the rest (they leave a third idle, waiting
# on pipelines, servers and subprocesses).
asan_build() {
  # Line tables only: reports still name file and line, and full debug
  # information took a quarter of these builds' time.
  local sanitize="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
  cmake -S . -B build-asan "${generator[@]}" -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="$sanitize" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCOOKGRAPH_FUZZ=ON -DCOOKGRAPH_FUZZ_SMOKE_SECONDS=3 -DCOOKGRAPH_BENCH=OFF -DCOOKGRAPH_WERROR=ON \
    -DCOOKGRAPH_GLUE_O0=ON >/dev/null
  cmake --build build-asan -j "$jobs"
}
tsan_build() {
  cmake -S . -B build-tsan "${generator[@]}" -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_FLAGS="-O1 -g1 -fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
    -DCOOKGRAPH_BENCH=OFF -DCOOKGRAPH_WERROR=ON >/dev/null
  cmake --build build-tsan -j "$jobs" --target cookgraph "$@"
}
# background_build NAME: runs NAME's build niced in a process group of its
# own, its output in build-logs/NAME.log (printed if it fails), stopped if
# the script exits first (a failed test, Ctrl-C); wait_build NAME waits for it.
background_build() {
  mkdir -p build-logs
  setsid nice -n 19 bash "$PWD/scripts/test-sanitizers.sh" --build "$1" >"build-logs/$1.log" 2>&1 &
  eval "build_pid_$1=$!"
  trap "kill -- -$! 2>/dev/null || true" EXIT
}
wait_build() {
  local pid
  eval "pid=\$build_pid_$1"
  if ! wait "$pid"; then
    cat "build-logs/$1.log" >&2
    echo "test-sanitizers: the $1 build failed (build-logs/$1.log)" >&2
    exit 1
  fi
  trap - EXIT
}
if [ "${1:-}" = --build ]; then  # one build alone: scripts/test.sh, test-threads.sh and background_build
  "${2}_build" "${@:3}"
  exit 0
fi

# ASan+UBSan: built already when scripts/test.sh built it in the background
# (then this finds nothing to do).
asan_build
step "ASan+UBSan build done"
# The TSan build in the background, niced, while the ASan suite runs.
background_build tsan
(cd build-asan && ctest --output-on-failure -j "$jobs")
step "ASan+UBSan suite passed"

export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/sanitizers/tsan.supp
wait_build tsan
step "TSan build done"
bash tests/tools/tsan_batch.sh build-tsan/cli/cookgraph
step "TSan batch passed"
# The explorer's server: hostile requests and four streams at once.
"$python" tests/tools/serve_safety.py build-tsan/cli/cookgraph examples/touchdesigner_feedback.json
step "TSan serve_safety passed"
# Header floods, slow-loris and half-sent requests, a normal client answered
# within 1 s throughout; TSan's shadow memory is not the server's, so the
# bound is on growth.
"$python" tests/tools/serve_flood.py build-tsan/cli/cookgraph examples/touchdesigner_feedback.json --rss-growth-mb 100
step "TSan serve_flood passed"
echo "test-sanitizers: ASan+UBSan suite, fuzz smoke runs and TSan batch passed"
