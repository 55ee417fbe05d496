#!/usr/bin/env sh
# Installs the MCP tests' npm packages, the official TypeScript client
# (@modelcontextprotocol/sdk) and the MCP Inspector (its --cli mode), pinned in
# tests/mcp/package-lock.json (tests/tools/npm_pinned.sh).
# usage: setup.sh   (run by ctest as the fixture mcp_client)
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
versions=$(sh "$dir/../tools/npm_pinned.sh" "$dir" @modelcontextprotocol/sdk @modelcontextprotocol/inspector)
echo "setup.sh:" $versions
