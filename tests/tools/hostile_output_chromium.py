#!/usr/bin/env python3
"""Hostile input in every page cookgraph writes: nothing runs, everything reads as text.

usage: hostile_output_chromium.py COOKGRAPH CHROMIUM FAKE_LLM_SERVER WORK_DIR

A snapshot whose every input-derived string is an attack (node ids, types,
families, parameter keys and values, containers, the snapshot's name, engine,
capture time and sources, unknown keys that become warnings, and the input
file's own name), plus an LLM answer that is one too (`report --ask` against
tests/tools/fake_llm_server.py's echo-question case, which answers with the
question): every attack, then a paragraph of Markdown that a renderer would
make a javascript: link, an image from the tripwire and an <img onerror> and
a <script> (the reports render the answer as Markdown). Each payload that
runs would call fetch() on a tripwire HTTP server
of this script (each with its own path), and the payloads that cannot hold a
URL set document.title; so the test sees any execution, even one that leaves
the DOM alone.

Three documents are opened in Debian's chromium, headless and offline, with
a virtual-time budget so that error and load handlers get their chance:

1. the HTML report (report -o .html --ask), with its inline charts and heatmap;
2. the Markdown report (report -o .md --ask), rendered to HTML by markdown-it
   with raw HTML allowed (as many renderers do), so only cookgraph's escaping
   stands between the input and the page;
3. the standalone heatmap (graph --format svg -o), an XML document.

For each: no tripwire request, no console message (none of the pages has
scripts), the title unchanged, no element or attribute that could run or
load anything (script, iframe, img, on* attributes, href, src, ...), no XML
parse error, and every payload present in the DOM as text (the title and
heading exactly). In both reports the answer's Markdown is rendered (its
**bold** is a <strong>) and its <img onerror> and <script> are shown as text.
A copy of the HTML report with one escape undone must fail these checks: the
test proves it can fail.
"""

import html
import html.parser
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000"]

# Elements and attributes that run or load something; none may come from input.
DANGEROUS_TAGS = {"script", "iframe", "frame", "object", "embed", "img", "image", "link", "base",
                  "form", "input", "button", "textarea", "select", "math", "mglyph", "video",
                  "audio", "source", "foreignobject", "animate", "set", "use", "parsererror"}
DANGEROUS_ATTRIBUTES = {"href", "xlink:href", "src", "srcset", "srcdoc", "action", "formaction",
                        "data", "poster", "background", "autofocus", "tabindex"}

hits = []


class Tripwire(http.server.BaseHTTPRequestHandler):
    def record(self):
        hits.append(self.path)
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_OPTIONS = record

    def log_message(self, *args):
        pass


def payloads(port):
    """Name -> attack. Each fetches its own tripwire path if it runs."""
    def js(tag):
        return f"fetch('http://127.0.0.1:{port}/{tag}')"
    return {
        "script": f"<script>{js('script')}</script>",
        "img": f"<img src=x onerror=\"{js('img')}\">",
        "svg": f"<svg onload={js('svg')}>",
        "style": f"</style><script>{js('style')}</script>",
        "title": f"</title><script>{js('title')}</script>",
        "dquote": f"\" onmouseover=\"{js('dquote')}\" autofocus onfocus=\"{js('dquote2')}\" x=\"",
        "squote": f"' onfocus='{js('squote')}' autofocus tabindex=1 x='",
        "javascript": f"javascript:{js('javascript')}",
        "comment": f"<!-- --><script>{js('comment')}</script><!--",
        "cdata": f"]]><script>{js('cdata')}</script><![CDATA[",
        "separators": f"\u2028\u2029<script>{js('separators')}</script>",
        "nul": f"nul\x00<script>{js('nul')}</script>",
        "graphviz": "\\N\\G\\E\\T\\H\\L\\n<<I>x>>",
        "htmllike": f"<<TABLE><TR><TD HREF=\"http://127.0.0.1:{port}/gv\">x</TD></TR></TABLE>>",
        "entities": "&lt;b&gt; &amp; &#60;i&#62; &nbsp; &bogus;",
        "link": f"<a href=\"javascript:{js('link')}\">click</a>",
        "iframe": f"<iframe src=\"http://127.0.0.1:{port}/iframe\"></iframe>",
        "mxss": f"<math><mtext><table><mglyph><style><img src=x onerror={js('mxss')}>",
        "markdown": f"[a](javascript:{js('mdlink')}) ![b](http://127.0.0.1:{port}/mdimg) "
                    f"<http://127.0.0.1:{port}/autolink> *em* `code` | cell |",
    }


def markdown_answer(port):
    """Markdown whose link, image and raw HTML would each call the tripwire if live."""
    def js(tag):
        return f"fetch('http://127.0.0.1:{port}/{tag}')"
    img = f"<img src=x onerror=\"{js('answer-img')}\">"
    script = f"<script>{js('answer-script')}</script>"
    text = (f"**rendered** [x](javascript:{js('answer-link')}) "
            f"![i](http://127.0.0.1:{port}/answer-pixel) {img}\n\n{script}\n")
    return text, [img, script]


def shown(text):
    """What cookgraph shows of `text`: control characters other than line breaks become '?'."""
    return "".join("?" if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F else c
                   for c in text)


def hostile_snapshot(attacks):
    names = list(attacks)
    values = list(attacks.values())
    n = len(values)
    nodes = []
    for i, name in enumerate(names):
        node = {"id": values[i], "type": values[(i + 1) % n], "family": values[(i + 2) % n],
                "parent": values[(i + 3) % n], "params": {values[(i + 4) % n]: values[(i + 5) % n]},
                values[(i + 6) % n]: "an unknown node key"}
        if i:
            node["inputs"] = [values[i - 1]]
        if i == 2:
            node["feedback"] = [values[5]]
        if i == n - 1:
            node["output"] = True
        nodes.append(node)
    frames = list(range(1, 9))
    series = {v: {"cook_ms": [round(0.5 + i * 0.25 + (f % 3) * 0.1, 3) for f in frames]}
              for i, v in enumerate(values)}
    snapshot = {"cookgraph": 1, "engine": " ".join(values[:4]), "name": " | ".join(values),
                "captured": attacks["title"], "source": values[:3], "fps": 60, "nodes": nodes,
                "frames": {"index": frames, "series": series}}
    snapshot[attacks["img"]] = "an unknown top-level key"
    return snapshot


class Dom(html.parser.HTMLParser):
    """Tags, attributes and text of a dumped DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []      # (tag, attrs)
        self.text = []      # text nodes and attribute values
        self.stack = []
        self.by_tag = {}    # tag -> texts directly inside it
        self.sections = []  # ids of the open <section>s
        self.by_section = {}  # section id -> texts inside it

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        self.text += [v for _, v in attrs if v]
        self.stack.append(tag)
        if tag == "section":
            self.sections.append(dict(attrs).get("id", ""))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop() == tag:
                break
        if tag == "section" and self.sections:
            self.sections.pop()

    def handle_data(self, data):
        self.text.append(data)
        if self.stack:
            self.by_tag.setdefault(self.stack[-1], []).append(data)
        for section in self.sections:
            self.by_section.setdefault(section, []).append(data)


def chromium(binary, profile, url, log):
    with open(log, "w") as err:
        return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                              stdout=subprocess.PIPE, stderr=err, text=True, timeout=90)


def check_page(label, binary, profile, path, attacks, exact, problems, answer=None):
    """Loads `path`; appends what is wrong to `problems`. `exact`: tag -> texts that must be in it.
    `answer`: the texts the LLM's answer must show, as text (the Markdown was rendered)."""
    before = len(hits)
    log = path.with_suffix(path.suffix + ".chromium.log")
    run = chromium(binary, profile, path.as_uri(), log)
    mine = []
    if run.returncode != 0:
        mine.append(f"chromium failed ({run.returncode}), see {log}")
    if len(hits) > before:
        mine.append(f"scripts ran or resources loaded: tripwire got {hits[before:]}")
    for line in log.read_text(errors="replace").splitlines():
        if ":CONSOLE" in line or "Uncaught" in line:
            mine.append(f"console: {line}")
    dom = Dom()
    dom.feed(run.stdout)
    for tag, attrs in dom.tags:
        if tag in DANGEROUS_TAGS or (tag == "meta" and "http-equiv" in dict(attrs)):
            mine.append(f"a <{tag}> element is in the DOM: {attrs}")
        for name, value in attrs:
            if name.startswith("on") or name in DANGEROUS_ATTRIBUTES:
                mine.append(f"<{tag} {name}={value!r}> is in the DOM")
    text = "\n".join(dom.text)
    for name, attack in attacks.items():
        if shown(attack) not in text:
            mine.append(f"the {name} attack is not in the DOM as text: {shown(attack)!r}")
    for tag, expected in exact.items():
        got = "".join(dom.by_tag.get(tag, []))
        for e in expected:
            if shown(e) not in got:
                mine.append(f"<{tag}> does not hold {shown(e)[:80]!r}...: {got[:200]!r}")
    if answer is not None:
        advice = "".join(dom.by_section.get("advice", [])) or text
        if "rendered" not in "".join(dom.by_tag.get("strong", [])):
            mine.append("the answer's Markdown was not rendered: no <strong>rendered</strong>")
        for a in answer:
            if a not in advice:
                mine.append(f"the answer's {a[:40]!r}... is not shown as text")
    for m in mine:
        problems.append(f"{label}: {m}")
    return mine


def main():
    cookgraph, browser, fake_server, work = sys.argv[1:5]
    work = pathlib.Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    tripwire = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tripwire)
    threading.Thread(target=tripwire.serve_forever, daemon=True).start()
    port = tripwire.server_address[1]
    attacks = payloads(port)

    # The input file's name is an attack too (no '/' or NUL in a file name).
    file_attack = ("<img src=x onerror=fetch(String.fromCharCode("
                   + ",".join(str(ord(c)) for c in f"http://127.0.0.1:{port}/file") + "))>")
    snapshot = work / (file_attack + ".json")
    snapshot.write_text(json.dumps(hostile_snapshot(attacks)))
    file_attacks = dict(attacks, file=file_attack)

    # The LLM's answer: the question, echoed (a command line cannot hold NUL).
    markdown, answer_texts = markdown_answer(port)
    question = "\n".join(v for v in attacks.values() if "\x00" not in v) + "\n\n" + markdown
    llm = subprocess.Popen([sys.executable, fake_server, "--lifetime", "120"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    llm_port = int(llm.stdout.readline())
    env = {"COOKGRAPH_BASE_URL": f"http://127.0.0.1:{llm_port}/case/echo-question/x/v1",
           "COOKGRAPH_MODEL": "fake", "PATH": "/usr/bin:/bin", "NO_COLOR": "1",
           "no_proxy": "127.0.0.1", "HOME": str(work)}
    # A sanitizer build's settings (scripts/test-sanitizers.sh: the leak
    # suppressions for Graphviz) carry over into the clean environment.
    env.update({k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS")})
    problems = []
    try:
        for out in ("report.html", "report.md"):
            r = subprocess.run([cookgraph, "report", str(snapshot), "-o", str(work / out),
                                "--ask", question], capture_output=True, text=True, env=env,
                               cwd=work, timeout=120)
            if r.returncode != 0:
                problems.append(f"report -o {out} exited {r.returncode}: {r.stderr}")
        r = subprocess.run([cookgraph, "graph", str(snapshot), "--format", "svg", "-o",
                            str(work / "graph.svg")], capture_output=True, text=True, cwd=work)
        if r.returncode != 0:
            problems.append(f"graph --format svg exited {r.returncode}: {r.stderr}")
    finally:
        llm.stdin.close()
        llm.wait()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1

    report = (work / "report.html").read_text()
    if question.split("\n")[0] not in html.unescape(report):
        problems.append("the HTML report lacks the LLM's answer")
    markdown = work / "report.md"
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        print("hostile_output_chromium: python3-markdown-it is missing (scripts/install-deps.sh)",
              file=sys.stderr)
        return 1
    # CommonMark with raw HTML passed through, and GitHub's tables.
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown.read_text())
    md_page = work / "report.md.html"
    md_page.write_text("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>markdown</title>"
                       "</head><body>" + rendered + "</body></html>")

    title = "cookgraph report: " + " ".join(list(attacks.values())[:4]) + " snapshot " + \
        " | ".join(attacks.values())
    profile = tempfile.mkdtemp()
    try:
        check_page("html report", browser, profile + "/html", work / "report.html", file_attacks,
                   {"title": [title], "h1": [title]}, problems, answer_texts)
        check_page("markdown report", browser, profile + "/md", md_page, file_attacks,
                   {"h1": [title]}, problems, answer_texts)
        check_page("graph svg", browser, profile + "/svg", work / "graph.svg", file_attacks,
                   {}, problems)
        # The check can fail: the report with the title's escaping undone.
        broken = work / "broken.html"
        escaped_title = html.escape(shown(title), quote=True).replace("&#x27;", "&#39;")
        if escaped_title not in report:
            problems.append("the proof could not find the escaped title in the report")
        broken.write_text(report.replace(escaped_title, shown(title), 1))
        caught = check_page("broken copy", browser, profile + "/broken", broken, file_attacks,
                            {}, [])
        if not caught:
            problems.append("a copy with the title unescaped passed the checks: they prove nothing")
        else:
            print(f"the copy with the title unescaped was caught ({len(caught)} problems, e.g. "
                  f"{caught[0][:120]})")
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        tripwire.shutdown()
    for p in problems:
        print("hostile_output_chromium: " + p, file=sys.stderr)
    if not problems:
        print(f"3 documents, {len(file_attacks)} attacks in every input field: nothing ran, "
              "everything is text")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
