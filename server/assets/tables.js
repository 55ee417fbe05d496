// The explorer's tabs drawn as tables: Findings, Comparison, Snapshots and Nodes.
'use strict';

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
