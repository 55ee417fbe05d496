// cookgraph explorer: the page of `cookgraph serve` (docs/commands.md#cookgraph-serve).
// Every string from an input is shown as text (textContent, canvas text);
// the only HTML built from data is the LLM's answer, rendered by markdown-it
// with raw HTML off and unsafe links refused.
'use strict';

(function () {
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

  // ---------------------------------------------------------------- node panel
  const STAT_ROWS = [
    ['rank', 'rank', 0], ['score', 'score', 3], ['avg_ms', 'avg ms', 3], ['std_ms', 'std ms', 3],
    ['p50_ms', 'p50 ms', 3], ['p95_ms', 'p95 ms', 3], ['p99_ms', 'p99 ms', 3], ['max_ms', 'max ms', 3],
    ['per_frame_ms', 'per frame ms', 3], ['share', 'share of frame', -1], ['cooked_frames', 'cooked frames', 0],
    ['cooks_per_frame', 'cooks per frame', 2], ['gpu_avg_ms', 'GPU avg ms', 3], ['upstream_ms', 'upstream ms', 3],
    ['cpu_mem_mb', 'CPU memory MB', 2], ['gpu_mem_mb', 'GPU memory MB', 2],
  ];

  async function openNode(id) {
    const t0 = performance.now();
    const d = await get(V() + '/node?id=' + encodeURIComponent(id));
    state.node = d;
    const p = $('panel');
    p.hidden = false;
    p.dataset.id = id;
    $('panel-title').textContent = id;
    const stats = $('panel-stats');
    stats.replaceChildren();
    if (d.container) {
      $('panel-type').textContent = 'container · ' + plural(d.container.nodes, 'node') + ' beneath (' + d.container.cooked_nodes + ' cooked)';
    }
    if (d.node) {
      $('panel-type').textContent = d.node.type + ' · ' + d.node.family + (d.node.output ? ' · output' : '') + (d.node.waiting ? ' · waiting (its time is not work)' : '') + (d.container ? ' · contains ' + plural(d.container.nodes, 'node') : '');
      for (const [key, label, dec] of STAT_ROWS) {
        if (!(key in d.stats)) continue;
        const tr = el('tr');
        tr.dataset.stat = key;
        tr.appendChild(el('th', label.replace('frame', frameWord())));
        const v = d.stats[key];
        const td = el('td', dec < 0 ? pct(v) : v === null ? '-' : typeof v === 'number' ? (dec ? fmt(v, dec) : String(v)) : String(v), 'num');
        td.dataset.value = v === null ? '' : String(v);
        tr.appendChild(td);
        stats.appendChild(tr);
      }
      const flags = [];
      if (d.stats.loop) flags.push('in a loop');
      if (d.stats.on_critical_path) flags.push('on the critical path');
      if (d.stats.dead) flags.push('cooks but serves no output');
      if (flags.length) {
        const tr = el('tr');
        tr.appendChild(el('th', 'flags'));
        tr.appendChild(el('td', flags.join(', ')));
        stats.appendChild(tr);
      }
    } else if (d.container) {
      const tr = el('tr');
      tr.appendChild(el('th', 'per ' + frameWord() + ' ms (all beneath)'));
      tr.appendChild(el('td', fmt(d.container.per_frame_ms), 'num'));
      stats.appendChild(tr);
    }
    drawNodeChart();
    showWhatIf(d);
    const fl = $('panel-findings');
    fl.replaceChildren();
    const findings = d.findings || [];
    if (findings.length) {
      const all = state.findings || (state.findings = await get(V() + '/findings'));
      for (const i of findings) {
        const f = all.findings[i];
        const li = el('li');
        li.appendChild(el('span', f.severity, 'sev ' + f.severity));
        li.appendChild(el('span', f.title));
        fl.appendChild(li);
      }
    } else fl.appendChild(el('li', 'none', 'muted'));
    for (const [key, ul] of [['inputs', $('panel-inputs')], ['outputs', $('panel-outputs')]]) {
      ul.replaceChildren();
      const list = d[key] || [];
      for (const x of list.slice(0, 200)) {
        const li = el('li');
        const a = el('a', x.id);
        a.addEventListener('click', () => revealNode(x.id));
        li.appendChild(a);
        li.appendChild(el('span', ' (' + x.kind + ')', 'muted'));
        ul.appendChild(li);
      }
      if (list.length > 200) ul.appendChild(el('li', (list.length - 200) + ' more', 'muted'));
      if (!list.length) ul.appendChild(el('li', 'none', 'muted'));
    }
    const params = $('panel-params');
    params.replaceChildren();
    for (const [k, v] of d.params || []) {
      const tr = el('tr');
      tr.appendChild(el('th', k));
      tr.appendChild(el('td', v, 'name'));
      params.appendChild(tr);
    }
    if (!(d.params || []).length) params.appendChild(el('tr', 'none', 'muted'));
    api.timings.panel_ms = performance.now() - t0;
    p.dataset.ready = id;
    if (state.tab === 'network') resizeGraph();
  }
  $('panel-close').addEventListener('click', () => { $('panel').hidden = true; resizeGraph(); });

  // A chart's canvas sized to its box at the screen's pixel ratio, blank:
  // its context, drawing in CSS pixels, and the box.
  function fitCanvas(c) {
    const r = c.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.max(1, r.width * dpr); c.height = Math.max(1, r.height * dpr);
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    return [g, r];
  }

  function drawNodeChart() {
    const d = state.node;
    const [g, r] = fitCanvas($('node-chart'));
    const s = d && d.series ? d.series.cook_ms : [];
    const unit = frameWord();
    if (!s || !s.length) { $('panel-chart-note').textContent = 'no per-' + unit + ' series'; return; }
    let max = 0;
    for (const v of s) if (v !== null && v > max) max = v;
    max = max || 1;
    const over = new Set(d.over_budget || []);
    const w = r.width, h = r.height - 14;
    const bw = w / s.length;
    for (let i = 0; i < s.length; i++) {
      const v = s[i];
      if (v === null) continue;
      g.fillStyle = over.has(i) ? '#d32f2f' : '#5c7cba';
      const bh = (v / max) * (h - 4);
      g.fillRect(i * bw, h - bh, Math.max(1, bw - (bw > 3 ? 1 : 0)), bh);
    }
    g.fillStyle = '#66708a';
    g.font = '11px system-ui, sans-serif';
    g.fillText('max ' + fmt(max) + ' ms · ' + plural(s.length, unit), 2, r.height - 2);
    $('panel-chart-note').textContent = over.size ? 'red: the ' + unit + ' was over budget (' + plural(over.size, unit) + ')' : '';
  }

  // ---------------------------------------------------------------- what-if
  // The panel's slider: the frame times predicted if the node cooked factor ×
  // as long (0: removed, 1: as measured), asked of the server at each move
  // (docs/architecture.md#what-if-predicted-gains); only the newest answer is drawn.
  let whatifSeq = 0, whatifTimer = null;
  function showWhatIf(d) {
    const box = $('whatif');
    box.hidden = !d.node;
    if (!d.node) { whatifSeq++; state.whatif = null; return; }
    requestWhatIf();
  }
  $('whatif-factor').addEventListener('input', () => {
    $('whatif-value').textContent = Number($('whatif-factor').value).toFixed(2);
    clearTimeout(whatifTimer);
    whatifTimer = setTimeout(requestWhatIf, 60);
  });
  async function requestWhatIf() {
    const id = $('panel').dataset.id, factor = $('whatif-factor').value, view = state.view;
    const seq = ++whatifSeq;
    $('whatif-value').textContent = Number(factor).toFixed(2);
    try {
      const w = await get(V() + '/whatif?node=' + encodeURIComponent(id) + '&factor=' + encodeURIComponent(factor));
      if (seq !== whatifSeq || view !== state.view) return;  // a newer move, another node or view
      state.whatif = w;
      const unit = frameWord();
      const change = (a, b) => fmt(a) + ' → ' + fmt(b) + ' ms';
      const saved = (v) => (v === null ? '' : ' (' + (v >= 0 ? fmt(v) + ' saved' : fmt(-v) + ' more') + ')');
      let head = 'mean ' + change(w.before.mean_ms, w.after.mean_ms) + saved(w.saved_ms) +
        ' · p95 ' + change(w.before.p95_ms, w.after.p95_ms) + saved(w.saved_p95_ms);
      if (w.budget_ms !== null) {
        head += ' · over budget ' + w.before.over_budget + ' → ' + plural(w.after.over_budget, unit) +
          (w.frames_saved > 0 ? ' (' + w.frames_saved + ' saved)' : w.frames_saved < 0 ? ' (' + -w.frames_saved + ' more)' : '');
      }
      $('whatif-head').textContent = head;
      const notes = ['model: ' + w.model];
      const gain = state.node && state.node.gain_ms;
      if (gain !== null && gain !== undefined) notes.push('halving it saves ' + fmt(gain) + ' ms per ' + unit + ' (the gain column)');
      if (w.waiting) notes.push('a waiting node (queue) does no work: the model leaves it as measured');
      if (!w.cooked) notes.push('the node never cooked');
      for (const x of w.warnings) notes.push(x);
      $('whatif-note').textContent = notes.join(' · ');
      drawWhatIf();
      const box = $('whatif');
      box.dataset.ready = id + '@' + w.factor;
    } catch (e) {
      if (seq === whatifSeq) { $('whatif-head').textContent = e.message; showError('what-if', e); }
    }
  }
  // Before (grey bars) and after (the blue line) per frame, with the budget.
  function drawWhatIf() {
    const w = state.whatif;
    const [g, r] = fitCanvas($('whatif-chart'));
    if (!w || !w.before_ms.length) return;
    const before = w.before_ms, after = w.after_ms, n = before.length;
    let max = w.budget_ms || 0;
    for (const s of [before, after]) for (const v of s) if (v !== null && v > max) max = v;
    max = max * 1.05 || 1;
    const h = r.height - 14, bw = r.width / n;
    const Y = (v) => h - (Math.max(0, v) / max) * h;
    g.fillStyle = '#cfd6e4';
    for (let i = 0; i < n; i++) {
      if (before[i] === null) continue;
      g.fillRect(i * bw, Y(before[i]), Math.max(1, bw - (bw > 3 ? 1 : 0)), h - Y(before[i]));
    }
    g.strokeStyle = '#1565c0'; g.lineWidth = 1.5;
    g.beginPath();
    let open = false;
    for (let i = 0; i < n; i++) {
      if (after[i] === null) { open = false; continue; }
      const x = (i + 0.5) * bw;
      if (open) g.lineTo(x, Y(after[i])); else g.moveTo(x, Y(after[i]));
      open = true;
    }
    g.stroke();
    if (w.budget_ms !== null) {
      g.strokeStyle = '#c62828'; g.lineWidth = 1; g.setLineDash([4, 3]);
      g.beginPath(); g.moveTo(0, Y(w.budget_ms)); g.lineTo(r.width, Y(w.budget_ms)); g.stroke(); g.setLineDash([]);
    }
    g.fillStyle = '#66708a'; g.font = '11px system-ui, sans-serif';
    g.fillText('grey: measured · blue: predicted' + (w.budget_ms !== null ? ' · dashed: budget' : '') + ' · 0 … ' + fmt(max, 1) + ' ms', 2, r.height - 2);
    api.whatif = { node: w.node, factor: w.factor, after: after.slice(), saved_ms: w.saved_ms };
  }

  // ---------------------------------------------------------------- frames and timelines
  async function loadFrames(force) {
    if (!state.frames || force) state.frames = await get(V() + '/frames');
    const f = state.frames;
    const unit = f.frame_word || 'frame';
    $('frames-head').textContent = plural(f.frame_ms.length, unit) + ' · mean ' + fmt(f.mean_ms) + ' ms · p95 ' + fmt(f.p95_ms) + ' ms · max ' + fmt(f.max_ms) + ' ms' +
      (f.budget_ms !== null ? ' · budget ' + fmt(f.budget_ms) + ' ms, ' + plural(f.over_budget.length, unit) + ' over' : ' · no budget (' + unit + 's)') + ' · click a bar for its timeline';
    drawFrameChart();
    if (state.frame === null && f.worst !== null) await openFrame(f.worst);
  }

  function drawFrameChart() {
    const c = $('frame-chart');
    const f = state.frames;
    if (!f || c.offsetParent === null) return;
    const [g, r] = fitCanvas(c);
    const s = f.frame_ms, n = s.length;
    let max = f.budget_ms || 0;
    for (const v of s) if (v !== null && v > max) max = v;
    max = max * 1.05 || 1;
    const h = r.height - 16, bw = r.width / Math.max(1, n);
    const over = new Set(f.over_budget);
    for (let i = 0; i < n; i++) {
      if (s[i] === null) continue;
      g.fillStyle = i === state.frame ? '#1565c0' : over.has(i) ? '#d32f2f' : '#8fa7d6';
      const bh = (s[i] / max) * h;
      g.fillRect(i * bw, h - bh, Math.max(1, bw - (bw > 3 ? 1 : 0)), bh);
    }
    if (f.budget_ms !== null) {
      const y = h - (f.budget_ms / max) * h;
      g.strokeStyle = '#c62828'; g.setLineDash([4, 3]);
      g.beginPath(); g.moveTo(0, y); g.lineTo(r.width, y); g.stroke(); g.setLineDash([]);
    }
    g.fillStyle = '#66708a'; g.font = '11px system-ui, sans-serif';
    g.fillText('0 … ' + fmt(max, 1) + ' ms', 2, r.height - 3);
  }
  $('frame-chart').addEventListener('click', (ev) => {
    const f = state.frames;
    if (!f) return;
    const r = ev.target.getBoundingClientRect();
    const i = Math.floor(((ev.clientX - r.left) / r.width) * f.frame_ms.length);
    if (i >= 0 && i < f.frame_ms.length) openFrame(i).catch((e) => showError('timeline', e));
  });

  const tl = { view: [0, 1], drag: null, rows: [] };
  const KIND_COLOURS = {
    kernel: '#2e7d32', memcpy: '#ef6c00', memset: '#f9a825', cpu_op: '#5c7cba', runtime: '#8e24aa',
    annotation: '#9e9e9e', marker: '#cfd8dc', gpu_annotation: '#e0e0e0', gpu_sync: '#bdbdbd', other: '#78909c',
    cook: '#5c7cba', waiting: '#dbe6f2',
  };

  async function openFrame(i) {
    state.frame = i;
    drawFrameChart();
    const t = await get(V() + '/timeline?frame=' + i);
    state.timeline = t;
    tl.view = [0, Math.max(t.span_ms, 1e-6)];
    const unit = frameWord();
    const layout = t.layout === 'recorded' ? 'recorded times' + (state.summary && state.summary.engine === 'gstreamer' ? ' (when each buffer entered each element; pale: waiting)' : '') :
      'dependency order (the input gives each cook\'s time, not when it ran)';
    $('timeline-head').textContent = unit + ' ' + t.step + ' · ' + fmt(t.frame_ms) + ' ms · ' + plural(t.lanes.length, 'lane') + ' · ' +
      plural(t.events, 'event') + (t.kept < t.events ? ' (the ' + t.kept + ' longest drawn)' : '') +
      (t.other_streams ? ' · ' + plural(t.other_streams, 'cook') + ' on threads at another rate not shown (not this ' + unit + ')' : '') +
      ' · ' + layout + ' · wheel zooms, drag pans';
    drawTimeline();
    document.body.dataset.frame = String(i);
  }

  function drawTimeline() {
    const c = $('timeline');
    const t = state.timeline;
    if (!t || c.offsetParent === null) return;
    const LANE_HEAD = 18, ROW = 16, LABEL = 0;
    // Rows per lane: the deepest nesting + 1 (GPU lanes also show idle gaps).
    let height = 0;
    tl.rows = t.lanes.map((l) => {
      let depth = 0;
      for (const d of l.depth) if (d > depth) depth = d;
      const top = height;
      height += LANE_HEAD + (Math.min(depth, 7) + 1) * ROW + 6;
      return { top, depth: Math.min(depth, 7) };
    });
    const r = c.parentElement.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    c.style.height = height + 'px';
    c.width = Math.max(1, r.width * dpr); c.height = Math.max(1, height * dpr);
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, r.width, height);
    const [v0, v1] = tl.view;
    const W = r.width - LABEL;
    const X = (ms) => LABEL + ((ms - v0) / (v1 - v0)) * W;
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    t.lanes.forEach((l, li) => {
      const row = tl.rows[li];
      g.fillStyle = '#f4f6f9';
      g.fillRect(0, row.top, r.width, LANE_HEAD);
      g.fillStyle = '#1d2330';
      g.fillText(l.label + (l.gpu ? ' · hatched: idle' : ''), 4, row.top + LANE_HEAD / 2);
      const base = row.top + LANE_HEAD;
      if (l.gpu) {  // idle gaps between the stream's work
        const order = l.start.map((s, j) => j).sort((a, b) => l.start[a] - l.start[b]);
        let end = 0;
        g.fillStyle = 'rgba(211,47,47,0.12)';
        for (const j of order) {
          if (l.start[j] > end) g.fillRect(X(end), base, X(l.start[j]) - X(end), ROW);
          end = Math.max(end, l.start[j] + l.dur[j]);
        }
      }
      for (let j = 0; j < l.start.length; j++) {
        const s = l.start[j], e = s + l.dur[j];
        if (e < v0 || s > v1) continue;
        const x = X(s), w = Math.max(1, X(e) - x);
        const y = base + Math.min(l.depth[j], 7) * ROW;
        g.fillStyle = KIND_COLOURS[l.kind[j]] || '#78909c';
        g.fillRect(x, y + 1, w > 3 ? w - 1 : w, ROW - 2);  // a gap between neighbours
        if (w > 40) {
          g.save();
          g.beginPath(); g.rect(x, y, w, ROW); g.clip();
          g.fillStyle = l.kind[j] === 'waiting' || l.kind[j] === 'marker' || l.kind[j] === 'gpu_annotation' ? '#1d2330' : '#fff';
          g.fillText(t.names[l.name[j]], x + 3, y + ROW / 2);
          g.restore();
        }
      }
    });
    // Launches: a line from each launch call to the GPU work it launched.
    if ((v1 - v0) < (t.span_ms || 1) * 0.6 || t.kept < 3000) {
      g.strokeStyle = 'rgba(142,36,170,0.5)';
      g.lineWidth = 1;
      g.beginPath();
      t.lanes.forEach((l, li) => {
        for (let j = 0; j < l.link.length; j++) {
          const lk = l.link[j];
          if (!lk || l.gpu) continue;
          const [tli, tj] = lk;
          const tgt = t.lanes[tli];
          if (!tgt || !tgt.gpu) continue;
          const y0 = tl.rows[li].top + LANE_HEAD + Math.min(l.depth[j], 7) * ROW + ROW / 2;
          const y1 = tl.rows[tli].top + LANE_HEAD + ROW / 2;
          g.moveTo(X(l.start[j]), y0);
          g.lineTo(X(tgt.start[tj]), y1);
        }
      });
      g.stroke();
    }
  }

  function timelineHit(ev) {
    const t = state.timeline;
    if (!t) return null;
    const c = $('timeline');
    const r = c.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    const [v0, v1] = tl.view;
    const ms = v0 + (x / r.width) * (v1 - v0);
    const tol = (3 / r.width) * (v1 - v0);
    for (let li = 0; li < t.lanes.length; li++) {
      const row = tl.rows[li];
      const base = row.top + 18;
      if (y < base || y > base + (row.depth + 1) * 16) continue;
      const depth = Math.floor((y - base) / 16);
      const l = t.lanes[li];
      for (let j = 0; j < l.start.length; j++) {
        if (Math.min(l.depth[j], 7) === depth && ms >= l.start[j] - tol && ms <= l.start[j] + l.dur[j] + tol) return { l, j, x, y };
      }
    }
    return null;
  }
  $('timeline').addEventListener('wheel', (ev) => {
    if (!state.timeline) return;
    ev.preventDefault();
    const r = ev.target.getBoundingClientRect();
    const [v0, v1] = tl.view;
    const at = v0 + ((ev.clientX - r.left) / r.width) * (v1 - v0);
    const f = Math.exp(ev.deltaY * 0.002);
    const span = Math.max(1e-6, Math.min((state.timeline.span_ms || 1) * 1.2, (v1 - v0) * f));
    const left = at - ((at - v0) / (v1 - v0)) * span;
    tl.view = [left, left + span];
    drawTimeline();
  }, { passive: false });
  $('timeline').addEventListener('mousedown', (ev) => { tl.drag = { x: ev.clientX }; });
  window.addEventListener('mouseup', () => { tl.drag = null; });
  $('timeline').addEventListener('mousemove', (ev) => {
    const tip = $('timeline-tip');
    if (tl.drag && ev.buttons) {
      const r = ev.target.getBoundingClientRect();
      const [v0, v1] = tl.view;
      const d = ((ev.clientX - tl.drag.x) / r.width) * (v1 - v0);
      tl.view = [v0 - d, v1 - d];
      tl.drag.x = ev.clientX;
      drawTimeline();
      return;
    }
    const h = timelineHit(ev);
    if (!h) { tip.hidden = true; return; }
    const t = state.timeline;
    tip.textContent = t.names[h.l.name[h.j]] + '\n' + h.l.kind[h.j] + ' · start ' + fmt(h.l.start[h.j]) + ' ms · ' + fmt(h.l.dur[h.j]) + ' ms' + (h.l.node[h.j] ? '\nnode ' + h.l.node[h.j] : '');
    tip.style.whiteSpace = 'pre-wrap';
    tip.style.left = (h.x + 14) + 'px';
    tip.style.top = (h.y + 14) + 'px';
    tip.hidden = false;
  });
  $('timeline').addEventListener('click', (ev) => {
    const h = timelineHit(ev);
    if (h && h.l.node[h.j]) {
      openNode(h.l.node[h.j]).catch((e) => showError('node', e));
    }
  });

  // ---------------------------------------------------------------- findings
  async function loadFindings(force) {
    if (!state.findings || force) state.findings = await get(V() + '/findings');
    const ol = $('findings-list');
    ol.replaceChildren();
    if (!state.findings.findings.length) ol.appendChild(el('li', 'No rule of the knowledge pack matched.', 'muted'));
    // Each rule's findings as one, at the place of its first (as the report).
    const groups = new Map();
    for (const f of state.findings.findings) {
      if (!groups.has(f.rule)) groups.set(f.rule, []);
      groups.get(f.rule).push(f);
    }
    for (const group of groups.values()) {
      const f = group[0];
      const li = el('li');
      const head = el('div');
      head.appendChild(el('span', f.severity, 'sev ' + f.severity));
      head.appendChild(el('span', f.title + (group.length > 1 ? ', and ' + (group.length - 1) + ' more like it' : ''), 'finding-title'));
      li.appendChild(head);
      li.appendChild(el('div', f.suggestion));
      if (group.length > 1) {
        const more = el('div', 'The same for: ', 'finding-nodes muted');
        group.slice(1).forEach((g, j) => {
          if (j) more.appendChild(document.createTextNode(', '));
          const a = el('a', g.nodes.length ? g.nodes[0] : g.title);
          if (g.nodes.length) a.addEventListener('click', () => revealNode(g.nodes[0]));
          more.appendChild(a);
        });
        li.appendChild(more);
      }
      if (f.nodes.length) {
        const nodes = el('div', 'nodes: ', 'finding-nodes muted');
        f.nodes.slice(0, 20).forEach((id, j) => {
          if (j) nodes.appendChild(document.createTextNode(', '));
          const a = el('a', id);
          a.addEventListener('click', () => revealNode(id));
          nodes.appendChild(a);
        });
        if (f.nodes.length > 20) nodes.appendChild(document.createTextNode(' and ' + (f.nodes.length - 20) + ' more'));
        li.appendChild(nodes);
      }
      ol.appendChild(li);
    }
  }

  // ---------------------------------------------------------------- comparison and snapshots
  // `ranked` ({ key, rank(column) }): the rows come ranked by the server,
  // largest first; a header with a `sort` asks it to rank by that instead.
  function sortableTable(table, columns, rows, onRow, ranked) {
    let key = ranked ? ranked.key : null, desc = true;
    function render() {
      table.replaceChildren();
      const thead = el('thead'), tr = el('tr');
      for (const c of columns) {
        const active = ranked ? c.sort === key : c.key === key;
        const sortable = !ranked || c.sort;
        const th = el('th', c.label + (active ? (desc ? ' ▼' : ' ▲') : ''), (sortable ? 'sortable' : '') + (c.num ? ' num' : ''));
        if (c.title) th.title = c.title;
        if (c.sort) th.dataset.sort = c.sort;
        if (ranked) {
          if (c.sort) th.addEventListener('click', () => ranked.rank(c));
        } else {
          th.addEventListener('click', () => { desc = key === c.key ? !desc : true; key = c.key; render(); });
        }
        tr.appendChild(th);
      }
      thead.appendChild(tr);
      table.appendChild(thead);
      const sorted = rows.slice();
      if (key && !ranked) {
        sorted.sort((a, b) => {
          const x = a[key], y = b[key];
          if (x === y) return 0;
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          return (x < y ? -1 : 1) * (desc ? -1 : 1);
        });
      }
      const tbody = el('tbody');
      for (const row of sorted) {
        const r = el('tr');
        for (const c of columns) {
          const v = row[c.key];
          const td = el('td', c.format ? c.format(v, row) : v, c.num ? 'num' : 'name');
          if (c.cls) td.className += ' ' + c.cls(row);
          r.appendChild(td);
        }
        if (onRow) r.addEventListener('click', () => onRow(row));
        if (row.id !== undefined) r.dataset.id = row.id;
        tbody.appendChild(r);
      }
      table.appendChild(tbody);
    }
    render();
  }

  async function loadDiff() {
    const d = await get('/api/diff');
    const f = d.frames;
    const head = $('diff-head');
    head.replaceChildren();
    head.appendChild(el('p', 'Before: ' + d.before + ' · after: ' + d.after));
    const s = el('p', 'Mean ' + frameWord() + ' time ' + fmt(f.mean_before) + ' → ' + fmt(f.mean_after) + ' ms (' + (f.change_pct === null ? '-' : (f.change_pct > 0 ? '+' : '') + fmt(f.change_pct, 1) + '%') + ', p = ' + pValue(f.p_value) + ')' +
      (f.regression ? ' · a regression' : f.improvement ? ' · an improvement' : '') + ' · ' + plural(d.regressions, 'node regression', 'node regressions') + ', ' + plural(d.improvements, 'improvement') +
      ' (Welch\'s t-test at α = ' + d.alpha + ', changes above ' + d.min_change_pct + '%)');
    s.className = f.regression ? 'regression' : f.improvement ? 'improvement' : '';
    head.appendChild(s);
    sortableTable($('diff-table'), [
      { key: 'id', label: 'node' },
      { key: 'before_avg_ms', label: 'avg before', num: true, format: (v) => fmt(v) },
      { key: 'after_avg_ms', label: 'avg after', num: true, format: (v) => fmt(v) },
      { key: 'avg_pct', label: 'change', num: true, format: (v) => (v === null ? '-' : (v > 0 ? '+' : '') + fmt(v, 1) + '%') },
      { key: 'p_value', label: 'p', num: true, format: (v) => pValue(v) },
      { key: 'regression', label: 'verdict', format: (v, r) => (r.regression ? 'regression' : r.improvement ? 'improvement' : r.note || ''), cls: (r) => (r.regression ? 'regression' : r.improvement ? 'improvement' : '') },
    ], d.nodes, (row) => { state.view = 1; revealNode(row.id); });
    const added = $('diff-added');
    added.replaceChildren();
    added.appendChild(el('p', plural(d.added.length, 'node') + ' added: ' + d.added.slice(0, 50).join(', ') + (d.added.length > 50 ? ' …' : '')));
    added.appendChild(el('p', plural(d.removed.length, 'node') + ' removed: ' + d.removed.slice(0, 50).join(', ') + (d.removed.length > 50 ? ' …' : '')));
  }

  function drawViews() {
    sortableTable($('views-table'), [
      { key: 'file', label: 'input' },
      { key: 'engine', label: 'engine' },
      { key: 'nodes', label: 'nodes', num: true },
      { key: 'frames', label: [...new Set(state.index.views.map((v) => (v.frame_word || 'frame') + 's'))].join(' / '), num: true },
      { key: 'mean_ms', label: 'mean ms', num: true, format: (v) => fmt(v) },
      { key: 'p95_ms', label: 'p95 ms', num: true, format: (v) => fmt(v) },
      { key: 'max_ms', label: 'max ms', num: true, format: (v) => fmt(v) },
      { key: 'over_budget', label: 'over budget', num: true },
      { key: 'findings', label: 'findings', num: true },
      { key: 'top', label: 'top node' },
    ], state.index.views, (row) => selectView(row.view));
  }

  // ---------------------------------------------------------------- nodes
  // The view's costliest nodes as a table, ranked by the server over every
  // node (each key largest first, as `score --sort`); a row reveals its node.
  const NODE_ROWS = 200;
  async function loadNodes(sort) {
    if (sort) state.nodesSort = sort;
    else if (state.nodes && state.nodes.view === state.view) return drawNodes();
    state.nodes = await get(V() + '/nodes?sort=' + encodeURIComponent(state.nodesSort) + '&top=' + NODE_ROWS);
    drawNodes();
  }
  function drawNodes() {
    const d = state.nodes;
    const ms = (key, sort, label, title) => ({ key, sort, label, title, num: true, format: (v) => fmt(v) });
    const columns = [
      { key: 'rank', label: 'rank', num: true, title: 'by score, as cookgraph score ranks' },
      { key: 'id', label: 'node' },
      { key: 'type', label: 'type' },
      ms('score', 'score', 'score'), ms('avg_ms', 'avg', 'avg ms'), ms('p95_ms', 'p95', 'p95 ms'),
      ms('max_ms', 'max', 'max ms'), ms('per_frame_ms', 'per-frame', 'per-' + frameWord() + ' ms'),
    ];
    // GPU beside CPU: per frame and its share, where the input measures it.
    if (state.summary && state.summary.metrics.includes('gpu_ms')) {
      columns.push(ms('gpu_avg_ms', 'gpu', 'GPU avg ms'));
      columns.push({ key: 'gpu_per_frame_ms', label: 'GPU ms/' + frameWord(), num: true, format: (v) => (v === null ? '-' : fmt(v)),
        title: 'GPU time per ' + frameWord() + ', as score\'s gpu column' });
      columns.push({ key: 'gpu_share', label: 'GPU share', num: true, format: (v) => pct(v),
        title: 'GPU time per ' + frameWord() + ' / mean ' + frameWord() + ' time' });
    }
    // Containers (a COMP, a bin): the total of itself and everything inside.
    if (d.rows.some((r) => r.inside_ms !== null)) {
      columns.push({ key: 'inside_ms', label: 'with inside ms/' + frameWord(), num: true, format: (v) => (v === null ? '' : fmt(v)),
        title: 'a container: its own per-' + frameWord() + ' ms and that of every node inside it' });
      columns.push({ key: 'costliest_inside', label: 'costliest inside', format: (v) => (v === null ? '' : v.split('/').pop()) });
    }
    columns.push(ms('upstream_ms', 'upstream', 'upstream ms'));
    if (d.gains) columns.push(ms('gain_ms', 'gain', 'gain ms', gainTitle()));
    const label = (columns.find((c) => c.sort === d.sort) || { label: d.sort }).label;
    $('nodes-head').textContent = (d.rows.length < d.cooked ? 'The ' + d.rows.length + ' largest of ' : 'All ') + plural(d.cooked, 'cooked node') +
      ' by ' + label + ' · click a header to rank by it, a row to show the node';
    sortableTable($('nodes-table'), columns, d.rows, (row) => revealNode(row.id, row.parent),
      { key: d.sort, rank: (c) => loadNodes(c.sort).catch((e) => showError('nodes', e)) });
    document.body.dataset.nodesSort = d.sort;
  }

  // ---------------------------------------------------------------- ask
  // A conversation per view, held here (the server keeps none): each
  // question goes with the earlier turns, as `ask --chat` sends them
  // (docs/commands.md#the-explorers-api). It lasts while the page does.
  const md = window.markdownit ? window.markdownit({ html: false, linkify: false, typographer: false }) : null;
  function renderMarkdown(box, text) {
    if (md) box.innerHTML = md.render(text);  // raw HTML is escaped; javascript: links are refused
    else box.textContent = text;
    for (const a of box.querySelectorAll('a')) { a.rel = 'noopener noreferrer'; a.target = '_blank'; }
  }
  // The server's bounds on the thread sent back (ServeOptions).
  const MAX_TURNS = 50, MAX_ANSWER_BYTES = 64 * 1024, MAX_BODY_BYTES = 4 * 1024 * 1024;
  const utf8 = new TextEncoder();
  const bytes = (s) => utf8.encode(s).length;
  function clipBytes(s, max) {  // at most `max` UTF-8 bytes, whole characters
    if (bytes(s) <= max) return s;
    let lo = 0, hi = s.length;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (bytes(s.slice(0, mid)) <= max) lo = mid; else hi = mid - 1; }
    if (lo > 0 && /[\ud800-\udbff]/.test(s[lo - 1])) lo--;
    return s.slice(0, lo);
  }
  const threads = new Map();  // view -> { box, turns: [{ question, answer, state, els }], busy }
  function thread(view = state.view) {
    let t = threads.get(view);
    if (!t) {
      t = { box: el('div', null, 'thread'), turns: [], busy: null };
      t.box.dataset.view = String(view);
      $('thread').appendChild(t.box);
      threads.set(view, t);
    }
    return t;
  }
  // An endpoint to ask: the server's, or the one the page's own settings give
  // (the single-file page, web/page.js).
  const askReady = () => (api.askReady ? api.askReady() : !!(state.index && state.index.ask.configured));
  api.refreshAsk = () => { if (state.index) showThread(); };
  function showThread() {
    const t = thread();
    for (const b of $('thread').children) b.hidden = b !== t.box;
    $('ask-send').disabled = !askReady() || !!t.busy;
    $('ask-stop').hidden = !t.busy;
    $('ask-new').disabled = !t.turns.length;
    $('thread').dataset.turns = String(t.turns.length);
  }
  // The earlier turns as the server takes them: finished or stopped ones, the
  // newest MAX_TURNS, each answer within its bound, the body within its own.
  function history(t) {
    let h = t.turns.filter((x) => x.state === 'done' || x.state === 'stopped').map((x) => {
      const turn = { question: x.question, answer: clipBytes(x.answer, MAX_ANSWER_BYTES) };
      if (x.state === 'stopped') turn.stopped = true;
      return turn;
    });
    h = h.slice(-MAX_TURNS);
    while (h.length && bytes(JSON.stringify({ question: 'x'.repeat(4000), history: h })) > MAX_BODY_BYTES) h.shift();
    return h;
  }
  async function post(path, body, signal) {
    if (api.transport) throw new Error(state.index.ask.help);
    const r = await fetch(path, {
      method: 'POST', credentials: 'same-origin', signal,
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    if (!r.ok) {
      const b = await r.json().catch(() => ({}));
      throw new Error(b.error || r.status + ' ' + r.statusText);
    }
    return r;
  }
  $('ask-prompt').addEventListener('click', async () => {
    try {
      const q = $('question').value.trim();
      const body = { question: q, history: history(thread()) };
      const p = api.askPrompt ? await api.askPrompt(state.view, body) : await (await post(V() + '/prompt', body)).json();
      let info = p.tokens.toLocaleString('en') + ' of ' + p.budget_tokens.toLocaleString('en') + ' prompt tokens for ' + p.model;
      if (p.earlier_sent || p.earlier_left_out) {
        info += ' · ' + plural(p.earlier_sent, 'earlier turn') + (p.earlier_left_out ? ' (' + p.earlier_left_out + ' older left out for the budget)' : '');
      }
      if (p.tools) info += ' · ' + plural(p.tools, 'function') + ' offered';
      $('prompt-info').textContent = info;
      $('prompt-text').textContent = p.text;
      $('prompt-text').hidden = false;
    } catch (e) { $('prompt-info').textContent = e.message; }
  });
  $('ask-send').addEventListener('click', ask);
  $('question').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); ask(); }
  });
  $('ask-stop').addEventListener('click', () => { const t = thread(); if (t.busy) t.busy.abort(); });
  $('ask-new').addEventListener('click', () => {
    const t = thread();
    if (t.busy) t.busy.abort();
    t.turns = [];
    t.box.replaceChildren();
    $('prompt-info').textContent = '';
    $('prompt-text').hidden = true;
    showThread();
  });

  function addTurn(t, q) {
    const els = { turn: el('div', null, 'turn') };
    els.question = el('div', q, 'turn-question');
    els.calls = el('div', null, 'turn-calls');
    els.answer = el('div', '…', 'answer markdown');
    els.foot = el('div', null, 'turn-foot muted');
    els.turn.append(els.question, els.calls, els.answer, els.foot);
    // The newest answer is #answer (what scripts and tests read).
    const old = $('answer');
    if (old) old.removeAttribute('id');
    els.answer.id = 'answer';
    t.box.appendChild(els.turn);
    const turn = { question: q, answer: '', state: 'streaming', els };
    t.turns.push(turn);
    return turn;
  }
  function setState(turn, s) {
    turn.state = s;
    turn.els.turn.dataset.state = s;
    turn.els.answer.dataset.state = s;
  }
  function footLinks(turn, d) {
    const foot = turn.els.foot;
    if (d.nodes && d.nodes.length) {
      const looked = el('div', 'looked at: ', 'turn-looked');
      d.nodes.forEach((id, j) => {
        if (j) looked.appendChild(document.createTextNode(', '));
        const a = el('a', id);
        a.dataset.id = id;
        a.addEventListener('click', () => revealNode(id));
        looked.appendChild(a);
      });
      if (d.nodes_total > d.nodes.length) looked.appendChild(document.createTextNode(' and ' + (d.nodes_total - d.nodes.length) + ' more'));
      foot.appendChild(looked);
    }
    let note = (d.tokens || 0).toLocaleString('en') + ' tokens in the largest request';
    if (d.requests > 1) note += ' · ' + plural(d.requests, 'request');
    if (d.earlier_left_out) note += ' · ' + plural(d.earlier_left_out, 'earlier turn') + ' left out for the budget';
    foot.appendChild(el('div', note));
  }

  // Reads a stream of server-sent events, calling on(event, data) for each.
  async function readEvents(r, on) {
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let at;
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, at);
        buf = buf.slice(at + 2);
        let event = 'message', data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) on(event, JSON.parse(data));  // comments (keep-alives) carry none
      }
    }
  }

  async function ask() {
    const q = $('question').value.trim();
    const t = thread();
    if (!q || t.busy) return;
    const earlier = history(t);
    const turn = addTurn(t, q);
    const box = turn.els.answer;
    setState(turn, 'streaming');
    const controller = new AbortController();
    t.busy = controller;
    $('question').value = '';
    showThread();
    box.scrollIntoView({ block: 'nearest' });
    let text = '', pieces = 0;
    try {
      const body = { question: q, history: earlier };
      let failure = null;
      const on = (event, d) => {
        if (event === 'piece') {
          text += d.text; pieces++;
          renderMarkdown(box, text);
          box.dataset.pieces = String(pieces);
        } else if (event === 'tool') {
          // What came before a call was the model thinking aloud, not the answer.
          if (text.trim()) {
            const remark = el('div', null, 'turn-remark markdown muted');
            renderMarkdown(remark, text);
            turn.els.calls.appendChild(remark);
          }
          text = '';
          box.textContent = '…';
          const line = el('div', 'looked at ' + d.name + ' ' + (d.arguments.length > 200 ? d.arguments.slice(0, 199) + '…' : d.arguments), 'tool-line');
          line.title = d.arguments;
          line.dataset.name = d.name;
          turn.els.calls.appendChild(line);
        } else if (event === 'error') {
          throw new Error(d.message);
        } else if (event === 'done') {
          turn.answer = text;
          setState(turn, 'done');
          footLinks(turn, d);
        }
      };
      if (api.ask) {  // the page asks from itself: its events come from its worker
        await api.ask(state.view, body, controller.signal, (event, d) => {
          try { on(event, d); } catch (e) { failure = failure || e; }
        });
        if (failure) throw failure;
      } else {
        await readEvents(await post(V() + '/ask', body, controller.signal), on);
      }
      if (turn.state !== 'done') throw new Error('the answer stopped before its end');
    } catch (e) {
      turn.answer = text;
      renderMarkdown(box, text);
      if (controller.signal.aborted) {
        setState(turn, 'stopped');
        box.appendChild(el('p', 'Stopped.', 'muted'));
      } else {
        setState(turn, 'error');
        box.appendChild(el('p', 'The answer failed: ' + e.message, 'regression'));
      }
    } finally {
      if (t.busy === controller) t.busy = null;
      if (threads.get(state.view) === t) showThread();
    }
  }

  // ---------------------------------------------------------------- views and live updates
  async function selectView(i) {
    state.view = i;
    state.frames = null; state.frame = null; state.timeline = null; state.findings = null; state.nodes = null;
    $('panel').hidden = true;
    await loadView();
    showTab('network');
  }

  async function loadView() {
    const s = await get(V() + '/summary');
    state.summary = s;
    $('title').textContent = (s.name || s.file) + ' · ' + s.engine + ' · ' + plural(s.nodes, 'node') + ' · ' + plural(s.frames.count, frameWord());
    // The engine's words where the page names frames.
    const word = frameWord();
    $('tab-button-frames').textContent = word.charAt(0).toUpperCase() + word.slice(1) + 's';
    $('panel-chart-title').textContent = 'Per ' + word;
    $('question').placeholder = 'Ask about this network, e.g. ' + (s.budget_ms === null
      ? 'which operators make a ' + word + ' slow, and what should I change first?'
      : 'what should I change first to meet the ' + word + ' budget?') +
      ' Follow-up questions keep the conversation (Ctrl+Enter sends).';
    const sel = $('metric');
    sel.replaceChildren();
    for (const m of s.metrics) {
      const o = el('option', metricLabel(m));
      o.value = m;
      if (m === 'gain_ms') o.title = gainTitle();
      sel.appendChild(o);
    }
    if (!s.metrics.includes(state.metric)) state.metric = 'score';
    sel.value = state.metric;
    renderThreads(s);
    // Before the network is laid out: the list takes its height above it, and
    // a box must not move after the page says it is ready.
    await renderFirstFixes(s);
    await enterContainer('');
    // A top level of one container (a GStreamer pipeline, a TouchDesigner
    // project): go into it, as the engine's users would.
    const it = state.graph.items;
    if (it.id.length === 1 && it.flags[0] & F.enterable) await enterContainer(it.id[0]);
  }

  // What to change first (the summary's first_fixes): each node, what fixing
  // it saves (over-budget frames first), and the findings about it.
  async function renderFirstFixes(s) {
    const ol = $('first-fix');
    ol.replaceChildren();
    const fixes = s.first_fixes || [];
    ol.hidden = !fixes.length;
    if (!fixes.length) return;
    const needFindings = fixes.some((f) => f.findings.length);
    const all = needFindings ? (state.findings || (state.findings = await get(V() + '/findings'))) : null;
    for (const fix of fixes) {
      const li = el('li');
      const a = el('a', fix.id, 'id');
      a.addEventListener('click', () => revealNode(fix.id));
      li.appendChild(a);
      li.appendChild(document.createTextNode(': ' + fix.text + '.'));
      if (fix.findings.length && all) {
        const why = fix.findings.map((i) => all.findings[i]).filter(Boolean)
          .map((f) => f.rule + ': ' + f.title).join(' · ');
        li.appendChild(el('div', why, 'why'));
      }
      ol.appendChild(li);
    }
  }

  async function refreshLive() {
    const index = await get('/api/index');
    state.index = index;
    api.version = index.version;
    document.body.dataset.version = String(index.version);
    $('live').textContent = index.status ? 'live · ' + index.status : 'live';
    const alerts = $('alerts');
    alerts.replaceChildren();
    for (const a of index.alerts.slice(-5)) alerts.appendChild(el('div', a));
    if (!index.views.length) return;
    if (!state.graph) await loadView();
    const s = await get(V() + '/summary');
    state.summary = s;
    $('title').textContent = (s.name || s.file) + ' · ' + plural(s.nodes, 'node') + ' · ' + plural(s.frames.count, 'frame') + ' in the window · mean ' + fmt(s.frames.mean_ms) + ' ms';
    document.body.dataset.frames = String(s.frames.count);
    // Keep the camera and the selection; take the new colours.
    const cam = state.cam, selectedId = state.selected !== null && state.graph ? state.graph.items.id[state.selected] : null;
    const g = await get(V() + '/graph?container=' + encodeURIComponent(state.container));
    const first = !state.graph;
    state.graph = g;
    state.selected = selectedId ? g.items.id.indexOf(selectedId) : null;
    if (state.selected === -1) state.selected = null;
    if (first) { drawBreadcrumb(); fit(); } else state.cam = cam;
    drawLegend();
    dirty = true;
    if (state.tab === 'frames') { state.frame = null; await loadFrames(true); }
    if (state.tab === 'findings') await loadFindings(true);
    state.nodes = null;
    if (state.tab === 'nodes') await loadNodes();
    if (!$('panel').hidden && state.node) await openNode($('panel').dataset.id);
  }

  let looping = false;
  async function start() {
    try {
      api.ready = false;
      delete document.body.dataset.ready;
      Object.assign(state, {
        view: 0, summary: null, graph: null, container: '', selected: null, hover: -1,
        frames: null, frame: null, timeline: null, findings: null, node: null, nodes: null, whatif: null,
      });
      $('panel').hidden = true;
      showTab('network');
      resizeGraph();
      if (!looping) { looping = true; requestAnimationFrame(loop); }
      const index = await get('/api/index');
      state.index = index;
      api.version = index.version;
      document.body.dataset.version = String(index.version);
      $('ask-help').textContent = api.askHelp ? api.askHelp() : index.ask.configured
        ? 'Your question goes with a summary of this network and the conversation so far (see the prompt) to the configured endpoint, through cookgraph; the model may look up any node through cookgraph\'s functions, and the answer streams here. Follow-up questions keep the conversation until New conversation.'
        : index.ask.help;
      showThread();
      if (index.diff) document.querySelector('[data-tab=diff]').hidden = false;
      if (index.views.length > 1 && !index.diff) document.querySelector('[data-tab=views]').hidden = false;
      if (index.live) {
        $('live').hidden = false;
        const es = new EventSource('/api/live');
        let busy = false, again = false;
        es.addEventListener('version', async () => {
          if (busy) { again = true; return; }
          busy = true;
          do {
            again = false;
            try { await refreshLive(); } catch (e) { showError('live', e); }
          } while (again);
          busy = false;
        });
      }
      if (index.views.length) {
        if (index.views.length > 1 && !index.diff) { drawViews(); showTab('views'); }
        await loadView();
        if (index.views.length > 1 && !index.diff) showTab('views');
        if (index.live) document.body.dataset.frames = String(state.summary.frames.count);
      } else {
        $('title').textContent = index.live ? 'waiting for frames…' : 'nothing to show';
      }
      api.ready = true;
      document.body.dataset.ready = '1';
    } catch (e) {
      showError('start', e);
    }
  }
  // The one-file page starts once a file is read (web/page.js).
  if (api.deferStart) api.start = start;
  else start();
})();
