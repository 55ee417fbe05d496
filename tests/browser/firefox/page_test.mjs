// The one-file page in Debian's Firefox ESR (scripts/test-browsers.sh,
// docs/testing.md#other-browsers), headless, over WebDriver BiDi
// (puppeteer-core; no browser is downloaded):
//
//   node page_test.mjs --cookgraph BIN --page HTML --out DIR [--offset X]
//                      [--fake-llm tests/tools/fake_llm_server.py] INPUT...
//
// 1. The page opened from its file: cookgraph.score() on every INPUT (a file,
//    or a folder given as its files) must return the native
//    `score --format json` document, numbers within 1e-9 relative; a gzip
//    trace is inflated by Firefox's DecompressionStream.
// 2. The first INPUT chosen through the file input: the explorer opens and
//    its Nodes tab names `score`'s top node.
// 3. With --fake-llm: the Ask tab's preview and first request, against the
//    fake server with --cors, are those of `cookgraph ask --dry-run`.
// 4. No console error.
// --offset X adds X to every native number and stops after the first input
// (the perturbed twin: it must fail on a number).
// Exits 0 on success, 1 with one line per failed check.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { firstLine } from '../child_lines.mjs';
import { differs, native, scoreInPage, shifted } from '../page_inputs.mjs';

const args = { inputs: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2).replace(/-/g, '_')] = process.argv[++i];
  else args.inputs.push(a);
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });
const firefox = process.env.FIREFOX || '/usr/bin/firefox-esr';
const offset = Number(args.offset || 0);

// Thrown by the perturbed twin once it has compared its first input.
class Perturbed extends Error {}

let browser, fake;
try {
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: firefox, headless: true });
  const version = await browser.version();
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(pathToFileURL(resolve(args.page)).href);
  await page.evaluate(() => window.cookgraph.load());

  // 1. score() against the native build.
  for (const input of args.inputs) {
    const expected = shifted(JSON.parse(native(args.cookgraph, input)), offset);
    const got = await scoreInPage(page, input);
    const d = differs(got, expected, basename(input));
    check(!d, `score(): ${d}`);
    if (offset) break;
  }
  if (offset) throw new Perturbed();  // the rest checks the page alone

  // 2. The first input chosen through the file input.
  const first = args.inputs[0];
  const top = JSON.parse(native(args.cookgraph, first)).snapshots[0].nodes[0].id;
  const picker = await page.$('#open-files');
  await picker.uploadFile(...(statSync(first).isDirectory() ? readdirSync(first).map((n) => join(first, n)) : [first]));
  await page.waitForFunction(() => document.body.dataset.ready === '1' || window.cookgraph.openError, { timeout: 60000 });
  check(!(await page.evaluate(() => window.cookgraph.openError)), `the page could not open ${first}`);
  await page.click('[data-tab=nodes]');
  await page.waitForFunction(() => document.querySelectorAll('#nodes-table tbody tr').length > 0, { timeout: 15000 });
  const shown = await page.$eval('#nodes-table tbody tr', (r) => r.textContent);
  check(shown.includes(top), `the Nodes tab's first row does not name ${top}: ${shown.slice(0, 120)}`);
  await page.screenshot({ path: `${args.out}/nodes.png` });

  // 3. The Ask tab: the first request is ask --dry-run's.
  if (args.fake_llm) {
    const work = mkdtempSync(join(tmpdir(), 'cookgraph-firefox-ask-'));
    const name = basename(first);
    copyFileSync(first, join(work, name));
    const log = join(work, 'requests.log');
    fake = spawn('python3', [args.fake_llm, '--lifetime', '120', '--log', log, '--cors'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = (await firstLine(fake, /^(\d+)$/, 'fake LLM server'))[1];
    const base = `http://127.0.0.1:${port}/case/stream/firefox/v1`;
    const QUESTION = 'Which node should I look at first?';
    const env = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8' };
    const dry = spawn(resolve(args.cookgraph), ['ask', name, QUESTION, '--base-url', base, '--model', 'fake-model', '--dry-run'], { cwd: work, env });
    let dryOut = '';
    dry.stdout.on('data', (d) => { dryOut += d; });
    await new Promise((r) => dry.on('close', r));
    await page.click('[data-tab=ask]');
    await page.type('#ask-base-url', base);
    await page.type('#ask-model', 'fake-model');
    await page.type('#question', QUESTION);
    await page.click('#ask-send');
    await page.waitForFunction(() => { const t = document.querySelector('.thread:not([hidden]) .turn:last-child'); return t && t.dataset.state !== 'streaming'; }, { timeout: 60000 });
    const state = await page.$eval('.thread:not([hidden]) .turn:last-child', (t) => t.dataset.state + ': ' + t.textContent.slice(0, 200));
    check(state.startsWith('done'), `the answer: ${state}`);
    const sent = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.method !== 'OPTIONS') : [];
    check(sent.length === 1 && sent[0].raw === dryOut.replace(/\n$/, ''), `the page's request is not the body ask --dry-run prints (${sent.length} requests)`);
  }
  check(consoleErrors.length === 0, `console errors: ${consoleErrors.slice(0, 3).join(' | ')}`);
  console.log(`firefox page_test: ${version}, ${args.inputs.length} inputs`);
} catch (e) {
  if (!(e instanceof Perturbed)) failures.push(String(e && e.stack ? e.stack.split('\n').slice(0, 3).join(' ') : e));
} finally {
  if (browser) await browser.close();
  if (fake) { fake.stdin.end(); fake.kill(); }
}
for (const f of failures) console.log('firefox page_test: ' + f);
process.exit(failures.length ? 1 : 0);
