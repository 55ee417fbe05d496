// The engine's words where a user reads them (docs/architecture.md#engine-words),
// in Debian's headless Chromium (docs/testing.md#browser-tests).
//
//   node engine_words_test.mjs --cookgraph BIN --out DIR --word WORD INPUT...
//
// For every INPUT: `score`'s table (with its warnings; also with
// `--budget-ms 1`, every step over it), `whatif` and `graph`, the Markdown
// report (with what `report` says on standard error) and the HTML report
// (`report --no-llm`, opened from its file: Graphviz's xlink:title too), and the
// explorer (`cookgraph serve` of all the inputs at once: for each view the
// Network, Nodes, Frames and Findings tabs and the ask box) must not say
// "frame" ("frames", "per-frame", "ms/frame", "ms/f") anywhere a user reads
// text: the page's visible text, the SVG titles, tooltips, placeholders, ARIA
// labels and the network's box labels. Identifiers are not words: snake_case
// names (`per_frame_ms`, a JSON key or a finding's evidence) and the option
// `--frame-marker` are left out. Each input must say WORD ("step") somewhere
// in each of those outputs, and its Markdown report must say it has no budget
// (no budget finding, "none (steps of a trace"). Given a TouchDesigner snapshot (the perturbed
// twin), which says "frame" rightly, it must fail.
// Exits 0 on success, 1 with one line per failed check.
import { spawn, execFileSync } from 'node:child_process';
import { firstLine } from './child_lines.mjs';
import { mkdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const args = { inputs: [] };
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i].startsWith('--')) args[process.argv[i].slice(2)] = process.argv[++i];
  else args.inputs.push(process.argv[i]);
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });

const FRAME = /\bframes?\b|per-frame|\/frames?\b|ms\/f\b/i;
const WORD = new RegExp('\\b' + args.word + 's?\\b', 'i');
// Identifiers, not words: snake_case names and the --frame-marker option.
const words = (text) => text.replace(/--frame-marker/g, '').replace(/\b\w*_\w*\b/g, '');

// Every line of `text` that says "frame", and that it says WORD.
function judge(where, text) {
  const plain = words(text);
  const lines = plain.split('\n').filter((l) => FRAME.test(l));
  for (const l of lines.slice(0, 3)) check(false, `${where} says "${l.match(FRAME)[0]}": ${l.trim().slice(0, 160)}`);
  if (lines.length > 3) check(false, `${where}: ${lines.length - 3} more lines say "frame"`);
  check(WORD.test(plain), `${where} never says "${args.word}"`);
}

// What the page shows: its visible text, and the text a user reads on hover
// or in an empty field.
const pageText = () => {
  const attrs = [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes]
    .filter((a) => /(^|:)(title|placeholder|aria-label)$/.test(a.name)).map((a) => a.value));
  const svgTitles = [...document.querySelectorAll('svg title')].map((t) => t.textContent);
  const boxes = window.cookgraph && window.cookgraph.items ? window.cookgraph.items().map((b) => b.label) : [];
  return [document.body.innerText, ...attrs, ...svgTitles, ...boxes].join('\n');
};

const serve = spawn(args.cookgraph, ['serve', ...args.inputs, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
let browser;
try {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  for (const [k, input] of args.inputs.entries()) {
    const name = `${k}_${basename(input)}`;
    const run = (...a) => execFileSync(args.cookgraph, a, { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
    // What a command prints, standard error (warnings) included.
    const both = async (...a) => {
      const child = spawn(args.cookgraph, a, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { out += d; });
      await new Promise((resolve) => child.on('close', resolve));
      return out;
    };
    judge(`${input}: score's table`, await both('score', input));
    judge(`${input}: score's table with a budget`, await both('score', input, '--budget-ms', '1'));
    judge(`${input}: whatif`, await both('whatif', input));
    judge(`${input}: graph`, await both('graph', input));
    const said = await both('report', input, '--no-llm', '-o', `${args.out}/${name}.md`);
    const md = readFileSync(`${args.out}/${name}.md`, 'utf8');
    judge(`${input}: the Markdown report`, said + md);
    // Nor is a trace's step judged against a budget nobody gave (with one,
    // it is: Cli.TrainingTracesHaveNoBudgetUnlessOneIsGiven).
    check(!/frame-budget-overrun|mean-over-budget/.test(md) && md.includes('none (steps of a trace'),
      `${input}: the Markdown report judges the steps against a budget nobody gave`);
    run('report', input, '--no-llm', '-o', `${args.out}/${name}.html`);
    await page.goto(pathToFileURL(`${args.out}/${name}.html`).href);
    judge(`${input}: the HTML report`, await page.evaluate(pageText));
  }

  // The explorer: every view, every tab that shows it.
  const url = (await firstLine(serve, /explorer at (http:\/\/\S+)/, 'cookgraph serve'))[1];
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  const views = args.inputs.length;
  for (let v = 0; v < views; v++) {
    if (views > 1) {
      await page.click('[data-tab=views]');
      await page.click(`#views-table tbody tr:nth-child(${v + 1})`);
    }
    await page.waitForFunction(() => document.querySelector('#tab-network') && !document.querySelector('#tab-network').hidden, null, { timeout: 30000 });
    await page.waitForFunction(() => window.cookgraph.items().length > 0, null, { timeout: 30000 });
    const file = await page.evaluate(() => document.getElementById('title').textContent);
    let text = await page.evaluate(pageText);
    await page.click('[data-tab=nodes]');
    await page.waitForSelector('#nodes-table tbody tr', { timeout: 30000 });
    text += '\n' + await page.evaluate(pageText);
    await page.click('[data-tab=frames]');
    await page.waitForFunction(() => document.getElementById('timeline-head').textContent !== '', null, { timeout: 30000 });
    text += '\n' + await page.evaluate(pageText);
    await page.click('[data-tab=findings]');
    await page.waitForSelector('#findings-list', { timeout: 30000 });
    await page.waitForLoadState('networkidle');
    text += '\n' + await page.evaluate(pageText);
    await page.click('[data-tab=ask]');
    text += '\n' + await page.evaluate(pageText);
    await page.screenshot({ path: `${args.out}/explorer_${v}.png` });
    judge(`explorer, view "${file}"`, text);
  }
} catch (e) {
  failures.push(String(e && e.stack || e));
} finally {
  if (browser) await browser.close();
  serve.kill();
}
for (const f of failures) console.log('engine_words_test: ' + f);
if (!failures.length) {
  console.log(`engine_words_test: ${args.inputs.length} inputs say "${args.word}", never "frame", in the table, both reports and the explorer`);
}
process.exit(failures.length ? 1 : 0);
