// The one-file page (build-web/cookgraph.html, docs/web.md), opened from its
// file in Debian's headless Chromium (docs/testing.md#browser-tests):
//
//   node web_page_test.mjs --cookgraph BIN --page HTML --out DIR
//                          [--offset X] [--hostile SNAPSHOT] [--bad FILE] INPUT...
//
// 1. For every INPUT (a file, or a folder: a GStreamer recording, a job's
//    ranks), cookgraph.score() in the page, given the file's bytes (every
//    file of the folder, named FOLDER/FILE), must return the document the
//    native `cookgraph score INPUT --format json` prints (run in the input's
//    folder, so that both name it alike): the same keys, strings, nulls and
//    order, numbers equal within 1e-9 relative. --offset X adds X to every
//    number the native build printed (the perturbed twin: must fail; it
//    stops at the first input that differs).
// 2. The first INPUT chosen through the page's file input: the page shows the
//    explorer and its Nodes tab names the top node of `score`.
//    A FILE cookgraph refuses (--bad), chosen through the file input, shows
//    the CLI's one-line error; an option score() does not know is refused.
// 3. A snapshot of hostile node names runs no script; an input of 1 GB is
//    refused with a message, and the tab lives on; no request leaves the page
//    (every URL it asks for is the file itself, blob: or data:).
// 4. The same page served over HTTP (a server on loopback) scores the first
//    INPUT as natively too.
// Exits 0 on success, 1 with one line per failed check.
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { differs, filesOf, native, scoreInPage, shifted } from './page_inputs.mjs';

const args = { inputs: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
  else args.inputs.push(a);
}
const offset = Number(args.offset || 0);
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });

const shift = (doc) => shifted(doc, offset);

// Thrown by the perturbed twin once it has failed as it must.
class Perturbed extends Error {}

const pageUrl = pathToFileURL(args.page).href;
let browser;
try {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await page.goto(pageUrl);
  await page.evaluate(() => window.cookgraph.load());

  // 1. score() against the native build.
  for (const input of args.inputs) {
    const expected = shift(JSON.parse(native(args.cookgraph, input)));
    const got = await scoreInPage(page, input);
    const d = differs(got, expected, basename(input));
    check(!d, `score(): ${d}`);
    if (d && offset) break;  // the perturbed twin has failed as it must
  }
  if (offset) throw new Perturbed();  // the rest checks the page alone

  // 2. The first input chosen through the file input.
  const first = args.inputs[0];
  const top = JSON.parse(native(args.cookgraph, first)).snapshots[0].nodes[0].id;
  await page.setInputFiles('#open-files', statSync(first).isDirectory()
    ? readdirSync(first).map((n) => join(first, n)) : [first]);
  await page.waitForFunction(() => document.body.dataset.ready === '1' || window.cookgraph.openError, null, { timeout: 60000 });
  check(!(await page.evaluate(() => window.cookgraph.openError)), `the page could not open ${first}: ${await page.evaluate(() => window.cookgraph.openError)}`);
  await page.click('[data-tab=nodes]');
  await page.waitForFunction(() => document.querySelectorAll('#nodes-table tbody tr').length > 0, null, { timeout: 15000 });
  const firstRow = await page.$eval('#nodes-table tbody tr', (tr) => tr.textContent);
  check(firstRow.includes(top), `the Nodes tab's first row is "${firstRow.slice(0, 100)}", not the top node ${top}`);
  await page.screenshot({ path: `${args.out}/nodes.png` });

  // Back to the opening screen as a user goes (the Open button, while the
  // explorer shows), with nothing left of the last open to wait on.
  const openScreen = async () => {
    if (await page.evaluate(() => document.body.classList.contains('opened'))) await page.click('#open-again');
    await page.evaluate(() => { delete document.body.dataset.ready; window.cookgraph.openError = null; });
  };

  // A file cookgraph refuses: the page says what the CLI says; a misspelt option.
  if (args.bad) {
    const expected = JSON.parse(native(args.cookgraph, args.bad)).errors[0];
    await openScreen();
    await page.setInputFiles('#open-files', [args.bad]);
    await page.waitForFunction(() => window.cookgraph.openError, null, { timeout: 60000 });
    const shown = await page.$eval('#open-status', (e) => e.textContent);
    check(shown === expected.message,
          `a file cookgraph refuses: the page says "${shown.slice(0, 160)}", not the CLI's "${expected.message.slice(0, 160)}"`);
  }
  const misspelt = await page.evaluate(async () => {
    try {
      await window.cookgraph.score([{ name: 'x.json', bytes: new Uint8Array([123, 125]) }], { budget: 5 });
      return 'accepted';
    } catch (e) {
      return e.message;
    }
  });
  check(/unknown option 'budget'/.test(misspelt), `an unknown option: ${misspelt}`);

  // 3. Hostile names, a 1 GB input, and no request.
  if (args.hostile) {
    await openScreen();
    await page.setInputFiles('#open-files', [args.hostile]);
    await page.waitForFunction(() => document.body.dataset.ready === '1' || window.cookgraph.openError, null, { timeout: 60000 });
    check(!(await page.evaluate(() => window.cookgraph.openError)), `the page could not open ${args.hostile}`);
    await page.click('[data-tab=nodes]');
    await page.waitForFunction(() => document.querySelectorAll('#nodes-table tbody tr').length > 0, null, { timeout: 15000 });
    await page.click('[data-tab=findings]');
    await page.waitForTimeout(300);
    check(await page.$$eval('main img, main script', (x) => x.length) === 0, 'an element from a node name reached the page');
    check(await page.evaluate(() => window.__pwned) === undefined, 'a script from the input ran (window.__pwned is set)');
    await page.screenshot({ path: `${args.out}/hostile.png` });
  }
  const big = await page.evaluate(async () => {
    try {
      await window.cookgraph.score([{ name: 'huge.json', bytes: new Blob([new Uint8Array(1e9)]) }]);
      return 'read';
    } catch (e) {
      return e.message;
    }
  });
  check(/^huge\.json: .*more than the page reads/.test(big), `a 1 GB input: ${big}`);
  check(await page.evaluate(() => typeof window.cookgraph.score === 'function'), 'the tab did not live on after a 1 GB input');
  const outside = requests.filter((u) => u !== pageUrl && !u.startsWith('blob:') && !u.startsWith('data:'));
  check(outside.length === 0, `the page made requests: ${outside.slice(0, 5).join(' ')}`);
  check(dialogs.length === 0, `dialogs opened: ${dialogs.join(' | ')}`);
  check(consoleErrors.length === 0, `console errors: ${consoleErrors.slice(0, 3).join(' | ')}`);

  // 4. Served over HTTP.
  const html = readFileSync(args.page);
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/cookgraph.html' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url === '/cookgraph.html' ? html : '');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const served = await browser.newPage();
    await served.goto(`http://127.0.0.1:${server.address().port}/cookgraph.html`);
    const got = await served.evaluate(async (files) => {
      const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      return window.cookgraph.score(files.map((f) => ({ name: f.name, bytes: bytes(f.b64) })));
    }, filesOf(first));
    const d = differs(got, shift(JSON.parse(native(args.cookgraph, first))), 'served ' + basename(first));
    check(!d, `score(): ${d}`);
  } finally {
    server.close();
  }
} catch (e) {
  if (!(e instanceof Perturbed)) failures.push(String(e && e.stack ? e.stack : e));
} finally {
  if (browser) await browser.close();
}
for (const f of failures) console.log(`web_page_test: ${f}`);
if (!failures.length) console.log(`web_page_test: ${args.inputs.length} inputs scored in the page as natively`);
process.exit(failures.length ? 1 : 0);
