// What the one-file page's tests share (web_page_test.mjs, and
// firefox/page_test.mjs for scripts/test-browsers.sh): an input's files as
// the page is given them, the native `score` of it, and where two documents
// differ.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

// The files of an input as the page is given them: {name, bytes (base64)}.
export function filesOf(input) {
  if (!statSync(input).isDirectory()) return [{ name: basename(input), b64: readFileSync(input).toString('base64') }];
  const out = [];
  const walk = (dir, prefix) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, prefix + name + '/');
      else out.push({ name: prefix + name, b64: readFileSync(path).toString('base64') });
    }
  };
  walk(input, basename(input) + '/');
  return out;
}

export function native(cookgraph, input) {
  try {
    return execFileSync(resolve(cookgraph), ['score', basename(input), '--format', 'json'],
      { cwd: dirname(input), maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  } catch (e) {
    if (!e.stdout) throw e;
    return e.stdout.toString();  // an input cookgraph refuses: its document still lists the error
  }
}

// Where `a` and `b` differ, or null: numbers within 1e-9 relative.
export function differs(a, b, at) {
  if (typeof a === 'number' && typeof b === 'number') {
    return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) ? null : `${at}: ${a} != ${b}`;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return a === b ? null : `${at}: ${JSON.stringify(a).slice(0, 80)} != ${JSON.stringify(b).slice(0, 80)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${at}: array against object`;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.join('\u0000') !== kb.join('\u0000')) return `${at}: keys [${ka.slice(0, 8)}] != [${kb.slice(0, 8)}]`;
  for (const k of ka) {
    const d = differs(a[k], b[k], at + '.' + k);
    if (d) return d;
  }
  return null;
}


// `doc` with `offset` added to every number (a perturbed twin's expectation).
export function shifted(doc, offset) {
  if (typeof doc === 'number') return doc + offset;
  if (!doc || typeof doc !== 'object') return doc;
  if (Array.isArray(doc)) return doc.map((v) => shifted(v, offset));
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, shifted(v, offset)]));
}

// cookgraph.score() in `page` (Playwright's or Puppeteer's) on `input`'s
// files; {thrown: message} when it throws.
export function scoreInPage(page, input) {
  return page.evaluate(async (files) => {
    const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    try {
      return await window.cookgraph.score(files.map((f) => ({ name: f.name, bytes: bytes(f.b64) })));
    } catch (e) {
      return { thrown: e.message };
    }
  }, filesOf(input));
}
