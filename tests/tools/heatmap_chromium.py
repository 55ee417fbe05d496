#!/usr/bin/env python3
"""The report's network heatmap in headless Chromium.

usage: heatmap_chromium.py COOKGRAPH CHROMIUM HOSTILE_JSON WORK_DIR

Writes the HTML report of HOSTILE_JSON (node ids that are markup and Graphviz
escapes) and opens it in Debian's chromium, headless and offline, like the
test hostile_input_never_runs_in_chromium does:

1. the report as written: no console message and no failed load (the page
   has no JavaScript, so any message is a failure), no input string turned
   into an element, and the hostile ids inside the heatmap's <svg> as text;
2. a copy with a probe script appended (the report itself never has one):
   the heatmap's <svg> is displayed with a non-zero size, its nodes, legend
   and critical-path nodes are there, and the SVG <text> elements that hold
   the hostile ids have a non-zero box, so they are visible as text.

The screenshot WORK_DIR/heatmap.png is the test's artifact.
"""

import html
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]

# The label texts the hostile ids must show as (the last '/'-part of the id).
HOSTILE_LABELS = ['"><img src=x onerror=alert(2)>', "\\N", "{a|<b>x}"]

PROBE = """<script>
(() => {
  const svg = document.querySelector('#heatmap svg');
  const out = {svg: null, texts: [], nodes: 0, critical: 0, legend: false};
  if (svg) {
    const r = svg.getBoundingClientRect();
    const style = getComputedStyle(svg);
    out.svg = {width: r.width, height: r.height, display: style.display,
               visibility: style.visibility};
    out.texts = [...svg.querySelectorAll('text')].map(t => {
      const b = t.getBoundingClientRect();
      return {text: t.textContent, width: b.width, height: b.height};
    });
    out.nodes = svg.querySelectorAll('g.node.cooked, g.node.uncooked').length;
    out.critical = svg.querySelectorAll('g.node.critical').length;
    out.legend = svg.querySelector('#legend') !== null;
  }
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


class SvgTexts(html.parser.HTMLParser):
    """The text of every <text> element inside section#heatmap's <svg>."""

    def __init__(self):
        super().__init__()
        self.section = False
        self.depth = 0
        self.in_text = False
        self.texts = []

    def handle_starttag(self, tag, attrs):
        if tag == "section" and dict(attrs).get("id") == "heatmap":
            self.section = True
        if self.section and tag == "text":
            self.in_text = True
            self.texts.append("")

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = False
        if tag == "text":
            self.in_text = False

    def handle_data(self, data):
        if self.in_text:
            self.texts[-1] += data


def chromium(binary, profile, args, log):
    with open(log, "w") as err:
        return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args],
                              stdout=subprocess.PIPE, stderr=err, text=True, timeout=60)


def main():
    cookgraph, browser, hostile, work = sys.argv[1:5]
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    report = work / "heatmap_report.html"
    report.unlink(missing_ok=True)
    problems = []
    run = subprocess.run([cookgraph, "report", hostile, "-o", str(report), "--no-llm"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"heatmap_chromium: report failed ({run.returncode}): {run.stderr}", file=sys.stderr)
        return 1
    page = report.read_text()
    if '<section id="heatmap">' not in page or "<svg" not in page:
        problems.append("the report has no heatmap section with an <svg>")

    profile = tempfile.mkdtemp()
    try:
        # 1. The report as written.
        dom = chromium(browser, profile + "/dom", ["--dump-dom", report.as_uri()],
                       work / "heatmap-dom.log")
        if dom.returncode != 0:
            problems.append(f"chromium --dump-dom failed ({dom.returncode})")
        shot = chromium(browser, profile + "/shot",
                        ["--window-size=1280,4000", f"--screenshot={work / 'heatmap.png'}",
                         report.as_uri()], work / "heatmap-shot.log")
        if shot.returncode != 0 or not (work / "heatmap.png").stat().st_size:
            problems.append("no screenshot")
        for log in ("heatmap-dom.log", "heatmap-shot.log"):
            for line in (work / log).read_text().splitlines():
                if re.search(r":CONSOLE|Uncaught|net::ERR", line):
                    problems.append(f"chromium {log}: {line}")
        if re.search(r"<script|<img", dom.stdout, re.IGNORECASE):
            problems.append("an input string became an element in the DOM")
        parser = SvgTexts()
        parser.feed(dom.stdout)
        for label in HOSTILE_LABELS:
            if label not in parser.texts:
                problems.append(f"{label!r} is not a <text> of the heatmap's svg in the DOM")
        if not any(t.startswith("showing ") and " nodes" in t for t in parser.texts):
            problems.append("the legend's 'showing K of N nodes' is not in the DOM")

        # 2. A probe measures what is on screen.
        probe_page = work / "heatmap_probe.html"
        probe_page.write_text(page.replace("</body>", PROBE + "</body>"))
        probe = chromium(browser, profile + "/probe",
                         ["--window-size=1280,2000", "--dump-dom", probe_page.as_uri()],
                         work / "heatmap-probe.log")
        found = re.search(r'<pre id="probe">(.*?)</pre>', probe.stdout, re.S)
        if not found:
            problems.append("the probe wrote nothing (see heatmap-probe.log)")
        else:
            result = json.loads(html.unescape(found.group(1)))
            svg = result["svg"]
            print(f"heatmap svg: {svg}, {result['nodes']} nodes, {result['critical']} critical, "
                  f"legend {result['legend']}")
            if not svg or svg["width"] <= 0 or svg["height"] <= 0 or svg["display"] == "none" \
                    or svg["visibility"] != "visible":
                problems.append(f"the heatmap's svg is not visible: {svg}")
            if result["nodes"] != 6 or result["critical"] < 1 or not result["legend"]:
                problems.append(f"the heatmap lacks nodes, critical path or legend: {result}")
            for label in HOSTILE_LABELS:
                boxes = [t for t in result["texts"] if t["text"] == label]
                if not boxes or boxes[0]["width"] <= 0 or boxes[0]["height"] <= 0:
                    problems.append(f"{label!r} is not visible as text: {boxes}")
    finally:
        shutil.rmtree(profile, ignore_errors=True)

    for p in problems:
        print("heatmap_chromium: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
