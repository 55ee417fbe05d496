"""The Python module `cookgraph` (python/, docs/python.md) against the CLI.

Every table the module returns must equal what the CLI writes for the same
input: nodes() and score() the rows of `score --format csv` (for every
example, every real trace in tests/data/fixtures/traces, the GStreamer
recordings of tests/data/gstreamer and what the TouchDesigner exporter
writes), diff() the rows of `diff --format csv`, prompt() the body of `ask
--dry-run`, and every error the CLI's message. ask() streams through the
same client from tests/tools/fake_llm_server.py, and load() lets other
Python threads run while it reads.
"""

import glob
import json
import os
import pathlib
import re
import subprocess
import threading
import time

import pandas as pd
import pytest

import cookgraph
from against_cli import COOKGRAPH, PYTHON, ROOT, assert_equal_to_csv, cli_error, error_lines, run

EXAMPLES = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "examples", "*.json")))
TRACES_DIR = os.path.join("tests", "data", "fixtures", "traces")
TRACES = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, TRACES_DIR, "*.json*")))
GSTREAMER = [[os.path.join("tests", "data", "gstreamer", f"{name}.dot"),
              os.path.join("tests", "data", "gstreamer", f"{name}.log")]
             for name in ("tee_bin", "node_prefix")]
INPUTS = ([[p] for p in EXAMPLES + TRACES] + [[os.path.join(TRACES_DIR, "hta_two_ranks")]]
          + GSTREAMER)


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_inputs_are_found():
    # The lists above are what the test covers: three examples, the ten real traces.
    assert len(EXAMPLES) == 3 and len(TRACES) == 9, (EXAMPLES, TRACES)


@pytest.mark.parametrize("paths", INPUTS, ids=lambda p: os.path.basename(p[0]))
def test_nodes_equal_score_csv(paths):
    snap = cookgraph.load(paths)
    assert_equal_to_csv(snap.nodes(), run("score", *paths, "--format", "csv").stdout)


def test_touchdesigner_exporter_snapshots(tmp_path):
    # What examples/touchdesigner/cookgraph_export.py writes, run inside the
    # td stand-in by its own test (tests/touchdesigner_exporter.cmake).
    subprocess.run([PYTHON, os.path.join("tests", "tools", "td_standin", "check_exporter.py"),
                    "--cookgraph", COOKGRAPH, "--work", str(tmp_path)], check=True,
                   capture_output=True)
    written = sorted(glob.glob(str(tmp_path / "**" / "*.json*"), recursive=True))
    names = sorted(re.sub(r"_\d{8}T\d{6}Z", "_TIME", os.path.basename(p)) for p in written)
    # planted, re-armed .json.gz, paused, default name, the OPType build, the
    # one-paste install, the 5,000-OP show
    assert names == ["cookgraph_planted_show_project1_TIME.json", "installed.json",
                     "large.json", "older.json", "paused.json", "planted.json",
                     "rearmed.json.gz"], written
    for path in written:
        assert_equal_to_csv(cookgraph.load(path).nodes(),
                            run("score", path, "--format", "csv").stdout)


def test_sort_top_and_containers_equal_score_csv():
    path = EXAMPLES[-1]
    snap = cookgraph.load(path)
    assert_equal_to_csv(snap.nodes(sort="p95", top=7),
                        run("score", path, "--format", "csv", "--sort", "p95", "--top", "7").stdout)
    assert_equal_to_csv(snap.nodes(sort="per_frame"),
                        run("score", path, "--format", "csv", "--sort", "per-frame").stdout)
    assert_equal_to_csv(snap.containers(),
                        run("score", path, "--format", "csv", "--group-by", "container").stdout)


def test_sort_gain_equals_score_csv_and_ranks_by_the_predicted_saving():
    for path in EXAMPLES:
        snap = cookgraph.load(path)
        nodes = snap.nodes(sort="gain")
        assert_equal_to_csv(nodes, run("score", path, "--format", "csv", "--sort", "gain").stdout)
        assert "gain_ms" in nodes.columns
        working = nodes[nodes["family"].isin(["queue", "mixer"]) == False]  # noqa: E712
        cooked = working[working["cooked_frames"] > 0]
        assert list(cooked["gain_ms"]) == sorted(cooked["gain_ms"], reverse=True)
    # The other sorts keep their columns: no gain_ms.
    assert "gain_ms" not in cookgraph.load(EXAMPLES[0]).nodes().columns


def test_budget_changes_the_rows_as_the_cli_does():
    path = os.path.join("examples", "touchdesigner_feedback.json")
    snap = cookgraph.load(path, budget_ms=12.5)
    assert snap.info["budget_ms"] == 12.5
    assert_equal_to_csv(snap.nodes(),
                        run("score", path, "--format", "csv", "--budget-ms", "12.5").stdout)


def recordings(tmp_path):
    """A folder of two GStreamer recordings (a folder each) and a snapshot."""
    for dot, log in GSTREAMER:
        folder = tmp_path / os.path.basename(dot)[:-4]
        folder.mkdir()
        for path in (dot, log):
            (folder / os.path.basename(path)).write_bytes(open(path, "rb").read())
    (tmp_path / "snapshot.json").write_bytes(open(EXAMPLES[1], "rb").read())
    return str(tmp_path)


@pytest.mark.parametrize("folder,jobs", [("examples", 2), (TRACES_DIR, 1), (recordings, 2)],
                         ids=["examples", "traces", "recordings"])
def test_score_of_a_folder_equals_score_csv(folder, jobs, tmp_path):
    folder = folder if isinstance(folder, str) else folder(tmp_path)
    frame = cookgraph.score(folder, jobs=jobs, errors="collect")
    proc = subprocess.run([COOKGRAPH, "score", folder, "--format", "csv"], capture_output=True,
                          text=True)
    assert_equal_to_csv(frame, proc.stdout)
    assert [e["error"] for e in frame.attrs["errors"]] == error_lines(proc.stderr)
    assert frame["file"].nunique() >= 2


def test_score_with_a_baseline_equals_score_csv():
    before = os.path.join("examples", "touchdesigner_feedback.json")
    frame = cookgraph.score(EXAMPLES, baseline=before)
    assert "avg_change_pct" in frame.columns
    assert_equal_to_csv(frame, run("score", *EXAMPLES, "--baseline", before, "--format", "csv").stdout)


def bad_folder(tmp_path):
    """Two good inputs and two bad ones, in this order once sorted."""
    good = open(os.path.join(ROOT, EXAMPLES[0]), encoding="utf-8").read()
    (tmp_path / "a_good.json").write_text(good)
    (tmp_path / "b_truncated.json").write_text(good[: len(good) // 3])
    (tmp_path / "c_good.json").write_text(good)
    (tmp_path / "d_not_a_format.json").write_text("hello\n")
    return str(tmp_path)


def test_score_collects_bad_inputs_as_the_cli_reports_them(tmp_path):
    folder = bad_folder(tmp_path)
    frame = cookgraph.score(folder, errors="collect")
    proc = run("score", folder, "--format", "csv", expect=2)
    assert_equal_to_csv(frame, proc.stdout)
    assert sorted(set(frame["file"])) == [f"{folder}/a_good.json", f"{folder}/c_good.json"]
    errors = frame.attrs["errors"]
    assert [e["error"] for e in errors] == error_lines(proc.stderr)
    assert len(errors) == 2 and errors[0]["file"] == f"{folder}/b_truncated.json"
    assert errors[0]["line"] is not None and errors[0]["column"] is not None


def test_score_raises_the_first_bad_input(tmp_path):
    folder = bad_folder(tmp_path)
    first = error_lines(run("score", folder, "--format", "csv", expect=2).stderr)[0]
    with pytest.raises(cookgraph.InputError) as raised:
        cookgraph.score(folder, jobs=2)
    assert str(raised.value) == first
    missing = os.path.join(folder, "missing")
    with pytest.raises(cookgraph.InputError) as raised:
        cookgraph.score([missing])
    assert str(raised.value) == cli_error("score", missing, "--format", "csv")


def perturbed_inputs(tmp_path):
    good = open(os.path.join(ROOT, EXAMPLES[-1]), encoding="utf-8").read()
    truncated = tmp_path / "truncated.json"
    truncated.write_text(good[: len(good) // 2])
    not_a_format = tmp_path / "notes.json"
    not_a_format.write_text("just some notes\n")
    bad_utf8 = tmp_path / "bad_utf8.json"
    bad_utf8.write_bytes(good.encode()[:200] + b"\xff\xfe" + good.encode()[200:])
    return {
        "truncated": ([str(truncated)], {}, []),
        "missing": ([str(tmp_path / "missing.json")], {}, []),
        "not a format": ([str(not_a_format)], {}, []),
        "bad utf-8": ([str(bad_utf8)], {}, []),
        "node limit": ([EXAMPLES[-1]], {"limits": {"nodes": 10}}, ["--limit", "nodes=10"]),
        "wrong format": ([EXAMPLES[0]], {"format_in": "gstreamer"}, ["--format-in", "gstreamer"]),
    }


def test_load_errors_are_the_cli_messages(tmp_path):
    for name, (paths, options, flags) in perturbed_inputs(tmp_path).items():
        with pytest.raises(cookgraph.InputError) as raised:
            cookgraph.load(paths, **options)
        want = cli_error("score", *paths, "--format", "csv", *flags)
        assert str(raised.value) == want, name
        assert isinstance(raised.value, cookgraph.Error)
    with pytest.raises(cookgraph.InputError) as raised:
        cookgraph.load(perturbed_inputs(tmp_path)["truncated"][0])
    e = raised.value
    assert e.file.endswith("truncated.json") and e.line > 1 and e.column >= 1 and e.message
    assert str(e) == f"{e.file}:{e.line}:{e.column}: {e.message}"


BAD = sorted(os.path.relpath(p, ROOT) for pattern in ("*.json", "*.yaml", "*.json.gz")
             for p in glob.glob(os.path.join(ROOT, "tests", "data", "bad", pattern)))


@pytest.mark.parametrize("path", BAD, ids=os.path.basename)
def test_the_bad_input_corpus_raises_the_cli_messages(path):
    # tests/data/bad/README.md: hand-written inputs, each refused with one message.
    with pytest.raises(cookgraph.InputError) as raised:
        cookgraph.load(path)
    assert str(raised.value) == cli_error("score", path, "--format", "csv")


def test_the_accepted_corpus_scores_as_the_cli_scores_it():
    # tests/data/bad/accepted: unusual inputs that are read (BOMs, CRLF, ...);
    # configs and packs in the folder are not snapshots, and both sides say so.
    folder = os.path.join("tests", "data", "bad", "accepted")
    frame = cookgraph.score(folder, errors="collect")
    proc = run("score", folder, "--format", "csv", expect=2)
    assert_equal_to_csv(frame, proc.stdout)
    assert [e["error"] for e in frame.attrs["errors"]] == error_lines(proc.stderr)


def test_texts_that_csv_quotes_are_the_texts_themselves(tmp_path):
    ids = ["=cmd|' /C calc'!A0", "+1", "-2", "@SUM(1)", "/p/a,b", '/p/"quoted"', "/p/new\nline",
           "/p/ünïcode", "/p/plain"]
    nodes = [{"id": i, "type": "" if n == 0 else "=HYPERLINK()", "family": "TOP"}
             for n, i in enumerate(ids)]
    series = {i: {"cook_ms": [0.5 + n, None, 1.0 + n]} for n, i in enumerate(ids)}
    doc = {"cookgraph": 1, "engine": "=engine", "name": "-name", "nodes": nodes,
           "frames": {"index": [1, 2, 3], "series": series}}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    frame = cookgraph.load(path).nodes()
    assert_equal_to_csv(frame, run("score", path, "--format", "csv").stdout)
    assert set(frame["id"]) == set(ids) and set(frame["engine"]) == {"=engine"}
    assert frame["type"].isna().sum() == 1  # an empty text is an empty cell, as in the CSV


def test_unknown_node_id_is_a_key_error_naming_it():
    snap = cookgraph.load(os.path.join("examples", "touchdesigner_feedback.json"))
    with pytest.raises(KeyError) as raised:
        snap.series("/project1/control/scrpt_osc")
    assert "'/project1/control/scrpt_osc'" in str(raised.value)
    assert "did you mean '/project1/control/script_osc'?" in str(raised.value)


def test_bad_options_are_value_errors():
    path = EXAMPLES[0]
    for options, text in [({"budget_ms": -1}, "budget_ms"), ({"budget_ms": float("nan")}, "budget_ms"),
                          ({"format_in": "xml"}, "format_in"), ({"limits": {"depth": "deep"}}, "depth"),
                          ({"limits": {"nonsense": 1}}, "limits")]:
        with pytest.raises(ValueError, match=text):
            cookgraph.load(path, **options)
    with pytest.raises(ValueError) as raised:
        cookgraph.load(TRACES[0], frame_marker="([")
    want = cli_error("score", TRACES[0], "--frame-marker", "([")  # a usage error
    assert str(raised.value) == want.replace("--frame-marker", "frame_marker", 1)
    with pytest.raises(ValueError, match="sort"):
        cookgraph.load(path).nodes(sort="fastest")
    with pytest.raises(ValueError, match="errors"):
        cookgraph.score(path, errors="ignore")
    with pytest.raises(ValueError, match="metric"):
        cookgraph.load(path).series("/pipeline0", metric="bytes")
    with pytest.raises(ValueError, match="persona"):
        cookgraph.load(path).prompt("why?", model="m", persona="poet")


def cli_json(*paths, flags=()):
    return json.loads(run("score", *paths, "--format", "json", *flags).stdout)["snapshots"][0]


@pytest.mark.parametrize("paths", [[EXAMPLES[-1]], [TRACES[1]], GSTREAMER[0]],
                         ids=lambda p: os.path.basename(p[0]))
def test_frames_series_and_summaries_agree_with_score_json(paths):
    snap = cookgraph.load(paths)
    doc = cli_json(*paths)
    info = snap.info
    assert (info["file"], info["engine"], info["name"], info["frames"]) == (
        doc["file"], doc["engine"], doc["name"], doc["frames"])
    assert info["frame_ms"] == doc["frame_ms"]
    assert info["profiler_ms"] is None and "profiler_ms" not in doc
    assert info["budget_ms"] == doc["frame_budget_ms"]
    frames = snap.frames()
    assert len(frames) == doc["frames"] and frames.index.name == "frame"
    counted = frames[frames["counted"]]
    assert counted["frame_ms"].mean() == pytest.approx(doc["frame_ms"]["mean"], rel=1e-12)
    assert counted["frame_ms"].max() == doc["frame_ms"]["max"]
    over = int(frames["over_budget"].sum())
    assert over == (doc["over_budget_frames"] or 0) == (info["over_budget_frames"] or 0)
    nodes = snap.nodes()
    for _, node in nodes.head(5).iterrows():
        series = snap.series(node["id"])
        assert series.index.equals(frames.index) and series.name == node["id"]
        assert series.count() == node["cooked_frames"]
        assert series.mean() == pytest.approx(node["avg_ms"], rel=1e-12)
    for key in ("loops", "critical_path"):
        assert getattr(snap, key) == doc[key]
    assert snap.spikes.to_dict("records") == doc["spikes"]
    assert snap.gpu == doc.get("gpu")
    assert snap.threads == doc.get("threads")
    if "gpu" in doc:
        assert snap.trace == {k: doc.get(k) for k in ("slowest_step", "gpu", "memory", "ranks")}
        assert snap.streaming is None
    if "threads" in doc:
        assert snap.streaming["bottleneck_thread"] == doc["bottleneck_thread"]
        assert snap.trace is None


def test_profiler_ms_is_the_score_json_object(tmp_path):
    path = tmp_path / "profiled.json"
    path.write_text(json.dumps({
        "cookgraph": 1, "nodes": [{"id": "/p/a", "output": True}],
        "frames": {"index": [1, 2, 3], "frame_ms": [4, 6, 5], "profiler_ms": [0.25, None, 0.75],
                   "series": {"/p/a": {"cook_ms": [3, 5, 4]}}}}))
    info = cookgraph.load(str(path)).info
    assert info["profiler_ms"] == cli_json(str(path))["profiler_ms"]
    profiler = dict(info["profiler_ms"])
    assert profiler.pop("p95") == pytest.approx(0.725, rel=1e-12)  # 0.25 + 0.95 * 0.5
    assert profiler == {"mean": 0.5, "max": 0.75, "frames": 2, "share_of_frame": 0.1}


def test_a_trace_has_gpu_time_and_a_recording_threads():
    trace = cookgraph.load(os.path.join(TRACES_DIR, "kineto_nccl_rank0_5steps.json.gz"))
    assert trace.gpu["ranks"][0]["kernels"] > 0 and trace.threads is None
    recording = cookgraph.load(GSTREAMER[0])
    assert len(recording.threads) == 4 and recording.gpu is None  # tests/data/gstreamer/README.md


CHROME = sorted(os.path.relpath(p, ROOT)
                for p in glob.glob(os.path.join(ROOT, "tests", "data", "chrome", "*.json")))
TRACE_INPUTS = [[p] for p in TRACES + CHROME] + [[os.path.join(TRACES_DIR, "hta_two_ranks")]]


@pytest.mark.parametrize("paths", TRACE_INPUTS, ids=lambda p: os.path.basename(p[0]))
def test_trace_dataframes_equal_score_json(paths):
    # gpu_breakdown(), launches(), kernels(), timeline() and critical_path()
    # as HTA's users expect them, with the numbers of `score --format json`.
    doc = json.loads(run("score", *paths, "--format", "json").stdout)["snapshots"][0]
    snap = cookgraph.load(paths)
    gpu = doc["gpu"]
    breakdown = snap.gpu_breakdown()
    ranks = gpu["ranks"] if gpu else []
    assert len(breakdown) == len(ranks)
    for row, rank in zip(breakdown.to_dict("records"), ranks):
        for key in ("rank", "kernel_span_ms", "idle_ms", "compute_ms", "non_compute_ms",
                    "communication_ms", "memory_ms"):
            assert row[key] == rank[key], key
    launches = snap.launches()
    stats = gpu["launches"] if gpu else {"count": 0}
    assert len(launches) == stats["count"]
    if len(launches):
        delays = launches["launch_delay_us"] / 1000
        for key, value in (("mean", delays.mean()), ("p50", delays.quantile(0.5)),
                           ("p95", delays.quantile(0.95)), ("max", delays.max())):
            assert value == pytest.approx(stats["delay_ms"][key], rel=1e-9, abs=1e-12), key
        assert (launches["launch_delay_us"] >= 0).all()
    kernels = snap.kernels()
    for rank in ranks:
        mine = kernels[kernels["rank"] == rank["rank"]]
        assert int(mine["count"].sum()) == rank["kernels"]
        assert mine["sum_us"].sum() / 1000 == pytest.approx(
            sum(s["kernel_ms"] for s in rank["streams"]), rel=1e-12)
    timeline = snap.timeline()
    assert len(timeline) > 0 and set(timeline["rank"]) >= {r["rank"] for r in ranks}
    path = snap.critical_path
    assert dict(path) == doc["critical_path"]
    events = path()
    nodes = [n for n in dict.fromkeys(events["node"]) if n is not None] if len(events) else []
    assert nodes == doc["critical_path"]["nodes"]
    if len(events) and events["step"].notna().all():
        step = int(events["step"].iloc[0])
        assert path(step=step).equals(events)
        in_step = snap.timeline(step=step)
        assert len(in_step) > 0 and (in_step["step"] == step).all()
    with pytest.raises(ValueError, match="no such step"):
        path(step=-12345)


def test_findings_are_the_reports(tmp_path):
    path = os.path.join("examples", "touchdesigner_feedback.json")
    report = tmp_path / "report.md"
    run("report", path, "-o", report, "--no-llm")
    text = report.read_text()
    headings = re.findall(r"^### (info|warning|critical): (.*)$", text, re.M)
    rules = re.findall(r"^- rule: (.*)$", text, re.M)
    unescape = lambda s: re.sub(r"\\(.)", r"\1", s)  # noqa: E731  (MarkdownText's escapes)
    findings = cookgraph.load(path).findings()
    # The report shows each rule's findings as one, at the place of its first.
    groups = {}
    for f in findings.to_dict("records"):
        groups.setdefault(f["rule"], []).append(f)
    folded = [(g[0]["severity"], g[0]["title"] + (f", and {len(g) - 1} more like it"
                                                   if len(g) > 1 else ""), g[0]["rule"])
              for g in groups.values()]
    assert len(findings) > len(folded) == len(headings) == len(rules) > 5
    assert [f[0] for f in folded] == [h[0] for h in headings]
    assert [f[1] for f in folded] == [unescape(h[1]) for h in headings]
    assert [f[2] for f in folded] == [unescape(r).split(" (")[0] for r in rules]
    assert all(isinstance(n, list) and n for n in findings["nodes"])


def test_a_bad_pack_is_an_input_error_with_the_cli_message(tmp_path):
    pack = tmp_path / "pack.yaml"
    pack.write_text("engine: touchdesigner\nrules: [oops\n")
    path = EXAMPLES[-1]
    with pytest.raises(cookgraph.InputError) as raised:
        cookgraph.load(path).findings(pack)
    assert str(raised.value) == cli_error("report", path, "-o", tmp_path / "r.md", "--no-llm",
                                          "--pack", pack)


def diff_pair(tmp_path):
    subprocess.run([PYTHON, os.path.join("tests", "tools", "gen_diff_pair.py"), "--out",
                    str(tmp_path), "--nodes", "80", "--frames", "160"], check=True)
    facts = json.loads((tmp_path / "facts.json").read_text())
    return str(tmp_path / "before.json"), str(tmp_path / "after.json"), facts


def test_diff_equals_diff_csv_and_json(tmp_path):
    before, after, facts = diff_pair(tmp_path)
    frame = cookgraph.diff(before, after)
    assert_equal_to_csv(frame, run("diff", before, after, "--format", "csv").stdout)
    doc = json.loads(run("diff", before, after, "--format", "json").stdout)
    assert frame.attrs["frame_ms"] == doc["frame_ms"]
    for key in ("before", "after", "added", "removed", "regressions", "regressed", "warnings"):
        assert frame.attrs[key] == doc[key], key
    regressed = sorted(frame.loc[frame["regression"].astype(bool), "id"])
    assert regressed == sorted(facts["slowed"])
    assert sorted(frame.loc[frame["status"] == "added", "id"]) == sorted(facts["added"])
    # The same comparison from loaded snapshots, and with the CLI's options.
    same = cookgraph.diff(cookgraph.load(before), cookgraph.load(after))
    pd.testing.assert_frame_equal(same, frame)
    assert_equal_to_csv(cookgraph.diff(before, after, alpha=0.05, min_change=1),
                        run("diff", before, after, "--format", "csv", "--alpha", "0.05",
                            "--min-change", "1").stdout)


@pytest.fixture
def clean_settings(tmp_path, monkeypatch):
    """No config file and no endpoint variables, for Python and the CLI alike."""
    for name in ("COOKGRAPH_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "COOKGRAPH_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    work = tmp_path / "work"
    work.mkdir()
    return work


def test_prompt_is_the_body_of_ask_dry_run(clean_settings, monkeypatch):
    path = os.path.join(ROOT, "examples", "pytorch_model.json")
    snap = cookgraph.load(path)
    monkeypatch.chdir(clean_settings)
    question = "Which kernels should I fuse first?"
    for flags, options in [(["--model", "gpt-4o"], {"model": "gpt-4o"}),
                           (["--model", "llama3.1", "--budget-tokens", "3000", "--persona",
                             "gpu-optimizer", "--no-stream"],
                            {"model": "llama3.1", "budget_tokens": 3000,
                             "persona": "gpu-optimizer", "stream": False})]:
        # prompt() is the one-question request without the functions.
        body = json.loads(run("ask", path, question, "--dry-run", "--no-tools", *flags,
                              cwd=clean_settings).stdout)
        assert snap.prompt(question, **options) == body
    # Settings the flags do not give come from the environment and ./cookgraph.yaml, as in the CLI.
    monkeypatch.setenv("COOKGRAPH_MODEL", "from-env")
    (clean_settings / "cookgraph.yaml").write_text("advisor:\n  budget_tokens: 2500\n")
    body = json.loads(run("ask", path, question, "--dry-run", "--no-tools",
                          cwd=clean_settings).stdout)
    prompt = snap.prompt(question)
    assert prompt == body and prompt["model"] == "from-env"
    # No model named: the documented default, as in the CLI.
    monkeypatch.delenv("COOKGRAPH_MODEL")
    assert snap.prompt(question)["model"] == "gpt-4o-mini"
    # A broken config file is an InputError with the CLI's message.
    (clean_settings / "cookgraph.yaml").write_text("advisor:\n  budget_tokens: [\n")
    with pytest.raises(cookgraph.InputError) as raised:
        snap.prompt(question, model="m")
    want = error_lines(run("ask", path, question, "--dry-run", "--model", "m", expect=2,
                           cwd=clean_settings).stderr)
    assert [str(raised.value)] == want and raised.value.line is not None


@pytest.fixture
def fake_llm(tmp_path):
    log = tmp_path / "requests.jsonl"
    server = subprocess.Popen([PYTHON, os.path.join(ROOT, "tests", "tools", "fake_llm_server.py"),
                               "--log", str(log), "--lifetime", "120"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    yield f"http://127.0.0.1:{port}", log
    server.stdin.close()
    server.wait(timeout=10)


def test_ask_streams_the_answer_to_on_token(fake_llm, clean_settings):
    url, log = fake_llm
    snap = cookgraph.load(os.path.join("examples", "gstreamer_pipeline.json"))
    pieces = []
    answer = snap.ask("What limits the frame rate?", on_token=pieces.append,
                      base_url=f"{url}/case/stream", model="fake")
    assert pieces == ["Hel", "lo, wor", "ld!"]  # the fake server's three chunks, one call each
    assert str(answer) == answer.text == "Hello, world!"
    assert answer.usage == {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}
    assert answer.finish_reason == "stop" and answer.attempts == 1 and answer.model == "fake"
    sent = json.loads(log.read_text().splitlines()[-1])["body"]
    assert sent == snap.prompt("What limits the frame rate?", model="fake")
    answer = snap.ask("again", base_url=f"{url}/case/stream", model="fake", stream=False)
    assert answer.text == "Hello, world!"


def test_ask_errors_are_llm_errors_with_the_cli_message(fake_llm, clean_settings, monkeypatch):
    url, _ = fake_llm
    path = os.path.join(ROOT, "examples", "gstreamer_pipeline.json")
    snap = cookgraph.load(path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    with pytest.raises(cookgraph.LlmError) as raised:
        snap.ask("why?", base_url=f"{url}/case/unauthorized", model="fake")
    want = cli_error("ask", path, "why?", "--base-url", f"{url}/case/unauthorized", "--model",
                     "fake", expect=3)
    assert str(raised.value) == want and "HTTP 401" in want
    assert "sk-test-secret-123" not in str(raised.value)
    # A key alone is OpenAI's endpoint (as in openai-python); no key and no
    # base URL is none.
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ValueError, match="no LLM endpoint configured"):
        snap.ask("why?", model="fake")


def test_an_exception_in_on_token_is_raised(fake_llm, clean_settings):
    url, _ = fake_llm
    snap = cookgraph.load(os.path.join("examples", "gstreamer_pipeline.json"))
    seen = []

    def on_token(text):
        seen.append(text)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        snap.ask("why?", on_token=on_token, base_url=f"{url}/case/stream", model="fake")
    assert seen == ["Hel"]  # called once, not again after it raised


@pytest.fixture(scope="module")
def big_snapshot(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.json"
    subprocess.run([PYTHON, os.path.join(ROOT, "examples", "generate.py"), "--big", "15000", "300",
                    "--out", str(path)], check=True, capture_output=True)
    return str(path)


def test_load_releases_the_gil(big_snapshot):
    ticks, stop = [], threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.002)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        start = time.monotonic()
        snap = cookgraph.load(big_snapshot)
        end = time.monotonic()
    finally:
        stop.set()
        thread.join()
    assert snap.info["nodes"] == 15000
    inside = [t for t in ticks if start <= t <= end]
    gaps = [b - a for a, b in zip([start] + inside, inside + [end])]
    # Holding the GIL for the whole read would leave one gap as long as the load.
    assert end - start > 0.1, end - start
    assert len(inside) >= 10 and max(gaps) < (end - start) / 3, (len(inside), max(gaps), end - start)


def test_repr_and_info():
    snap = cookgraph.load(os.path.join("examples", "touchdesigner_feedback.json"))
    assert repr(snap) == ("<cookgraph.Snapshot 'examples/touchdesigner_feedback.json': touchdesigner "
                          "'feedback_show', 364 nodes, 300 frames, frame time mean 13.604 ms, "
                          "budget 16.667 ms, 15 over>")
    assert snap.file == "examples/touchdesigner_feedback.json"
    assert snap.info["edges"] > snap.info["nodes"] / 2 and isinstance(snap.warnings, list)


# Issue 40: paths of every kind, and arguments checked by name.

class BytesPath:
    """An os.PathLike whose __fspath__ gives bytes."""

    def __init__(self, path):
        self.path = os.fsencode(path)

    def __fspath__(self):
        return self.path


def write_bytes(path, data):
    """Writes `data` at `path` (bytes: the name need not be UTF-8)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def cli_bytes(*args):
    """`cookgraph ARGS...` (bytes arguments allowed) as bytes: (stdout, error lines)."""
    proc = subprocess.run([COOKGRAPH, *args], capture_output=True)
    prefix = b"cookgraph: error: "
    lines = [line[len(prefix):] for line in proc.stderr.splitlines() if line.startswith(prefix)]
    return proc.stdout, lines


def test_score_names_a_file_whose_name_is_not_utf8(tmp_path):
    # A folder holding a bad input whose name is not UTF-8 (b"b\xff_truncated.json"), and a
    # good one (b"c\xfe_good.json"): the good rows come back, the bad one is named.
    good = open(os.path.join(ROOT, EXAMPLES[0]), "rb").read()
    folder = os.fsencode(tmp_path)
    write_bytes(folder + b"/a_good.json", good)
    write_bytes(folder + b"/b\xff_truncated.json", good[: len(good) // 3])
    write_bytes(folder + b"/c\xfe_good.json", good)
    bad = os.fsdecode(folder + b"/b\xff_truncated.json")
    frame = cookgraph.score(str(tmp_path), errors="collect")
    stdout, cli_errors = cli_bytes(b"score", folder, b"--format", b"csv")
    # The CSV's file cells keep the bytes; the DataFrame's text cells have U+FFFD for them.
    assert_equal_to_csv(frame, stdout.decode("utf-8", "replace"))
    assert sorted(set(frame["file"])) == [f"{tmp_path}/a_good.json",
                                          f"{tmp_path}/c\ufffd_good.json"]
    errors = frame.attrs["errors"]
    assert [e["file"] for e in errors] == [bad]
    assert open(errors[0]["file"], "rb").read() == good[: len(good) // 3]  # open() takes it
    # The error's line is the CLI's, which prints U+FFFD for the byte that is not UTF-8.
    assert [e["error"] for e in errors] == [line.decode() for line in cli_errors]
    assert "b\ufffd_truncated.json:" in errors[0]["error"]
    # errors="raise": the same error, raised.
    with pytest.raises(cookgraph.InputError) as raised:
        cookgraph.score(folder)
    assert raised.value.file == bad and str(raised.value) == errors[0]["error"]
    # The input whose name is not UTF-8 loads, under the name the errors give.
    good_name = os.fsdecode(folder + b"/c\xfe_good.json")
    assert cookgraph.load(good_name).file == good_name


def test_load_takes_str_bytes_and_path_likes(tmp_path):
    example = EXAMPLES[0]
    want = cookgraph.load(example).nodes()
    for path in (example.encode(), pathlib.Path(example), BytesPath(example),
                 [pathlib.Path(example)]):
        snap = cookgraph.load(path)
        assert snap.file == example, path
        pd.testing.assert_frame_equal(snap.nodes(), want)
    # A copy whose name is not UTF-8, given as os.fsdecode gives it, as bytes or as a Path.
    name = os.fsencode(tmp_path) + b"/copy\xff\xfe.json"
    write_bytes(name, open(example, "rb").read())
    shown = os.fsdecode(name)
    for path in (shown, name, pathlib.Path(shown), BytesPath(name)):
        snap = cookgraph.load(path)
        assert snap.file == shown and snap.info["file"] == shown, path
        assert snap.nodes().drop(columns="file").equals(want.drop(columns="file"))
        assert repr(snap).startswith(f"<cookgraph.Snapshot {shown!r}")
    # A dump and its log as bytes and a Path; and score() of the copy.
    dot, log = GSTREAMER[0]
    pd.testing.assert_frame_equal(cookgraph.load([dot.encode(), pathlib.Path(log)]).nodes(),
                                  cookgraph.load([dot, log]).nodes())
    frame = cookgraph.score([shown, example.encode()], errors="collect")
    assert len(frame) == 2 * len(want) and frame.attrs["errors"] == []


def test_every_path_argument_takes_bytes_and_path_likes(tmp_path, clean_settings, monkeypatch):
    # findings(pack), prompt(pack), score(baseline) and diff(before, after).
    snap = cookgraph.load(EXAMPLES[-1])
    pack = os.path.join("advisor", "packs", "touchdesigner.yaml")
    copy = os.fsencode(tmp_path) + b"/pack\xff.yaml"
    write_bytes(copy, open(pack, "rb").read())
    want = snap.findings(pack)
    for path in (pack.encode(), pathlib.Path(pack), copy, os.fsdecode(copy), BytesPath(copy)):
        pd.testing.assert_frame_equal(snap.findings(path), want)
    monkeypatch.chdir(clean_settings)
    pack = os.path.join(ROOT, pack)
    body = snap.prompt("why?", model="m", pack=pack)
    assert snap.prompt("why?", model="m", pack=pathlib.Path(os.fsdecode(copy))) == body
    monkeypatch.chdir(ROOT)
    baseline = EXAMPLES[-1]
    want = cookgraph.score(EXAMPLES, baseline=baseline)
    for path in (baseline.encode(), pathlib.Path(baseline), BytesPath(baseline)):
        pd.testing.assert_frame_equal(cookgraph.score(EXAMPLES, baseline=path), want)
    before, after, _ = diff_pair(tmp_path)
    want = cookgraph.diff(before, after)
    renamed = os.fsencode(tmp_path) + b"/after\xff.json"
    os.rename(after, renamed)
    changes = cookgraph.diff(pathlib.Path(before), renamed)
    pd.testing.assert_frame_equal(changes, want)
    assert changes.attrs["after"]["file"] == renamed.decode("utf-8", "replace")  # as JSON has it


def test_errors_carry_the_file_as_given(tmp_path):
    missing = os.fsencode(tmp_path) + b"/missing\xff.json"
    _, cli_errors = cli_bytes(b"score", missing, b"--format", b"csv")
    for path in (missing, os.fsdecode(missing), pathlib.Path(os.fsdecode(missing)),
                 BytesPath(missing)):
        with pytest.raises(cookgraph.InputError) as raised:
            cookgraph.load(path)
        assert raised.value.file == os.fsdecode(missing)
        assert [str(raised.value)] == [line.decode() for line in cli_errors]
        assert "missing\ufffd.json" in str(raised.value)
    # A message that names a file whose name is not UTF-8 is no UnicodeDecodeError.
    name = os.fsencode(tmp_path) + b"/td\xff.json"
    write_bytes(name, open(EXAMPLES[-1], "rb").read())
    snap = cookgraph.load(name)
    with pytest.raises(KeyError, match="no node '/nowhere' in .*td\ufffd\\.json"):
        snap.series("/nowhere")
    trace = os.fsencode(tmp_path) + b"/trace\xff.json"
    write_bytes(trace, open(TRACES[1], "rb").read())
    with pytest.raises(ValueError, match="step 123456789: no such step in .*trace\ufffd\\.json"):
        cookgraph.load(trace).critical_path(123456789)


def no_client(paths=EXAMPLES[0], **options):
    import cookgraph.dask
    return cookgraph.dask.score(paths, **options)  # checked before a client is asked for


ARGUMENT_CHECKS = [
    (lambda: cookgraph.load(None), TypeError,
     "path: expected str, bytes or os.PathLike, got NoneType"),
    (lambda: cookgraph.load(3), TypeError, "path: expected str, bytes or os.PathLike, got int"),
    (lambda: cookgraph.load([EXAMPLES[0], None]), TypeError,
     "path[1]: expected str, bytes or os.PathLike, got NoneType"),
    (lambda: cookgraph.load("a\0b.json"), ValueError, "path: embedded null byte"),
    (lambda: cookgraph.load("a\ud800.json"), ValueError, "path: not a file name"),
    (lambda: cookgraph.load(EXAMPLES[0], budget_ms=10**400), ValueError,
     "budget_ms: must be a number of milliseconds > 0, got an int of 401 digits"),
    (lambda: cookgraph.load(EXAMPLES[0], budget_ms="16"), TypeError,
     "budget_ms: expected a number, got str"),
    (lambda: cookgraph.load(EXAMPLES[0], frame_marker=1), TypeError,
     "frame_marker: expected str, got int"),
    (lambda: cookgraph.load(EXAMPLES[0], format_in=b"native"), TypeError,
     "format_in: expected str, got bytes"),
    (lambda: cookgraph.load(EXAMPLES[0], limits=5), TypeError,
     "limits: expected a dict of limit to value, got int"),
    (lambda: cookgraph.score(None), TypeError,
     "paths: expected str, bytes or os.PathLike, got NoneType"),
    (lambda: cookgraph.score(EXAMPLES[0], jobs=-1), ValueError, "jobs: must be 1 to 1024, got -1"),
    (lambda: cookgraph.score(EXAMPLES[0], jobs=0), ValueError, "jobs: must be 1 to 1024, got 0"),
    (lambda: cookgraph.score(EXAMPLES[0], jobs=2.0), TypeError, "jobs: expected an int, got float"),
    (lambda: cookgraph.score(EXAMPLES[0], top=-1), ValueError, "top: must be at least 0, got -1"),
    (lambda: cookgraph.score(EXAMPLES[0], top="x"), TypeError, "top: expected an int, got str"),
    (lambda: cookgraph.score(EXAMPLES[0], budget_ms=10**400), ValueError,
     "budget_ms: must be a number of milliseconds > 0"),
    (lambda: cookgraph.score(EXAMPLES[0], errors=None), TypeError,
     "errors: expected 'raise' or 'collect', got NoneType"),
    (lambda: cookgraph.score(EXAMPLES[0], sort=None), TypeError,
     "sort: expected str, got NoneType"),
    (lambda: cookgraph.score(EXAMPLES[0], group_by=1), TypeError,
     "group_by: expected str, got int"),
    (lambda: cookgraph.score(EXAMPLES[0], baseline=1), TypeError,
     "baseline: expected str, bytes or os.PathLike, got int"),
    (lambda: cookgraph.diff(None, EXAMPLES[0]), TypeError,
     "before: expected str, bytes, os.PathLike or cookgraph.Snapshot, got NoneType"),
    (lambda: cookgraph.diff(EXAMPLES[0], 3), TypeError,
     "after: expected str, bytes, os.PathLike or cookgraph.Snapshot, got int"),
    (lambda: cookgraph.diff(EXAMPLES[0], EXAMPLES[0], alpha=10**400), ValueError,
     "alpha: must be in [1e-300, 0.5], got an int of 401 digits"),
    (lambda: cookgraph.diff(EXAMPLES[0], EXAMPLES[0], alpha="0.05"), TypeError,
     "alpha: expected a number, got str"),
    (lambda: cookgraph.diff(EXAMPLES[0], EXAMPLES[0], min_change=-1), ValueError,
     "min_change: must be a percentage in [0, 1000000]"),
    (lambda: cookgraph.load(EXAMPLES[0]).nodes(top=-1), ValueError,
     "top: must be at least 0, got -1"),
    (lambda: cookgraph.load(EXAMPLES[0]).nodes(sort=1), TypeError, "sort: expected str, got int"),
    (lambda: cookgraph.load(EXAMPLES[0]).containers(top=-2), ValueError,
     "top: must be at least 0, got -2"),
    (lambda: cookgraph.load(EXAMPLES[0]).series(None), TypeError,
     "node_id: expected str, got NoneType"),
    (lambda: cookgraph.load(EXAMPLES[0]).series("/x", metric=1), TypeError,
     "metric: expected str, got int"),
    (lambda: cookgraph.load(TRACES[1]).timeline(step="1"), TypeError,
     "step: expected an int, got str"),
    (lambda: cookgraph.load(TRACES[1]).critical_path(10**30), ValueError,
     "step: must be -9223372036854775808 to 9223372036854775807"),
    (lambda: cookgraph.load(EXAMPLES[0]).findings(pack=5), TypeError,
     "pack: expected str, bytes or os.PathLike, got int"),
    (lambda: cookgraph.load(EXAMPLES[0]).prompt(None), TypeError,
     "question: expected str, got NoneType"),
    (lambda: cookgraph.load(EXAMPLES[0]).prompt("q", budget_tokens=-1), ValueError,
     "budget_tokens: must be 1 to 10000000, got -1"),
    (lambda: cookgraph.load(EXAMPLES[0]).prompt("q", budget_tokens="9"), TypeError,
     "budget_tokens: expected an int, got str"),
    (lambda: cookgraph.load(EXAMPLES[0]).prompt("q", tokenizer=1.5), TypeError,
     "tokenizer: expected str, bytes or os.PathLike, got float"),
    (lambda: cookgraph.load(EXAMPLES[0]).prompt("q", stream="no"), TypeError,
     "stream: expected bool, got str"),
    (lambda: cookgraph.load(EXAMPLES[0]).ask("q", on_token="print"), TypeError,
     "on_token: expected a callable, got str"),
    (lambda: cookgraph.load(EXAMPLES[0]).ask("q", base_url=1), TypeError,
     "base_url: expected str, got int"),
    (lambda: no_client(batch_size=0), ValueError, "batch_size: must be at least 1, got 0"),
    (lambda: no_client(jobs=-1), ValueError, "jobs: must be 1 to 1024, got -1"),
    (lambda: no_client(retries=-1), ValueError, "retries: must be at least 0, got -1"),
    (lambda: no_client(top=-1), ValueError, "top: must be at least 0, got -1"),
    (lambda: no_client(paths=None), TypeError,
     "paths: expected str, bytes or os.PathLike, got NoneType"),
]


@pytest.mark.parametrize("call,error,text", ARGUMENT_CHECKS,
                         ids=[f"{n:02} {text}" for n, (_, _, text) in enumerate(ARGUMENT_CHECKS)])
def test_arguments_are_checked_by_name(call, error, text):
    # A wrong type is a TypeError, a wrong value a ValueError; the message names the argument.
    with pytest.raises(error) as raised:
        call()
    assert type(raised.value) is error, repr(raised.value)
    assert str(raised.value).startswith(text), str(raised.value)
