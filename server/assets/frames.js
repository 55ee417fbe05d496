// The explorer's Frames tab: the frame chart and a frame's timeline.
'use strict';

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
