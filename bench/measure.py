#!/usr/bin/env python3
"""bench/run.sh's driver: generate inputs, time whole commands, write results.

    python3 bench/measure.py --sizes small[,medium,full] --cookgraph BIN
        [--floor BIN] [--work DIR] [--results DIR] [--timeout S]

For each input kind (native snapshot, Kineto trace, batch of snapshots) and
each size of the chosen sets: generates the input with the seeded generators
of bench/ (kept in --work and reused when already there: the same arguments
give the same bytes), then times on that same input, in one run:

  cookgraph   `cookgraph score INPUT` (the default table); on a batch also
              `score -j 1` and `score -j 2`
  simdjson    bench/simdjson_floor: reading the same fields, nothing more
  simdjson strict   (traces) bench/simdjson_floor --strict: each event's ph,
              name, ts and dur alone, the least any trace tool reads
  python      bench/baseline_score.py: json + statistics + networkx
  hta load    (traces up to --hta-max-mb) Holistic Trace Analysis' load of the
              trace (bench/hta_load.py; its own load time, without the import),
              where the shared folder's reference/hta can be imported (pandas,
              plotly, pydot: scripts/install-deps.sh)
  cat         `cat INPUT > /dev/null`, run first: the best of its three runs
              reads from the page cache, so this is the memory floor, not a
              disk's, and the others find the input cached too

cookgraph runs as `score INPUT --format json` on snapshots and traces: every
analysis on, the whole document written. The sample (--sample, by default
the shared folder's fixtures/traces/kineto_resnet50_workers4.json.gz, ResNet-50's public
Kineto trace: 1 MB gzipped, 44k events) is timed the same way, best of ten,
against HTA's load of it.

Each command runs under /usr/bin/time -f '%e %M' for its peak RSS, its wall
time taken around that; a command under 5 s runs three times and keeps the
fastest. A command past --timeout is recorded as timed out; one that fails
stops the run, since its numbers would mean nothing. Writes results.json
(every measurement), results.md (the tables, the ratios, the issue-5 targets)
and results.svg (the plot; both from bench/report.py) to --results, and
prints the tables.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

# kind -> set -> generator arguments. native: (nodes, frames); kineto: MB;
# batch: (files, nodes per file, frames). Full reaches issue 5's targets:
# a 1 GB trace, 100k x 600, 1000 snapshots.
SIZES = {
    "tiny": {"native": [(500, 60), (1000, 60), (2000, 60)],  # checks the script itself
             "kineto": [1, 2, 4],
             "batch": [(5, 200, 60), (10, 200, 60), (20, 200, 60)]},
    "small": {"native": [(5000, 300), (10000, 300), (20000, 300)],
              "kineto": [10, 25, 50],
              "batch": [(40, 300, 120), (80, 300, 120), (160, 300, 120)]},
    "medium": {"native": [(50000, 300)], "kineto": [200], "batch": [(500, 300, 120)]},
    "target": {"native": [(100000, 600)], "kineto": [1000], "batch": [(1000, 300, 120)]},
    "full": {"native": [(25000, 600), (50000, 600), (100000, 600)],
             "kineto": [250, 500, 1000],
             "batch": [(250, 300, 120), (500, 300, 120), (1000, 300, 120)]},
}


def generate(kind, size, work):
    """Path of the input, generated unless it is already in `work`."""
    if kind == "native":
        n, f = size
        path = os.path.join(work, f"native_{n}x{f}.json")
        cmd = [PYTHON, os.path.join(HERE, "gen_native.py"), str(n), str(f), "--out", path]
    elif kind == "kineto":
        path = os.path.join(work, f"kineto_{size}MB.json")
        cmd = [PYTHON, os.path.join(HERE, "gen_kineto.py"), str(size), "--out", path]
    else:
        k, n, f = size
        path = os.path.join(work, f"batch_{k}x{n}x{f}")
        cmd = [PYTHON, os.path.join(HERE, "gen_batch.py"), str(k), "--nodes", str(n),
               "--frames", str(f), "--out", path]
    done = path + ".done"  # written last: a generation cut short is redone
    if not os.path.exists(done):
        if os.path.isdir(path):
            shutil.rmtree(path)
        subprocess.run(cmd, check=True)
        with open(done, "w") as f:
            f.write(" ".join(cmd[1:]) + "\n")
    return path


def files_of(path):
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".json"))
    return [path]


def timed(cmd, timeout):
    """(wall s, peak RSS MB) of `cmd` (a shell line), the best of three when fast.

    A run under 5 s is repeated, up to three in all, and the fastest kept: on
    a small virtual machine one run can be 30 % off.

    Peak memory is /usr/bin/time's %M; the wall time is measured here around
    it, since %e has only 10 ms steps (the few ms time itself adds are noise
    at the sizes where ratios matter).
    """
    best = None
    for attempt in range(3):
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"bench_time_{os.getpid()}")
        line = f"/usr/bin/time -f '%e %M' -o {out} sh -c {shquote(cmd)} > /dev/null"
        t0 = time.monotonic()
        try:
            run = subprocess.run(["sh", "-c", line], timeout=timeout, stderr=subprocess.PIPE,
                                 text=True)
        except subprocess.TimeoutExpired:
            return {"timeout": timeout}
        wall = time.monotonic() - t0
        if run.returncode != 0:
            sys.exit(f"measure.py: `{cmd}` failed ({run.returncode}):\n{run.stderr[-2000:]}")
        with open(out) as f:
            rss = f.read().split()[-1]
        os.unlink(out)
        m = {"s": round(wall, 4), "peak_mb": round(int(rss) / 1024, 1)}
        if best is None or m["s"] < best["s"]:
            best = m
        if m["s"] >= 5:
            break
    return best


def hta_available():
    """The path to put on PYTHONPATH for HTA (reference/hta in the shared folder
    beside the checkout), or None when it cannot run here."""
    hta = os.path.join(os.path.dirname(ROOT), "shared", "reference", "hta")
    if not os.path.isdir(os.path.join(hta, "hta")):
        return None
    # HTA's own import, as hta_load.py does it: pandas alone is not enough
    # (HTA imports plotly and pydot, which scripts/install-deps.sh installs).
    probe = subprocess.run([PYTHON, "-c", "from hta.trace_analysis import TraceAnalysis"],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=hta))
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        print(f"measure.py: HTA cannot be imported here ({last}): its column is left out",
              flush=True)
        return None
    return hta


def hta_load(path, hta, timeout, runs=3):
    """HTA's load time of `path` (its own figure, best of `runs`) and the
    script's peak memory, or None when it fails."""
    best = None
    for _ in range(runs):
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"bench_hta_{os.getpid()}")
        cmd = ["/usr/bin/time", "-f", "%M", "-o", out, PYTHON, os.path.join(HERE, "hta_load.py"),
               path]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                 env=dict(os.environ, PYTHONPATH=hta))
        except subprocess.TimeoutExpired:
            return {"timeout": timeout}
        if run.returncode != 0:
            print(f"measure.py: HTA could not load {path}: {run.stderr.strip()[-300:]}", flush=True)
            return None
        with open(out) as f:
            rss = f.read().split()[-1]
        os.unlink(out)
        got = json.loads(run.stdout.strip().splitlines()[-1])
        m = {"s": got["load_s"], "import_s": got["import_s"], "events": got["events"],
             "peak_mb": round(int(rss) / 1024, 1)}
        if best is None or m["s"] < best["s"]:
            best = m
    return best


def sample(path, cookgraph, hta, timeout):
    """The small-trace figure: `score --format json` on the sample, best of
    ten, against HTA's load of the same file."""
    if not path or not os.path.exists(path):
        print(f"measure.py: no sample trace at {path}: left out", flush=True)
        return {}
    runs = []
    for _ in range(10):
        runs.append(timed(f"{shquote(cookgraph)} score {shquote(path)} --format json", timeout))
    best = min((m for m in runs if "s" in m), key=lambda m: m["s"], default=None)
    out = {"file": os.path.basename(path), "mb": os.path.getsize(path) / 1e6, "cookgraph": best}
    if hta:
        out["hta"] = hta_load(path, hta, timeout)
    cg = best["s"] if best else None
    hl = (out.get("hta") or {}).get("s")
    print(f"sample  {out['file']:38s} {out['mb']:9.1f} MB  cookgraph {cg:.3f} s"
          + (f"; HTA load {hl:.2f} s ({hl / cg:.1f}x)" if hl and cg else ""), flush=True)
    return out


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(next(l.split()[1] for l in f if l.startswith("MemTotal"))) / 2**20
    except (OSError, StopIteration):
        pass
    osname = platform.platform()
    try:
        with open("/etc/os-release") as f:
            osname = next(l.split("=", 1)[1].strip().strip('"') for l in f
                          if l.startswith("PRETTY_NAME"))
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GB memory, {osname}"


def commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def label(kind, size):
    if kind == "native":
        return f"{size[0]:,} nodes x {size[1]} frames"
    if kind == "kineto":
        return f"~{size} MB trace"
    return f"{size[0]:,} files of ~{size[1]} nodes x {size[2]} frames"


def gzip_cost(rows, cookgraph, work, timeout):
    """What gzip costs: the largest Chrome trace of the run, compressed with
    `gzip -6` (gzip's default, as users would), read by cookgraph with the
    plain row's command (`score --format json`) and by zcat (zlib's inflate
    alone)."""
    kr = [r for r in rows if r["kind"] == "kineto"]
    if not kr:
        return {}
    r = max(kr, key=lambda r: r["mb"])
    plain = os.path.join(work, f"kineto_{r['size']}MB.json")
    gz = plain + ".gz"
    if not os.path.exists(gz + ".done"):
        subprocess.run(f"gzip -6 -c {shquote(plain)} > {shquote(gz)}", shell=True, check=True)
        with open(gz + ".done", "w") as f:
            f.write("gzip -6\n")
    out = {"label": r["label"], "plain_mb": r["mb"], "gz_mb": os.path.getsize(gz) / 1e6,
           "plain": r["tools"].get("cookgraph"),
           "cookgraph": timed(f"{shquote(cookgraph)} score {shquote(gz)} --format json", timeout),
           "zcat": timed(f"zcat {shquote(gz)}", timeout)}
    for tool in ("cookgraph", "zcat"):
        m = out[tool]
        print(f"gzip    {r['label']:38s} {out['gz_mb']:9.1f} MB  {tool:15s} "
              + (f"{m['s']:8.2f} s {m['peak_mb']:9.1f} MB peak" if "s" in m else "timed out"),
              flush=True)
    return out


def microbenchmarks(core_bench):
    """Issue 5's two in-memory targets, from bench/core_bench (Google Benchmark):
    graph analysis on 1M nodes / 4M edges and a prompt for 100k nodes. Wall
    time per iteration in ms, the mean of three repetitions."""
    if not core_bench or not os.path.exists(core_bench):
        print(f"measure.py: no core_bench at {core_bench}: microbenchmarks left out", flush=True)
        return {}
    out = subprocess.run([core_bench, "--benchmark_filter=GraphAnalysis1M|BuildPrompt100k",
                          "--benchmark_format=json", "--benchmark_repetitions=3",
                          "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        print(f"measure.py: core_bench failed: {out.stderr.strip()[-300:]}", flush=True)
        return {}
    micro = {}
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("aggregate_name") != "mean":
            continue
        name = b["run_name"].split("/")[0]
        ms = b["real_time"] * {"ms": 1, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]
        micro[name] = {"ms": round(ms, 2),
                       "counters": {k: v for k, v in b.items()
                                    if k in ("nodes", "edges", "tokens", "nodes_listed")}}
        print(f"micro   {name:38s} {ms:10.1f} ms", flush=True)
    return micro


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="small")
    ap.add_argument("--cookgraph", required=True)
    ap.add_argument("--floor", default="", help="bench/simdjson_floor; empty = leave it out")
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                   "cookgraph-bench"))
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--kinds", default="native,kineto,batch")
    ap.add_argument("--core-bench", default="", help="bench/core_bench; empty = next to cookgraph")
    ap.add_argument("--hta-max-mb", type=float, default=250,
                    help="HTA loads traces up to this size (MB); 0 = never")
    ap.add_argument("--sample", default=os.path.join(os.path.dirname(ROOT), "shared", "fixtures",
                                                     "traces",
                                                     "kineto_resnet50_workers4.json.gz"))
    args = ap.parse_args(argv)
    if not args.core_bench:
        args.core_bench = os.path.join(os.path.dirname(os.path.dirname(args.cookgraph)),
                                       "bench", "core_bench")
    sets = args.sizes.split(",")
    for s in sets:
        if s not in SIZES:
            sys.exit(f"measure.py: unknown size set '{s}' (tiny, small, medium, target, full)")
    for k in args.kinds.split(","):
        if k not in ("native", "kineto", "batch"):
            sys.exit(f"measure.py: unknown kind '{k}' (native, kineto, batch)")
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    started = time.monotonic()
    load_before = os.getloadavg()[0]
    hta = hta_available() if args.hta_max_mb > 0 else None
    if args.hta_max_mb > 0 and hta is None:
        print("measure.py: HTA (the shared folder's reference/hta, with pandas) is not here: its column is "
              "left out", flush=True)
    rows = []
    for kind in args.kinds.split(","):
        sizes = []
        for s in sets:
            sizes += [x for x in SIZES[s][kind] if x not in sizes]
        for size in sizes:
            path = generate(kind, size, args.work)
            files = files_of(path)
            mb = sum(os.path.getsize(f) for f in files) / 1e6
            quoted = " ".join(shquote(f) for f in files) if kind == "batch" else shquote(path)
            row = {"kind": kind, "size": list(size) if isinstance(size, tuple) else size,
                   "label": label(kind, size), "mb": mb, "files": len(files), "tools": {}}
            # cat first: it also brings the input into the page cache for the others.
            tools = {"cat": f"cat {quoted}"}
            if kind == "batch":
                tools["cookgraph -j 1"] = f"{shquote(args.cookgraph)} score {shquote(path)} -j 1"
                tools["cookgraph -j 2"] = f"{shquote(args.cookgraph)} score {shquote(path)} -j 2"
            else:
                score = f"{shquote(args.cookgraph)} score {shquote(path)} --format json"
                tools["cookgraph"] = score
                # What the second thread brings (adapters/json_tokenizer.cc, metrics/analysis.cc
                # still splits the statistics): the JSON read on the calling thread only.
                tools["cookgraph 1 thread"] = f"env COOKGRAPH_JSON_THREADS=1 {score}"
                if kind == "kineto":
                    # The what-if model: one event graph per step and rank, built in one
                    # pass over the trace (metrics/whatif.h), against score on the same file.
                    tools["cookgraph whatif"] = \
                        f"{shquote(args.cookgraph)} whatif {shquote(path)} --top 1"
            if args.floor:
                tools["simdjson"] = f"{shquote(args.floor)} {quoted}"
                if kind == "kineto":
                    tools["simdjson strict"] = f"{shquote(args.floor)} --strict {quoted}"
            tools["python"] = f"{PYTHON} {shquote(os.path.join(HERE, 'baseline_score.py'))} " \
                              f"{shquote(path)}"
            for tool, cmd in tools.items():
                row["tools"][tool] = timed(cmd, args.timeout)
                m = row["tools"][tool]
                print(f"{kind:7s} {row['label']:38s} {mb:9.1f} MB  {tool:15s} "
                      + (f"{m['s']:8.2f} s {m['peak_mb']:9.1f} MB peak" if "s" in m
                         else f"timed out after {m['timeout']:.0f} s"), flush=True)
            if kind == "kineto" and hta and mb <= args.hta_max_mb:
                m = hta_load(path, hta, args.timeout, runs=1)
                if m is not None:
                    row["tools"]["hta load"] = m
                if m is not None and "s" in m:
                    print(f"{kind:7s} {row['label']:38s} {mb:9.1f} MB  {'hta load':15s} "
                          f"{m['s']:8.2f} s {m['peak_mb']:9.1f} MB peak", flush=True)
            rows.append(row)
    smp = sample(args.sample, args.cookgraph, hta, args.timeout)
    gz = gzip_cost(rows, args.cookgraph, args.work, args.timeout)
    micro = microbenchmarks(args.core_bench)
    info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "micro": micro, "gzip": gz, "sample": smp,
            "machine": machine(), "commit": commit(), "sizes": args.sizes, "kinds": args.kinds,
            "cookgraph": args.cookgraph, "run_s": round(time.monotonic() - started, 1),
            # Other work on the machine skews the ratios, -j 2 the most: the
            # 1-minute load average before and after tells whether there was any.
            "load": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
    with open(os.path.join(args.results, "results.json"), "w") as f:
        json.dump({"info": info, "rows": rows}, f, indent=1)
        f.write("\n")
    sys.path.insert(0, HERE)
    import report  # noqa: E402  (bench/report.py: tables and plot from the rows)
    md = report.markdown(info, rows)
    with open(os.path.join(args.results, "results.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.results, "results.svg"), "w") as f:
        f.write(report.svg(rows))
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
