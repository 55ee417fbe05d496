#!/bin/sh
# Installs the pinned js-tiktoken into the build tree for convert.mjs
# (third_party/tiktoken_ranks/README.md):
#
#   npm_ci.sh NPM NODE SOURCE_DIR WORK_DIR
#
# Copies SOURCE_DIR's package.json and package-lock.json into WORK_DIR and runs
# `npm ci` there (integrity checked against the lockfile; npm's cache first, so
# a machine that has installed it once needs no network). The build runs it
# only when the lockfile changes. Any failure is one line on standard error.
set -u
npm=$1
node=$2
source=$3
work=$4
if [ ! -x "$npm" ] || [ ! -x "$node" ]; then
  echo "cookgraph: the token rank files are converted from the npm package js-tiktoken at build time: install Node.js and npm (scripts/install-deps.sh), or configure with -DCOOKGRAPH_BUNDLE_RANKS=OFF" >&2
  exit 1
fi
mkdir -p "$work" || exit 1
cp "$source/package.json" "$source/package-lock.json" "$work/" || exit 1
# npm runs node by name: the one found at configure time comes first.
PATH=$(dirname "$node"):$PATH
export PATH
if ! "$npm" ci --prefix "$work" --prefer-offline --no-audit --no-fund --ignore-scripts \
    --loglevel=error >"$work/npm-ci.log" 2>&1; then
  echo "cookgraph: npm ci could not install js-tiktoken (pinned in $source/package-lock.json) from the npm registry; is it reachable? npm's output: $work/npm-ci.log" >&2
  exit 1
fi
