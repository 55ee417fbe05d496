// The explorer's comparison and folder views in Debian's headless Chromium
// (docs/testing.md#browser-tests).
//
//   node views_test.mjs --cookgraph BIN --work DIR --out DIR --gen-pair tests/tools/gen_diff_pair.py
//                       --examples examples
//
// Comparison: `serve BEFORE AFTER` on a generated pair with three nodes slowed
// by 30%: the Comparison tab lists every matched node, its regressions equal
// `cookgraph diff --format json`'s, the added and removed nodes are named, and
// a row opens that node's panel in AFTER. Folder: `serve examples/` shows one
// sortable row per snapshot; a click on a row opens that view. No console
// error. Exits 1 with one line per failed check.
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
mkdirSync(args.out, { recursive: true });
mkdirSync(args.work, { recursive: true });
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };

function serve(inputs) {
  const env = { ...process.env };
  for (const k of ['COOKGRAPH_BASE_URL', 'OPENAI_BASE_URL', 'COOKGRAPH_MODEL', 'OPENAI_API_KEY']) delete env[k];
  const child = spawn(args.cookgraph, ['serve', ...inputs, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = l.match(/explorer at (http:\/\/\S+)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (c) => reject(new Error('serve exited with ' + c)));
  });
}

execFileSync('python3', [args['gen-pair'], '--out', args.work]);
const before = `${args.work}/before.json`, after = `${args.work}/after.json`;
const diff = JSON.parse(execFileSync(args.cookgraph, ['diff', before, after, '--format', 'json']).toString());

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));

  // Comparison.
  let s = await serve([before, after]);
  try {
    await page.goto(s.url);
    await page.waitForSelector('body[data-ready="1"]');
    check(await page.isVisible('[data-tab=diff]'), 'no Comparison tab with two inputs');
    await page.click('[data-tab=diff]');
    await page.waitForSelector('#diff-table tbody tr');
    const rows = await page.$$eval('#diff-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    const nodes = diff.nodes || diff.matched || [];
    check(rows.length === nodes.length, `the comparison lists ${rows.length} nodes, diff has ${nodes.length}`);
    const shown = new Set(rows.filter((r) => r[5] === 'regression').map((r) => r[0]));
    const want = new Set(nodes.filter((n) => n.regression).map((n) => n.id));
    check(want.size > 0, 'the generated pair has no regression');
    check(shown.size === want.size && [...want].every((id) => shown.has(id)),
      `regressions shown ${[...shown]} != diff's ${[...want]}`);
    // The numbers are diff's, to the three decimals shown.
    const byId = new Map(nodes.map((n) => [n.id, n]));
    for (const r of rows.slice(0, 40)) {
      const n = byId.get(r[0]);
      if (!check(n !== undefined, `the comparison lists ${r[0]}, which diff does not`)) continue;
      const b = n.before ? n.before.avg_ms : n.before_avg_ms, a = n.after ? n.after.avg_ms : n.after_avg_ms;
      check(r[1] === Number(b).toFixed(3) && r[2] === Number(a).toFixed(3), `${r[0]}: shown ${r[1]} -> ${r[2]}, diff says ${b} -> ${a}`);
    }
    // p-values as the CLI prints them: the frame time's and each node's.
    const md = execFileSync(args.cookgraph, ['diff', before, after, '--format', 'md']).toString();
    const cliP = new Map(md.split('\n').filter((l) => l.startsWith('| /')).map((l) => l.split(' | '))
      .map((c) => [c[0].slice(2), c[c.length - 2]]));
    for (const r of rows.slice(0, 40)) {
      if (cliP.has(r[0])) check(r[4] === cliP.get(r[0]), `${r[0]}: p shown as ${r[4]}, the CLI prints ${cliP.get(r[0])}`);
    }
    const head = await page.$eval('#diff-head', (e) => e.textContent);
    const frameP = md.match(/; p = (\S+)/)[1];
    check(head.includes(`p = ${frameP})`), `the comparison's frame time says "${head.slice(0, 160)}", the CLI p = ${frameP}`);
    const added = await page.$eval('#diff-added', (e) => e.textContent);
    for (const id of diff.added || []) check(added.includes(id), `added node ${id} is not named`);
    for (const id of diff.removed || []) check(added.includes(id), `removed node ${id} is not named`);
    await page.screenshot({ path: `${args.out}/comparison.png` });
    // A row opens the node in AFTER.
    const first = rows[0][0];
    await page.click('#diff-table tbody tr:first-child');
    await page.waitForFunction((id) => document.getElementById('panel').dataset.ready === id, first, { timeout: 10000 })
      .catch(() => check(false, `a comparison row did not open ${first}`));
  } finally {
    s.child.kill('SIGTERM');
  }

  // Folder.
  const index = JSON.parse(execFileSync(args.cookgraph, ['score', args.examples, '--format', 'json', '--top', '1']).toString());
  s = await serve([args.examples]);
  try {
    await page.goto(s.url);
    await page.waitForSelector('body[data-ready="1"]');
    check(await page.isVisible('#views-table'), 'a folder does not open on its summary table');
    const rows = await page.$$eval('#views-table tbody tr', (trs) => trs.map((tr) => tr.children[0].textContent));
    check(rows.length === index.snapshots.length, `${rows.length} summary rows for ${index.snapshots.length} snapshots`);
    // Sorting by nodes, largest first.
    await page.click('#views-table th:nth-child(3)');
    const counts = await page.$$eval('#views-table tbody tr', (trs) => trs.map((tr) => Number(tr.children[2].textContent)));
    check(counts.every((c, i) => i === 0 || counts[i - 1] >= c), `sorted by nodes: ${counts}`);
    await page.screenshot({ path: `${args.out}/folder.png` });
    const file = await page.$eval('#views-table tbody tr:nth-child(2)', (tr) => tr.children[0].textContent);
    const snap = index.snapshots.find((x) => x.file === file);
    check(snap !== undefined, `row 2 names ${file}, which score does not`);
    await page.click('#views-table tbody tr:nth-child(2)');
    await page.waitForFunction(() => document.getElementById('tab-network').hidden === false, null, { timeout: 10000 });
    await page.waitForFunction((name) => document.getElementById('title').textContent.startsWith(name), snap ? snap.name : '', { timeout: 10000 })
      .catch(async () => check(false, `row 2 (${file}) opened ${await page.$eval('#title', (e) => e.textContent)}`));
  } finally {
    s.child.kill('SIGTERM');
  }
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
}
check(errors.length === 0, `console errors: ${errors.join(' | ')}`);
if (failures.length) {
  for (const f of failures) console.error('views_test: FAIL: ' + f);
  process.exit(1);
}
console.log(`views_test: every check passed; screenshots in ${args.out}`);
