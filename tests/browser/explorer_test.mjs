// Drives `cookgraph serve` in Debian's headless Chromium (docs/testing.md#browser-tests).
//
//   node explorer_test.mjs --cookgraph BIN --input PATH [--input PATH2] --out DIR
//                          --fake-llm tests/tools/fake_llm_server.py [--hostile]
//
// On one input: the network draws; a GStreamer recording lists its
// streaming threads by name, the bottleneck first, whose click opens its
// costliest element; a double-click enters a container (when
// the input has one); a search finds the top node by name and opens its
// panel, whose numbers must equal `cookgraph score --format json`'s; the
// worst frame's timeline opens; the Nodes tab ranks by its gain column (a
// header click) and its first row opens that node, whose what-if slider,
// moved, changes the predicted frame times (as the API gives them) and the
// chart; the ask box streams an answer from the fake
// LLM server (the question echoed back, Markdown with hostile HTML in it)
// and renders it as Markdown with nothing able to run; no console error, no
// dialog. Screenshots go to DIR. --hostile also searches for the node named
// `<img src=x onerror=...>` and checks that it shows as text.
// Exits 0 on success, 1 with one line per failed check.
import { spawn, execFileSync } from 'node:child_process';
import { firstLine } from './child_lines.mjs';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const args = { input: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--hostile') args.hostile = true;
  else if (a === '--input') args.input.push(process.argv[++i]);
  else args[a.replace(/^--/, '').replace(/-/g, '_')] = process.argv[++i];
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });

const KEY = 'sk-test-4f1d9c-never-in-the-page';
const fake = spawn('python3', [args.fake_llm, '--lifetime', '280'], { stdio: ['pipe', 'pipe', 'inherit'] });
const fakePort = (await firstLine(fake, /^(\d+)$/, 'fake LLM server'))[1];
const env = {
  ...process.env,
  COOKGRAPH_BASE_URL: `http://127.0.0.1:${fakePort}/case/echo-question`,
  COOKGRAPH_MODEL: 'fake-model',
  OPENAI_API_KEY: KEY,
};
delete env.OPENAI_BASE_URL;
const serve = spawn(args.cookgraph, ['serve', ...args.input, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
let browser;
try {
  const url = (await firstLine(serve, /explorer at (http:\/\/\S+)/, 'cookgraph serve'))[1];
  const score = JSON.parse(execFileSync(args.cookgraph, ['score', ...args.input, '--format', 'json'], { maxBuffer: 1 << 30 }).toString());
  const expected = score.snapshots[0];
  const top = expected.nodes[0];

  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  const dialogs = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push('page error: ' + e.message));
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  const bodies = [];
  page.on('response', async (r) => { try { bodies.push(await r.text()); } catch { /* streams */ } });

  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  const drawn = await page.evaluate(() => window.cookgraph.drawn);
  check(drawn > 0, `the network drew nothing (drawn = ${drawn})`);
  await page.screenshot({ path: `${args.out}/network.png` });

  // GStreamer: the first view lists the streaming threads by name, the
  // bottleneck first (score's bottleneck_thread), and opens inside the
  // pipeline rather than on one container box.
  if (expected.threads && expected.threads.length) {
    const chips = await page.$$eval('#threads li', (lis) => lis.map((li) => ({
      thread: li.dataset.thread, text: li.textContent, bottleneck: li.classList.contains('bottleneck') })));
    check(chips.length === expected.threads.length,
      `the explorer lists ${chips.length} streaming threads, score ${expected.threads.length}`);
    for (const t of expected.threads) {
      const chip = chips.find((c) => c.thread === t.thread);
      check(chip && chip.text.startsWith(t.name) && chip.text.includes(t.route),
        `thread ${t.thread} is not shown as "${t.name}" (${t.route}): ${chip && chip.text}`);
    }
    const b = expected.bottleneck_thread;
    check(b && chips[0] && chips[0].bottleneck && chips[0].thread === b.thread,
      `the first thread shown is not the bottleneck ${b && b.name}: ${chips[0] && chips[0].text}`);
    // The colour scale's top is the hottest working node's score, not a
    // queue's waiting (queues are drawn pale blue, off the scale).
    const legendMax = await page.$eval('#legend-max', (e) => Number(e.textContent));
    const inView = await page.evaluate(async (c) => (await (await fetch('/api/v/0/graph?container=' + encodeURIComponent(c))).json()).items,
      await page.evaluate(() => document.body.dataset.container));
    let hottest = 0;
    inView.score.forEach((v, i) => { if (v !== null && !(inView.flags[i] & 8) && v > hottest) hottest = v; });
    check(Math.abs(legendMax - Number(hottest.toFixed(3))) < 1e-9,
      `the colour scale tops at ${legendMax}, the hottest working node scores ${hottest}`);
    const level = await page.evaluate(() => document.body.dataset.container);
    check(level !== '', 'the explorer opened on the top level of a pipeline, not inside it');
    if (b && b.element) {
      await page.click('#threads li.bottleneck');
      try {
        await page.waitForFunction((id) => document.getElementById('panel').dataset.ready === id, b.element, { timeout: 15000 });
      } catch {
        check(false, `a click on the bottleneck thread did not open ${b.element}`);
      }
    }
  }

  // A double-click enters a container.
  const items = await page.evaluate(() => window.cookgraph.items());
  const container = items.find((i) => i.flags & 16);
  if (container) {
    await page.evaluate((id) => window.cookgraph.focus(id), container.id);
    const again = (await page.evaluate(() => window.cookgraph.items())).find((i) => i.id === container.id);
    await page.mouse.dblclick(again.x, again.y);
    try {
      await page.waitForFunction((id) => document.body.dataset.container === id, container.id, { timeout: 10000 });
      const crumbs = await page.$$eval('#breadcrumb a', (as) => as.map((a) => a.dataset.id));
      check(crumbs[crumbs.length - 1] === container.id, `the breadcrumb does not end at ${container.id}: ${crumbs}`);
      await page.screenshot({ path: `${args.out}/container.png` });
    } catch {
      check(false, `a double-click on ${container.id} did not enter it`);
    }
  } else {
    console.log(`explorer_test: ${args.input.join(' ')} has no container at its top level: no double-click`);
  }

  // Search finds the top node by its name and opens its panel with score's numbers.
  const name = top.id.includes('/') ? top.id.slice(top.id.lastIndexOf('/') + 1) || top.id : top.id;
  await page.fill('#search', name);
  await page.press('#search', 'Enter');
  try {
    await page.waitForFunction((id) => document.getElementById('panel').dataset.ready === id, top.id, { timeout: 15000 });
  } catch {
    check(false, `searching "${name}" did not open the panel of ${top.id}`);
  }
  const shown = await page.$$eval('#panel-stats tr[data-stat]', (rows) =>
    Object.fromEntries(rows.map((r) => [r.dataset.stat, r.querySelector('td').dataset.value])));
  let compared = 0;
  for (const [key, value] of Object.entries(shown)) {
    if (!(key in top)) { check(false, `panel shows ${key}, which score --format json does not have`); continue; }
    const want = top[key];
    const got = value === '' ? null : Number(value);
    check(want === got, `panel ${key} = ${value}, score --format json says ${want}`);
    compared++;
  }
  check(compared >= 10, `the panel showed only ${compared} of score's numbers`);
  check(await page.$eval('#panel-title', (e) => e.textContent) === top.id, 'the panel title is not the node id');
  await page.screenshot({ path: `${args.out}/panel.png` });

  // The Nodes tab: a click on "gain ms" ranks every node by its gain (the
  // server's ranking), the first row opens its node.
  await page.click('[data-tab=nodes]');
  const byGain = await page.evaluate(async () => (await (await fetch('/api/v/0/nodes?sort=gain&top=200')).json()));
  try {
    await page.waitForSelector('#nodes-table th[data-sort=gain]', { timeout: 15000 });
    const title = await page.$eval('#nodes-table th[data-sort=gain]', (th) => th.title);
    // In the engine's word (docs/architecture.md#engine-words).
    const word = { gstreamer: 'buffer', pytorch: 'step' }[score.snapshots[0].engine] || 'frame';
    check(title === `predicted mean ${word} ms saved if this node cooked twice as fast`, `the gain header's tooltip is "${title}"`);
    await page.click('#nodes-table th[data-sort=gain]');
    await page.waitForFunction(() => document.body.dataset.nodesSort === 'gain', null, { timeout: 15000 });
    const ids = await page.$$eval('#nodes-table tbody tr', (rows) => rows.map((r) => r.dataset.id));
    check(ids.length === byGain.rows.length && ids.every((id, i) => id === byGain.rows[i].id),
      `the table by gain is not the server's ranking: ${ids.slice(0, 3)} vs ${byGain.rows.slice(0, 3).map((r) => r.id)}`);
    const gains = byGain.rows.map((r) => r.gain_ms);
    check(gains.every((g, i) => i === 0 || gains[i - 1] >= g), `gains not largest first: ${gains.slice(0, 5)}`);
    await page.screenshot({ path: `${args.out}/nodes.png` });
  } catch (e) {
    check(false, `the Nodes tab did not rank by gain: ${e.message}`);
  }

  // The Nodes tab beside score: GPU per frame and its share as score's table
  // prints them (its Markdown), and a container's row the total per frame of
  // itself and every node inside it, summed here from score's JSON.
  try {
    const byScore = await page.evaluate(async () => (await (await fetch('/api/v/0/nodes?sort=score&top=200')).json()));
    const md = execFileSync(args.cookgraph, ['score', ...args.input, '--format', 'md', '--top', '200'], { maxBuffer: 1 << 30 }).toString();
    const lines = md.split('\n').filter((l) => l.startsWith('| '));
    const head = lines[0].split(' | ');
    const gpuAt = head.findIndex((t) => t.startsWith('gpu ms/')), shareAt = head.indexOf('gpu share');
    const table = new Map(lines.slice(2).map((l) => l.split(' | ')).map((c) => [c[1].replace(/\\(.)/g, '$1'), c]));
    let gpuRows = 0, containerRows = 0;
    const nodesById = new Map(expected.nodes.map((n) => [n.id, n]));
    for (const r of byScore.rows) {
      const cells = table.get(r.id);
      if (gpuAt > 0 && cells) {
        const shown = r.gpu_per_frame_ms === null ? '-' : r.gpu_per_frame_ms.toFixed(3);
        const share = r.gpu_share === null ? '-' : (100 * r.gpu_share).toFixed(1) + '%';
        check(shown === cells[gpuAt] && share === cells[shareAt], `${r.id}: GPU ${shown} ${share} in the Nodes tab, score prints ${cells[gpuAt]} ${cells[shareAt]}`);
        if (r.gpu_per_frame_ms !== null) gpuRows++;
      }
      const beneath = expected.nodes.filter((n) => n.id.startsWith(r.id + '/'));
      if (beneath.length) {
        containerRows++;
        const total = beneath.reduce((t, n) => t + (n.per_frame_ms || 0), nodesById.get(r.id).per_frame_ms || 0);
        check(r.inside_ms !== null && Math.abs(r.inside_ms - total) < 1e-9, `${r.id}: with inside ${r.inside_ms} ms, score's nodes sum to ${total}`);
      } else {
        check(r.inside_ms === null, `${r.id} holds no node but shows ${r.inside_ms} ms inside`);
      }
    }
    const headers = await page.$$eval('#nodes-table th', (ths) => ths.map((th) => th.textContent));
    if (gpuAt > 0) check(gpuRows > 0 && headers.some((h) => h.startsWith('GPU ms/')), `the Nodes tab shows no GPU column (${gpuRows} rows with GPU time)`);
    if (containerRows) check(headers.some((h) => h.startsWith('with inside')), `${containerRows} containers but no "with inside" column`);
    console.log(`explorer_test: Nodes tab: ${gpuRows} rows with GPU time, ${containerRows} containers with their totals`);
  } catch (e) {
    check(false, `the Nodes tab's GPU and container columns: ${e.message}`);
  }

  // The what-if slider of the node that gains most: 0.5 first, then moved
  // with the keyboard to 0 (removed) and to 1 (as measured).
  const gainer = byGain.rows[0];
  if (gainer) {
    try {
      await page.click('#nodes-table tbody tr');
      const ready = (f) => page.waitForFunction(([id, f]) => document.getElementById('whatif').dataset.ready === id + '@' + f,
        [gainer.id, f], { timeout: 15000 });
      await ready(0.5);
      const chart = () => page.$eval('#whatif-chart', (c) => c.toDataURL());
      const half = await page.evaluate(() => window.cookgraph.whatif);
      const halfPixels = await chart();
      await page.focus('#whatif-factor');
      await page.keyboard.press('Home');
      await ready(0);
      const removed = await page.evaluate(() => window.cookgraph.whatif);
      const api = await page.evaluate(async (id) => (await (await fetch('/api/v/0/whatif?node=' + encodeURIComponent(id) + '&factor=0')).json()), gainer.id);
      check(JSON.stringify(removed.after) === JSON.stringify(api.after_ms), 'the drawn series at 0 is not the API\'s after_ms');
      if (gainer.gain_ms > 0) {
        check(JSON.stringify(removed.after) !== JSON.stringify(half.after), 'moving the slider from 0.5 to 0 did not change the predicted series');
        check(removed.saved_ms > half.saved_ms, `removing ${gainer.id} saves ${removed.saved_ms} ms, halving ${half.saved_ms}`);
        check(await chart() !== halfPixels, 'the what-if chart did not change with the slider');
      } else {
        console.log(`explorer_test: no node of ${args.input.join(' ')} is predicted to gain: the series is not compared`);
      }
      for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');  // 0.05 a step
      await ready(1);
      const measured = await page.evaluate(() => window.cookgraph.whatif);
      check(Math.abs(measured.saved_ms) < 1e-9, `at 1 (as measured) the model saves ${measured.saved_ms} ms`);
      const head = await page.$eval('#whatif-head', (e) => e.textContent);
      check(/mean .* → .* ms/.test(head), `the what-if head says no before and after: ${head}`);
      await page.$eval('#whatif', (e) => e.scrollIntoView());
      await page.screenshot({ path: `${args.out}/whatif.png` });
    } catch (e) {
      check(false, `the what-if slider of ${gainer.id}: ${e.message}`);
    }
  } else {
    check(false, 'the nodes API listed no node');
  }

  // The worst frame's timeline opens first.
  await page.click('[data-tab=frames]');
  const worst = await page.evaluate(async () => (await (await fetch('/api/v/0/frames')).json()).worst);
  try {
    await page.waitForFunction((w) => document.body.dataset.frame === String(w), worst, { timeout: 15000 });
    const head = await page.$eval('#timeline-head', (e) => e.textContent);
    check(/lane/.test(head), `the timeline head says no lanes: ${head}`);
  } catch {
    check(false, `the worst frame (${worst}) did not open`);
  }
  await page.screenshot({ path: `${args.out}/timeline.png` });

  // Ask: the fake server echoes the question, streamed in 7-byte pieces.
  await page.click('[data-tab=ask]');
  const question = 'Reply with **bold** and a list:\n\n- first <img src=x onerror="alert(1)">\n- [link](javascript:alert(2))\n\n<script>alert(3)</script>';
  await page.fill('#question', question);
  await page.click('#ask-prompt');
  await page.waitForFunction(() => /prompt tokens/.test(document.getElementById('prompt-info').textContent), null, { timeout: 10000 });
  await page.click('#ask-send');
  try {
    await page.waitForSelector('#answer[data-state="done"]', { timeout: 30000 });
  } catch {
    check(false, `the answer did not finish: ${await page.$eval('#answer', (e) => e.dataset.state + ' ' + e.textContent)}`);
  }
  const answer = await page.$eval('#answer', (e) => ({
    pieces: Number(e.dataset.pieces || 0), strong: e.querySelectorAll('strong').length, li: e.querySelectorAll('li').length,
    img: e.querySelectorAll('img').length, script: e.querySelectorAll('script').length,
    jsLinks: [...e.querySelectorAll('a')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') || '')).length,
    text: e.textContent,
  }));
  check(answer.pieces > 3, `the answer came in ${answer.pieces} pieces, not streamed`);
  check(answer.strong === 1 && answer.li === 2, `the answer's Markdown was not rendered (strong ${answer.strong}, li ${answer.li})`);
  check(answer.img === 0 && answer.script === 0 && answer.jsLinks === 0, `the answer made elements that could run: ${JSON.stringify(answer)}`);
  check(answer.text.includes('<img src=x'), 'the answer\'s raw HTML is not shown as text');
  await page.screenshot({ path: `${args.out}/ask.png` });

  if (args.hostile) {
    await page.click('[data-tab=network]');
    await page.fill('#search', 'onerror');
    await page.press('#search', 'Enter');
    await page.waitForFunction(() => /onerror/.test(document.getElementById('panel').dataset.ready || ''), null, { timeout: 15000 });
    const title = await page.$eval('#panel-title', (e) => e.textContent);
    check(title.includes('<img src=x onerror='), `the hostile node's id is not shown as text: ${title}`);
    check(await page.$$eval('#panel img, #search-results img, #breadcrumb img', (x) => x.length) === 0, 'an <img> from a node id reached the page');
    await page.screenshot({ path: `${args.out}/hostile.png` });
  }
  const pwned = await page.evaluate(() => window.__pwned);
  check(pwned === undefined, 'a script from the input ran (window.__pwned is set)');
  check(dialogs.length === 0, `dialogs opened: ${dialogs.join(' | ')}`);
  check(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
  check(!bodies.some((b) => b.includes(KEY)), 'the API key reached the page');
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  if (browser) await browser.close();
  serve.kill('SIGTERM');
  fake.stdin.end();
  fake.kill();
}
if (failures.length) {
  for (const f of failures) console.error('explorer_test: FAIL: ' + f);
  process.exit(1);
}
console.log(`explorer_test: ${args.input.join(' ')}: every check passed; screenshots in ${args.out}`);
process.exit(0);
