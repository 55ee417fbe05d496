// cookgraph in one HTML file (docs/web.md): the drop zone, the file picker
// and the JavaScript API, over the Web Worker that runs the pipeline in
// WebAssembly (web/worker.js). Runs before the explorer's script
// (server/assets/app.js), which then asks this page's worker for its
// documents instead of a server. Nothing is sent anywhere: the files are read
// here and the worker is made from this page's own text.
'use strict';

(function () {
  // Inputs larger than this are refused before they are read: the page's
  // WebAssembly memory is at most 4 GiB, and a trace's records take about
  // as much again as its text (docs/web.md#limits).
  const MAX_INPUT_BYTES = 512 * 1024 * 1024;
  const GIB = 1024 * 1024 * 1024, MIB = 1024 * 1024;
  const size = (n) => (n >= GIB ? (n / GIB).toFixed(1) + ' GiB' : (n / MIB).toFixed(1) + ' MiB');

  const api = (window.cookgraph = window.cookgraph || {});
  api.deferStart = true;  // app.js waits for a file (api.start)
  const $ = (id) => document.getElementById(id);

  let worker = null;
  let serial = 0;
  const waiting = new Map();

  function startWorker() {
    const source = document.getElementById('cookgraph-worker').textContent;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    worker = new Worker(url);
    worker.onmessage = (event) => {
      const { id } = event.data;
      const w = waiting.get(id);
      if (!w) return;
      if (event.data.event) {  // one of an answer's events; more come
        if (w.onEvent) w.onEvent(event.data.event, event.data.data);
        return;
      }
      waiting.delete(id);
      if (event.data.ok) w.resolve(event.data);
      else w.reject(new Error(event.data.error));
    };
    worker.onerror = (event) => {
      for (const w of waiting.values()) w.reject(new Error(event.message || 'the worker failed'));
      waiting.clear();
      worker = null;
    };
  }

  // Posts `message` to the worker; the promise holds its reply. `onEvent`
  // hears the events an answer streams before it (op 'ask'); `started`
  // is told the message's id (to stop it).
  function post(message, transfer, onEvent, started) {
    if (!worker) startWorker();
    const id = ++serial;
    if (started) started(id);
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject, onEvent });
      worker.postMessage({ ...message, id }, transfer || []);
    });
  }

  // The bytes of a {name, bytes} (ArrayBuffer, typed array, Blob or File),
  // inflated when they are gzip (1f 8b): browsers do that themselves.
  // `progress(done, total)` hears of each chunk read.
  async function readBytes(file, progress) {
    const name = file.name;
    let blob = file.bytes instanceof Blob ? file.bytes : new Blob([file.bytes]);
    if (blob.size > MAX_INPUT_BYTES) {
      throw new Error(name + ': ' + size(blob.size) + ' is more than the page reads (' + size(MAX_INPUT_BYTES) + '); run cookgraph on the command line for it');
    }
    const head = new Uint8Array(await blob.slice(0, 2).arrayBuffer());
    const gzip = head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
    let stream = blob.stream();
    if (gzip) {
      if (typeof DecompressionStream === 'undefined') throw new Error(name + ': this browser cannot inflate gzip; decompress the file first');
      stream = stream.pipeThrough(new DecompressionStream('gzip'));
    }
    const reader = stream.getReader();
    const chunks = [];
    let total = 0;
    for (;;) {
      let part;
      try {
        part = await reader.read();
      } catch (e) {
        throw new Error(name + ': ' + (gzip ? 'not valid gzip: ' : 'cannot be read: ') + (e && e.message ? e.message : e));
      }
      if (part.done) break;
      total += part.value.length;
      if (total > MAX_INPUT_BYTES) {
        reader.cancel();
        throw new Error(name + ': more than ' + size(MAX_INPUT_BYTES) + (gzip ? ' once inflated' : '') + ', more than the page reads; run cookgraph on the command line for it');
      }
      chunks.push(part.value);
      if (progress) progress(total, gzip ? 0 : blob.size);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) { bytes.set(c, at); at += c.length; }
    return bytes.buffer;
  }

  // What `score` takes as arguments: each file, or the folder a file is in
  // (a dropped folder, a GStreamer recording, a job's ranks).
  function argumentsOf(files) {
    const args = [];
    for (const f of files) {
      const parts = String(f.name).split(/[\\/]+/).filter((p) => p && p !== '.');
      const arg = parts.length > 1 ? parts[0] : parts.join('/');
      if (!args.includes(arg)) args.push(arg);
    }
    return args;
  }

  async function run(method, files, options, progress) {
    files = Array.from(files || []);
    let total = 0;
    const read = [];
    for (const f of files) {
      const bytes = await readBytes(f, progress ? (done, all) => progress(f.name, total + done, all) : null);
      total += bytes.byteLength;
      read.push({ name: f.name, bytes });
    }
    const { inputs, ...rest } = options || {};
    const request = { inputs: inputs || argumentsOf(files), options: rest };
    const answer = await post({ op: 'call', method, files: read, request }, read.map((f) => f.bytes));
    return JSON.parse(answer.reply);
  }

  function failed(reply) {
    const e = new Error(reply.errors.length ? reply.errors[0] : 'failed (exit code ' + reply.exit + ')');
    e.reply = reply;
    return e;
  }

  // The JavaScript API (docs/web.md#the-javascript-api).
  api.load = () => post({ op: 'load' }).then(() => undefined);
  // The whole reply: {exit, text, errors, warnings}, as the CLI's exit code,
  // standard output and standard error.
  api.run = (method, files, options) => run(method, files, options);
  // `cookgraph score --format json`: its document (failed inputs are in its
  // "errors", as the CLI's); throws for options it refuses.
  api.score = async (files, options) => {
    const r = await run('score', files, options);
    if (!r.text) throw failed(r);
    return JSON.parse(r.text);
  };
  api.graph = async (files, options) => {
    const r = await run('graph', files, options);
    if (r.exit !== 0) throw failed(r);
    return JSON.parse(r.text);
  };
  api.whatif = async (files, options) => {
    const r = await run('whatif', files, options);
    if (r.exit !== 0) throw failed(r);
    return JSON.parse(r.text);
  };
  api.report = async (files, options) => {
    const r = await run('report', files, options);
    if (r.exit !== 0) throw failed(r);
    return r.text;
  };

  // The explorer's documents, from the worker (app.js's get()).
  api.transport = async (path) => {
    const url = new URL(path, 'https://page.invalid');
    const params = {};
    for (const [k, v] of url.searchParams) params[k] = v;
    const answer = await post({ op: 'call', method: 'get', request: { path: url.pathname, params } });
    const reply = JSON.parse(answer.reply);
    const doc = JSON.parse(reply.text);
    const body = JSON.parse(doc.body);
    if (doc.status !== 200) throw new Error(body.error || 'status ' + doc.status);
    return body;
  };

  // ------------------------------------------------------------- asking
  // The Ask tab (docs/web.md#asking-from-the-page): the endpoint's settings
  // from the form above the thread; the module builds each request as `ask`
  // does and the worker sends it. The key stays in this page's memory unless
  // "Keep the key in this browser" is ticked (then localStorage holds it).
  const STORE = 'cookgraph.ask', STORE_KEY = 'cookgraph.ask.key';
  function askSettings() {
    const budget = Number($('ask-budget').value);
    return {
      base_url: $('ask-base-url').value.trim(),
      model: $('ask-model').value.trim(),
      api_key: $('ask-key').value.trim(),
      budget_tokens: $('ask-budget').value === '' ? null : budget,
      persona: $('ask-persona').value,
    };
  }
  function storage() {
    try { return window.localStorage; } catch (e) { return null; }  // storage turned off
  }
  function saveSettings() {
    const store = storage();
    if (!store) return;
    const { api_key: key, ...rest } = askSettings();
    store.setItem(STORE, JSON.stringify(rest));
    if ($('ask-remember').checked && key) store.setItem(STORE_KEY, key);
    else store.removeItem(STORE_KEY);
  }
  function restoreSettings() {
    const store = storage();
    if (!store) return;
    let saved = {};
    try { saved = JSON.parse(store.getItem(STORE) || '{}') || {}; } catch (e) { saved = {}; }
    if (typeof saved.base_url === 'string') $('ask-base-url').value = saved.base_url;
    if (typeof saved.model === 'string') $('ask-model').value = saved.model;
    if (typeof saved.budget_tokens === 'number') $('ask-budget').value = String(saved.budget_tokens);
    if (typeof saved.persona === 'string' && [...$('ask-persona').options].some((o) => o.value === saved.persona)) {
      $('ask-persona').value = saved.persona;
    }
    const key = store.getItem(STORE_KEY);
    if (key) { $('ask-key').value = key; $('ask-remember').checked = true; }
  }
  // The token rank files the page carries (web/pack_ranks.py: each token's
  // bytes after their length, gzipped, in base64), unpacked once into the
  // .tiktoken text they were made from, when a question is first previewed
  // or asked.
  let ranks = null;
  async function unpackRanks(el) {
    const packed = Uint8Array.from(atob(el.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    const lines = [];
    for (let at = 0, rank = 0; at < bytes.length; rank++) {
      const n = bytes[at++];
      lines.push(btoa(String.fromCharCode.apply(null, bytes.subarray(at, at + n))) + ' ' + rank + '\n');
      at += n;
    }
    return { name: el.dataset.name, bytes: new TextEncoder().encode(lines.join('')).buffer };
  }
  function rankFiles() {
    if (!ranks) {
      ranks = Promise.all(Array.from(document.querySelectorAll('script.cookgraph-ranks')).map(unpackRanks));
      ranks.catch(() => { ranks = null; });
    }
    return ranks;
  }
  api.askReady = () => { const s = askSettings(); return !!(s.base_url || s.api_key); };
  api.askHelp = () => 'Your question goes from this page straight to the endpoint above, with a summary of this network and the conversation so far (see the prompt); the model may look up any node through cookgraph\'s functions, which run here. Nothing else is sent anywhere. Follow-up questions keep the conversation until New conversation.';
  // POST /prompt's document.
  api.askPrompt = async (view, body) => {
    const request = { ...body, view, settings: askSettings() };
    const answer = await post({ op: 'call', method: 'ask_prompt', request, ranks: await rankFiles() });
    const reply = JSON.parse(answer.reply);
    if (reply.exit !== 0) throw failed(reply);
    return JSON.parse(reply.text);
  };
  // POST /ask's events, to on(event, data); `signal` stops the answer.
  api.ask = async (view, body, signal, on) => {
    const request = { ...body, view, settings: askSettings() };
    let id = 0;
    const stop = () => { if (id) post({ op: 'ask-stop', target: id }); };
    signal.addEventListener('abort', stop);
    try {
      await post({ op: 'ask', request, ranks: await rankFiles() }, [], on, (n) => { id = n; });
    } finally {
      signal.removeEventListener('abort', stop);
    }
  };

  // ------------------------------------------------------------- the page
  function say(text, kind) {
    const box = $('open-status');
    box.textContent = text;
    box.className = kind || '';
  }

  // Opens `files` ({name, bytes}) in the explorer's views.
  async function open(files) {
    if (!files.length) return;
    $('open').classList.add('busy');
    $('open-progress').value = 0;
    try {
      say('reading…');
      const reply = await run('open', files, {}, (name, done, all) => {
        say('reading ' + name + ': ' + size(done) + (all ? ' of ' + size(all) : '') + '…');
        if (all) $('open-progress').value = done / all;
      });
      $('open-progress').value = 1;
      if (reply.exit !== 0) throw failed(reply);
      api.warnings = reply.warnings;
      say(reply.warnings.join('\n'), 'warning');
      api.openError = null;
      document.body.classList.add('opened');
      await api.start();
    } catch (e) {
      say(e.message, 'error');
      api.openError = e.message;
    } finally {
      $('open').classList.remove('busy');
    }
  }

  const picked = (list) => Array.from(list).map((f) => ({ name: f.webkitRelativePath || f.name, bytes: f }));

  // What was dropped: files, and folders with everything in them.
  async function dropped(items) {
    const files = [];
    const walk = async (entry, prefix) => {
      if (entry.isFile) {
        const f = await new Promise((res, rej) => entry.file(res, rej));
        files.push({ name: prefix + f.name, bytes: f });
      } else if (entry.isDirectory) {
        const reader = entry.createReader();
        for (;;) {
          const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
          if (!batch.length) break;
          for (const child of batch) await walk(child, prefix + entry.name + '/');
        }
      }
    };
    for (const entry of items.map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean)) {
      await walk(entry, '');
    }
    return files;
  }

  function wire() {
    restoreSettings();
    const changed = () => { saveSettings(); if (api.refreshAsk) api.refreshAsk(); };
    for (const id of ['ask-base-url', 'ask-model', 'ask-key', 'ask-budget', 'ask-persona', 'ask-remember']) {
      $(id).addEventListener('input', changed);
      $(id).addEventListener('change', changed);
    }
    const zone = $('open');
    $('open-files').addEventListener('change', (e) => open(picked(e.target.files)));
    $('open-folder').addEventListener('change', (e) => open(picked(e.target.files)));
    $('open-again').addEventListener('click', () => document.body.classList.remove('opened'));
    for (const type of ['dragenter', 'dragover']) {
      document.addEventListener(type, (e) => { e.preventDefault(); zone.classList.add('over'); });
    }
    document.addEventListener('dragleave', () => zone.classList.remove('over'));
    document.addEventListener('drop', async (e) => {
      e.preventDefault();
      zone.classList.remove('over');
      document.body.classList.remove('opened');
      const items = Array.from(e.dataTransfer.items || []);
      const files = items.length && items[0].webkitGetAsEntry ? await dropped(items) : picked(e.dataTransfer.files);
      open(files);
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', wire);
  else wire();
})();
