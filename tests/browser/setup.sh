#!/usr/bin/env sh
# Installs the browser tests' one npm package, playwright-core (pinned in
# tests/browser/package-lock.json; it drives Debian's /usr/bin/chromium and
# downloads no browser), when the pinned version is not installed already
# (tests/tools/npm_pinned.sh), so that a machine that ran it once can run the
# tests again offline.
# usage: setup.sh   (run by ctest as the fixture explorer_browser)
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
versions=$(sh "$dir/../tools/npm_pinned.sh" "$dir" playwright-core)
[ -x /usr/bin/chromium ] || { echo "setup.sh: /usr/bin/chromium is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
echo "setup.sh: $versions, $(/usr/bin/chromium --version 2>/dev/null)"
