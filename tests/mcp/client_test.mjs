// Drives `cookgraph mcp INPUT` with the official MCP TypeScript client
// (@modelcontextprotocol/sdk, StdioClientTransport), docs/testing.md#the-mcp-server:
// initialize, list the tools, resources and prompts, read every resource, get
// every prompt, call every tool, and check the numbers against the CLI's own
// documents, read here as JSON: top_nodes and node against
// `score --format json`, whatif against `whatif --format json`, critical_path
// against `graph --format json`, gpu_breakdown, launches and threads against
// score's "gpu" and GStreamer sections. Then `open` (a copy inside --allow, the
// input itself outside it) and an unknown tool (JSON-RPC -32602).
//
// usage: node client_test.mjs --cookgraph BIN --input PATH [--perturb]
// --perturb changes one number of score's document by one part in 10^12
// before comparing: the comparison must then fail (exit 1), which shows it
// is exact.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const cookgraph = option("--cookgraph");
const input = option("--input");
const perturb = args.includes("--perturb");
if (!cookgraph || !input) {
  console.error("usage: client_test.mjs --cookgraph BIN --input PATH [--perturb]");
  process.exit(2);
}

const cli = (...argv) => JSON.parse(execFileSync(cookgraph, argv, { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }).toString());
const score = cli("score", input, "--format", "json", "--top", "0").snapshots[0];
const byAvg = cli("score", input, "--format", "json", "--top", "5", "--sort", "avg").snapshots[0];
const graph = cli("graph", input, "--format", "json");
if (perturb) score.nodes[0].avg_ms *= 1 + 1e-12;

const allowed = fs.mkdtempSync(path.join(os.tmpdir(), "cookgraph-mcp-"));
const copy = path.join(allowed, "copy" + (input.endsWith(".gz") ? ".json.gz" : path.extname(input)));
fs.cpSync(input, copy, { recursive: true });

let checks = 0;
const check = (what, fn) => {
  try {
    fn();
    checks++;
  } catch (e) {
    console.error(`client_test: FAIL ${what}: ${e.message.split("\n").slice(0, 12).join("\n")}`);
    process.exitCode = 1;
  }
};

const client = new Client({ name: "cookgraph-client-test", version: "1.0.0" });
const transport = new StdioClientTransport({ command: cookgraph, args: ["mcp", input, "--allow", allowed], stderr: "pipe" });
let stderr = "";
transport.stderr?.on("data", (d) => (stderr += d));
await client.connect(transport);

// A tool's result: its structured content, which must be its text read as JSON.
async function call(name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) return { error: r.content[0].text };
  check(`${name}: structuredContent is the text`, () => assert.deepEqual(r.structuredContent, JSON.parse(r.content[0].text)));
  return r.structuredContent;
}

try {
  check("serverInfo", () => assert.equal(client.getServerVersion().name, "cookgraph"));
  check("capabilities", () => assert.ok(client.getServerCapabilities().tools && client.getServerCapabilities().resources && client.getServerCapabilities().prompts));

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  const every = ["open", "summary", "top_nodes", "node", "findings", "frames", "critical_path", "whatif", "container", "gpu_breakdown", "launches", "threads"];
  check("tools/list", () => assert.deepEqual(names, every));
  for (const t of tools) {
    check(`${t.name}: schemas`, () => assert.ok(t.inputSchema?.type === "object" && t.outputSchema?.type === "object" && t.description));
  }

  const summary = await call("summary");
  check("summary", () => {
    assert.equal(summary.file, input);
    assert.equal(summary.engine, score.engine);
    assert.equal(summary.frames, score.frames);
    assert.deepEqual(summary.frame_ms, score.frame_ms);
    assert.equal(summary.over_budget_frames, score.over_budget_frames);
    assert.deepEqual(summary.top, score.nodes.filter((n) => n.rank !== null).slice(0, 5).map((n) => n.id));
  });

  const top = await call("top_nodes", { top: 20 });
  check("top_nodes = score --format json", () => assert.deepEqual(top.nodes, score.nodes.slice(0, 20)));
  const avg = await call("top_nodes", { sort: "avg", top: 5 });
  check("top_nodes sort avg = score --sort avg", () => assert.deepEqual(avg.nodes, byAvg.nodes));
  const all = await call("top_nodes", { top: 100000 });
  check("top_nodes over the limit is cut and says so", () => {
    assert.match(all.note, /at most 500 rows/);
    assert.ok(all.nodes.length >= Math.min(20, score.nodes.length));
    assert.deepEqual(all.nodes, score.nodes.slice(0, all.nodes.length));
    if (all.nodes.length < score.nodes.length) assert.ok(all.truncated && all.total === score.nodes.length);
  });

  // node: the first five, the last, and one that never cooked.
  const picks = [...score.nodes.slice(0, 5), score.nodes.at(-1), score.nodes.find((n) => n.rank === null)].filter(Boolean);
  for (const expected of picks) {
    const got = await call("node", { id: expected.id });
    check(`node ${expected.id} = score --format json`, () => {
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(got[key], value, key);
    });
  }

  const first = score.nodes[0].id, second = score.nodes[1].id;
  const whatif = await call("whatif", { id: first, factor: 0.5 });
  check("whatif = whatif --format json", () => assert.deepEqual(whatif, cli("whatif", input, "--node", `${first}=0.5`, "--format", "json")));
  const pair = await call("whatif", { changes: [{ id: first, factor: 0 }, { id: second, factor: 0.25 }] });
  check("whatif changes = whatif --format json", () =>
    assert.deepEqual(pair, cli("whatif", input, "--node", `${first}=0`, "--node", `${second}=0.25`, "--format", "json")));
  const gains = await call("whatif", { top: 7 });
  check("whatif top = whatif --top 7 --format json", () => assert.deepEqual(gains, cli("whatif", input, "--top", "7", "--format", "json")));

  const path_ = await call("critical_path");
  check("critical_path = graph --format json", () => {
    const expected = { ...graph.critical_path };
    if (path_.truncated) {  // a trace's events past the result's limit are cut, and it says so
      assert.equal(path_.events_total, expected.events.length);
      assert.ok(path_.events.length > 0);
      Object.assign(expected, { events: expected.events.slice(0, path_.events.length), truncated: true, events_total: expected.events.length });
    }
    assert.deepEqual(path_, expected);
  });

  const findings = await call("findings", { limit: 500 });
  check("findings", () => {
    assert.ok(Array.isArray(findings.findings));
    for (const f of findings.findings) assert.ok(f.rule && ["info", "warning", "critical"].includes(f.severity) && f.title);
  });
  const frames = await call("frames", { limit: 5 });
  check("frames: slowest first", () => {
    assert.ok(frames.frames.length > 0);
    for (let i = 1; i < frames.frames.length; i++) assert.ok(frames.frames[i - 1].ms >= frames.frames[i].ms);
    assert.equal(frames.frames[0].ms, score.frame_ms.max);
  });
  const one = await call("frames", { index: frames.frames[0].index });
  check("frames: one frame", () => assert.equal(one.ms, frames.frames[0].ms));
  const top_level = await call("container", { path: "" });
  check("container", () => assert.ok(Array.isArray(top_level.nodes) && Array.isArray(top_level.containers)));

  const gpu = await call("gpu_breakdown");
  const launches = await call("launches");
  check("gpu_breakdown and launches = score's gpu", () => {
    if (score.gpu) {
      const { launches: l, ...rest } = score.gpu;
      assert.deepEqual(gpu, rest);
      assert.deepEqual(launches, l);
    } else {
      assert.match(gpu.error, /no trace with GPU kernels/);
      assert.match(launches.error, /no trace with GPU kernels/);
    }
  });
  const threads = await call("threads");
  check("threads = score's GStreamer sections", () => {
    if (score.threads) {
      assert.deepEqual(threads, { threads: score.threads, process_cpu_load_pct: score.process_cpu_load_pct, bottleneck_thread: score.bottleneck_thread, latency_ms: score.latency_ms });
    } else {
      assert.match(threads.error, /no GStreamer recording/);
    }
  });
  check("summary.tools names what applies", () =>
    assert.deepEqual(summary.tools, every.slice(1).filter((t) => !(t === "gpu_breakdown" || t === "launches") || score.gpu).filter((t) => t !== "threads" || score.threads)));

  // Resources and prompts.
  const { resources } = await client.listResources();
  // The id: the file's name without .gz and one extension, as mcp/server.cc makes it.
  const id = path.basename(input).replace(/\.gz$/, "").replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9._-]/g, "_");
  check("resources/list", () => assert.deepEqual(resources.map((r) => r.uri), [`cookgraph://inputs/${id}/summary`, `cookgraph://inputs/${id}/report`]));
  const read = await client.readResource({ uri: `cookgraph://inputs/${id}/summary` });
  check("summary resource = summary tool", () => assert.deepEqual(JSON.parse(read.contents[0].text), summary));
  const report = await client.readResource({ uri: `cookgraph://inputs/${id}/report` });
  check("report resource", () => {
    assert.equal(report.contents[0].mimeType, "text/markdown");
    assert.match(report.contents[0].text, /^# cookgraph report/);
  });
  const { prompts } = await client.listPrompts();
  check("prompts/list", () => assert.deepEqual(prompts.map((p) => p.name), ["debugger", "explainer", "minimalist", "gpu-optimizer"]));
  for (const p of prompts) {
    const got = await client.getPrompt({ name: p.name, arguments: { input: id } });
    check(`prompt ${p.name}`, () => assert.match(got.messages[0].content.text, new RegExp(`^Persona: ${p.name}\\.[^]*'${id}'`)));
  }

  // open: inside --allow, then outside it.
  const opened = await call("open", { path: copy });
  check("open inside --allow", () => assert.equal(opened.file, copy));
  const again = await call("summary", { input: opened.input });
  check("open: the copy's summary", () => assert.deepEqual({ ...again, file: input, name: summary.name }, summary));  // a trace is named after its file
  const listed = await client.listResources();
  check("open: its resources listed", () => assert.equal(listed.resources.length, 4));
  const outside = await call("open", { path: input });
  check("open outside --allow is refused", () => assert.match(outside.error ?? "", /outside the folders cookgraph mcp may read/));

  let code;
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (e) {
    code = e.code;
  }
  check("unknown tool: -32602", () => assert.equal(code, -32602));
} finally {
  await client.close();
  fs.rmSync(allowed, { recursive: true, force: true });
}
if (process.exitCode) {
  console.error(stderr.trim());
  process.exit(1);
}
console.log(`client_test: ${checks} checks passed on ${input}`);
