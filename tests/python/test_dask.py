"""cookgraph.dask.score on a local Dask cluster of two worker processes
(python/cookgraph/dask.py, docs/python.md#scoring-on-dask).

2,000 small snapshots written by examples/generate.py (--big's writer) are
scored into one DataFrame that must equal `cookgraph score DIR --format csv`
row for row; then again while one worker process is killed (SIGKILL) in the
middle of the run: the scheduler runs its tasks again elsewhere, and no
snapshot may be lost or doubled. With errors="collect" and batches of which
some, or all, hold only bad inputs, the result must equal cookgraph.score()'s,
dtypes included.
"""

import importlib.util
import logging
import multiprocessing
import os
import signal
import threading
import time

import pandas as pd
import pytest
from distributed import Client, LocalCluster

import cookgraph.dask
from against_cli import ROOT, assert_equal_to_csv, run

COUNT = 2000
# distributed 2022.12 under tornado 6.2: harmless, and not this test's concern.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "generate", os.path.join(ROOT, "examples", "generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(args):
    folder, first, last = args
    generate = _load_generator()
    for i in range(first, last):
        # 24 nodes (two containers), 12 frames, each snapshot its own seed.
        generate.write_big(24, 12, os.path.join(folder, f"snapshot_{i:04d}.json"), i)


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("snapshots"))
    halves = [(folder, 0, COUNT // 2), (folder, COUNT // 2, COUNT)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_write, halves)
    return folder


@pytest.fixture(scope="module")
def expected(snapshots):
    return run("score", snapshots, "--format", "csv", "-j", "2").stdout


def local_cluster():
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=logging.CRITICAL)


def test_dask_scores_every_snapshot_as_the_cli(snapshots, expected):
    with local_cluster() as cluster, Client(cluster) as client:
        frame = cookgraph.dask.score(snapshots, client)
    assert frame["file"].nunique() == COUNT
    assert_equal_to_csv(frame, expected)
    assert frame.attrs["errors"] == []


def done_tasks(dask_scheduler):
    return sum(1 for key, task in dask_scheduler.tasks.items()
               if str(key).startswith("cookgraph-score-") and task.state == "memory")


def test_a_killed_worker_loses_no_snapshot(snapshots, expected):
    batch = 10  # 200 tasks: the kill lands among them
    tasks = COUNT // batch
    with local_cluster() as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)  # worker address -> its process id
        killed = {}

        def kill_one_busy_worker():
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not killed:
                done = client.run_on_scheduler(done_tasks)
                busy = [addr for addr, keys in client.processing().items() if keys]
                if done >= tasks // 10 and busy:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.update(address=busy[0], pid=pids[busy[0]], done=done)
                    return
                time.sleep(0.01)

        killer = threading.Thread(target=kill_one_busy_worker)
        killer.start()
        try:
            frame = cookgraph.dask.score(snapshots, client, batch_size=batch)
        finally:
            killer.join()
        assert killed, "no worker was killed during the run"
        assert killed["done"] < tasks, killed  # killed in the middle, not after the end
        assert killed["pid"] not in client.run(os.getpid).values()
    assert frame["file"].nunique() == COUNT
    assert_equal_to_csv(frame, expected)


def mixed_folder(folder, good, bad):
    """`good` small snapshots and `bad` bad inputs (truncated, not a format),
    named so that the bad ones sort together between the good ones."""
    os.makedirs(folder)
    generate = _load_generator()
    for i in range(good):
        prefix = "a" if i < good // 2 else "c"
        generate.write_big(24, 12, os.path.join(folder, f"{prefix}_good_{i}.json"), i)
    text = open(os.path.join(ROOT, "examples", "touchdesigner_feedback.json")).read()
    for i in range(bad):
        with open(os.path.join(folder, f"b_bad_{i}.json"), "w") as f:
            f.write(text[: len(text) // 2] if i % 2 == 0 else "hello\n")
    return folder


@pytest.mark.filterwarnings("error::FutureWarning")
def test_batches_of_bad_inputs_give_score_s_dtypes(tmp_path):
    mixed = mixed_folder(str(tmp_path / "mixed"), 4, 2)  # batch_size 2: b_bad_* a batch alone
    good = mixed_folder(str(tmp_path / "good"), 4, 0)
    bad = mixed_folder(str(tmp_path / "bad"), 0, 3)
    with local_cluster() as cluster, Client(cluster) as client:
        for folder, sizes in ((mixed, (1, 2, 3, 6)), (good, (1, 3)), (bad, (1, 2))):
            for options in ({}, {"group_by": "container"}):
                want = cookgraph.score(folder, errors="collect", **options)
                for size in sizes:
                    got = cookgraph.dask.score(folder, client, batch_size=size,
                                               errors="collect", **options)
                    where = (folder, size, options)
                    pd.testing.assert_frame_equal(got, want, check_exact=True, obj=str(where))
                    assert got.attrs == want.attrs, where
        assert len(cookgraph.score(mixed, errors="collect")) == 4 * 24
        assert len(cookgraph.score(bad, errors="collect").attrs["errors"]) == 3
        with pytest.raises(cookgraph.InputError) as raised:
            cookgraph.score(mixed)
        with pytest.raises(cookgraph.InputError) as dask_raised:
            cookgraph.dask.score(mixed, client, batch_size=2)
        assert str(dask_raised.value) == str(raised.value)
