// What a user reads first, in Debian's headless Chromium (docs/testing.md#browser-tests).
//
//   node first_fix_test.mjs --cookgraph BIN --input SNAPSHOT --out DIR
//                           --expect ID --frames "15 of 15" [--folded TEXT]
//
// The HTML report (`cookgraph report --no-llm`, opened from the file) and the
// explorer's first view (`cookgraph serve`, the Network tab as it opens) must
// both lead with "What to change first" whose first entry is node ID and
// says "FRAMES over-budget frames"; the explorer's entry must be on screen.
// With --folded, the findings that contain TEXT (the report's Findings
// section, the explorer's Findings tab) are one entry. Every container box of
// the first view shows the total per frame of what is inside it: the sum of
// `score --format json`'s per_frame_ms over the container's node and every
// node beneath it ("total 7.307 ms/frame"); --container-offset MS adds MS to
// each expected total (the perturbed twin: must fail). Screenshots go to DIR.
// Exits 0 on success, 1 with one line per failed check.
import { spawn, execFileSync } from 'node:child_process';
import { firstLine } from './child_lines.mjs';
import { mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  args[process.argv[i].replace(/^--/, '')] = process.argv[++i];
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
mkdirSync(args.out, { recursive: true });

function leads(where, first) {
  if (!check(first !== null, `${where}: no "What to change first" entry`)) return;
  check(first.startsWith(args.expect), `${where}: the first change is "${first.slice(0, 80)}", not ${args.expect}`);
  check(first.includes(`${args.frames} over-budget frames`),
        `${where}: the first change does not say "${args.frames} over-budget frames": "${first.slice(0, 200)}"`);
}

const report = `${args.out}/report.html`;
execFileSync(args.cookgraph, ['report', args.input, '--no-llm', '-o', report]);
const serve = spawn(args.cookgraph, ['serve', args.input, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
let browser;
try {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });

  // The report, from its file.
  await page.goto(pathToFileURL(report).href);
  const inReport = await page.evaluate((folded) => {
    const first = document.querySelector('#first-fix li');
    const sections = [...document.querySelectorAll('main > section')].map((s) => s.id);
    const matching = folded ? [...document.querySelectorAll('#findings .finding')]
      .filter((f) => f.textContent.includes(folded)).length : null;
    return { first: first ? first.textContent : null, sections, matching };
  }, args.folded || null);
  leads('report', inReport.first);
  check(inReport.sections[0] === 'summary' && inReport.sections[1] === 'first-fix',
        `report: "What to change first" is not right after the summary (sections: ${inReport.sections.slice(0, 4).join(', ')})`);
  if (args.folded) check(inReport.matching === 1, `report: ${inReport.matching} findings contain "${args.folded}", not one`);
  await page.screenshot({ path: `${args.out}/report.png` });

  // The explorer's first view.
  const url = (await firstLine(serve, /explorer at (http:\/\/\S+)/, 'cookgraph serve'))[1];
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  await page.waitForSelector('#first-fix li', { timeout: 10000 }).catch(() => {});
  const inExplorer = await page.evaluate(() => {
    const first = document.querySelector('#first-fix li');
    const box = first ? first.getBoundingClientRect() : null;
    return { first: first ? first.textContent : null,
             visible: !!box && box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight };
  });
  leads('explorer', inExplorer.first);
  const scored = JSON.parse(execFileSync(args.cookgraph, ['score', args.input, '--format', 'json', '--top', '0'],
                                         { maxBuffer: 1 << 28 }).toString()).snapshots[0];
  const offset = Number(args['container-offset'] || 0);
  const boxes = (await page.evaluate(() => window.cookgraph.items())).filter((b) => b.flags & 16);
  check(boxes.length > 0, 'explorer: the first view shows no container');
  for (const b of boxes) {
    const total = scored.nodes.filter((n) => n.id === b.id || n.id.startsWith(b.id + '/'))
      .reduce((s, n) => s + (n.per_frame_ms || 0), 0) + offset;
    const want = 'total ' + total.toFixed(3) + ' ms/frame';
    check(b.label === want, `explorer: the box of ${b.id} says "${b.label}", expected "${want}"`);
  }
  check(inExplorer.visible, 'explorer: the first change is not on screen in the first view');
  await page.screenshot({ path: `${args.out}/explorer.png` });
  if (args.folded) {
    await page.click('button[data-tab="findings"]');
    await page.waitForSelector('#findings-list li', { timeout: 10000 });
    const matching = await page.evaluate((folded) => [...document.querySelectorAll('#findings-list > li')]
      .filter((li) => li.textContent.includes(folded)).length, args.folded);
    check(matching === 1, `explorer: ${matching} findings contain "${args.folded}", not one`);
  }
} catch (e) {
  failures.push(String(e && e.stack || e));
} finally {
  if (browser) await browser.close();
  serve.kill();
}
for (const f of failures) console.log('first_fix_test: ' + f);
if (!failures.length) console.log(`first_fix_test: report and explorer lead with ${args.expect} (${args.frames} over-budget frames)`);
process.exit(failures.length ? 1 : 0);
