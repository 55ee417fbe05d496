#!/usr/bin/env sh
# Installs onnxruntime-node (pinned in tests/ort/package-lock.json) for the
# ONNX Runtime recordings, when the pinned version is not installed already,
# so that a machine that ran it once records again offline. --ignore-scripts:
# the package carries its CPU binaries, and its install script would fetch
# GPU binaries from outside the npm registry (and fail here).
# usage: setup.sh   (run by ctest as the fixture ort_setup, tests/ort.cmake)
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
pinned=$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/onnxruntime-node"].version)' "$dir/package-lock.json")
installed=$(node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$dir/node_modules/onnxruntime-node/package.json")
if [ "$installed" != "$pinned" ]; then
  log=$(mktemp)
  if ! npm ci --prefix "$dir" --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup.sh: npm ci --prefix $dir failed; the ONNX Runtime recordings need onnxruntime-node $pinned from the npm registry" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "setup.sh: onnxruntime-node $pinned"
