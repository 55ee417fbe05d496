#!/usr/bin/env bash
# Installs what cookgraph needs, builds it, and runs every test: the suite in
# the normal build, then the same suite under AddressSanitizer and
# UndefinedBehaviorSanitizer with each fuzz target run briefly, and batch
# scoring under ThreadSanitizer (scripts/test-sanitizers.sh).
# COOKGRAPH_SANITIZERS=0 skips the sanitizer half (a quicker local run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)")
if [ "${COOKGRAPH_SANITIZERS:-1}" != 0 ]; then
  bash scripts/test-sanitizers.sh
fi
