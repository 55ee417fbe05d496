#!/usr/bin/env bash
# Installs what cookgraph needs, builds it, and scores an example network.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
mkdir -p out
example=examples/touchdesigner_feedback.json
build/cli/cookgraph score "$example" --top 15 | tee out/score.txt
build/cli/cookgraph score "$example" --format json > out/score.json
build/cli/cookgraph graph "$example" --format dot > out/graph.dot
echo
echo "cookgraph: $PWD/build/cli/cookgraph"
echo "output:    $PWD/out/score.txt (table), $PWD/out/score.json (JSON), $PWD/out/graph.dot (Graphviz)"
