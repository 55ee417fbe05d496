#!/usr/bin/env sh
# Installs the MCP tests' npm packages, the official TypeScript client
# (@modelcontextprotocol/sdk) and the MCP Inspector (its --cli mode), pinned in
# tests/mcp/package-lock.json, when the pinned versions are not installed
# already, so that a machine that ran it once runs the tests again offline.
# usage: setup.sh   (run by ctest as the fixture mcp_client)
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
version() {  # version FILE: the "version" of a package.json, or "none"
  node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$1"
}
pinned() {
  node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/"+process.argv[2]].version)' "$dir/package-lock.json" "$1"
}
ok=1
for package in @modelcontextprotocol/sdk @modelcontextprotocol/inspector; do
  [ "$(version "$dir/node_modules/$package/package.json")" = "$(pinned $package)" ] || ok=0
done
if [ $ok = 0 ]; then
  log=$(mktemp)
  if ! npm ci --prefix "$dir" --prefer-offline --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup.sh: npm ci --prefix $dir failed; the MCP tests need @modelcontextprotocol/sdk and @modelcontextprotocol/inspector from the npm registry" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "setup.sh: @modelcontextprotocol/sdk $(pinned @modelcontextprotocol/sdk), @modelcontextprotocol/inspector $(pinned @modelcontextprotocol/inspector)"
