#!/usr/bin/env python3
"""End-to-end check of `score --store` and `cookgraph history`, in SQLite or in
a real PostgreSQL server that this script starts and removes.

    python3 tests/tools/history_check.py COOKGRAPH WORK_DIR sqlite|postgresql

Generates 30 native snapshots of one network of 60 nodes over 300 frames
(cook times with lognormal noise, every run's means a little off the others'),
in which /project1/fx/slow_blur cooks 30% slower from run 20 on, and checks:

- `cookgraph score snap-N.json --store DB --label run-N` for N = 1..30, then
  `cookgraph history DB --format json` flags exactly that node at run 20 and
  nothing else (not the frame time, which rises by about 0.6%);
- independently (no cookgraph code): the stored n, mean and standard deviation
  of every node and of the frame time are those of the raw samples, and
  Welch's one-sided p-value recomputed from the stored numbers with mpmath
  (as tests/tools/diff_check.py does) gives the same flags, and the same
  p-values as history's trend (relative difference under 1e-9);
- the checker is not vacuous: in a copy whose stored mean of one node in run
  10 was raised by 20%, history flags run 10 and the raw-sample check notices
  the changed number;
- the same series without the slowdown flags nothing, and
  `history --fail-on-regression` exits 4 on a history whose latest run is the
  slow one, 0 on the full series;
- two writers at once: two loops of `score --store` started together, 15 runs
  of 3 snapshots each: all 30 runs complete, every snapshot with all its
  nodes, the database consistent (SQLite: PRAGMA integrity_check);
- a crash: `score --store` of a batch of 400 snapshots killed with SIGKILL
  after it stored 10: the database stays readable and consistent, every stored
  snapshot has all its nodes, the run is incomplete, `history` says so and
  still works, and a later `score --store` adds to it.

For PostgreSQL, the server is Debian's postgresql (initdb into a temporary
directory, owned by the postgres user when this runs as root, a Unix socket in
that directory and no TCP); it is stopped and removed at the end, also on
failure. Missing PostgreSQL binaries fail the check: CI installs them.
Exits 1 with the reasons when a check fails.
"""

import glob
import json
import math
import os
import pwd
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

import mpmath

mpmath.mp.dps = 40
ALPHA = 0.01
MIN_CHANGE = 5.0
RUNS = 30
SLOW_FROM = 20
SLOW_NODE = "/project1/fx/slow_blur"
NODES = 60
FRAMES = 300
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def run(*args, **kwargs):
    return subprocess.run(list(args), capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1"}, **kwargs)


# ---------------------------------------------------------------------------
# The snapshots.

def network():
    """Ids, types and base cook times (ms) of the network; the slowed node costs
    about 2% of the frame."""
    rng = random.Random(1)
    nodes = []
    for i in range(NODES - 1):
        nodes.append(("/project1/%s/op%02d" % (["scene", "fx", "post"][i % 3], i),
                      ["blurTOP", "levelTOP", "noiseTOP", "renderTOP"][i % 4],
                      round(rng.uniform(0.05, 0.6), 3)))
    nodes.insert(NODES // 2, (SLOW_NODE, "blurTOP", 0.3))
    return nodes


def snapshot(run_number, slow, seed_base=1000, nodes=None):
    """One run's snapshot: per frame, each node's cook time is its base times a
    run-level drift (±0.5%, as machines drift between runs) times lognormal
    noise (σ 0.1)."""
    rng = random.Random(seed_base + run_number)
    nodes = nodes or network()
    series = {}
    for node_id, _, base in nodes:
        drift = 1 + rng.gauss(0, 0.005)
        factor = 1.3 if slow and node_id == SLOW_NODE and run_number >= SLOW_FROM else 1.0
        series[node_id] = {"cook_ms": [round(base * drift * factor * rng.lognormvariate(0, 0.1), 5)
                                       for _ in range(FRAMES)]}
    return {
        "cookgraph": 1,
        "engine": "touchdesigner",
        "name": "history_show",
        "fps": 60,
        "nodes": [{"id": i, "type": t, "family": "TOP",
                   **({"inputs": [nodes[k - 1][0]]} if k > 0 else {})}
                  for k, (i, t, _) in enumerate(nodes)],
        "frames": {"index": list(range(1000, 1000 + FRAMES)), "series": series},
    }


def write_series(folder, slow, seed_base=1000):
    os.makedirs(folder, exist_ok=True)
    paths = []
    for n in range(1, RUNS + 1):
        path = os.path.join(folder, "snap-%02d.json" % n)
        with open(path, "w") as f:
            json.dump(snapshot(n, slow, seed_base), f)
        paths.append(path)
    return paths


def raw_moments(path):
    """{node: (n, mean, population std)} and the frame time's (n, mean, sample std)."""
    with open(path) as f:
        doc = json.load(f)
    nodes = {}
    frames = [0.0] * len(doc["frames"]["index"])
    for node_id, metrics in doc["frames"]["series"].items():
        values = [v for v in metrics["cook_ms"] if v is not None]
        nodes[node_id] = (len(values), statistics.fmean(values), statistics.pstdev(values))
        for k, v in enumerate(metrics["cook_ms"]):
            frames[k] += v
    return nodes, (len(frames), statistics.fmean(frames), statistics.stdev(frames))


# ---------------------------------------------------------------------------
# The databases, read without cookgraph.

class SqliteDb:
    def __init__(self, path):
        self.path = path
        self.target = path
        self.prefix = ""

    def query(self, sql):
        con = sqlite3.connect("file:%s?mode=ro" % self.path, uri=True, timeout=30)
        try:
            return [tuple(r) for r in con.execute(sql)]
        finally:
            con.close()

    def consistent(self):
        return self.query("PRAGMA integrity_check") == [("ok",)] and \
            self.query("PRAGMA foreign_key_check") == []

    def tamper(self, sql, copy_to):
        source = sqlite3.connect(self.path)
        copy = sqlite3.connect(copy_to)
        source.backup(copy)  # the write-ahead log's pages too, which a file copy could miss
        source.close()
        copy.execute(sql)
        copy.commit()
        copy.close()
        return SqliteDb(copy_to)


class PostgresDb:
    def __init__(self, server, database):
        self.server = server
        self.database = database
        self.target = "postgresql://postgres@/%s?host=%s&port=%d" % (
            database, urllib.parse.quote(server.socket_dir, safe=""), server.port)
        self.prefix = "cookgraph."

    def query(self, sql):
        p = self.server.psql(self.database, "SET extra_float_digits = 3", sql)
        if p.returncode != 0:
            raise RuntimeError("psql failed: " + p.stderr.strip())
        rows = []
        for line in p.stdout.splitlines():
            rows.append(tuple(None if c == "\\N" else c for c in line.split("\t")))
        return rows

    def consistent(self):
        # The 8 indexes of the history are sound (amcheck's bt_index_check, which
        # raises an error on a damaged B-tree; it comes with Debian's
        # postgresql), every node row belongs to a stored snapshot and every
        # snapshot to a run.
        p = self.server.psql(self.database, "CREATE EXTENSION IF NOT EXISTS amcheck",
                             "SELECT count(bt_index_check(c.oid, true)) FROM pg_index i "
                             "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n "
                             "ON n.oid = c.relnamespace WHERE n.nspname = 'cookgraph'")
        if p.returncode != 0 or p.stdout.strip().splitlines()[-1:] != ["8"]:
            failures.append("amcheck on the history's indexes: %s %s" % (p.stdout.strip(), p.stderr.strip()))
            return False
        orphans = self.query("SELECT (SELECT count(*) FROM cookgraph.nodes n WHERE NOT EXISTS "
                             "(SELECT 1 FROM cookgraph.snapshots s WHERE s.id = n.snapshot_id)) + "
                             "(SELECT count(*) FROM cookgraph.snapshots s WHERE NOT EXISTS "
                             "(SELECT 1 FROM cookgraph.runs r WHERE r.id = s.run_id))")
        return orphans == [("0",)]

    def tamper(self, sql, copy_to):
        name = self.database + "_tampered"
        self.server.createdb(name, template=self.database)
        copy = PostgresDb(self.server, name)
        p = self.server.psql(name, sql)
        if p.returncode != 0:
            raise RuntimeError("psql failed: " + p.stderr.strip())
        return copy


class PostgresServer:
    """A PostgreSQL server in a temporary directory, on a Unix socket only."""

    def __init__(self, work):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                          key=lambda p: int(p.split("/")[4]))
        if not versions:
            raise RuntimeError("PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/"
                               "initdb): install Debian's postgresql (scripts/install-deps.sh)")
        self.bin = os.path.dirname(versions[-1])
        self.as_root = os.geteuid() == 0
        self.dir = tempfile.mkdtemp(prefix="cookgraph-pg-", dir=work)
        self.socket_dir = self.dir
        self.data = os.path.join(self.dir, "data")
        self.port = 5432  # names the socket file only: no TCP
        self.started = False
        if self.as_root:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root, and there is no user 'postgres' to run "
                                   "the server as: install Debian's postgresql")
            # The folders above must let the postgres user through.
            os.chmod(work, 0o755)
            os.chown(self.dir, user.pw_uid, user.pw_gid)
        self.tool("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                  "--locale=C", "--no-sync")
        self.tool("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"), "-w",
                  "-t", "60", "-o", "-k %s -c listen_addresses='' -p %d -c fsync=off"
                  % (self.socket_dir, self.port), "start")
        self.started = True

    def command(self, name, *args):
        command = [os.path.join(self.bin, name), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        return command

    def tool(self, name, *args):
        p = subprocess.run(self.command(name, *args), capture_output=True, text=True)
        if p.returncode != 0:
            log = os.path.join(self.dir, "server.log")
            tail = open(log).read()[-2000:] if os.path.exists(log) else ""
            raise RuntimeError("%s failed (%d): %s %s %s" % (name, p.returncode, p.stdout.strip(),
                                                           p.stderr.strip(), tail))
        return p

    def createdb(self, name, template=None):
        extra = ["-T", template] if template else []
        self.tool("createdb", "-h", self.socket_dir, "-p", str(self.port), "-U", "postgres",
                  *extra, name)

    def psql(self, database, *commands):
        args = ["-X", "-q", "-At", "-F", "\t", "-P", "null=\\N", "-v", "ON_ERROR_STOP=1",
                "-h", self.socket_dir, "-p", str(self.port), "-U", "postgres", "-d", database]
        for c in commands:
            args += ["-c", c]
        return subprocess.run(self.command("psql", *args), capture_output=True, text=True)

    def stop(self):
        if self.started:
            subprocess.run(self.command("pg_ctl", "-D", self.data, "-m", "immediate", "-w",
                                        "stop"), capture_output=True)
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------
# Welch's test without cookgraph's code.

def welch_p_slower(n1, m1, v1, n2, m2, v2):
    """One-sided p of 'the second is slower' from moments (sample variances)."""
    if n1 < 2 or n2 < 2:
        return None
    a = mpmath.mpf(v1) / n1
    b = mpmath.mpf(v2) / n2
    diff = mpmath.mpf(m2) - mpmath.mpf(m1)
    if a + b == 0:
        return None if diff == 0 else (0.0 if diff > 0 else 1.0)
    t = diff / mpmath.sqrt(a + b)
    df = (a + b) ** 2 / (a ** 2 / (n1 - 1) + b ** 2 / (n2 - 1))
    lowest, highest = min(n1, n2) - 1, n1 + n2 - 2
    df = min(max(df, lowest), highest)
    tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
    return float(tail if t > 0 else 1 - tail)


def stored_series(db):
    """{run id: {"label", "complete", "frame": (n, mean, var), "nodes": {id: (n, mean, var)}}}
    from the stored numbers; one snapshot per run."""
    p = db.prefix
    runs = {}
    for run_id, label, finished in db.query("SELECT id, label, finished_at FROM %sruns" % p):
        runs[int(run_id)] = {"label": label, "complete": finished is not None,
                             "frame": None, "nodes": {}, "snapshots": 0}
    for sid, run_id, frames, mean, std in db.query(
            "SELECT id, run_id, frames, frame_mean_ms, frame_std_ms FROM %ssnapshots" % p):
        r = runs[int(run_id)]
        r["snapshots"] += 1
        r["frame"] = (int(frames), float(mean), float(std) ** 2)
        r["snapshot_id"] = int(sid)
    by_snapshot = {r["snapshot_id"]: r for r in runs.values() if "snapshot_id" in r}
    for sid, node_id, n, avg, std in db.query(
            "SELECT snapshot_id, id, cooked_frames, avg_ms, std_ms FROM %snodes" % p):
        n = int(n)
        var = float(std) ** 2 * n / (n - 1) if n > 1 else 0.0
        by_snapshot[int(sid)]["nodes"][node_id] = (n, float(avg), var, float(std))
    return runs


def expected_flags(runs):
    """[(run, node or "", p)] by the definition, from the stored numbers; and
    {(run, node or ""): p} for every comparison."""
    flags, p_values = [], {}
    previous = None
    for run_id in sorted(runs):
        r = runs[run_id]
        if not r["complete"] or r["frame"] is None:
            continue
        if previous is not None:
            pairs = [("", previous["frame"], r["frame"])]
            pairs += [(node, previous["nodes"][node][:3], moments[:3])
                      for node, moments in r["nodes"].items() if node in previous["nodes"]]
            for node, before, after in pairs:
                p = welch_p_slower(*before, *after)
                p_values[(run_id, node)] = p
                change = (after[1] - before[1]) / before[1] * 100
                if p is not None and change > MIN_CHANGE and p < ALPHA:
                    flags.append((run_id, node, p))
        previous = r
    return flags, p_values


def raw_mismatches(runs, paths):
    """Stored numbers that are not those of the raw samples."""
    bad = []
    for run_id, path in paths.items():
        nodes, frame = raw_moments(path)
        r = runs[run_id]
        n, mean, var = r["frame"]
        if n != frame[0] or not math.isclose(mean, frame[1], rel_tol=1e-12) or \
                not math.isclose(math.sqrt(var), frame[2], rel_tol=1e-9):
            bad.append("run %d: frame time %r stored, %r raw" % (run_id, r["frame"], frame))
        for node_id, (rn, rmean, rstd) in nodes.items():
            sn, smean, _, sstd = r["nodes"][node_id]
            if sn != rn or not math.isclose(smean, rmean, rel_tol=1e-12) or \
                    not math.isclose(sstd, rstd, rel_tol=1e-9, abs_tol=1e-15):
                bad.append("run %d: %s stored (%d, %r, %r), raw (%d, %r, %r)"
                           % (run_id, node_id, sn, smean, sstd, rn, rmean, rstd))
    return bad


def history_json(cookgraph, db, *extra):
    p = run(cookgraph, "history", db.target, "--format", "json", *extra)
    if not check(p.returncode == 0, "history %s: exit %d: %s" % (" ".join(extra), p.returncode,
                                                               p.stderr.strip())):
        return None
    return json.loads(p.stdout)


def flags_of(doc):
    return sorted((f["run"], f["node"] or "") for f in doc["flags"])


def store_series(cookgraph, db, paths, labels):
    for path, label in zip(paths, labels):
        p = run(cookgraph, "score", path, "--store", db.target, "--label", label)
        if not check(p.returncode == 0, "score --store %s: exit %d: %s"
                     % (path, p.returncode, p.stderr.strip())):
            return False
    return True


# ---------------------------------------------------------------------------
# The scenarios.

def check_series(cookgraph, make_db, work):
    slowed = write_series(os.path.join(work, "slowed"), slow=True)
    db = make_db("series")
    labels = ["run-%d" % n for n in range(1, RUNS + 1)]
    if not store_series(cookgraph, db, slowed, labels):
        return
    doc = history_json(cookgraph, db)
    if doc is None:
        return
    check(flags_of(doc) == [(SLOW_FROM, SLOW_NODE)],
          "history flags %r; expected exactly %s at run %d" % (flags_of(doc), SLOW_NODE, SLOW_FROM))
    check(len(doc["runs"]) == RUNS and doc["incomplete"] == [],
          "history shows %d runs (incomplete %r), expected %d complete"
          % (len(doc["runs"]), doc["incomplete"], RUNS))
    check([r["label"] for r in doc["runs"]] == labels, "the labels are not run-1..run-30 in order")
    check(doc["latest_flagged"] is False, "latest_flagged is set on a series whose last run is fine")

    runs = stored_series(db)
    mismatches = raw_mismatches(runs, dict(zip(sorted(runs), slowed)))
    check(not mismatches, "stored numbers differ from the raw samples: %s" % mismatches[:3])
    flags, p_values = expected_flags(runs)
    check(sorted((r, n) for r, n, _ in flags) == [(SLOW_FROM, SLOW_NODE)],
          "the independent computation flags %r" % [(r, n) for r, n, _ in flags])
    for f in doc["flags"]:
        want = p_values.get((f["run"], f["node"] or ""))
        check(want is not None and math.isclose(f["p_value"], want, rel_tol=1e-9, abs_tol=1e-300),
              "run %d %s: p %r, independent %r" % (f["run"], f["node"], f["p_value"], want))
    compared = 0
    for s in doc["snapshots"]:
        for entry in s["trend"]:
            points = [("", entry["frame"])] + list(zip(s["nodes"], entry["nodes"]))
            for node, point in points:
                if point["before_run"] is None:
                    continue
                want = p_values.get((entry["run"], node))
                compared += 1
                check(want is not None and point["p_value"] is not None and
                      math.isclose(point["p_value"], want, rel_tol=1e-9, abs_tol=1e-300),
                      "run %d %s: trend p %r, independent %r"
                      % (entry["run"], node or "frame time", point["p_value"], want))
    check(compared >= (RUNS - 1) * 6, "only %d trend p-values to compare" % compared)
    print("history_check: %d runs stored; flags %r; %d p-values match the independent ones"
          % (len(runs), flags_of(doc), compared))

    # The table says the same.
    p = run(cookgraph, "history", db.target)
    check(p.returncode == 0 and "flags (1):" in p.stdout and SLOW_NODE in p.stdout,
          "the table does not show the one flag: %s" % p.stdout[-500:])

    # Perturbed: a stored mean raised by 20% in run 10 is flagged by history,
    # and the raw-sample check notices the changed number.
    tampered = db.tamper("UPDATE %snodes SET avg_ms = avg_ms * 1.2 WHERE id = '/project1/scene/op03' "
                         "AND snapshot_id = (SELECT id FROM %ssnapshots WHERE run_id = 10)"
                         % (db.prefix, db.prefix), os.path.join(work, "tampered.db"))
    doc = history_json(cookgraph, tampered)
    if doc is not None:
        check((10, "/project1/scene/op03") in flags_of(doc),
              "history does not flag the mean raised by 20%% in run 10: %r" % flags_of(doc))
    tampered_runs = stored_series(tampered)
    check(raw_mismatches(tampered_runs, dict(zip(sorted(tampered_runs), slowed))),
          "the raw-sample check did not notice a stored mean raised by 20%")

    # --fail-on-regression: 0 on the whole series, 4 when run 20 is the latest.
    p = run(cookgraph, "history", db.target, "--fail-on-regression")
    check(p.returncode == 0, "--fail-on-regression on the whole series: exit %d" % p.returncode)
    first20 = make_db("first20")
    if store_series(cookgraph, first20, slowed[:SLOW_FROM], labels[:SLOW_FROM]):
        p = run(cookgraph, "history", first20.target, "--fail-on-regression")
        check(p.returncode == 4, "--fail-on-regression with run 20 latest: exit %d, expected 4"
              % p.returncode)
    # --node and --since.
    doc = history_json(cookgraph, db, "--node", SLOW_NODE, "--since", str(SLOW_FROM))
    if doc is not None:
        check(flags_of(doc) == [(SLOW_FROM, SLOW_NODE)] and len(doc["runs"]) == RUNS - SLOW_FROM + 1,
              "--node --since %d: flags %r over %d runs" % (SLOW_FROM, flags_of(doc), len(doc["runs"])))

    # The same series without the slowdown flags nothing.
    steady = write_series(os.path.join(work, "steady"), slow=False)
    steady_db = make_db("steady")
    if store_series(cookgraph, steady_db, steady, labels):
        doc = history_json(cookgraph, steady_db)
        if doc is not None:
            check(flags_of(doc) == [], "the series without the slowdown flags %r" % flags_of(doc))
        flags, _ = expected_flags(stored_series(steady_db))
        check(flags == [], "the independent computation flags %r without the slowdown" % flags)


def check_two_writers(cookgraph, make_db, work):
    folder = os.path.join(work, "writers")
    paths = write_series(folder, slow=False, seed_base=5000)
    db = make_db("writers")
    node_count = len(network())
    script = ('for n in $(seq 1 15); do "$0" score "$2" "$3" "$4" --store "$1" --label "$5-$n" '
              '>/dev/null || { echo "score failed at $5-$n" >&2; exit 1; }; done')
    writers = []
    for name, batch in (("a", paths[0:3]), ("b", paths[3:6])):
        writers.append(subprocess.Popen(["sh", "-c", script, cookgraph, db.target, *batch, name],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for w in writers:
        out, err = w.communicate(timeout=240)
        check(w.returncode == 0, "a writer failed: %s" % err.strip())
    runs = db.query("SELECT label, finished_at IS NOT NULL, (SELECT count(*) FROM %ssnapshots s "
                    "WHERE s.run_id = r.id) FROM %sruns r" % (db.prefix, db.prefix))
    labels = sorted(r[0] for r in runs)
    want = sorted(["a-%d" % n for n in range(1, 16)] + ["b-%d" % n for n in range(1, 16)])
    check(labels == want, "the two writers stored %d runs: %r" % (len(labels), labels[:5]))
    check(all(str(r[1]) in ("1", "t") and int(r[2]) == 3 for r in runs),
          "not every run is complete with 3 snapshots: %r" % [r for r in runs if int(r[2]) != 3][:3])
    counts = db.query("SELECT count(*) FROM %snodes GROUP BY snapshot_id" % db.prefix)
    check(len(counts) == 90 and all(int(c[0]) == node_count for c in counts),
          "snapshots without all %d nodes: %d snapshots, counts %r"
          % (node_count, len(counts), sorted(set(int(c[0]) for c in counts))))
    check(db.consistent(), "the database is not consistent after two writers")
    print("history_check: two writers stored %d runs, %d snapshots of %d nodes"
          % (len(runs), len(counts), node_count))


def check_crash(cookgraph, make_db, work):
    folder = os.path.join(work, "crash")
    os.makedirs(folder, exist_ok=True)
    big = os.path.join(folder, "big.json")
    nodes = [("/project1/n%04d" % i, "levelTOP", 0.01 + (i % 50) * 0.002) for i in range(400)]
    with open(big, "w") as f:
        json.dump(snapshot(1, False, nodes=nodes), f)
    batch = []
    for k in range(400):
        link = os.path.join(folder, "shot-%03d.json" % k)
        if not os.path.lexists(link):
            os.symlink(big, link)
        batch.append(link)
    db = make_db("crash")
    if not store_series(cookgraph, db, [big], ["before-the-crash"]):
        return
    p = subprocess.Popen([cookgraph, "score", *batch, "--store", db.target, "--label", "crashed",
                              "-j", "1", "--format", "csv"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stored = 0
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        rows = db.query("SELECT count(*) FROM %ssnapshots WHERE run_id = (SELECT max(id) FROM %sruns)"
                        % (db.prefix, db.prefix))
        stored = int(rows[0][0])
        if stored >= 10:
            break
        time.sleep(0.05)
    if not check(p.poll() is None, "the batch of 400 ended (exit %r) before it could be killed; "
                 "make it bigger" % p.returncode):
        return
    p.send_signal(signal.SIGKILL)
    p.wait()
    check(stored >= 10, "only %d snapshots stored before the kill" % stored)
    runs = db.query("SELECT id, label, finished_at FROM %sruns ORDER BY id" % db.prefix)
    check(len(runs) == 2 and runs[1][1] == "crashed" and runs[1][2] is None,
          "after the kill the runs are %r; expected the second one unfinished" % runs)
    counts = db.query("SELECT count(*) FROM %snodes GROUP BY snapshot_id" % db.prefix)
    check(all(int(c[0]) == len(nodes) for c in counts),
          "a snapshot stored half: node counts %r" % sorted(set(int(c[0]) for c in counts)))
    check(db.consistent(), "the database is not consistent after the kill")
    crashed = int(runs[1][0])
    doc = history_json(cookgraph, db)
    if doc is not None:
        check(doc["incomplete"] == [crashed], "history's incomplete runs are %r, expected [%d]"
              % (doc["incomplete"], crashed))
        check(any(r["run"] == crashed and r["complete"] is False and r["snapshots"] >= 10
                  for r in doc["runs"]), "history does not show the interrupted run")
        check(doc["flags"] == [], "the interrupted run was judged: %r" % doc["flags"])
    p = run(cookgraph, "history", db.target)
    line = next((l for l in p.stdout.splitlines() if l.startswith("incomplete")), "")
    check(p.returncode == 0 and line.endswith("run %d" % crashed),
          "the table does not say run %d is incomplete: %s" % (crashed, p.stdout[:600]))
    check(store_series(cookgraph, db, [big], ["after-the-crash"]), "storing after the crash failed")
    check(int(db.query("SELECT count(*) FROM %sruns WHERE finished_at IS NOT NULL" % db.prefix)[0][0]) == 2,
          "the run after the crash is not complete")
    print("history_check: killed after %d snapshots; all stored ones whole, the run incomplete"
          % stored)


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("sqlite", "postgresql"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    cookgraph, work, backend = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    server = None

    def stop(signum, frame):
        if server:
            server.stop()
        sys.exit(1)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        if backend == "postgresql":
            server = PostgresServer(work)

            def make_db(name):
                server.createdb(name)
                return PostgresDb(server, name)
        else:
            def make_db(name):
                return SqliteDb(os.path.join(work, name + ".db"))
        check_series(cookgraph, make_db, work)
        check_two_writers(cookgraph, make_db, work)
        check_crash(cookgraph, make_db, work)
    except RuntimeError as e:
        failures.append(str(e))
    finally:
        if server:
            server.stop()
    if failures:
        for f in failures:
            print("history_check (%s): %s" % (backend, f), file=sys.stderr)
        return 1
    print("history_check (%s): all checks passed" % backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())
