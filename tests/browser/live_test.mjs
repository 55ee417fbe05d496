// `cookgraph watch --serve` in Debian's headless Chromium (docs/testing.md#browser-tests):
// frames sent over UDP must show on an open page within one second.
//
//   node live_test.mjs --cookgraph BIN --out DIR
//
// Sends 30 frames, opens the page, waits for them; then sends 10 more (the
// last with a node over --node-ms, which raises an alert) and measures how
// long the page takes to show 40 frames, the alert and the node's new
// colour value. Fails when any of them takes a second or more, on a console
// error, or when watch does not exit 0 on SIGINT.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createSocket } from 'node:dgram';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
mkdirSync(args.out, { recursive: true });
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };

const env = { ...process.env };
for (const k of ['COOKGRAPH_BASE_URL', 'OPENAI_BASE_URL', 'COOKGRAPH_MODEL', 'OPENAI_API_KEY']) delete env[k];
const watch = spawn(args.cookgraph, ['watch', '--listen', 'udp://127.0.0.1:0', '--serve', '0', '--node-ms', '20',
  '--duration', '150', '--format', 'json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
const seen = { url: null, udp: null };
const ready = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('watch --serve printed no address in 30 s')), 30000);
  const done = () => { if (seen.url && seen.udp) { clearTimeout(timer); resolve(); } };
  createInterface({ input: watch.stdout }).on('line', (l) => {
    const m = l.match(/explorer at (http:\/\/\S+)/);
    if (m) { seen.url = m[1]; done(); }
  });
  createInterface({ input: watch.stderr }).on('line', (l) => {
    const m = l.match(/listening on udp:\/\/127\.0\.0\.1:(\d+)/);
    if (m) { seen.udp = Number(m[1]); done(); }
    if (/error/.test(l)) console.error(l);
  });
  watch.on('exit', (code) => reject(new Error('watch exited with ' + code)));
});

const socket = createSocket('udp4');
const send = (msg) => new Promise((r) => socket.send(Buffer.from(JSON.stringify(msg)), seen.udp, '127.0.0.1', r));
async function frames(from, count, spike) {
  for (let f = from; f < from + count; f++) {
    const last = spike && f === from + count - 1;
    await send({ frame: f, frame_ms: last ? 40 : 12 + (f % 3),
      nodes: { '/p/noise1': 2 + (f % 2), '/p/blur1': last ? 33 : 4.5, '/p/out': 0.2 } });
  }
}

let browser;
try {
  await ready;
  await frames(1, 30);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  await page.goto(seen.url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  await page.waitForFunction(() => document.body.dataset.frames === '30', null, { timeout: 10000 });
  const before = await page.evaluate(async () => {
    const g = await (await fetch('/api/v/0/graph?container=/p')).json();
    return g.items.per_frame_ms[g.items.id.indexOf('/p/blur1')];
  });
  await page.screenshot({ path: `${args.out}/live-30.png` });

  const t0 = Date.now();
  await frames(31, 10, true);
  await page.waitForFunction(() => document.body.dataset.frames === '40', null, { timeout: 5000 })
    .catch(() => check(false, 'the page never showed 40 frames'));
  const framesMs = Date.now() - t0;
  await page.waitForFunction(() => /alert/.test(document.getElementById('alerts').textContent), null, { timeout: 5000 })
    .catch(() => check(false, 'the alert never reached the page'));
  const alertMs = Date.now() - t0;
  const after = await page.evaluate(async () => {
    const g = await (await fetch('/api/v/0/graph?container=/p')).json();
    return g.items.per_frame_ms[g.items.id.indexOf('/p/blur1')];
  });
  check(after > before, `the node's per-frame ms did not change (${before} -> ${after})`);
  check(framesMs < 1000, `new frames took ${framesMs} ms to show (limit 1000)`);
  check(alertMs < 1000, `the alert took ${alertMs} ms to show (limit 1000)`);
  console.log(`live_test: 10 new frames shown after ${framesMs} ms, the alert after ${alertMs} ms`);
  await page.screenshot({ path: `${args.out}/live-40.png` });
  check(errors.length === 0, `console errors: ${errors.join(' | ')}`);
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  if (browser) await browser.close();
  socket.close();
}
const code = await new Promise((resolve) => {
  if (watch.exitCode !== null) return resolve(watch.exitCode);
  watch.on('exit', (c) => resolve(c));
  watch.kill('SIGINT');
});
check(code === 0, `watch --serve exited with ${code} on SIGINT`);
if (failures.length) {
  for (const f of failures) console.error('live_test: FAIL: ' + f);
  process.exit(1);
}
console.log(`live_test: every check passed; screenshots in ${args.out}`);
