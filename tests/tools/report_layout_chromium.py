#!/usr/bin/env python3
"""The HTML report's layout in headless Chromium: long names and large heatmaps.

usage: report_layout_chromium.py COOKGRAPH CHROMIUM SOURCE_DIR WORK_DIR

Writes HTML reports and measures them in Debian's chromium, headless and
offline, with a probe script appended to a copy (the report itself has none),
as tests/tools/heatmap_chromium.py does:

1. names of any length: a snapshot whose costliest nodes are PyTorch kernel
   signatures of about 300 characters (id and type), reported with
   --baseline, at window widths of 1400 and 1000 px. In every table of the
   page: a name cell (td.id, td.name) is at least 100 px wide and at most
   four lines high, a number cell (td.n) is one line, and no table is wider
   than the page;
2. the network heatmap, at 1400 x 1000 px: the TouchDesigner example
   (3424 x 3505 pt, 364 nodes) and the PyTorch example (53,219 pt wide) are
   shown whole, inside their box (no scrolling, no more than 85% of the
   viewport high, at least 200 px high), and with the <details> toggle open
   the picture is at its own size.

Screenshots (WORK_DIR/layout-*.png) are the test's artifacts.
"""

import html
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]

PROBE = """<script>
(() => {
  const lines = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                          .map(r => Math.round(r.top)));
    return tops.size;
  };
  const page = document.documentElement.clientWidth;
  const out = {page, viewport: window.innerHeight, cells: [], tables: [], heatmap: null,
               full: null};
  document.querySelectorAll('table').forEach((t, i) => {
    const section = t.closest('section') ? t.closest('section').id : '';
    out.tables.push({section, right: t.getBoundingClientRect().right});
    t.querySelectorAll('td').forEach(td => {
      const cls = td.className;
      if (!/\\b(id|name|n)\\b/.test(cls)) return;
      out.cells.push({section, cls, width: td.getBoundingClientRect().width, lines: lines(td),
                      text: td.textContent.slice(0, 40)});
    });
  });
  const measure = () => {
    const box = document.querySelector('#heatmap .heatmap');
    const svg = document.querySelector('#heatmap svg');
    if (!box || !svg) return null;
    const b = box.getBoundingClientRect(), s = svg.getBoundingClientRect();
    return {box: {width: b.width, height: b.height, scrollWidth: box.scrollWidth,
                  clientWidth: box.clientWidth, scrollHeight: box.scrollHeight,
                  clientHeight: box.clientHeight},
            svg: {width: s.width, height: s.height, left: s.left - b.left, top: s.top - b.top},
            nodes: svg.querySelectorAll('g.node').length};
  };
  out.heatmap = measure();
  const toggle = document.querySelector('#heatmap details.heatmap-size');
  if (toggle) {
    toggle.open = true;
    out.full = measure();
  }
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""

KERNEL = ("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, "
          "float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, "
          "int, unsigned long long, int, float, int, int, int)")


def long_names(path, scale):
    """Kernels with signatures of about 300 characters, and a few short ops."""
    names = [KERNEL.replace("512", str(512 + i)) + f" [{'x' * (20 * i)}]" for i in range(4)]
    names += ["aten::conv2d", "aten::add_", "cudaLaunchKernel"]
    nodes = [{"id": n, "type": n, "family": "kernel"} for n in names]
    frames = list(range(1, 9))
    series = {n: {"cook_ms": [round((len(names) - i) * scale + f * 0.01, 3) for f in frames]}
              for i, n in enumerate(names)}
    path.write_text(json.dumps({"cookgraph": 1, "engine": "pytorch", "name": "long names",
                                "fps": 30, "nodes": nodes,
                                "frames": {"index": frames, "series": series}}))


def chromium(binary, profile, args, log):
    with open(log, "w") as err:
        return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args],
                              stdout=subprocess.PIPE, stderr=err, text=True, timeout=90)


def probe(browser, profile, report, size, work, label):
    """Measures `report` at window `size` ("W,H"); also saves a screenshot."""
    page = work / f"{label}.probe.html"
    page.write_text(report.read_text().replace("</body>", PROBE + "</body>"))
    run = chromium(browser, profile, [f"--window-size={size}", "--dump-dom", page.as_uri()],
                   work / f"{label}.probe.log")
    chromium(browser, profile, [f"--window-size={size}", f"--screenshot={work}/{label}.png",
                                report.as_uri()], work / f"{label}.shot.log")
    found = re.search(r'<pre id="probe">(.*?)</pre>', run.stdout, re.S)
    if not found:
        return None
    return json.loads(html.unescape(found.group(1)))


def report(cookgraph, args, out, problems):
    run = subprocess.run([cookgraph, "report", *args, "-o", str(out), "--no-llm"],
                         capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        problems.append(f"report {' '.join(args)} exited {run.returncode}: {run.stderr}")
        return False
    return True


def check_tables(result, label, problems):
    for cell in result["cells"]:
        where = f"{label}: #{cell['section']} {cell['cls']} cell {cell['text']!r}"
        if cell["cls"] == "n":
            if cell["lines"] > 1:
                problems.append(f"{where}: a number wraps over {cell['lines']} lines")
        elif cell["width"] < 100:
            problems.append(f"{where}: squeezed to {cell['width']:.0f} px")
        elif cell["lines"] > 4:
            problems.append(f"{where}: wraps over {cell['lines']} lines")
    for table in result["tables"]:
        if table["right"] > result["page"] + 1:
            problems.append(f"{label}: the table in #{table['section']} is wider than the page "
                            f"({table['right']:.0f} > {result['page']} px)")
    names = [c for c in result["cells"] if c["cls"] != "n"]
    if not names:
        problems.append(f"{label}: no name cell measured")


def check_heatmap(result, label, problems):
    fit, full = result["heatmap"], result["full"]
    if not fit or not full:
        problems.append(f"{label}: no heatmap box, svg or size toggle: {result['heatmap']}")
        return
    box, svg = fit["box"], fit["svg"]
    print(f"{label}: box {box['width']:.0f} x {box['height']:.0f}, picture "
          f"{svg['width']:.0f} x {svg['height']:.0f}; full size "
          f"{full['svg']['width']:.0f} x {full['svg']['height']:.0f}, {fit['nodes']} nodes")
    if fit["nodes"] == 0:
        problems.append(f"{label}: the heatmap has no nodes")
    if box["scrollWidth"] > box["clientWidth"] + 1 or box["scrollHeight"] > box["clientHeight"] + 1:
        problems.append(f"{label}: the picture does not fit its box: {box}")
    if svg["left"] < -1 or svg["top"] < -1 or svg["left"] + svg["width"] > box["width"] + 1:
        problems.append(f"{label}: the picture lies outside its box: {svg} in {box}")
    viewport = result["viewport"]
    if not 200 <= svg["height"] <= 0.85 * viewport + 1:
        problems.append(f"{label}: the picture is {svg['height']:.0f} px high (200 to "
                        f"{0.85 * viewport:.0f} wanted, 85% of the viewport)")
    return full["svg"]


def main():
    cookgraph, browser, source, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), \
        pathlib.Path(sys.argv[4])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    problems = []
    profile = tempfile.mkdtemp()
    try:
        # 1. Names of any length, with a comparison table.
        long_names(work / "before.json", 1.0)
        long_names(work / "after.json", 1.5)
        names = work / "names.html"
        if report(cookgraph, [str(work / "after.json"), "--baseline", str(work / "before.json")],
                  names, problems):
            for size in ("1400,1000", "1000,1000"):
                label = "layout-names-" + size.split(",")[0]
                result = probe(browser, profile + "/" + label, names, size, work, label)
                if result is None:
                    problems.append(f"{label}: the probe wrote nothing")
                else:
                    check_tables(result, label, problems)
                    print(f"{label}: {len(result['cells'])} cells in {len(result['tables'])} "
                          "tables measured")

        # 2. Heatmaps: a wide and tall network, and a very wide one.
        for example in ("touchdesigner_feedback", "pytorch_model"):
            out = work / f"{example}.html"
            if not report(cookgraph, [str(source / "examples" / f"{example}.json")], out,
                          problems):
                continue
            label = "layout-heatmap-" + example
            result = probe(browser, profile + "/" + label, out, "1400,1000", work, label)
            if result is None:
                problems.append(f"{label}: the probe wrote nothing")
                continue
            full = check_heatmap(result, label, problems)
            width = re.search(r'<svg width="([0-9.]+)pt"', out.read_text())
            want = float(width.group(1)) * 4 / 3 if width else 0
            if full and abs(full["width"] - want) > 2:
                problems.append(f"{label}: at full size the picture is {full['width']:.0f} px "
                                f"wide, not its own {want:.0f} px")
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    for p in problems:
        print("report_layout_chromium: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
