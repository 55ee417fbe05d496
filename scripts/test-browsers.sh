#!/usr/bin/env bash
# scripts/test-browsers.sh: the one-file page (docs/web.md) in the browsers
# other than Chromium that Debian has: Firefox ESR, headless, driven over
# WebDriver BiDi by puppeteer-core (tests/browser/firefox/page_test.mjs,
# docs/testing.md#other-browsers). Not in the test command, which tests the
# page in Chromium: Firefox takes a 300 MB package and a minute. Safari runs
# only on macOS and is not tested here.
#
#   bash scripts/test-browsers.sh      (as root, it installs firefox-esr when missing)
#
# It builds what it needs when missing or stale: cookgraph (scripts/build.sh)
# and the page (scripts/build-web.sh, a second run rebuilds only what changed).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo "test-browsers: $* ($SECONDS s)"; }

if ! command -v firefox-esr >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "test-browsers: firefox-esr is missing: apt-get install firefox-esr (as root)" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null
fi
dir=tests/browser/firefox
pinned=$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/puppeteer-core"].version)' "$PWD/$dir/package-lock.json")
installed=$(node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$PWD/$dir/node_modules/puppeteer-core/package.json")
if [ "$installed" != "$pinned" ]; then
  npm ci --prefix "$dir" --prefer-offline --no-audit --no-fund --loglevel=error
fi
bash scripts/build.sh cookgraph >/dev/null
bash scripts/build-web.sh >/dev/null
step "built"

# A GStreamer recording as the page takes a folder: its .dot dump and its log.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tee_bin"
cp tests/data/gstreamer/tee_bin.dot tests/data/gstreamer/tee_bin.log "$work/tee_bin/"
node "$dir/page_test.mjs" --cookgraph build/cli/cookgraph --page build-web/cookgraph.html \
  --out build/test-artifacts/browser/firefox --fake-llm tests/tools/fake_llm_server.py \
  examples/touchdesigner_feedback.json examples/gstreamer_pipeline.json examples/pytorch_model.json \
  tests/data/fixtures/traces/kineto_resnet50_workers4.json.gz \
  tests/data/fixtures/traces/hta_two_ranks "$work/tee_bin"
step "Firefox ESR passed"
# The perturbed twin: 1e-6 added to every native number must fail on a number.
if out=$(node "$dir/page_test.mjs" --cookgraph build/cli/cookgraph --page build-web/cookgraph.html \
    --out build/test-artifacts/browser/firefox_perturbed --offset 1e-6 examples/touchdesigner_feedback.json); then
  echo "test-browsers: the perturbed twin passed: the comparison cannot fail" >&2
  exit 1
fi
if ! grep -q "page_test: score(): .*: [0-9.e+-]* != " <<<"$out"; then
  echo "test-browsers: the perturbed twin failed for another reason: $out" >&2
  exit 1
fi
step "Firefox ESR perturbed twin failed as it must"
