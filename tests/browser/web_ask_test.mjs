// The one-file page's Ask tab (docs/web.md#asking-from-the-page), opened from
// its file in Debian's headless Chromium (docs/testing.md#browser-tests):
//
//   node web_ask_test.mjs --cookgraph BIN --page HTML --input SNAPSHOT
//                         --fake-llm tests/tools/fake_llm_server.py --out DIR
//                         [--budget-offset N]
//
// Against the fake LLM server with --cors (its `script` case: the model calls
// the tool node on a node far down the ranking, then answers):
// 1. Before an endpoint is given, Ask is off and the page has sent nothing.
// 2. "Show the prompt" counts the tokens `cookgraph ask --dry-run` counts,
//    with the rank file it counts with (the page carries it).
// 3. The question, asked from the page, makes the requests `cookgraph ask`
//    makes for it, byte for byte: the first is the body `ask --dry-run`
//    prints, the second carries node's result as cookgraph's own. The
//    answer and the call show in the thread; the key goes in the
//    Authorization header and nowhere in the page's storage.
// 4. "Keep the key in this browser" keeps it (a reload finds it), and
//    unticking removes it.
// 5. A 401 shows the server's message with the key redacted and the hint; an
//    endpoint that allows no requests from the page (no CORS) shows a message
//    that says so; Stop ends a stalled answer.
// 6. Every request the page made went to the fake server (or was the page's
//    own file, blob: or data:).
// --budget-offset N asks natively with a budget N tokens larger (the
// perturbed twin: the requests differ, and it must fail; it stops after 3).
// Exits 0 on success, 1 with one line per failed check.
import { spawn, execFileSync } from 'node:child_process';
import { firstLine } from './child_lines.mjs';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  args[process.argv[i].replace(/^--/, '').replace(/-/g, '_')] = process.argv[++i];
}
const budgetOffset = Number(args.budget_offset || 0);
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });

// A folder of its own: no cookgraph.yaml, no config, no tiktoken cache, so
// that `ask` runs with the defaults the page has.
const work = mkdtempSync(join(tmpdir(), 'cookgraph-web-ask-'));
const name = basename(args.input);
copyFileSync(args.input, join(work, name));
const env = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8' };

const score = JSON.parse(execFileSync(resolve(args.cookgraph), ['score', name, '--format', 'json'], { cwd: work, env, maxBuffer: 1 << 30 }).toString());
const nodes = score.snapshots[0].nodes;
const target = nodes[Math.min(29, nodes.length - 1)].id;
const QUESTION = 'The first question: which node?';
writeFileSync(join(work, 'thread.json'), JSON.stringify({
  turns: [{ match: 'first question', calls: [[{ name: 'node', arguments: { id: target } }]],
    answer: `The node **${target}** is the one.` }],
}));

const KEY = 'sk-test-41f9-page-key';
const log = join(work, 'requests.log');
const fake = spawn('python3', [args.fake_llm, '--lifetime', '280', '--log', log, '--scripts', work, '--cors'],
  { stdio: ['pipe', 'pipe', 'inherit'] });
const port = (await firstLine(fake, /^(\d+)$/, 'fake LLM server'))[1];
const base = (path) => `http://127.0.0.1:${port}/case/${path}/v1`;
const requests = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const posts = (path) => requests().filter((r) => r.method !== 'OPTIONS' && r.path.startsWith('/case/' + path + '/'));

// The native requests: `ask --dry-run`, then `ask` itself against the script.
const nativeArgs = (path) => ['ask', name, QUESTION, '--base-url', base(path), '--model', 'fake-model',
  '--budget-tokens', String(20000 + budgetOffset)];
const dry = spawn(resolve(args.cookgraph), [...nativeArgs('script/thread/native'), '--dry-run'],
  { cwd: work, env: { ...env, OPENAI_API_KEY: KEY } });
let dryOut = '', dryErr = '';
dry.stdout.on('data', (d) => { dryOut += d; });
dry.stderr.on('data', (d) => { dryErr += d; });
await new Promise((r) => dry.on('close', r));
const dryTokens = (dryErr.match(/request: ([\d,]+) tokens of the [\d,]+ budget, counted with (.*?);/) || []);
check(/o200k_base/.test(dryTokens[2] || ''), `ask --dry-run does not count with the o200k rank file: ${dryErr.trim()}`);
execFileSync(resolve(args.cookgraph), nativeArgs('script/thread/native'), { cwd: work, env: { ...env, OPENAI_API_KEY: KEY }, stdio: 'ignore' });
const native = posts('script/thread/native');
check(native.length === 2, `cookgraph ask made ${native.length} requests, not 2`);

let browser;
try {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource|CORS|Access-Control/.test(m.text())) consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push('page error: ' + e.message));
  const urls = [];
  context.on('request', (r) => urls.push(r.url()));
  const pageUrl = pathToFileURL(resolve(args.page)).href;
  const open = async () => {
    await page.goto(pageUrl);
    await page.setInputFiles('#open-files', [join(work, name)]);
    await page.waitForFunction(() => document.body.dataset.ready === '1' || window.cookgraph.openError, null, { timeout: 60000 });
    await page.click('[data-tab=ask]');
  };
  await open();

  // 1. No endpoint: nothing to send to, and nothing was sent.
  check(await page.$eval('#ask-send', (b) => b.disabled), 'Ask is on before an endpoint is given');
  check(!urls.some((u) => u.startsWith('http')), `the page made a request before a question: ${urls.filter((u) => u.startsWith('http'))}`);

  // 2. The preview counts as `ask --dry-run` does.
  await page.fill('#ask-base-url', base('script/thread/page'));
  await page.fill('#ask-model', 'fake-model');
  await page.fill('#ask-key', KEY);
  check(!(await page.$eval('#ask-send', (b) => b.disabled)), 'Ask is off with an endpoint given');
  await page.fill('#question', QUESTION);
  await page.click('#ask-prompt');
  await page.waitForFunction(() => /prompt tokens|:/.test(document.getElementById('prompt-info').textContent), null, { timeout: 60000 });
  const info = await page.$eval('#prompt-info', (e) => e.textContent);
  const shownTokens = (info.match(/^([\d,]+) of ([\d,]+) prompt tokens for fake-model/) || [])[1];
  check(shownTokens && shownTokens === dryTokens[1],
    `the preview says "${info}"; ask --dry-run counts ${dryTokens[1]} tokens` + (budgetOffset ? ` (budget +${budgetOffset})` : ''));
  const preview = await page.$eval('#prompt-text', (e) => e.textContent);
  check(preview.includes('## system') && preview.includes('Question: ' + QUESTION), 'the preview lacks the system message or the question');

  // 3. Asked from the page: cookgraph ask's requests, byte for byte.
  await page.click('#ask-send');
  await page.waitForFunction(() => { const t = document.querySelector('.thread:not([hidden]) .turn:last-child'); return t && t.dataset.state !== 'streaming'; }, null, { timeout: 60000 });
  const turn = await page.$eval('.thread:not([hidden]) .turn:last-child', (t) => ({
    state: t.dataset.state, answer: t.querySelector('.answer').textContent.trim(),
    calls: [...t.querySelectorAll('.tool-line')].map((l) => l.textContent),
    looked: [...t.querySelectorAll('.turn-looked a')].map((a) => a.dataset.id),
  }));
  check(turn.state === 'done' && turn.answer === `The node ${target} is the one.`, `the answer: ${JSON.stringify(turn)}`);
  check(turn.calls.length === 1 && turn.calls[0].startsWith('looked at node {'), `the call is not shown: ${JSON.stringify(turn.calls)}`);
  check(JSON.stringify(turn.looked) === JSON.stringify([target]), `the nodes looked at: ${JSON.stringify(turn.looked)}`);
  const sent = posts('script/thread/page');
  check(sent.length === 2, `the page made ${sent.length} requests, not 2`);
  if (sent.length >= 1) {
    check(sent[0].raw === dryOut.replace(/\n$/, ''), 'the page\'s first request is not the body `ask --dry-run` prints');
    check(sent[0].headers.authorization === 'Bearer ' + KEY, `the key is not in the Authorization header: ${sent[0].headers.authorization}`);
    check(sent[0].headers.origin === 'null', `the request's origin: ${sent[0].headers.origin}`);
  }
  for (let i = 0; i < Math.min(sent.length, native.length); i++) {
    if (sent[i].raw !== native[i].raw) {
      let at = 0;
      while (at < sent[i].raw.length && sent[i].raw[at] === native[i].raw[at]) at++;
      check(false, `request ${i + 1} differs from cookgraph ask's at byte ${at}: …${JSON.stringify(sent[i].raw.slice(Math.max(0, at - 40), at + 40))} != …${JSON.stringify(native[i].raw.slice(Math.max(0, at - 40), at + 40))}`);
    }
  }
  check(requests().some((r) => r.method === 'OPTIONS'), 'the browser sent no preflight (the test does not test CORS)');
  const stored = await page.evaluate(() => JSON.stringify(Object.assign({}, window.localStorage)));
  check(!stored.includes(KEY), 'the key is in localStorage without "Keep the key"');
  check(stored.includes('fake-model'), `the settings were not kept: ${stored}`);
  await page.screenshot({ path: `${args.out}/answer.png` });

  // The perturbed twin has shown what it must (the requests differ): the
  // rest checks the page alone.
  if (!budgetOffset) {
    // 4. "Keep the key in this browser".
    await page.check('#ask-remember');
    check((await page.evaluate(() => window.localStorage.getItem('cookgraph.ask.key'))) === KEY, 'a ticked "Keep the key" did not keep it');
    await open();
    check((await page.$eval('#ask-key', (e) => e.value)) === KEY && (await page.$eval('#ask-remember', (e) => e.checked)), 'a reload did not find the kept key');
    await page.uncheck('#ask-remember');
    check((await page.evaluate(() => window.localStorage.getItem('cookgraph.ask.key'))) === null, 'unticking "Keep the key" did not remove it');

    // 5. Failures: a 401, an endpoint without CORS, a stalled answer stopped.
    const failed = async (path, question) => {
      await page.fill('#ask-base-url', base(path));
      await page.fill('#question', question);
      await page.click('#ask-send');
      await page.waitForFunction(() => { const t = document.querySelector('.thread:not([hidden]) .turn:last-child'); return t && t.dataset.state !== 'streaming'; }, null, { timeout: 60000 });
      return page.$eval('.thread:not([hidden]) .turn:last-child', (t) => ({ state: t.dataset.state, text: t.querySelector('.answer').textContent }));
    };
    const unauthorized = await failed('unauthorized/page', 'a question');
    check(unauthorized.state === 'error' && /HTTP 401/.test(unauthorized.text) && /check the API key/.test(unauthorized.text) && !unauthorized.text.includes(KEY),
      `a 401: ${JSON.stringify(unauthorized)}`);
    const nocors = await failed('stream/no-cors/page', 'a question');
    check(nocors.state === 'error' && /CORS/.test(nocors.text) && /docs\/web\.md/.test(nocors.text), `no CORS: ${JSON.stringify(nocors)}`);
    await page.fill('#ask-base-url', base('stall/page'));
    await page.fill('#question', 'a slow question');
    await page.click('#ask-send');
    await page.waitForFunction(() => Number((document.getElementById('answer') || {}).dataset?.pieces || 0) > 0, null, { timeout: 30000 });
    await page.click('#ask-stop');
    await page.waitForFunction(() => { const t = document.querySelector('.thread:not([hidden]) .turn:last-child'); return t && t.dataset.state !== 'streaming'; }, null, { timeout: 10000 });
    const stopped = await page.$eval('.thread:not([hidden]) .turn:last-child', (t) => t.dataset.state);
    check(stopped === 'stopped', `Stop left the turn ${stopped}`);
    check(!(await page.evaluate(() => document.body.innerText)).includes(KEY), 'the key shows in the page');

    // 6. Nothing else was asked for.
    const elsewhere = urls.filter((u) => !u.startsWith(pageUrl) && !u.startsWith('blob:') && !u.startsWith('data:') && !u.startsWith(`http://127.0.0.1:${port}/`));
    check(elsewhere.length === 0, `the page asked for ${elsewhere.slice(0, 3)}`);
    check(consoleErrors.length === 0, `console errors: ${consoleErrors.slice(0, 3).join(' | ')}`);
  }
} catch (e) {
  failures.push('web_ask_test: ' + (e && e.stack ? e.stack.split('\n').slice(0, 3).join(' ') : e));
} finally {
  if (browser) await browser.close();
  fake.stdin.end();
  fake.kill();
}
for (const f of failures) console.log('web_ask_test: ' + f);
process.exit(failures.length ? 1 : 0);
