// The page's Web Worker (docs/web.md#how-the-page-works): it holds the
// WebAssembly module (web/cookgraph_web.cc, whose emscripten glue comes
// before this file in the worker's source), so that reading and analysing a
// large input never blocks the page. Messages, each with an `id` the reply
// repeats:
//   {op: 'load'}                                   -> {ok: true}
//   {op: 'call', method, files, request, ranks?}   -> {ok: true, reply}
//   {op: 'ask', request, ranks}                    -> {event, data}..., then {ok: true}
//   {op: 'ask-stop', target}                       -> {ok: true}
// `files` ({name, bytes: ArrayBuffer}, already inflated) are written to the
// module's memory file system in a folder of their own, which is the current
// folder while `method` runs, so that names read as the user gave them; the
// folder is removed afterwards. `reply` is cg_call's JSON text. A module that
// aborted (out of memory past what it can catch) is dropped and made anew on
// the next message, and the reply says so.
//
// `ask` answers a question from the Ask tab (web/page_ask.h): the module gives
// each request (its URL, headers and body), the worker sends it with fetch
// and passes the response to the module as it arrives; the events it posts
// are those of the server's POST /ask ('piece', 'tool', 'done', 'error').
// `ranks` ({name, bytes}), the token rank files the page carries, are written
// to /ranks/ the first time.
/* global createCookgraph */
'use strict';

let modulePromise = null;
let serial = 0;

function load() {
  if (!modulePromise) {
    modulePromise = createCookgraph({ print: () => {}, printErr: () => {} });
  }
  return modulePromise;
}

// A name as a relative path inside the request's folder: '/', '\' and empty,
// '.' or '..' parts are not allowed to climb out of it.
function relative(name) {
  const parts = String(name).split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (!parts.length || parts.some((p) => p === '..')) {
    throw new Error(name + ': not a file name the page can read');
  }
  return parts.join('/');
}

function makeDirs(FS, path) {
  let at = '';
  for (const part of path.split('/').filter(Boolean)) {
    at += '/' + part;
    if (!FS.analyzePath(at).exists) FS.mkdir(at);
  }
}

function removeTree(FS, path) {
  if (!FS.analyzePath(path).exists) return;
  for (const name of FS.readdir(path)) {
    if (name === '.' || name === '..') continue;
    const child = path + '/' + name;
    if (FS.isDir(FS.stat(child).mode)) removeTree(FS, child);
    else FS.unlink(child);
  }
  FS.rmdir(path);
}

// cg_call(method, text) -> the reply's text; the request is copied into the
// module's heap (not its stack, which a long thread would overflow).
function callModule(m, method, text) {
  const size = m.lengthBytesUTF8(text) + 1;
  const at = m._malloc(size);
  if (!at) throw new Error('out of memory: the page\'s memory is full');
  let out = 0;
  try {
    m.stringToUTF8(text, at, size);
    out = m.ccall('cg_call', 'number', ['string', 'number'], [method, at]);
  } finally {
    m._free(at);
  }
  if (!out) throw new Error('out of memory: the page\'s memory is full');
  const reply = m.UTF8ToString(out);
  m._cg_free(out);
  return reply;
}

// The reply's document, or the module's one-line error thrown.
function callJson(m, method, request) {
  const reply = JSON.parse(callModule(m, method, JSON.stringify(request)));
  if (reply.exit !== 0) throw new Error(reply.errors[0] || method + ' failed');
  return JSON.parse(reply.text);
}

async function call(method, files, request, ranks) {
  const m = await load();
  const FS = m.FS;
  if (ranks) writeRanks(FS, ranks);
  const dir = '/in/' + ++serial;
  makeDirs(FS, dir);
  try {
    for (const f of files) {
      const path = dir + '/' + relative(f.name);
      makeDirs(FS, path.slice(0, path.lastIndexOf('/')));
      FS.writeFile(path, new Uint8Array(f.bytes), { canOwn: true });
    }
    FS.chdir(dir);
    return callModule(m, method, JSON.stringify(request));
  } finally {
    try {
      FS.chdir('/');
      removeTree(FS, dir);
    } catch (e) { /* the module aborted: it is made anew below */ }
  }
}

function writeRanks(FS, ranks) {
  makeDirs(FS, '/ranks');
  for (const r of ranks || []) {
    const path = '/ranks/' + relative(r.name);
    if (!FS.analyzePath(path).exists) FS.writeFile(path, new Uint8Array(r.bytes), { canOwn: true });
  }
}

const asking = new Map();  // the ask message's id -> its AbortController
let askChain = Promise.resolve();  // the module answers one question at a time

// One question: the module's steps, each request sent here.
async function ask(id, request, ranks, controller) {
  const m = await load();
  writeRanks(m.FS, ranks);
  const emit = (event, data) => self.postMessage({ id, event, data });
  try {
    let step = callJson(m, 'ask_start', request);
    for (;;) {
      if (step.text) emit('piece', { text: step.text });
      for (const t of step.tools || []) emit('tool', t);
      if (step.done) return emit('done', step.done);
      if (step.error) return emit('error', step.error);
      step = callJson(m, 'ask_end', await exchange(m, step.send, controller.signal, emit));
    }
  } finally {
    asking.delete(id);
  }
}

// Sends one request; returns what ask_end is told of how it ended.
async function exchange(m, send, signal, emit) {
  if (signal.aborted) return { stopped: true };
  let response;
  try {
    response = await fetch(send.url, {
      method: 'POST', headers: send.headers, body: send.body, signal,
      credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer',
    });
  } catch (e) {
    return signal.aborted ? { stopped: true } : { failed: String(e && e.message || e) };
  }
  callJson(m, 'ask_head', { status: response.status, content_type: response.headers.get('content-type') || '' });
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      const fed = callJson(m, 'ask_feed', { text });
      if (fed.text) emit('piece', { text: fed.text });
      if (fed.enough) { reader.cancel().catch(() => {}); break; }
      if (done) break;
    }
  } catch (e) {
    if (signal.aborted) return { stopped: true };
    return { failed: e instanceof TypeError && /decode|encod/i.test(e.message) ? 'the response is not UTF-8' : String(e && e.message || e) };
  }
  return signal.aborted ? { stopped: true } : {};
}

self.onmessage = async (event) => {
  const { id, op } = event.data;
  try {
    if (op === 'load') {
      await load();
      self.postMessage({ id, ok: true });
    } else if (op === 'ask') {
      const controller = new AbortController();
      asking.set(id, controller);
      const run = askChain.then(() => ask(id, event.data.request, event.data.ranks, controller));
      askChain = run.catch(() => {});
      await run;
      self.postMessage({ id, ok: true });
    } else if (op === 'ask-stop') {
      const c = asking.get(event.data.target);
      if (c) c.abort();
      self.postMessage({ id, ok: true });
    } else if (op === 'call') {
      const reply = await call(event.data.method, event.data.files || [], event.data.request, event.data.ranks);
      self.postMessage({ id, ok: true, reply });
    } else {
      throw new Error('no such operation: ' + op);
    }
  } catch (e) {
    // An abort (RuntimeError) leaves the module unusable: the next message makes a new one.
    if (e instanceof WebAssembly.RuntimeError || /abort|memory/i.test(String(e && e.message))) {
      modulePromise = null;
    }
    self.postMessage({ id, ok: false, error: e && e.message ? e.message : String(e) });
  }
};
