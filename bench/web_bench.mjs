// The one-file page's benchmark (bench/web_bench.sh): medians of interleaved
// runs of the native `cookgraph score TRACE --format json` and of
// cookgraph.score() in the page (the file's bytes given as a Blob: read,
// handed to the worker, read and analysed there, the document parsed), timed
// in the page with performance.now(). Also the page's size, and how long its
// main thread was busy during the page's runs (its longest task: the work is
// the worker's, so the page stays responsive).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The browser tests' playwright-core (tests/browser/setup.sh installs it).
const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', 'tests', 'browser', 'package.json'));
const { chromium } = require('playwright-core');

const args = {};
for (let i = 2; i < process.argv.length; i++) args[process.argv[i].replace(/^--/, '')] = process.argv[++i];
const runs = Number(args.runs || 5);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage();
await page.goto(pathToFileURL(resolve(args.page)).href);
await page.evaluate(() => window.cookgraph.load());
const b64 = readFileSync(args.trace).toString('base64');
await page.evaluate((data) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  window.benchBlob = new Blob([bytes]);
  window.longest = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration);
  }).observe({ type: 'longtask', buffered: false });
}, b64);
const native = [], inPage = [];
let nodes = 0;
for (let r = 0; r < runs; r++) {
  let t = process.hrtime.bigint();
  execFileSync(resolve(args.cookgraph), ['score', args.trace, '--format', 'json'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  native.push(Number(process.hrtime.bigint() - t) / 1e9);
  const got = await page.evaluate(async (name) => {
    const t0 = performance.now();
    const doc = await window.cookgraph.score([{ name, bytes: window.benchBlob }]);
    return { s: (performance.now() - t0) / 1000, nodes: doc.snapshots[0].nodes.length };
  }, basename(args.trace));
  inPage.push(got.s);
  nodes = got.nodes;
}
const longestTaskMs = await page.evaluate(() => window.longest);
await browser.close();
const result = {
  date: new Date().toISOString().slice(0, 10),
  chromium: execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(),
  page_bytes: statSync(args.page).size,
  trace: basename(args.trace), trace_bytes: statSync(args.trace).size, nodes,
  runs, native_s: median(native), page_s: median(inPage),
  ratio: median(inPage) / median(native),
  page_longest_task_ms: longestTaskMs,
};
writeFileSync(args.out, JSON.stringify(result, null, 2) + '\n');
console.log(`web_bench: page ${(result.page_bytes / 1e6).toFixed(2)} MB; ${result.trace} (${(result.trace_bytes / 1e6).toFixed(1)} MB): native ${result.native_s.toFixed(3)} s, page ${result.page_s.toFixed(3)} s (${result.ratio.toFixed(2)}x); longest main-thread task ${longestTaskMs.toFixed(0)} ms`);
