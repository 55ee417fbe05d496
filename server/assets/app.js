// The explorer's start: the views, their loading and live updates. The last
// of the page's scripts (common.js says how they share one scope).
'use strict';

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
