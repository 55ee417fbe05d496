"""Tables and plot of bench/measure.py's rows: Markdown and a hand-written SVG.

    python3 bench/report.py bench/results/results.json   rewrites results.md and .svg

Standard library only. Ratios are of wall times measured in the same run on
the same input: `x simdjson` = cookgraph / simdjson floor (lower is better,
1 = at the floor), `python / cg` = Python baseline / cookgraph (higher is
better), `x cat` = cookgraph / cat.
"""

import json
import math
import os
import sys

KINDS = {"native": "Native snapshots: `cookgraph score FILE`",
         "kineto": "Kineto-style Chrome traces: `cookgraph score FILE`",
         "batch": "Batches of snapshots: `cookgraph score DIR -j 1` and `-j 2`"}
COLORS = {"cookgraph": "#d62728", "cookgraph -j 1": "#ff9896", "cookgraph -j 2": "#d62728",
          "simdjson": "#1f77b4", "simdjson strict": "#aec7e8", "python": "#2ca02c",
          "hta load": "#9467bd", "cat": "#7f7f7f"}


def secs(m):
    if m is None:
        return None
    return m.get("s")


def f_s(m):
    if m is None:
        return "–"
    if "timeout" in m:
        return f"> {m['timeout']:.0f} (timed out)"
    return f"{m['s']:.3f}" if m["s"] < 1 else f"{m['s']:.2f}"


def ratio(a, b, digits=1):
    if a is None or b is None or b <= 0:
        return "–"
    return f"{a / b:.{digits}f}×"


# /usr/bin/time's %M is in KiB, so peak_mb is in MiB; file sizes are in MB
# (10^6 bytes). A peak ÷ file ratio converts the peak to MB first.
MIB_IN_MB = 1.048576


def peak_ratio(m, mb):
    return m["peak_mb"] * MIB_IN_MB / mb


def main_tool(row):
    return "cookgraph -j 2" if row["kind"] == "batch" else "cookgraph"


def markdown(info, rows):
    kinds = info.get("kinds", "native,kineto,batch")
    kinds = "" if kinds == "native,kineto,batch" else f" --kinds {kinds}"
    out = ["# cookgraph end-to-end benchmark", "",
           f"- date: {info['date']}",
           f"- machine: {info['machine']}",
           f"- cookgraph built from commit {info['commit']}; size sets: `{info['sizes']}`; run took {info['run_s']:.0f} s",
           f"- load average (1 min) before and after the run: {info['load'][0]:.2f}, "
           f"{info['load'][1]:.2f} (about 1 = this run alone; more = other work ran too)",
           f"- reproduce: `bench/run.sh --sizes {info['sizes']}{kinds}` (inputs from the seeded "
           "generators bench/gen_native.py, gen_kineto.py, gen_batch.py)",
           "- peak memory (max RSS, MiB) from `/usr/bin/time -f '%e %M'`, wall time measured around it "
           "(`peak ÷ MB` is in the same unit as the file's size: MiB × 1.048576 ÷ MB); "
           "a command under 5 s is run three times and the fastest kept; `cat` runs first and "
           "reads from the page cache, so it is the memory floor, not a disk's, and the other "
           "tools find the input cached",
           "- `cookgraph` reads large JSON on two threads (a plain trace, or a snapshot "
           "whose series lie at its middle, in two halves at once; else the parser beside the "
           "reader's handler) and computes node statistics in two halves; `1 thread s` is the "
           "same command with the JSON read on one thread (`COOKGRAPH_JSON_THREADS=1`)",
           "- ratios are of wall times in this run on the same file: `× simdjson` = cookgraph / "
           "simdjson on-demand floor (bench/simdjson_floor, lower is better), `python ÷ cg` = "
           "Python baseline (bench/baseline_score.py) / cookgraph (higher is better), `× cat` = "
           "cookgraph / cat; `ms/MB` shows how cost grows with size (constant = linear)",
           "- on a small shared virtual machine one timing can be 30 % off (even the best of "
           "three); trust the ratios' order of magnitude, and the trend over sizes, more than "
           "their second digit", ""]
    for kind, title in KINDS.items():
        kr = [r for r in rows if r["kind"] == kind]
        if not kr:
            continue
        out += [f"## {title}", ""]
        if kind == "batch":
            out += ["| input | MB | -j 1 s | -j 2 s | -j 2 speed-up | MB/s (-j 2) | ms/MB (-j 2) "
                    "| peak MB (-j 2) | simdjson s | × simdjson | python s | python ÷ cg "
                    "| cat s | × cat |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        elif kind == "kineto":
            out += ["| input | MB | cookgraph s | 1 thread s | MB/s | ms/MB | peak MB | peak ÷ MB "
                    "| simdjson s | × simdjson | strict s | × strict | python s | python ÷ cg "
                    "| HTA load s | HTA ÷ cg | cat s | × cat |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
                    "|---:|---:|---:|"]
        else:
            out += ["| input | MB | cookgraph s | 1 thread s | MB/s | ms/MB | peak MB | peak ÷ MB "
                    "| simdjson s | × simdjson | python s | python ÷ cg | cat s | × cat |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in kr:
            t = r["tools"]
            cg = t.get(main_tool(r))
            c = secs(cg)
            cells = [r["label"], f"{r['mb']:.1f}"]
            if kind == "batch":
                j1 = secs(t.get("cookgraph -j 1"))
                cells += [f_s(t.get("cookgraph -j 1")), f_s(cg), ratio(j1, c, 2)]
            else:
                cells += [f_s(cg), f_s(t.get("cookgraph 1 thread"))]
            cells += [f"{r['mb'] / c:.1f}" if c else "–",
                      f"{1000 * c / r['mb']:.1f}" if c else "–",
                      f"{cg['peak_mb']:.0f}" if cg and "peak_mb" in cg else "–"]
            if kind != "batch":  # a batch's peak is one file's, not the folder's
                cells += [f"{peak_ratio(cg, r['mb']):.2f}" if cg and "peak_mb" in cg else "–"]
            cells += [f_s(t.get("simdjson")), ratio(c, secs(t.get("simdjson")))]
            if kind == "kineto":
                cells += [f_s(t.get("simdjson strict")), ratio(c, secs(t.get("simdjson strict")), 2)]
            cells += [f_s(t.get("python")), ratio(secs(t.get("python")), c)]
            if kind == "kineto":
                cells += [f_s(t.get("hta load")), ratio(secs(t.get("hta load")), c)]
            cells += [f_s(t.get("cat")), ratio(c, secs(t.get("cat")), 0)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    g = info.get("gzip") or {}
    if g.get("plain") and "s" in g.get("cookgraph", {}) and "s" in g.get("zcat", {}):
        out += ["## gzip: the largest Chrome trace, compressed with `gzip -6`", "",
                "| input | plain MB | .gz MB | cookgraph plain s | cookgraph .gz s | zcat s "
                "| (.gz − plain) ÷ .gz |",
                "|---|---:|---:|---:|---:|---:|---:|",
                f"| {g['label']} | {g['plain_mb']:.0f} | {g['gz_mb']:.0f} | {g['plain']['s']:.2f} "
                f"| {g['cookgraph']['s']:.2f} | {g['zcat']['s']:.2f} "
                f"| {max(0.0, g['cookgraph']['s'] - g['plain']['s']) / g['cookgraph']['s']:.0%} |",
                "", "Both cookgraph columns are `score --format json`. zcat is zlib's inflate "
                "alone; cookgraph inflates with ISA-L on its reading thread, beside the handler. "
                "What the .gz costs over the plain file is mostly its parse on one thread: a "
                "gzip stream cannot be read from its middle, so it is not split in two halves.",
                ""]
    smp = info.get("sample") or {}
    if smp.get("cookgraph"):
        cg, hta = smp["cookgraph"], smp.get("hta") or {}
        out += ["## A small real trace: `cookgraph score FILE --format json`", "",
                "| input | MB (gzip) | cookgraph s | peak MB | HTA load s | HTA peak MB "
                "| HTA ÷ cg |",
                "|---|---:|---:|---:|---:|---:|---:|",
                f"| {smp['file']} | {smp['mb']:.2f} | {cg['s']:.3f} | {cg['peak_mb']:.0f} "
                f"| {f_s(hta) if hta else '–'} | {hta.get('peak_mb', '–')} "
                f"| {ratio(secs(hta) if hta else None, cg['s'])} |",
                "", "cookgraph: best of ten runs of the whole command; HTA: best of three loads "
                "(bench/hta_load.py: `TraceAnalysis(trace_dir=...)`, without importing HTA).", ""]
    out += targets39(rows, info)
    out += targets(rows, info)
    out += ["![time against input size](results.svg)", ""]
    return "\n".join(out)


def targets39(rows, info):
    """Issue 39's targets: traces of 200 MB and 1 GB against the strict floor,
    Python and the file's size; the sample; the largest native snapshot."""
    out = ["## Issue 39's targets", "",
           "| target | input | measured | goal | |", "|---|---|---:|---:|---|"]

    def line(what, where, value, goal, ok):
        out.append(f"| {what} | {where} | {value} | {goal} | {'met' if ok else '**missed**'} |")

    for r in sorted((r for r in rows if r["kind"] == "kineto" and r["mb"] >= 150),
                    key=lambda r: r["mb"]):
        t = r["tools"]
        c = secs(t.get("cookgraph"))
        if c is None:
            continue
        where = f"{r['label']}, {r['mb']:.0f} MB"
        strict, py = secs(t.get("simdjson strict")), secs(t.get("python"))
        if strict:
            line("trace: cookgraph ÷ strict floor", where, f"{c / strict:.2f}×", "≤ 1.5×",
                 c / strict <= 1.5)
        if py:
            line("trace: Python ÷ cookgraph", where, f"{py / c:.1f}×", "≥ 30×", py / c >= 30)
        peak = peak_ratio(t["cookgraph"], r["mb"])
        line("trace: peak memory ÷ file size", where, f"{peak:.3f}", "≤ 0.6", peak <= 0.6)
    smp = info.get("sample") or {}
    if smp.get("cookgraph"):
        c = smp["cookgraph"]["s"]
        line("sample trace: cookgraph", smp["file"], f"{c:.3f} s", "≤ 0.07 s", c <= 0.07)
        h = secs(smp.get("hta"))
        if h:
            line("sample trace: HTA load ÷ cookgraph", smp["file"], f"{h / c:.1f}×", "≥ 25×",
                 h / c >= 25)
    for r in (r for r in rows if r["kind"] == "native" and r["size"] == [100000, 600]):
        c, f = secs(r["tools"].get("cookgraph")), secs(r["tools"].get("simdjson"))
        if c and f:
            line("native snapshot: cookgraph ÷ its parse floor", f"{r['label']}, {r['mb']:.0f} MB",
                 f"{c / f:.2f}×", "≤ 1.5×", c / f <= 1.5)
    out.append("")
    return out


def targets(rows, info):
    """Issue 5's targets, checked at the largest input of each kind in this run."""
    out = ["## Issue 5's targets at the largest input of this run", "",
           "| target | input | measured | goal | |", "|---|---|---:|---:|---|"]

    def largest(kind):
        kr = [r for r in rows if r["kind"] == kind]
        return max(kr, key=lambda r: r["mb"]) if kr else None

    def line(what, r, value, goal, ok, note=""):
        mark = "met" if ok else "**missed**"
        out.append(f"| {what} | {r['label']}, {r['mb']:.0f} MB{note} | {value} | {goal} | {mark} |")

    for kind, name, floor_x, py_x, size_note in (
            ("kineto", "Chrome trace", 2, 20, lambda r: r["mb"] < 900),
            ("native", "native snapshot", 3, 30, lambda r: r["size"] != [100000, 600])):
        r = largest(kind)
        if r is None:
            continue
        note = " (smaller than the target's input)" if size_note(r) else ""
        t = r["tools"]
        c = secs(t.get("cookgraph"))
        if c is None:
            continue
        s, p = secs(t.get("simdjson")), secs(t.get("python"))
        if s:
            line(f"{name}: cookgraph ÷ simdjson floor", r, f"{c / s:.1f}×", f"≤ {floor_x}×",
                 c / s <= floor_x, note)
        if p:
            line(f"{name}: Python ÷ cookgraph", r, f"{p / c:.1f}×", f"≥ {py_x}×", p / c >= py_x, note)
        elif "python" in t:
            line(f"{name}: Python ÷ cookgraph", r, "Python timed out", f"≥ {py_x}×", True, note)
        if kind == "kineto":
            line("Chrome trace: throughput", r, f"{r['mb'] / c:.0f} MB/s", "> 177 MB/s",
                 r["mb"] / c > 177, note)
        peak = peak_ratio(t["cookgraph"], r["mb"])
        line(f"{name}: peak memory ÷ file size", r, f"{peak:.2f}", "≤ 1.5", peak <= 1.5, note)
    r = largest("batch")
    if r is not None:
        j1, j2 = secs(r["tools"].get("cookgraph -j 1")), secs(r["tools"].get("cookgraph -j 2"))
        if j1 and j2:
            note = " (fewer files than the target's 1000)" if r["files"] < 1000 else ""
            line("batch: -j 2 throughput ÷ -j 1", r, f"{j1 / j2:.2f}×", "≥ 1.7×", j1 / j2 >= 1.7,
                 note)
    for kind in ("native", "kineto", "batch"):
        kr = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["mb"])
        per = [(r, secs(r["tools"].get(main_tool(r)))) for r in kr]
        per = [(r, s / r["mb"]) for r, s in per if s]
        if len(per) >= 2:
            lo, hi = per[0], per[-1]
            growth = hi[1] / lo[1]
            out.append(f"| {kind}: cost grows linearly (ms/MB largest ÷ smallest) | "
                       f"{lo[0]['mb']:.0f} → {hi[0]['mb']:.0f} MB | {growth:.2f} | ≤ 1.25 | "
                       f"{'met' if growth <= 1.25 else '**missed**'} |")
    micro = info.get("micro") or {}
    for name, what, goal_ms in (("BM_GraphAnalysis1M",
                                 "graph analysis (order, loops, critical path, upstream cost)",
                                 2000),
                                ("BM_BuildPrompt100k", "building a prompt (20,000-token budget)",
                                 100)):
        m = micro.get(name)
        if m is None:
            out.append(f"| {what} | not run (bench/core_bench missing) | – | < {goal_ms} ms | |")
            continue
        c = m["counters"]
        size = (f"{c['nodes'] / 1e6:.0f}M nodes, {c['edges'] / 1e6:.0f}M edges" if "edges" in c
                else "100k nodes")
        out.append(f"| {what} | {size} (core_bench {name}) | {m['ms']:.0f} ms | < {goal_ms} ms | "
                   f"{'met' if m['ms'] < goal_ms else '**missed**'} |")
    out.append("")
    return out


def svg(rows):
    """Wall time against input size, log-log, one panel per kind, one line per tool."""
    kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    pw, ph, ml, mr, mt, mb = 330, 260, 58, 12, 34, 46
    width = ml + len(kinds) * (pw + mr + ml) + 150
    height = mt + ph + mb
    pts = [(r["mb"], m["s"]) for r in rows for m in r["tools"].values() if "s" in m]
    if not pts:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n'
    ymin = 10 ** math.floor(math.log10(max(min(p[1] for p in pts), 1e-3)))
    ymax = 10 ** math.ceil(math.log10(max(p[1] for p in pts)))
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'font-family="sans-serif" font-size="11">',
         f'<rect width="{width}" height="{height}" fill="white"/>']
    tools = []
    for i, kind in enumerate(kinds):
        kr = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["mb"])
        x0 = ml + i * (pw + mr + ml)
        xmin = 10 ** math.floor(math.log10(kr[0]["mb"]))
        xmax = 10 ** math.ceil(math.log10(kr[-1]["mb"]))

        def X(v):
            return x0 + pw * (math.log10(v) - math.log10(xmin)) / (math.log10(xmax) - math.log10(xmin))

        def Y(v):
            v = max(v, ymin)
            return mt + ph - ph * (math.log10(v) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin))

        o.append(f'<text x="{x0 + pw / 2}" y="{mt - 14}" text-anchor="middle" font-size="13" '
                 f'font-weight="bold">{kind}</text>')
        o.append(f'<rect x="{x0}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
        d = xmin
        while d <= xmax * 1.0001:
            o.append(f'<line x1="{X(d):.1f}" y1="{mt}" x2="{X(d):.1f}" y2="{mt + ph}" stroke="#ddd"/>')
            o.append(f'<text x="{X(d):.1f}" y="{mt + ph + 14}" text-anchor="middle">{d:g}</text>')
            d *= 10
        d = ymin
        while d <= ymax * 1.0001:
            o.append(f'<line x1="{x0}" y1="{Y(d):.1f}" x2="{x0 + pw}" y2="{Y(d):.1f}" stroke="#ddd"/>')
            o.append(f'<text x="{x0 - 4}" y="{Y(d) + 4:.1f}" text-anchor="end">{d:g}</text>')
            d *= 10
        o.append(f'<text x="{x0 + pw / 2}" y="{mt + ph + 32}" text-anchor="middle">input size (MB)</text>')
        o.append(f'<text x="{x0 - 42}" y="{mt + ph / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 {x0 - 42} {mt + ph / 2})">wall time (s)</text>')
        names = []
        for r in kr:
            names += [t for t in r["tools"] if t not in names]
        for t in names:
            p = [(X(r["mb"]), Y(r["tools"][t]["s"])) for r in kr if "s" in r["tools"].get(t, {})]
            if not p:
                continue
            color = COLORS.get(t, "#000")
            dash = ' stroke-dasharray="5,3"' if t.endswith("-j 1") else ""
            o.append(f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="'
                     + " ".join(f"{a:.1f},{b:.1f}" for a, b in p) + '"/>')
            o += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{color}"/>' for a, b in p]
            if t not in tools:
                tools.append(t)
    lx = ml + len(kinds) * (pw + mr + ml) - ml + 16
    for j, t in enumerate(tools):
        y = mt + 10 + 18 * j
        dash = ' stroke-dasharray="5,3"' if t.endswith("-j 1") else ""
        o.append(f'<line x1="{lx}" y1="{y}" x2="{lx + 22}" y2="{y}" stroke="{COLORS.get(t, "#000")}" '
                 f'stroke-width="2"{dash}/>')
        o.append(f'<text x="{lx + 28}" y="{y + 4}">{t}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "results",
                                                      "results.json")
    with open(path) as f:
        data = json.load(f)
    folder = os.path.dirname(path)
    with open(os.path.join(folder, "results.md"), "w") as f:
        f.write(markdown(data["info"], data["rows"]))
    with open(os.path.join(folder, "results.svg"), "w") as f:
        f.write(svg(data["rows"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
