#!/usr/bin/env python3
"""The MCP Inspector's CLI mode against `cookgraph mcp` (docs/testing.md#the-mcp-server).

usage: inspector_check.py INSPECTOR COOKGRAPH INPUT [--perturb]

Runs `mcp-inspector --cli --format json` (@modelcontextprotocol/inspector,
installed by tests/mcp/setup.sh) over stdio for tools/list (with --strict:
no schema problem, not even a warning), calls of summary, top_nodes, node
and whatif (the official client's test calls every tool), a tool error
(exit 5, tool_is_error), an unknown tool (tool_not_found), resources/list
and resources/read, prompts/list and prompts/get, under the protocol era
"legacy" (tools/list and top_nodes under "auto" too). Each must exit as
expected with the result it names. The Inspector keeps its catalog under
$HOME: a temporary one is used. --perturb expects top_nodes {"top": 3} to
give 4 nodes (and stops there): the check must then fail. Standard library
only.
"""
import json
import os
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) < 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    inspector, cookgraph, inp = argv[1:4]
    perturb = "--perturb" in argv
    failures, runs = [], 0
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home)

        def run(era, *options, code=0):
            nonlocal runs
            runs += 1
            # -q keeps standard output to the result, but would hide --strict's findings.
            quiet = [] if "--strict" in options else ["-q"]
            p = subprocess.run([inspector, "--cli", "--format", "json", *quiet, "--protocol-era", era, *options,
                                cookgraph, "mcp", inp], capture_output=True, text=True, env=env, timeout=120)
            # The result on standard output; an error's envelope on standard error.
            out = (p.stdout if code == 0 else p.stderr).strip()
            what = f"{era} {' '.join(options)}"
            if p.returncode != code:
                failures.append(f"{what}: exit {p.returncode}, expected {code}: {(p.stdout + p.stderr)[:300]}")
                return {}
            if "--strict" in options and ("Warning" in p.stderr or "Error" in p.stderr):
                failures.append(f"{what}: schema problems: {p.stderr.strip()[:600]}")
            try:
                return json.loads(out.splitlines()[-1] if out else "{}")
            except json.JSONDecodeError:
                failures.append(f"{what}: not JSON: {out[:300]}")
                return {}

        def expect(what, ok, got):
            if not ok:
                failures.append(f"{what}: {json.dumps(got)[:300]}")

        for era in ("auto", "legacy"):
            tools = run(era, "--method", "tools/list", "--strict").get("result", {}).get("tools", [])
            expect(f"{era} tools/list", len(tools) == 12, [t.get("name") for t in tools])
            top = run(era, "--method", "tools/call", "--tool-name", "top_nodes", "--tool-args-json", '{"top":3}')
            nodes = top.get("result", {}).get("structuredContent", {}).get("nodes", [])
            expect(f"{era} top_nodes", len(nodes) == (4 if perturb else 3), top)
            if era == "auto" or perturb:
                continue  # the rest once, under "legacy" (what a target given on the command line gets)
            summary = run(era, "--method", "tools/call", "--tool-name", "summary")
            applies = summary.get("result", {}).get("structuredContent", {}).get("tools", [])
            expect(f"{era} summary", "top_nodes" in applies, summary)
            arguments = {"top_nodes": {"top": 3}, "node": None, "container": {"path": ""},
                         "whatif": {"top": 2}, "frames": {"limit": 2}}
            arguments["node"] = {"id": nodes[0]["id"] if nodes else ""}
            # Every tool is called by the official client (client_test.mjs); here those
            # whose arguments the Inspector passes verbatim as JSON.
            for name in ("node", "whatif"):
                got = run(era, "--method", "tools/call", "--tool-name", name, "--tool-args-json",
                          json.dumps(arguments.get(name, {})))
                expect(f"{era} {name}", isinstance(got.get("result", {}).get("structuredContent"), dict), got)
            got = run(era, "--method", "tools/call", "--tool-name", "node", "--tool-args-json", '{"id":"no such node"}',
                      code=5)
            expect(f"{era} a tool's error", got.get("error", {}).get("code") == "tool_is_error", got)
            got = run(era, "--method", "tools/call", "--tool-name", "no_such_tool", code=5)
            expect(f"{era} an unknown tool", got.get("error", {}).get("code") == "tool_not_found", got)
            resources = run(era, "--method", "resources/list").get("result", {}).get("resources", [])
            expect(f"{era} resources/list", len(resources) == 2, resources)
            for r in resources:
                got = run(era, "--method", "resources/read", "--uri", r["uri"])
                contents = got.get("result", {}).get("contents", [{}])
                expect(f"{era} resources/read {r['uri']}", contents[0].get("text", "").strip() != "", got)
            prompts = run(era, "--method", "prompts/list").get("result", {}).get("prompts", [])
            expect(f"{era} prompts/list", [p["name"] for p in prompts] ==
                   ["debugger", "explainer", "minimalist", "gpu-optimizer"], prompts)
            got = run(era, "--method", "prompts/get", "--prompt-name", "minimalist")
            text = got.get("result", {}).get("messages", [{}])[0].get("content", {}).get("text", "")
            expect(f"{era} prompts/get", text.startswith("Persona: minimalist."), got)

    for f in failures:
        print("inspector_check: FAIL " + f, file=sys.stderr)
    if failures:
        return 1
    print(f"inspector_check: {runs} Inspector CLI runs against cookgraph mcp {inp} passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
