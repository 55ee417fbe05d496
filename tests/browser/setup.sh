#!/usr/bin/env sh
# Installs the browser tests' one npm package, playwright-core (pinned in
# tests/browser/package-lock.json; it drives Debian's /usr/bin/chromium and
# downloads no browser), when the pinned version is not installed already, so
# that a machine that ran it once can run the tests again offline.
# usage: setup.sh   (run by ctest as the fixture explorer_browser)
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
pinned=$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/playwright-core"].version)' "$dir/package-lock.json")
installed=$(node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$dir/node_modules/playwright-core/package.json")
if [ "$installed" != "$pinned" ]; then
  log=$(mktemp)
  if ! npm ci --prefix "$dir" --prefer-offline --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup.sh: npm ci --prefix $dir failed; the browser tests need playwright-core $pinned from the npm registry" >&2
    exit 1
  fi
  rm -f "$log"
fi
[ -x /usr/bin/chromium ] || { echo "setup.sh: /usr/bin/chromium is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
echo "setup.sh: playwright-core $pinned, $(/usr/bin/chromium --version 2>/dev/null)"
