// The explorer's Network tab: the graph of one container on a canvas, its
// colours, search, GStreamer's streaming threads and entering containers.
'use strict';

// ---------------------------------------------------------------- network
const canvas = $('graph');
const ctx = canvas.getContext('2d');
const BOX_W = 170, BOX_H = 38;
let dirty = true;

function resizeGraph() {
  const r = canvas.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(r.width * dpr));
  canvas.height = Math.max(1, Math.round(r.height * dpr));
  dirty = true;
}
window.addEventListener('resize', () => { resizeGraph(); drawFrameChart(); drawTimeline(); if (!$('panel').hidden) drawWhatIf(); });

function fit() {
  const g = state.graph;
  if (!g) return;
  const r = canvas.getBoundingClientRect();
  const w = Math.max(g.width, BOX_W) + 40, h = Math.max(g.height, BOX_H) + 40;
  const k = Math.min(1.2, r.width / w, r.height / h);
  state.cam = { k, x: -20 - (r.width / k - w) / 2, y: -20 - (r.height / k - h) / 2 };
  dirty = true;
}
$('fit').addEventListener('click', fit);

function toScreen(x, y) { return [(x - state.cam.x) * state.cam.k, (y - state.cam.y) * state.cam.k]; }
function toWorld(sx, sy) { return [sx / state.cam.k + state.cam.x, sy / state.cam.k + state.cam.y]; }

function draw() {
  const t0 = performance.now();
  dirty = false;
  const g = state.graph;
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!g) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const { k } = state.cam;
  const W = canvas.width / dpr, H = canvas.height / dpr;
  const [x0, y0] = toWorld(0, 0), [x1, y1] = toWorld(W, H);
  const it = g.items, n = it.id.length;
  const visible = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (it.x[i] + BOX_W >= x0 && it.x[i] <= x1 && it.y[i] + BOX_H >= y0 && it.y[i] <= y1) { visible[i] = 1; count++; }
  }
  // Edges: all of them when few enough are in view, else only the critical ones.
  const e = g.edges, edges = e.length / 4;
  const allEdges = count <= DENSE || edges <= 30000;
  const straight = count > DENSE;
  ctx.lineWidth = 1;
  for (let pass = 0; pass < 2; pass++) {
    ctx.beginPath();
    ctx.strokeStyle = pass ? '#d32f2f' : 'rgba(90,100,120,0.45)';
    ctx.lineWidth = pass ? 2.5 : 1;
    for (let j = 0; j < edges; j++) {
      const a = e[4 * j], b = e[4 * j + 1], crit = e[4 * j + 3];
      if ((crit ? 1 : 0) !== pass) continue;
      if (!pass && !allEdges) continue;
      if (!visible[a] && !visible[b]) {
        // Long edges crossing the view are still drawn when both ends are off-screen on opposite sides.
        const minx = Math.min(it.x[a], it.x[b]), maxx = Math.max(it.x[a], it.x[b]);
        if (maxx < x0 || minx > x1) continue;
        const miny = Math.min(it.y[a], it.y[b]), maxy = Math.max(it.y[a], it.y[b]);
        if (maxy < y0 || miny > y1) continue;
      }
      const [ax, ay] = toScreen(it.x[a] + BOX_W, it.y[a] + BOX_H / 2);
      const [bx, by] = toScreen(it.x[b], it.y[b] + BOX_H / 2);
      ctx.moveTo(ax, ay);
      if (straight) {
        ctx.lineTo(bx, by);
      } else if (bx > ax) {
        const mx = (ax + bx) / 2;
        ctx.bezierCurveTo(mx, ay, mx, by, bx, by);
      } else {  // a feedback edge or one back across layers
        ctx.bezierCurveTo(ax + 40 * k, ay - 60 * k, bx - 40 * k, by - 60 * k, bx, by);
      }
    }
    ctx.stroke();
  }
  const max = metricMax(g) || 1;
  const vals = it[state.metric] || [];
  if (count > DENSE) {
    // Many items in view: each colour filled as one path, outlines only for
    // the critical path and loops, no labels (zoom in for them).
    const buckets = colourBuckets(g, vals, max);
    const paths = Array.from({ length: BUCKETS + 2 }, () => new Path2D());
    const crit = new Path2D(), loops = new Path2D();
    for (let i = 0; i < n; i++) {
      if (!visible[i]) continue;
      const [sx, sy] = toScreen(it.x[i], it.y[i]);
      const w = Math.max(1, BOX_W * k), h = Math.max(1, BOX_H * k);
      paths[buckets[i]].rect(sx, sy, w, h);
      if (it.flags[i] & F.critical) crit.rect(sx, sy, w, h);
      else if (it.flags[i] & F.loop) loops.rect(sx, sy, w, h);
    }
    for (let b = 0; b < paths.length; b++) {
      ctx.fillStyle = b === BUCKETS ? '#dbe6f2' : b === BUCKETS + 1 ? '#eceff3' : ramp(Math.sqrt((b + 0.5) / BUCKETS));
      ctx.fill(paths[b]);
    }
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = '#7b1fa2';
    ctx.stroke(loops);
    ctx.strokeStyle = '#d32f2f';
    ctx.stroke(crit);
    if (state.selected !== null && visible[state.selected]) {
      const [sx, sy] = toScreen(it.x[state.selected], it.y[state.selected]);
      ctx.lineWidth = 3;
      ctx.strokeStyle = '#1565c0';
      ctx.strokeRect(sx - 2, sy - 2, Math.max(1, BOX_W * k) + 4, Math.max(1, BOX_H * k) + 4);
    }
  } else {
    drawDetailed(it, n, visible, vals, max, k);
  }
  $('graph-note').textContent = plural(n, 'item') + ' · ' + plural(count, 'drawn item', 'drawn items') +
    (count > DENSE ? ' · zoom in for names' + (allEdges ? '' : ' and every edge (only the critical path\'s are drawn now)') : '');
  api.drawn = count;
  api.timings.draw_ms = performance.now() - t0;
  if (!api.timings.first_view_ms) {
    api.timings.first_view_ms = performance.now();
    performance.mark('cookgraph:first-view');
  }
}
// Above this many items in view the network is drawn without labels or
// outlines (one path per colour): a frame stays fast at 100k items.
const DENSE = 2500;
const BUCKETS = 48;
let bucketCache = null;
function colourBuckets(g, vals, max) {
  if (bucketCache && bucketCache.g === g && bucketCache.metric === state.metric) return bucketCache.b;
  const b = new Uint8Array(vals.length);
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i];
    b[i] = g.items.flags[i] & F.waiting ? BUCKETS : v === null || v === undefined ? BUCKETS + 1
      : Math.min(BUCKETS - 1, Math.floor((v / max) * BUCKETS));
  }
  bucketCache = { g, metric: state.metric, b };
  return b;
}

// A box's second line: its value for the metric; for a container, the total
// per frame of what is inside it (itself and every node beneath), which is
// what TouchDesigner's Probe shows for a COMP, never a child's figure.
function boxValue(it, i, v) {
  if (!(it.flags[i] & F.enterable)) return fmt(v);
  const unit = frameWord();
  if (state.metric === 'gpu_ms') return 'total ' + fmt(v) + ' GPU ms/' + unit;
  return 'total ' + fmt(it.per_frame_ms[i]) + ' ms/' + unit;
}

function drawDetailed(it, n, visible, vals, max, k) {
  const labels = k >= 0.33;
  ctx.textBaseline = 'middle';
  for (let i = 0; i < n; i++) {
    if (!visible[i]) continue;
    const [sx, sy] = toScreen(it.x[i], it.y[i]);
    const w = BOX_W * k, h = BOX_H * k;
    const f = it.flags[i], v = vals[i];
    ctx.fillStyle = f & F.waiting ? '#dbe6f2' : v === null || v === undefined ? '#eceff3' : ramp(Math.sqrt(v / max));
    ctx.fillRect(sx, sy, w, h);
    if (w < 3) continue;
    ctx.lineWidth = i === state.selected ? 3 : f & F.critical ? 2.5 : 1;
    ctx.strokeStyle = i === state.selected ? '#1565c0' : f & F.critical ? '#d32f2f' : f & F.loop ? '#7b1fa2' : '#8a93a6';
    if (f & F.loop) ctx.setLineDash([5, 3]);
    ctx.strokeRect(sx, sy, w, h);
    ctx.setLineDash([]);
    if (f & F.enterable) {  // a container: a second frame behind it
      ctx.strokeStyle = '#8a93a6';
      ctx.lineWidth = 1;
      ctx.strokeRect(sx + 3 * k, sy - 3 * k, w, h);
    }
    if (labels) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(sx + 2, sy, w - 4, h);
      ctx.clip();
      ctx.fillStyle = v !== null && v !== undefined && !(f & F.waiting) && v / max > 0.45 ? '#fff' : '#111';
      ctx.font = Math.max(8, Math.min(13, 12 * k)) + 'px system-ui, sans-serif';
      ctx.fillText(it.name[i], sx + 5 * k, sy + h * 0.33);
      ctx.fillText(boxValue(it, i, v), sx + 5 * k, sy + h * 0.72);
      ctx.restore();
    }
  }
}

function loop() {
  if (dirty && state.tab === 'network') draw();
  requestAnimationFrame(loop);
}

function hit(sx, sy) {
  const g = state.graph;
  if (!g) return -1;
  const [wx, wy] = toWorld(sx, sy);
  const it = g.items;
  for (let i = it.id.length - 1; i >= 0; i--) {
    if (wx >= it.x[i] && wx <= it.x[i] + BOX_W && wy >= it.y[i] && wy <= it.y[i] + BOX_H) return i;
  }
  return -1;
}

let drag = null;
canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, y: ev.clientY, moved: false }; });
window.addEventListener('mouseup', () => { if (drag) canvas.style.cursor = 'grab'; setTimeout(() => { drag = null; }, 0); });
canvas.addEventListener('mousemove', (ev) => {
  const r = canvas.getBoundingClientRect();
  if (drag && ev.buttons) {
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
    state.cam.x -= dx / state.cam.k;
    state.cam.y -= dy / state.cam.k;
    drag.x = ev.clientX; drag.y = ev.clientY;
    canvas.style.cursor = 'grabbing';
    dirty = true;
    return;
  }
  const i = hit(ev.clientX - r.left, ev.clientY - r.top);
  const tip = $('tooltip');
  if (i < 0) { tip.hidden = true; return; }
  const it = state.graph.items;
  tip.textContent = it.id[i] + '\n' + it.type[i] + ' · ' + metricLabel(state.metric) + ' ' + fmt(it[state.metric][i]) +
    (it.costliest && it.costliest[i] ? '\n' + boxValue(it, i, it[state.metric][i]) + '; costliest inside: ' + it.costliest[i] + ' (' + fmt(it.costliest_ms[i]) + ' ms)' : '');
  tip.style.whiteSpace = 'pre-wrap';
  tip.style.left = (ev.clientX - r.left + 14) + 'px';
  tip.style.top = (ev.clientY - r.top + 14) + 'px';
  tip.hidden = false;
});
canvas.addEventListener('mouseleave', () => { $('tooltip').hidden = true; });
canvas.addEventListener('wheel', (ev) => {
  ev.preventDefault();
  const r = canvas.getBoundingClientRect();
  const sx = ev.clientX - r.left, sy = ev.clientY - r.top;
  const [wx, wy] = toWorld(sx, sy);
  const k = Math.max(0.005, Math.min(4, state.cam.k * Math.exp(-ev.deltaY * 0.0015)));
  state.cam = { k, x: wx - sx / k, y: wy - sy / k };
  dirty = true;
}, { passive: false });
canvas.addEventListener('click', (ev) => {
  if (drag && drag.moved) return;
  const r = canvas.getBoundingClientRect();
  const i = hit(ev.clientX - r.left, ev.clientY - r.top);
  if (i >= 0) openNode(state.graph.items.id[i]);
});
canvas.addEventListener('dblclick', (ev) => {
  const r = canvas.getBoundingClientRect();
  const i = hit(ev.clientX - r.left, ev.clientY - r.top);
  if (i >= 0 && state.graph.items.flags[i] & F.enterable) enterContainer(state.graph.items.id[i]);
});

async function enterContainer(id, focus) {
  const t0 = performance.now();
  const g = await get(V() + '/graph?container=' + encodeURIComponent(id));
  state.graph = g;
  state.container = id;
  state.selected = null;
  drawBreadcrumb();
  drawLegend();
  fit();
  if (focus) {
    const i = g.items.id.indexOf(focus);
    if (i >= 0) {
      state.selected = i;
      const r = canvas.getBoundingClientRect();
      const k = Math.max(state.cam.k, 0.8);
      state.cam = { k, x: g.items.x[i] + BOX_W / 2 - r.width / 2 / k, y: g.items.y[i] + BOX_H / 2 - r.height / 2 / k };
    }
  }
  draw();
  api.timings.container_ms = performance.now() - t0;
  document.body.dataset.container = id;
}

function drawBreadcrumb() {
  const nav = $('breadcrumb');
  nav.replaceChildren();
  state.graph.breadcrumb.forEach((c, j) => {
    if (j) nav.appendChild(el('span', '›', 'sep'));
    const a = el('a', c.name);
    a.dataset.id = c.id;
    a.addEventListener('click', () => enterContainer(c.id).catch((e) => showError('network', e)));
    nav.appendChild(a);
  });
}

function drawLegend() {
  const lg = $('legend');
  lg.replaceChildren();
  const max = metricMax(state.graph);
  lg.appendChild(el('span', metricLabel(state.metric) + ': 0'));
  const bar = el('span', null, 'bar');
  bar.style.background = 'linear-gradient(to right,' + [0, 0.25, 0.5, 0.75, 1].map(ramp).join(',') + ')';
  lg.appendChild(bar);
  const top = el('span', fmt(max));
  top.id = 'legend-max';
  lg.appendChild(top);
  lg.appendChild(el('div', 'red border: critical path · dashed purple: loop · pale blue: waiting (queue) · double border: container (double-click to enter)', 'muted'));
}

$('metric').addEventListener('change', () => {
  state.metric = $('metric').value;
  drawLegend();
  dirty = true;
});

// Search: the server searches every node of the network, not only this container's.
let searchTimer = null;
$('search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, 120);
});
$('search').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter') {
    clearTimeout(searchTimer);
    runSearch(true);
  } else if (ev.key === 'Escape') {
    $('search-results').hidden = true;
  }
});
async function runSearch(pickFirst) {
  const q = $('search').value.trim();
  const ul = $('search-results');
  if (!q) { ul.hidden = true; return; }
  try {
    const r = await get(V() + '/search?q=' + encodeURIComponent(q));
    if ($('search').value.trim() !== q) return;
    ul.replaceChildren();
    for (const x of r.results) {
      const li = el('li');
      li.appendChild(el('div', x.name));
      li.appendChild(el('div', x.id + ' · ' + x.type + ' · score ' + fmt(x.score), 'sub'));
      li.dataset.id = x.id;
      li.addEventListener('click', () => { ul.hidden = true; revealNode(x.id, x.parent); });
      ul.appendChild(li);
    }
    if (!r.results.length) ul.appendChild(el('li', 'no node matches'));
    else if (r.total > r.results.length) ul.appendChild(el('li', (r.total - r.results.length) + ' more: type more of the name', 'sub'));
    ul.hidden = false;
    if (pickFirst && r.results.length) { ul.hidden = true; revealNode(r.results[0].id, r.results[0].parent); }
  } catch (e) { showError('search', e); }
}

// GStreamer: the streaming threads above the network, named by their work,
// the bottleneck first; a click shows the thread's costliest element.
function renderThreads(s) {
  const list = $('threads');
  list.replaceChildren();
  const threads = (s.threads || []).slice().sort((a, b) => (b.bottleneck - a.bottleneck));
  list.hidden = !threads.length;
  for (const t of threads) {
    const li = el('li', null, t.bottleneck ? 'bottleneck' : null);
    li.dataset.thread = t.thread;
    li.title = 'thread ' + t.thread + ': ' + t.elements.join(' → ');
    li.appendChild(el('b', t.name + (t.bottleneck ? ' · bottleneck' : '')));
    li.appendChild(el('span', ' ' + (t.route ? '(' + t.route + ') ' : '') + fmt(t.busy_ms_per_buffer) + ' ms of work per buffer' +
      (t.buffer_period_ms != null ? ' of ' + fmt(t.buffer_period_ms) + ' (' + Math.round(100 * t.utilisation) + '%)' : '') +
      (t.cpu_load_pct != null ? ', CPU ' + Math.round(t.cpu_load_pct) + '%' : ''), 'muted'));
    if (t.costliest) li.addEventListener('click', () => revealNode(t.costliest));
    list.appendChild(li);
  }
}

// Shows a node where it lives (its container in the network view) and opens its panel.
async function revealNode(id, parent) {
  try {
    if (parent === undefined) parent = (await get(V() + '/node?id=' + encodeURIComponent(id))).parent;
    showTab('network');
    if (parent !== state.container || !state.graph) await enterContainer(parent, id);
    else {
      const i = state.graph.items.id.indexOf(id);
      if (i >= 0) state.selected = i;
      dirty = true;
    }
    await openNode(id);
  } catch (e) { showError('node', e); }
}
