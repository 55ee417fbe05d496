"""Scoring any number of snapshots on a Dask cluster (docs/python.md#scoring-on-dask).

    from distributed import Client
    import cookgraph.dask
    client = Client("tcp://scheduler:8786")   # or a LocalCluster
    df = cookgraph.dask.score("snapshots/", client)

The inputs are found here, as `cookgraph score` finds them (folders searched,
GStreamer pairs and job ranks joined, sorted), and scored on the workers in
batches, one task per batch; the rows come back in input order, equal to
`cookgraph score PATHS --format csv`. The workers read the same paths, so
they must see the same files (a shared file system), and import cookgraph
(installed there, or on their PYTHONPATH).

A task's key names its batch and options (and each file's size and
modification time), so tasks are pure: the same work asked twice is done
once. When a worker dies, the scheduler runs its tasks again on another one;
no input is lost or scored twice in the result.
"""

from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np
import pandas as pd
from dask.base import tokenize
from distributed import Client, get_client

from . import Limits, Paths, PathLike, _check_errors, _cookgraph, _frame, _int, _jobs, _paths, \
    _raise, _score_options

__all__ = ["score"]

# Tasks per worker thread when batch_size is not given: enough that a lost
# worker's share is spread over the others and the last tasks are small.
_TASKS_PER_THREAD = 8
_MAX_BATCH = 100


def _score_batch(inputs: List[List[bytes]], options: Dict[str, Any],
                 jobs: int) -> Tuple[pd.DataFrame, List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Runs on a worker: one batch of inputs scored, its errors collected."""
    columns, errors, warnings = _cookgraph.score_inputs(inputs, jobs=jobs, stop_at_error=False,
                                                        **options)
    return pd.DataFrame(columns), errors, warnings


def _cells(column: pd.Series) -> Set[str]:
    """What the cells of one batch's column hold (_cookgraph's Columns, which
    gave the column its dtype from them): "text", "float", "int", "bool",
    "empty". A float64 column of an int column with empty cells says "float"
    and "empty", which decide the same dtype as "int" and "empty"."""
    if column.dtype == np.int64:
        return {"int"} if len(column) else set()
    if column.dtype == np.bool_:
        return {"bool"} if len(column) else set()
    if column.dtype == np.float64:
        missing = column.isna().to_numpy()
        return ({"empty"} if missing.any() else set()) | \
            ({"float"} if not missing.all() else set())
    cells: Set[str] = set()
    for value in column.tolist():
        if isinstance(value, str):
            cells.add("text")
        elif isinstance(value, bool):
            cells.add("bool")
        elif isinstance(value, int):
            cells.add("int")
        elif value != value:  # NaN: an empty cell
            cells.add("empty")
        else:
            cells.add("float")
    return cells


def _concat(tables: Sequence[pd.DataFrame], names: Sequence[str]) -> Dict[str, Any]:
    """The columns `names` of the batches' `tables` (at least one) joined,
    each with the dtype that _cookgraph's Columns gives the whole table, so
    that the result equals score()'s. pd.concat would decide from the
    batches' dtypes instead: the float64 columns of a batch without rows
    (all its inputs bad) would make ints and bools float64, and a column whose
    cells are all empty would make bools float64 where score() has object. Object columns keep their Python
    values (bool, int, float, str), as Columns makes them."""
    columns: Dict[str, Any] = {}
    for name in names:
        parts = [table[name] for table in tables]
        cells = set().union(*map(_cells, parts))
        number = "float" in cells or "int" in cells
        if "text" in cells or ("bool" in cells and (number or "empty" in cells)):
            columns[name] = [v for part in parts for v in part.tolist()]
            continue
        dtype = np.bool_ if "bool" in cells else \
            np.int64 if cells == {"int"} else np.float64
        columns[name] = np.concatenate([part.to_numpy(dtype=dtype) for part in parts])
    return columns


def _stamp(path: bytes) -> Tuple[bytes, int, int]:
    """A path with its size and modification time, for the task's key."""
    try:
        st = os.stat(path)
        return (path, st.st_size, st.st_mtime_ns)
    except OSError:  # the worker's read will say what is wrong
        return (path, -1, -1)


def _batch_size(inputs: int, client: Client) -> int:
    threads = max(1, sum(client.nthreads().values()))
    return max(1, min(_MAX_BATCH, math.ceil(inputs / (threads * _TASKS_PER_THREAD))))


def score(paths: Paths, client: Optional[Client] = None, *, batch_size: Optional[int] = None,
          jobs: int = 1, retries: int = 2, errors: str = "raise",
          budget_ms: Optional[float] = None, frame_marker: Optional[str] = None,
          format_in: Optional[str] = None, limits: Optional[Limits] = None,
          sort: str = "score", top: Optional[int] = None, group_by: Optional[str] = None,
          baseline: Optional[PathLike] = None) -> pd.DataFrame:
    """Scores `paths` on the Dask cluster of `client` (default: the current
    client, distributed.get_client()) into one DataFrame equal to
    `cookgraph score PATHS --format csv` with the same options, which are
    cookgraph.score()'s.

    batch_size: inputs per task (default: about eight tasks per worker thread,
    at most 100 inputs each). jobs: threads each task scores its batch on
    (default 1: the workers' threads are the parallelism). retries: how often
    a task that raised is run again (a worker that dies is not counted: its
    tasks are always run again elsewhere).

    errors="raise" (default) raises InputError for the first bad input in
    input order, once every task is done; errors="collect" lists them in
    df.attrs["errors"], as cookgraph.score() does.
    """
    raise_first = _check_errors(errors)
    paths = _paths(paths, "paths")
    batch_size = _int(batch_size, "batch_size", 1)
    jobs = _jobs(jobs)
    retries = _int(retries, "retries", 0)
    options = _score_options(budget_ms, frame_marker, format_in, limits, sort, top, group_by,
                             baseline)
    client = client if client is not None else get_client()
    inputs, expand_errors, expand_warnings = _cookgraph.expand_inputs(paths)
    if raise_first and expand_errors:
        _raise(expand_errors[0])
    # Scoring no input checks the options here, before any task is sent, and
    # gives the columns of an empty result.
    empty, _, _ = _cookgraph.score_inputs([], jobs=1, **options)
    if not inputs:
        return _frame(empty, expand_errors, expand_warnings)

    size = batch_size or _batch_size(len(inputs), client)
    batches = [inputs[i:i + size] for i in range(0, len(inputs), size)]
    stamps = {path: _stamp(path) for batch in batches for input_ in batch for path in input_}
    keys = [f"cookgraph-score-{tokenize([[stamps[p] for p in i] for i in batch], options, jobs)}"
            for batch in batches]
    futures = client.map(_score_batch, batches, [options] * len(batches),
                         [jobs] * len(batches), key=keys, pure=True, retries=retries)
    results = client.gather(futures)  # in input order
    score_errors = [e for _, errors_, _ in results for e in errors_]
    warnings = [w for _, _, warnings_ in results for w in warnings_]
    if raise_first and score_errors:
        _raise(score_errors[0])
    return _frame(_concat([table for table, _, _ in results], list(empty)),
                  expand_errors + score_errors, expand_warnings + warnings)
