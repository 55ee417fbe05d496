#!/usr/bin/env bash
# Installs what cookgraph needs, builds it, and runs every test once
# (docs/testing.md#how-the-test-command-runs):
#  1. the normal build (g++, as users build it): cookgraph, the Python module
#     and the programs the tests labelled `plain` run, then those tests: the
#     ones that need an unsanitized build (the Python module, real timing, the
#     browser) and the independent checks' perturbed twins, while the
#     ASan+UBSan build runs beside them at the lowest priority;
#  2. scripts/test-sanitizers.sh: every other test once under ASan+UBSan, with
#     each fuzz target run briefly (the TSan build beside it, niced), then the
#     threaded code under TSan; the page's WebAssembly build
#     (scripts/build-web.sh) beside all of it, niced, then the page's tests
#     (`ctest -L web`: plain tests, run last);
#  3. tests/tools/check_test_split.py: no test of the normal build is left out.
# COOKGRAPH_SANITIZERS=0 is the quick loop: the normal build of everything and
# its whole suite, without the sanitizers (`ctest -L fast` in build/ then runs
# the unit tests alone).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
python=/usr/bin/python3  # Debian's, with the packages install-deps.sh adds (as CMake picks)
[ -x "$python" ] || python=python3
step() { echo "test.sh: $* ($SECONDS s)"; }

bash scripts/install-deps.sh
step "packages installed"
if [ "${COOKGRAPH_SANITIZERS:-1}" = 0 ]; then
  bash scripts/build.sh all
  step "normal build done"
  (cd build && ctest --output-on-failure -j "$jobs")
  step "normal suite passed"
  exit 0
fi

bash scripts/build.sh cookgraph cookgraph_python cookgraph_plain_programs
step "normal build done"
# background NAME WHAT AUTOGROUP_NICE COMMAND...: COMMAND at the lowest
# priority, in a process group of its own (setsid: a failed test or Ctrl-C
# stops it too), its output in build-logs/NAME.log; finish waits for it,
# printing the log and stopping if it failed. One at a time. setsid also
# starts a scheduling autogroup, which Linux gives a share of the CPUs by the
# group's own nice (/proc/self/autogroup), whatever the nice value of its
# processes: 0 shares the CPUs evenly with the tests, 19 leaves them to the
# tests (the browser's one-second live checks need that).
background() {
  mkdir -p build-logs
  bg_name=$1 bg_what=$2
  setsid bash -c '{ echo "$0" >/proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$@"' "$3" \
    "${@:4}" >"build-logs/$1.log" 2>&1 &
  bg_pid=$!
  trap 'kill -- -"$bg_pid" 2>/dev/null || true' EXIT
}
finish() {
  if ! wait "$bg_pid"; then
    cat "build-logs/$bg_name.log" >&2
    echo "test.sh: the $bg_what failed (build-logs/$bg_name.log)" >&2
    exit 1
  fi
  trap - EXIT
  step "$bg_what done"
}
# The ASan+UBSan build at the lowest priority while the plain tests run: it
# takes the CPU they leave idle (its log: build-logs/asan.log). Its
# autogroup yields to them: the browser's live tests among them failed their
# one-second bound on a slow machine when the build took an even share.
background asan "ASan+UBSan build" 19 bash scripts/test-sanitizers.sh --build asan
(cd build && ctest --output-on-failure -j "$jobs" -L plain -LE web)
step "plain tests passed"
finish
# The page's WebAssembly build beside the sanitizer half, whose tests leave
# CPU idle (its log: build-logs/web.log). Its autogroup takes an even share:
# yielding, it ended 313 s after the sanitizer half on a slow machine
# instead of with it, and none of those tests has a bound that tight.
background web "WebAssembly build" 0 bash scripts/build-web.sh
# The token-count corpus the plain tests made (tests/tools/token_corpus.sh).
COOKGRAPH_ALONE_BINARY=build/cli/cookgraph COOKGRAPH_TOKEN_CORPUS=$PWD/build/tests/tiktoken_reference \
  bash scripts/test-sanitizers.sh
step "sanitizer half passed"
finish
# The page's tests; the browser's and the GStreamer recordings' fixtures ran
# with the plain tests (their results are still there).
(cd build && ctest --output-on-failure -j "$jobs" -L web -FA "explorer_browser|gst_")
step "page tests passed"
"$python" tests/tools/check_test_split.py build build-asan
step "every test passed"
