#!/usr/bin/env python3
"""Assembles build-web/cookgraph.html (docs/web.md#how-the-page-works): the
explorer's page (server/assets/index.html) with its styles and scripts
inlined, the opening screen (web/page.css, web/page.js) and the Web Worker's
source (the emscripten glue with the WebAssembly module inlined, then
web/worker.js) in a script block the page turns into a worker. One file that
works from file://, fetches nothing and needs no server.

usage: assemble.py REPO_ROOT GLUE_JS OUT_HTML [ENCODING.ranks.gz ...]

The packed rank files (web/pack_ranks.py) go in as base64 script blocks,
unpacked by the page when a question is first asked
(docs/web.md#asking-from-the-page).
"""

import base64
import re
import sys
from pathlib import Path

OPEN_SCREEN = """
<section id="open" aria-label="open an input">
  <h1>cookgraph</h1>
  <p>Drop a snapshot (<code>.json</code>, <code>.yaml</code>), a Chrome trace (PyTorch,
  TensorFlow, ONNX Runtime; plain or <code>.gz</code>), a GStreamer recording (its
  <code>.dot</code> dump and tracer log) or a folder of them here, or choose:</p>
  <label class="button">Files&hellip; <input id="open-files" type="file" multiple></label>
  <label class="button">A folder&hellip; <input id="open-folder" type="file" webkitdirectory></label>
  <progress id="open-progress" max="1" value="0"></progress>
  <pre id="open-status" role="status"></pre>
  <p class="muted">Everything is read and analysed in this page: nothing is uploaded.</p>
</section>
"""


ASK_SETTINGS = """
      <details id="ask-settings" open>
        <summary>Endpoint</summary>
        <div class="ask-fields">
          <label>Base URL <input id="ask-base-url" type="url" placeholder="https://api.openai.com/v1" spellcheck="false" autocomplete="off"></label>
          <label>Model <input id="ask-model" placeholder="gpt-4o-mini" spellcheck="false" autocomplete="off"></label>
          <label>API key <input id="ask-key" type="password" placeholder="none for a local server" autocomplete="off"></label>
          <label>Token budget <input id="ask-budget" type="number" min="1" max="10000000" step="1" value="20000"></label>
          <label>Persona <select id="ask-persona"><option>debugger</option><option>explainer</option><option>minimalist</option><option>gpu-optimizer</option></select></label>
          <label class="ask-remember"><input id="ask-remember" type="checkbox"> Keep the key in this browser</label>
        </div>
        <p class="muted">An OpenAI-compatible endpoint that allows requests from this page (OpenAI's does; for Ollama or llama.cpp see docs/web.md). With a key and no base URL, OpenAI's; with no model, gpt-4o-mini. The key stays in this page's memory unless you tick the box.</p>
      </details>"""


def script_text(text):
    """JavaScript safe inside <script>...</script>: no closing tag, no comment opener."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\!--")


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root, glue, out = Path(argv[1]), Path(argv[2]), Path(argv[3])
    ranks = [Path(a) for a in argv[4:]]
    assets = root / "server" / "assets"
    html = (assets / "index.html").read_text()
    css = (assets / "app.css").read_text() + (root / "web" / "page.css").read_text()
    scripts = [
        script_text((root / "web" / "page.js").read_text()),
        script_text((assets / "vendor" / "markdown-it.min.js").read_text()),
    ]
    # The explorer's scripts, in the order index.html loads them.
    explorer = re.findall(r'<script src="/assets/((?!vendor-)[\w.]+\.js)" defer></script>\n', html)
    scripts += [script_text((assets / name).read_text()) for name in explorer]
    worker = script_text(glue.read_text() + "\n" + (root / "web" / "worker.js").read_text())

    def replace_once(text, old, new):
        if text.count(old) != 1:
            raise SystemExit(f"assemble.py: index.html: expected one {old!r}")
        return text.replace(old, new)

    html = replace_once(html, '<link rel="stylesheet" href="/assets/app.css">', "<style>\n" + css + "</style>")
    html = replace_once(html, '<script src="/assets/vendor-markdown-it.min.js" defer></script>\n', "")
    for name in explorer:
        html = replace_once(html, f'<script src="/assets/{name}" defer></script>\n', "")
    html = replace_once(html, "<title>cookgraph explorer</title>", "<title>cookgraph</title>")
    html = replace_once(html, '<span id="live" hidden></span>',
                        '<span id="live" hidden></span>\n  <button id="open-again" title="Open another input">Open&hellip;</button>')
    html = replace_once(html, "<body>\n", "<body>\n" + OPEN_SCREEN)
    html = replace_once(html, '<section id="tab-ask" class="tab" hidden>',
                        '<section id="tab-ask" class="tab" hidden>' + ASK_SETTINGS)
    tail = '<script type="text/plain" id="cookgraph-worker">' + worker + "</script>\n"
    for r in ranks:
        name = r.name.removesuffix(".ranks.gz") + ".tiktoken"
        tail += (f'<script type="text/plain" class="cookgraph-ranks" data-name="{name}">'
                 + base64.b64encode(r.read_bytes()).decode("ascii") + "</script>\n")
    tail += "".join("<script>\n" + s + "\n</script>\n" for s in scripts)
    html = replace_once(html, "</body>", tail + "</body>")
    if re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html.replace(worker, "")):
        raise SystemExit("assemble.py: the page would fetch from the network")
    tmp = out.with_suffix(".tmp")
    tmp.write_text(html)
    tmp.replace(out)
    print(f"assemble.py: wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
