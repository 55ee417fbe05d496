#!/usr/bin/env sh
# Installs the npm packages pinned in DIR/package-lock.json (`npm ci`) when
# one of PACKAGE... is not installed at its pinned version, so that a machine
# that installed them once runs the tests again offline; then prints
# "PACKAGE VERSION" for each.
# usage: npm_pinned.sh DIR PACKAGE...   (the browser and MCP tests' set-ups)
set -eu
dir=$1
shift
pinned() {
  node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/"+process.argv[2]].version)' "$dir/package-lock.json" "$1"
}
installed() {
  node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$dir/node_modules/$1/package.json"
}
for package in "$@"; do
  [ "$(installed "$package")" = "$(pinned "$package")" ] && continue
  log=$(mktemp)
  if ! npm ci --prefix "$dir" --prefer-offline --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "npm_pinned.sh: npm ci --prefix $dir failed; the tests need $* from the npm registry" >&2
    exit 1
  fi
  rm -f "$log"
  break
done
for package in "$@"; do echo "$package $(pinned "$package")"; done
