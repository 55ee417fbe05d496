// The page's Web Worker (docs/web.md#how-the-page-works): it holds the
// WebAssembly module (web/cookgraph_web.cc, whose emscripten glue comes
// before this file in the worker's source), so that reading and analysing a
// large input never blocks the page. Messages, each with an `id` the reply
// repeats:
//   {op: 'load'}                                   -> {ok: true}
//   {op: 'call', method, files, request}           -> {ok: true, reply}
// `files` ({name, bytes: ArrayBuffer}, already inflated) are written to the
// module's memory file system in a folder of their own, which is the current
// folder while `method` runs, so that names read as the user gave them; the
// folder is removed afterwards. `reply` is cg_call's JSON text. A module that
// aborted (out of memory past what it can catch) is dropped and made anew on
// the next message, and the reply says so.
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

async function call(method, files, request) {
  const m = await load();
  const FS = m.FS;
  const dir = '/in/' + ++serial;
  makeDirs(FS, dir);
  try {
    for (const f of files) {
      const path = dir + '/' + relative(f.name);
      makeDirs(FS, path.slice(0, path.lastIndexOf('/')));
      FS.writeFile(path, new Uint8Array(f.bytes), { canOwn: true });
    }
    FS.chdir(dir);
    const out = m.ccall('cg_call', 'number', ['string', 'string'], [method, JSON.stringify(request)]);
    if (!out) throw new Error('out of memory: the page\'s memory is full');
    const text = m.UTF8ToString(out);
    m._cg_free(out);
    return text;
  } finally {
    try {
      FS.chdir('/');
      removeTree(FS, dir);
    } catch (e) { /* the module aborted: it is made anew below */ }
  }
}

self.onmessage = async (event) => {
  const { id, op } = event.data;
  try {
    if (op === 'load') {
      await load();
      self.postMessage({ id, ok: true });
    } else if (op === 'call') {
      const reply = await call(event.data.method, event.data.files || [], event.data.request);
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
