// The explorer's node panel: a node's statistics, chart and parameters, and
// its what-if slider.
'use strict';

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
