// The explorer's ask box as a conversation, in Debian's headless Chromium
// (docs/testing.md#browser-tests):
//
//   node ask_thread_test.mjs --cookgraph BIN --input PATH --out DIR
//                            --fake-llm tests/tools/fake_llm_server.py
//
// Against the fake LLM server's scripted model (its `script` case): a first
// question, which the model answers after calling the tool node on a node outside
// the top of the ranking; the call shows as a line, the node as a link that
// opens its panel. A second question: its request (read from the fake
// server's --log) carries the first turn as a user and an assistant message
// before the data message, without the first turn's calls, and the thread
// shows both answers, also after switching tabs. "New conversation" clears
// it, and the next question goes alone. No console error; the key never
// reaches the page. (A page that leaves mid-answer stopping the request is
// tested in tests/server/explorer_ask_test.cc.)
// Exits 0 on success, 1 with one line per failed check.
import { spawn, execFileSync } from 'node:child_process';
import { firstLine } from './child_lines.mjs';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  args[process.argv[i].replace(/^--/, '').replace(/-/g, '_')] = process.argv[++i];
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });

// The node the model asks about: the 30th by score, far below the top.
const score = JSON.parse(execFileSync(args.cookgraph, ['score', args.input, '--format', 'json'], { maxBuffer: 1 << 30 }).toString());
const nodes = score.snapshots[0].nodes;
const target = nodes[Math.min(29, nodes.length - 1)].id;

const work = mkdtempSync(join(tmpdir(), 'cookgraph-ask-thread-'));
const log = join(work, 'requests.log');
writeFileSync(join(work, 'thread.json'), JSON.stringify({
  turns: [
    { match: 'first question', calls: [[{ name: 'node', arguments: { id: target } }]],
      answer: `The node **${target}** is the one.` },
    { match: 'second question', answer: 'Second answer, *after* the first.' },
  ],
}));

const KEY = 'sk-test-7c2e-never-in-the-page';
const fake = spawn('python3', [args.fake_llm, '--lifetime', '280', '--log', log, '--scripts', work],
  { stdio: ['pipe', 'pipe', 'inherit'] });
const fakePort = (await firstLine(fake, /^(\d+)$/, 'fake LLM server'))[1];
const env = {
  ...process.env,
  COOKGRAPH_BASE_URL: `http://127.0.0.1:${fakePort}/case/script/thread/page/v1`,
  COOKGRAPH_MODEL: 'fake-model',
  OPENAI_API_KEY: KEY,
};
delete env.OPENAI_BASE_URL;
const serve = spawn(args.cookgraph, ['serve', args.input, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });

// The requests the fake server logged, in order.
const requests = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const roles = (r) => r.body.messages.map((m) => m.role).join(',');

let browser;
try {
  const url = (await firstLine(serve, /explorer at (http:\/\/\S+)/, 'cookgraph serve'))[1];
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push('page error: ' + e.message));
  const bodies = [];
  page.on('response', async (r) => { try { bodies.push(await r.text()); } catch { /* streams */ } });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  await page.click('[data-tab=ask]');

  const done = (n) => page.waitForFunction((n) => document.querySelectorAll('.thread:not([hidden]) .turn[data-state="done"]').length === n, n, { timeout: 30000 });
  const turns = () => page.$$eval('.thread:not([hidden]) .turn', (ts) => ts.map((t) => ({
    state: t.dataset.state,
    question: t.querySelector('.turn-question').textContent,
    answer: t.querySelector('.answer').textContent.trim(),
    strong: t.querySelectorAll('.answer strong, .answer em').length,
    calls: [...t.querySelectorAll('.tool-line')].map((l) => l.textContent),
    looked: [...t.querySelectorAll('.turn-looked a')].map((a) => a.dataset.id),
  })));

  // 1. The first question: the model calls node, then answers.
  await page.fill('#question', 'The first question: which node?');
  await page.click('#ask-send');
  await done(1);
  let shown = await turns();
  check(shown.length === 1, `after one question the thread has ${shown.length} turns`);
  const first = shown[0];
  check(first.answer === `The node ${target} is the one.` && first.strong === 1, `the first answer: ${JSON.stringify(first)}`);
  check(first.calls.length === 1 && first.calls[0].startsWith('looked at node {') && first.calls[0].includes(JSON.stringify(target).slice(1, -1)),
    `the call is not shown as a line: ${JSON.stringify(first.calls)}`);
  check(JSON.stringify(first.looked) === JSON.stringify([target]), `the nodes looked at: ${JSON.stringify(first.looked)}`);
  const firstRequests = requests();
  check(firstRequests.length === 2, `the first question made ${firstRequests.length} requests, not 2 (call, answer)`);
  await page.screenshot({ path: `${args.out}/first.png` });

  // 2. The second question carries the first turn (no tool messages), before the data message.
  await page.fill('#question', 'The second question, a follow-up');
  await page.click('#ask-send');
  await done(2);
  const all = requests();
  const second = all[all.length - 1];
  const m = second.body.messages;
  check(roles(second) === 'system,user,assistant,user', `the second request's roles: ${roles(second)}`);
  check(m[1] && m[1].content === 'The first question: which node?', `the earlier question: ${m[1] && m[1].content}`);
  check(m[2] && m[2].content === `The node **${target}** is the one.`, `the earlier answer: ${m[2] && m[2].content}`);
  check(m[3] && m[3].content.includes('Question: The second question, a follow-up') && m[3].content.includes('turn 2'),
    'the data message does not end with the question or does not say it is turn 2');
  shown = await turns();
  check(shown.length === 2 && shown[1].answer === 'Second answer, after the first.' && shown[1].strong === 1,
    `the thread does not show both answers: ${JSON.stringify(shown.map((t) => t.answer))}`);
  check(shown[0].answer === first.answer, 'the first answer changed');
  await page.screenshot({ path: `${args.out}/thread.png` });

  // 3. A looked-at node is a link to its panel; the thread survives the tabs.
  await page.click(`.turn-looked a`);
  try {
    await page.waitForFunction((id) => document.getElementById('panel').dataset.ready === id, target, { timeout: 15000 });
  } catch { check(false, `the link did not open the panel of ${target}`); }
  await page.click('[data-tab=frames]');
  await page.click('[data-tab=ask]');
  shown = await turns();
  check(shown.length === 2, `after switching tabs the thread has ${shown.length} turns`);

  // 4. The preview shows the request of the next turn: the earlier two turns.
  await page.fill('#question', 'The second question again');
  await page.click('#ask-prompt');
  await page.waitForFunction(() => /prompt tokens/.test(document.getElementById('prompt-info').textContent), null, { timeout: 10000 });
  const info = await page.$eval('#prompt-info', (e) => e.textContent);
  check(/2 earlier turns/.test(info) && /8 functions offered/.test(info), `the preview says: ${info}`);
  const preview = await page.$eval('#prompt-text', (e) => e.textContent);
  check(preview.includes('## assistant') && preview.includes('Second answer, *after* the first.'), 'the preview lacks the earlier answers');

  // 5. New conversation clears the thread; the next question goes alone.
  await page.click('#ask-new');
  shown = await turns();
  check(shown.length === 0, `"New conversation" left ${shown.length} turns`);
  await page.click('#ask-send');
  await done(1);
  const alone = requests().slice(-1)[0];
  check(roles(alone) === 'system,user', `after "New conversation" the request's roles: ${roles(alone)}`);
  await page.screenshot({ path: `${args.out}/new.png` });

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
  for (const f of failures) console.error('ask_thread_test: FAIL: ' + f);
  process.exit(1);
}
console.log(`ask_thread_test: ${args.input}: every check passed; screenshots in ${args.out}`);
process.exit(0);
