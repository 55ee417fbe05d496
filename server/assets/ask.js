// The explorer's Ask tab: a conversation per view with the LLM, streamed.
'use strict';

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
function earlierTurns(t) {
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
    const body = { question: q, history: earlierTurns(thread()) };
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
  const earlier = earlierTurns(t);
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
