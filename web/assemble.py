#!/usr/bin/env python3
"""Assembles build-web/cookgraph.html (docs/web.md#how-the-page-works): the
explorer's page (server/assets/index.html) with its styles and scripts
inlined, the opening screen (web/page.css, web/page.js) and the Web Worker's
source (the emscripten glue with the WebAssembly module inlined, then
web/worker.js) in a script block the page turns into a worker. One file that
works from file://, fetches nothing and needs no server.

usage: assemble.py REPO_ROOT GLUE_JS OUT_HTML
"""

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


def script_text(text):
    """JavaScript safe inside <script>...</script>: no closing tag, no comment opener."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\!--")


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root, glue, out = Path(argv[1]), Path(argv[2]), Path(argv[3])
    assets = root / "server" / "assets"
    html = (assets / "index.html").read_text()
    css = (assets / "app.css").read_text() + (root / "web" / "page.css").read_text()
    scripts = [
        script_text((root / "web" / "page.js").read_text()),
        script_text((assets / "vendor" / "markdown-it.min.js").read_text()),
        script_text((assets / "app.js").read_text()),
    ]
    worker = script_text(glue.read_text() + "\n" + (root / "web" / "worker.js").read_text())

    def replace_once(text, old, new):
        if text.count(old) != 1:
            raise SystemExit(f"assemble.py: index.html: expected one {old!r}")
        return text.replace(old, new)

    html = replace_once(html, '<link rel="stylesheet" href="/assets/app.css">', "<style>\n" + css + "</style>")
    html = replace_once(html, '<script src="/assets/vendor-markdown-it.min.js" defer></script>\n', "")
    html = replace_once(html, '<script src="/assets/app.js" defer></script>\n', "")
    html = replace_once(html, "<title>cookgraph explorer</title>", "<title>cookgraph</title>")
    html = replace_once(html, '<span id="live" hidden></span>',
                        '<span id="live" hidden></span>\n  <button id="open-again" title="Open another input">Open&hellip;</button>')
    html = replace_once(html, "<body>\n", "<body>\n" + OPEN_SCREEN)
    tail = '<script type="text/plain" id="cookgraph-worker">' + worker + "</script>\n"
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
