// cookgraph explorer, the page of `cookgraph serve` (docs/commands.md#cookgraph-serve):
// what every tab shares. Its scripts (index.html, in order: common.js, network.js,
// node_panel.js, frames.js, tables.js, ask.js, app.js) share one scope, the
// page's: each defines what the later ones use. Every string from an input is
// shown as text (textContent, canvas text); the only HTML built from data is
// the LLM's answer, rendered by markdown-it with raw HTML off and unsafe links
// refused (ask.js).
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
};
const fmt = (v, d = 3) => (v === null || v === undefined || !isFinite(v) ? '-' : Number(v).toFixed(d));
const pct = (v) => (v === null || v === undefined || !isFinite(v) ? '-' : (100 * v).toFixed(1) + '%');
// A p-value as the CLI prints it (writers/diff_formats.cc PValueText): 4
// decimals down to 0.0001, then one decimal and a two-digit exponent.
const pValue = (p) => {
  if (p === null || p === undefined || !Number.isFinite(p)) return '-';
  if (p === 0) return '0';
  if (p >= 0.0001) return p.toFixed(4);
  const [m, e] = p.toExponential(1).split('e');
  return m + 'e' + (e.startsWith('-') ? '-' : '+') + e.replace(/^[-+]/, '').padStart(2, '0');
};
const plural = (n, one, many) => n + ' ' + (n === 1 ? one : (many || one + 's'));

// What tests and the benchmark read (docs/testing.md#browser-tests).
// In the one-file page (web/page.js) it is also the JavaScript API, and
// `transport` answers the documents a server would.
const api = Object.assign(window.cookgraph || {}, { ready: false, timings: {}, errors: [], version: -1 });
window.cookgraph = api;
// The drawn items with their centres on screen (what a test double-clicks).
api.items = () => {
  const g = state.graph;
  if (!g) return [];
  const r = canvas.getBoundingClientRect();
  return g.items.id.map((id, i) => {
    const [sx, sy] = toScreen(g.items.x[i] + BOX_W / 2, g.items.y[i] + BOX_H / 2);
    return { id, flags: g.items.flags[i], x: r.left + sx, y: r.top + sy,
             label: boxValue(g.items, i, (g.items[state.metric] || [])[i]) };
  });
};
api.focus = (id) => {  // centres an item of this container (no panel)
  const g = state.graph;
  const i = g ? g.items.id.indexOf(id) : -1;
  if (i < 0) return false;
  const r = canvas.getBoundingClientRect();
  const k = Math.max(state.cam.k, 0.8);
  state.cam = { k, x: g.items.x[i] + BOX_W / 2 - r.width / 2 / k, y: g.items.y[i] + BOX_H / 2 - r.height / 2 / k };
  draw();
  return true;
};

const state = {
  index: null, view: 0, summary: null, graph: null, container: '', metric: 'score',
  selected: null, hover: -1, cam: { x: 0, y: 0, k: 1 }, frames: null, frame: null,
  timeline: null, findings: null, tab: 'network', node: null, nodes: null, nodesSort: 'score',
  whatif: null,
};

async function get(path) {
  if (api.transport) return api.transport(path);
  const r = await fetch(path, { credentials: 'same-origin' });
  const body = await r.json();
  if (!r.ok) throw new Error(body && body.error ? body.error : r.status + ' ' + r.statusText);
  return body;
}
const V = () => '/api/v/' + state.view;

function showError(where, e) {
  const msg = where + ': ' + (e && e.message ? e.message : String(e));
  api.errors.push(msg);
  const box = el('div', msg);
  $('alerts').appendChild(box);
  setTimeout(() => box.remove(), 8000);
}

// ---------------------------------------------------------------- tabs
function showTab(name) {
  state.tab = name;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === name);
  for (const s of document.querySelectorAll('.tab')) s.hidden = s.id !== 'tab-' + name;
  if (name === 'network') resizeGraph();
  if (name === 'frames') loadFrames().catch((e) => showError('frames', e));
  if (name === 'findings') loadFindings().catch((e) => showError('findings', e));
  if (name === 'nodes') loadNodes().catch((e) => showError('nodes', e));
  if (name === 'diff') loadDiff().catch((e) => showError('comparison', e));
  if (name === 'views') drawViews();
  if (name === 'ask') showThread();
}
for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));

// ---------------------------------------------------------------- colours
const METRICS = { score: 'score', per_frame_ms: 'per-frame ms', gpu_ms: 'GPU ms per frame', upstream_ms: 'upstream ms', gain_ms: 'gain ms' };
// The gain column (docs/architecture.md#what-if-predicted-gains).
// The engine's word for a frame (docs/architecture.md#engine-words): "step"
// for a trace, "buffer" for GStreamer, as the view's summary says.
const frameWord = () => (state.summary && state.summary.frame_word) || 'frame';
const metricLabel = (m) => METRICS[m].replace('frame', frameWord());
const gainTitle = () => 'predicted mean ' + frameWord() + ' ms saved if this node cooked twice as fast';
const F = { loop: 1, critical: 2, dead: 4, waiting: 8, enterable: 16, output: 32, node: 64 };
function ramp(t) {  // 0..1 -> light yellow .. red
  const stops = [[255, 247, 236], [253, 212, 158], [252, 141, 89], [215, 48, 31], [127, 0, 0]];
  t = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
  const c = stops[i].map((v, j) => Math.round(v + (stops[i + 1][j] - v) * f));
  return 'rgb(' + c.join(',') + ')';
}
// The top of the colour scale. Waiting nodes (queues, mixers) are drawn pale
// blue, off the scale: a queue's waiting would leave every working node cold.
function metricMax(g) {
  let m = 0;
  const vals = g.items[state.metric] || [];
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i];
    if (v !== null && v > m && !(g.items.flags[i] & F.waiting)) m = v;
  }
  return m;
}
