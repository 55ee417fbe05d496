// The explorer in the browser (docs/performance.md#the-explorer), measured in
// Debian's headless Chromium through playwright-core (tests/browser/):
//
//   node bench/explorer_bench.mjs --cookgraph BIN --input SNAPSHOT [--flat FLAT] --out FILE.json
//
// For SNAPSHOT (bench/explorer_bench.sh makes a 100k-node, 600-frame one):
//   analysis_s     serve's start to its "explorer at" line (read + analyse)
//   first_view_ms  that line to the page's first drawn network (load, fetch, layout, draw)
//   panel_ms       a click on the costliest node of the view to its panel filled (median of 5)
//   container_ms   a double-click on a container to its network drawn (median of 5)
//   heap_mb        the page's JS heap (Chrome's JSHeapUsedSize) after all that
//   renderer_mb    the resident memory of the page's renderer process
// For FLAT (one container of 100k nodes and their edges): draw_ms of a frame
// at fit zoom, and pan_ms, the median frame while panning (30 drags).
// Prints a table and writes FILE.json.
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'browser', 'package.json'));
const { chromium } = require('playwright-core');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

function serve(input) {
  const t0 = Date.now();
  const child = spawn(args.cookgraph, ['serve', input, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = l.match(/explorer at (http:\/\/\S+)/);
      if (m) resolve({ child, url: m[1], ready_at: Date.now(), analysis_s: (Date.now() - t0) / 1000 });
    });
    child.on('exit', (c) => reject(new Error('serve exited with ' + c)));
  });
}

function rendererRssMb() {
  // The renderers of this headless browser: processes with --type=renderer.
  const out = execFileSync('ps', ['-eo', 'rss=,args=']).toString().split('\n');
  let max = 0;
  for (const line of out) {
    if (!/chrom/.test(line) || !/--type=renderer/.test(line) || !/--headless|headless/.test(line + ' headless')) continue;
    const kb = Number(line.trim().split(/\s+/)[0]);
    if (kb > max) max = kb;
  }
  return max / 1024;
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const results = {};
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const s = await serve(args.input);
  try {
    results.analysis_s = s.analysis_s;
    await page.goto(s.url);
    await page.waitForFunction(() => window.cookgraph.timings.first_view_ms > 0, null, { timeout: 120000 });
    const firstAbs = await page.evaluate(() => performance.timeOrigin + window.cookgraph.timings.first_view_ms);
    results.first_view_ms = firstAbs - s.ready_at;
    results.nodes = await page.evaluate(async () => (await (await fetch('/api/v/0/summary')).json()).nodes);

    // Panel: click the costliest node of the view, going into the costliest
    // container until the view has nodes.
    for (let depth = 0; depth < 8; depth++) {
      const items = await page.evaluate(() => window.cookgraph.items());
      if (items.some((i) => i.flags & 64) || !items.some((i) => i.flags & 16)) break;
      const c = items.find((i) => i.flags & 16);
      await page.evaluate((id) => window.cookgraph.focus(id), c.id);
      const t = (await page.evaluate(() => window.cookgraph.items())).find((i) => i.id === c.id);
      await page.mouse.dblclick(t.x, t.y);
      await page.waitForFunction((id) => document.body.dataset.container === id, c.id);
    }
    const panel = [];
    for (let r = 0; r < 5; r++) {
      const target = await page.evaluate(() => {
        const items = window.cookgraph.items().filter((i) => i.flags & 64);
        return items[0];
      });
      if (!target) break;
      await page.evaluate((id) => window.cookgraph.focus(id), target.id);
      const t = (await page.evaluate(() => window.cookgraph.items())).find((i) => i.id === target.id);
      await page.evaluate(() => { document.getElementById('panel').dataset.ready = ''; });
      await page.mouse.click(t.x, t.y);
      await page.waitForFunction((id) => document.getElementById('panel').dataset.ready === id, target.id);
      panel.push(await page.evaluate(() => window.cookgraph.timings.panel_ms));
    }
    results.panel_ms = panel.length ? median(panel) : null;

    // Container: double-click a container item, then go back up, 5 times.
    const container = [];
    for (let r = 0; r < 5; r++) {
      const up = await page.evaluate(() => document.body.dataset.container);
      const c = await page.evaluate(() => window.cookgraph.items().find((i) => i.flags & 16));
      if (!c) break;
      await page.evaluate((id) => window.cookgraph.focus(id), c.id);
      const t = (await page.evaluate(() => window.cookgraph.items())).find((i) => i.id === c.id);
      await page.mouse.dblclick(t.x, t.y);
      await page.waitForFunction((id) => document.body.dataset.container === id, c.id);
      container.push(await page.evaluate(() => window.cookgraph.timings.container_ms));
      await page.evaluate(async (id) => {
        const a = [...document.querySelectorAll('#breadcrumb a')].find((x) => x.dataset.id === id);
        if (a) a.click();
      }, up);
      await page.waitForFunction((id) => document.body.dataset.container === id, up);
    }
    results.container_ms = container.length ? median(container) : null;
    const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    results.heap_mb = metrics.JSHeapUsedSize / (1024 * 1024);
    results.renderer_mb = rendererRssMb();
  } finally {
    s.child.kill('SIGTERM');
  }

  if (args.flat) {
    const f = await serve(args.flat);
    try {
      await page.goto(f.url);
      await page.waitForFunction(() => window.cookgraph.timings.first_view_ms > 0, null, { timeout: 120000 });
      results.flat_first_view_ms = (await page.evaluate(() => performance.timeOrigin + window.cookgraph.timings.first_view_ms)) - f.ready_at;
      results.flat_items = await page.evaluate(() => window.cookgraph.items().length);
      results.flat_draw_ms = await page.evaluate(() => window.cookgraph.timings.draw_ms);
      const box = await page.$eval('#graph', (c) => { const r = c.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
      const pans = [];
      for (let i = 0; i < 30; i++) {
        await page.mouse.move(box.x, box.y);
        await page.mouse.down();
        await page.mouse.move(box.x + 40, box.y + 10, { steps: 2 });
        await page.mouse.up();
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
        pans.push(await page.evaluate(() => window.cookgraph.timings.draw_ms));
      }
      results.flat_pan_ms = median(pans);
      await page.mouse.move(box.x, box.y);
      for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -400);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
      results.flat_zoomed_draw_ms = await page.evaluate(() => window.cookgraph.timings.draw_ms);
      const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
      results.flat_heap_mb = metrics.JSHeapUsedSize / (1024 * 1024);
      results.flat_renderer_mb = rendererRssMb();
    } finally {
      f.child.kill('SIGTERM');
    }
  }
} finally {
  await browser.close();
}
results.chromium = execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
writeFileSync(args.out, JSON.stringify(results, null, 2) + '\n');
for (const [k, v] of Object.entries(results)) console.log(k.padEnd(22) + (typeof v === 'number' ? v.toFixed(k.endsWith('_s') ? 2 : 1) : v));
