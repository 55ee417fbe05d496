"""cookgraph for Python: profile node-graph dataflow engines from a notebook.

The same reading, analysis and output code as the ``cookgraph`` command, as
pandas objects (docs/python.md)::

    import cookgraph
    snap = cookgraph.load("examples/touchdesigner_feedback.json")
    snap.nodes().head(10)          # the rows of `cookgraph score --format csv`
    snap.frames()                  # per frame: frame_ms, over_budget, counted
    snap.findings()                # the knowledge pack's findings
    cookgraph.score("snapshots/", jobs=4)          # many inputs, one DataFrame
    cookgraph.diff("before.json", "after.json")    # `cookgraph diff --format csv`

Reading and analysing run in C++ without the GIL. Errors raise
cookgraph.Error subclasses whose str() is the CLI's one-line message.
"""

from __future__ import annotations

import json
import math
import numbers
import operator
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

# The installed package carries the built-in knowledge packs beside itself
# (python/CMakeLists.txt); the build tree's module reads them from the sources.
_PACKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "packs")
if os.path.isdir(_PACKS):
    os.environ.setdefault("COOKGRAPH_PACKS_DIR", _PACKS)

from . import _cookgraph  # noqa: E402  (after the packs' folder is known)
from ._cookgraph import Error, InputError, LlmError  # noqa: E402

__all__ = [
    "Answer",
    "Error",
    "InputError",
    "LlmError",
    "Snapshot",
    "diff",
    "load",
    "score",
]
__version__ = "0.1.0"

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
Paths = Union[PathLike, Sequence[PathLike]]
Limits = Mapping[str, Union[int, str]]

# The arguments' checks (docs/python.md#options): a wrong type is a TypeError,
# a wrong value a ValueError, each message starting with the argument's name.
# The values that the CLI checks (budget_ms's, alpha's, a regex, a sort key)
# the C++ half checks, with the CLI's messages; these check the rest.


def _type(value: Any) -> str:
    return type(value).__name__


def _shown(value: Any) -> str:
    """`value` for a message: its repr, cut at 40 characters."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**40:
        # repr() of a huge int is long (and refused past 4300 digits).
        digits = int(math.log10(abs(value))) + 1
        digits += (10**digits <= abs(value)) - (10**(digits - 1) > abs(value))
        return f"{'-' if value < 0 else ''}an int of {digits} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _path(value: Any, name: str) -> bytes:
    """A path as the bytes the C++ half takes (os.fsencode): a str (also one
    with os.fsdecode's surrogate escapes for bytes that are not UTF-8), bytes,
    or an os.PathLike giving either."""
    try:
        path = os.fsencode(value)
    except TypeError:
        raise TypeError(f"{name}: expected str, bytes or os.PathLike, got {_type(value)}") from None
    except UnicodeEncodeError as e:
        raise ValueError(f"{name}: not a file name ({e.reason}), got {_shown(value)}") from None
    if b"\0" in path:
        raise ValueError(f"{name}: embedded null byte, got {_shown(value)}")
    return path


def _paths(paths: Any, name: str = "path") -> List[bytes]:
    """One path or several (any iterable of paths), as the list of bytes the
    C++ half takes."""
    if isinstance(paths, (str, bytes, os.PathLike)) or not hasattr(paths, "__iter__"):
        return [_path(paths, name)]
    return [_path(p, f"{name}[{i}]") for i, p in enumerate(paths)]


def _optional_path(value: Any, name: str) -> Optional[bytes]:
    return None if value is None else _path(value, name)


def _int(value: Any, name: str, minimum: int, maximum: Optional[int] = None) -> Optional[int]:
    """An int option (None = not given) within [minimum, maximum]."""
    if value is None:
        return None
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {_type(value)}") from None
    if number < minimum or (maximum is not None and number > maximum):
        rule = f"at least {minimum}" if maximum is None else f"{minimum} to {maximum}"
        raise ValueError(f"{name}: must be {rule}, got {_shown(number)}")
    return number


# The float options and what their values must be (the CLI's checks, which
# the C++ half makes: these are for a number too large for a float).
_REAL_RULES = {
    "budget_ms": "must be a number of milliseconds > 0",
    "alpha": "must be in [1e-300, 0.5]",
    "min_change": "must be a percentage in [0, 1000000]",
}


def _real(value: Any, name: str) -> Optional[float]:
    """A float option (None = not given): a real number (int, float, NumPy's)."""
    if value is None:
        return None
    kind = type(value)
    if isinstance(value, (str, bytes, bytearray)) or not (hasattr(kind, "__float__")
                                                           or hasattr(kind, "__index__")):
        raise TypeError(f"{name}: expected a number, got {_type(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name}: {_REAL_RULES[name]}, got {_shown(value)}") from None


def _text(value: Any, name: str, optional: bool = True) -> Optional[str]:
    """A str option (None = not given, where `optional`)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected str, got {_type(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{name}: not UTF-8 text ({e.reason}), got {_shown(value)}") from None
    return value


def _flag(value: Any, name: str) -> Optional[bool]:
    if value is None:
        return None
    if not isinstance(value, (bool, np.bool_, numbers.Integral)):
        raise TypeError(f"{name}: expected bool, got {_type(value)}")
    return bool(value)


def _limits(limits: Any) -> Optional[Dict[Any, Any]]:
    if limits is None:
        return None
    if not isinstance(limits, Mapping):
        raise TypeError(f"limits: expected a dict of limit to value, got {_type(limits)}")
    return dict(limits)


def _read_options(budget_ms: Any, frame_marker: Any, format_in: Any,
                  limits: Any) -> Dict[str, Any]:
    """The options of every read (load, score, diff) checked, as keywords of
    the C++ half."""
    return {"budget_ms": _real(budget_ms, "budget_ms"),
            "frame_marker": _text(frame_marker, "frame_marker"),
            "format_in": _text(format_in, "format_in"), "limits": _limits(limits)}


def _raise(error: Mapping[str, Any]) -> None:
    """Raises a collected error (score's errors="collect" form) as its class."""
    cls = Error if error.get("internal") else InputError
    exception = cls(error["error"])
    for key in ("file", "line", "column", "where", "message"):
        setattr(exception, key, error[key])
    raise exception


def _check_errors(errors: str) -> bool:
    """True for errors="raise"; TypeError for a non-str, ValueError for anything
    but "raise" and "collect"."""
    if not isinstance(errors, str):
        raise TypeError(f"errors: expected 'raise' or 'collect', got {_type(errors)}")
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors: expected 'raise' or 'collect', got {errors!r}")
    return errors == "raise"


@dataclass(frozen=True)
class Answer:
    """What Snapshot.ask() returns. str(answer) is the answer's text."""

    text: str  #: the answer, with the API key (if the endpoint echoed it) redacted
    reasoning: str  #: a reasoning model's reasoning text, kept out of `text`
    finish_reason: Optional[str]  #: "stop", "length", "content_filter", ...; None = not reported
    usage: Optional[Dict[str, int]]  #: the server's token counts, or None
    attempts: int  #: HTTP requests made, retries included
    model: str  #: the model asked
    prompt_tokens: int  #: the request's tokens as cookgraph counted them

    def __str__(self) -> str:
        return self.text


class CriticalPath(dict):
    """`score --format json`'s "critical_path" ({nodes, per_frame_ms}), which
    can also be called: snap.critical_path(step=None) gives a trace's event
    critical path as a DataFrame (see Snapshot.critical_path)."""

    def __init__(self, summary: Mapping[str, Any], events: Callable[[Optional[int]], pd.DataFrame]):
        super().__init__(summary)
        self._events = events

    def __call__(self, step: Optional[int] = None) -> pd.DataFrame:
        return self._events(step)


class Snapshot:
    """One input read and analysed: what load() returns.

    Every table is computed by the same code as the CLI's output; nodes()
    holds exactly the rows of `cookgraph score --format csv`.
    """

    def __init__(self, core: "_cookgraph.Snapshot") -> None:
        self._core = core

    # -- what the input is -------------------------------------------------

    @property
    def file(self) -> str:
        """The input as given: its path, or the paths joined by " + "."""
        return self._core.file

    @cached_property
    def info(self) -> Dict[str, Any]:
        """Metadata and the frame-time summary: file, engine, name, source,
        captured, fps, frame_budget_ms (as the input gives them), budget_ms
        (the budget applied; None for steps without one), nodes, edges,
        frames, counted_frames, frame_ms {mean, p95, max, measured},
        over_budget_frames (None without a budget)."""
        return self._core.info()

    @property
    def warnings(self) -> List[str]:
        """What the reader kept going past and what the analysis noticed (the
        CLI prints them as warnings), one line each."""
        return self._core.warnings

    # -- tables ------------------------------------------------------------

    def nodes(self, sort: str = "score", top: Optional[int] = None) -> pd.DataFrame:
        """One row per node, ranked: the columns and values of
        `cookgraph score FILE --format csv --sort SORT --top TOP`.

        sort: score (default), avg, p95, max, per-frame, gpu, upstream or gain
            (the predicted mean frame ms saved by halving the node; adds gain_ms).
        top: rows to keep; None or 0 = all.
        """
        return pd.DataFrame(self._core.nodes(_text(sort, "sort", optional=False), _top(top)))

    def containers(self, top: Optional[int] = None) -> pd.DataFrame:
        """One row per container (COMP, bin, module), costliest first: the
        rows of `cookgraph score FILE --format csv --group-by container`."""
        return pd.DataFrame(self._core.nodes("score", _top(top), "container"))

    def frames(self) -> pd.DataFrame:
        """One row per frame, indexed by the engine's frame number ("frame"):
        frame_ms (measured, else the sum of the nodes' cook_ms; NaN for a frame
        without work), over_budget (frame time > the budget) and counted (the
        frame is in the frame statistics)."""
        columns = self._core.frames()
        index = pd.Index(columns.pop("frame"), name="frame")
        return pd.DataFrame(columns, index=index)

    def series(self, node_id: str, metric: str = "cook_ms") -> pd.Series:
        """One node's per-frame values of `metric` (cook_ms, gpu_ms,
        cpu_mem_mb, gpu_mem_mb, cooks, latency_ms or inclusive_ms), indexed like frames(); NaN where the
        node did not cook. KeyError for an id the network does not have."""
        values = self._core.series(_text(node_id, "node_id", optional=False),
                                   _text(metric, "metric", optional=False))
        index = pd.Index(self._core.frames()["frame"], name="frame")
        return pd.Series(values, index=index, name=node_id)

    def findings(self, pack: Optional[PathLike] = None) -> pd.DataFrame:
        """The findings of the engine's built-in knowledge pack, or of the pack
        file `pack`, as `cookgraph report` lists them: rule, severity, title,
        nodes (ids, most important first), numbers (the evidence, name ->
        value) and suggestion. InputError for a pack that cannot be read."""
        rows = self._core.findings(b"" if pack is None else _path(pack, "pack"))
        columns = ["rule", "severity", "title", "nodes", "numbers", "suggestion"]
        return pd.DataFrame(rows, columns=columns)

    # -- what `score --format json` adds around the rows -------------------

    @cached_property
    def _json(self) -> Dict[str, Any]:
        return json.loads(self._core.score_json())

    @property
    def loops(self) -> List[Dict[str, Any]]:
        """Feedback loops and cycles, costliest first: [{kind, nodes,
        per_frame_ms}] as in `score --format json`."""
        return self._json["loops"]

    @property
    def critical_path(self) -> CriticalPath:
        """The critical path as `score --format json` writes it: {nodes,
        per_frame_ms} (for a trace, the event critical path of one step and
        its length). Called, snap.critical_path(step=None), a trace's event
        critical path as a DataFrame in path order, as HTA's
        critical_path_analysis gives it: rank, step, name, node (None for an
        event of no node), track, gpu, ts_us, dur_us; step None means the
        step `score` reports, else the step numbered so (ValueError when the
        trace has none); empty for inputs without a timeline."""
        return CriticalPath(self._json["critical_path"], self._critical_path_events)

    def _critical_path_events(self, step: Optional[int]) -> pd.DataFrame:
        return pd.DataFrame(self._core.critical_path_events(_step(step)))

    # -- traces, as HTA's DataFrames ----------------------------------------

    def timeline(self, step: Optional[int] = None) -> pd.DataFrame:
        """Every event of a trace's timelines (one per rank), or of the step
        numbered `step`: rank, track ("thread 12 (pid 7)", "GPU 0 stream 7"),
        gpu, name, node (the node it counts for; None for markers and other
        events of no node), kind (cpu_op, runtime, annotation, marker, kernel,
        memcpy, memset, gpu_annotation, gpu_sync, other), ts_us and dur_us (on
        the trace's own clock), step (None outside every step), correlation,
        and gpu_counted (a GPU event the GPU analyses count: HTA leaves out
        those of the last step). Empty for inputs without a timeline."""
        return pd.DataFrame(self._core.timeline(_step(step)))

    def launches(self) -> pd.DataFrame:
        """The launches the launch statistics are over (HTA's
        get_cuda_kernel_launch_stats): rank, kernel, stream, launch_call,
        call_ts_us, call_dur_us, kernel_ts_us, kernel_dur_us, launch_delay_us
        (kernel start - call end, clipped at 0), step. Their count, mean,
        p50, p95 and max are gpu["launches"]."""
        return pd.DataFrame(self._core.launches())

    def kernels(self) -> pd.DataFrame:
        """Per rank and GPU event name (kernels, copies, memsets; those the GPU
        analyses count), HTA's get_gpu_kernel_breakdown's kernel table: rank, name, kind, count,
        sum_us, mean_us, min_us, max_us, std_us (population), largest sum
        first. Their sums per rank are the streams' kernel_ms in gpu."""
        t = self.timeline()
        columns = ["rank", "name", "kind", "count", "sum_us", "mean_us", "min_us", "max_us",
                   "std_us"]
        work = t[t["gpu_counted"] & t["kind"].isin(["kernel", "memcpy", "memset"])] if len(t) else t
        if len(work) == 0:
            return pd.DataFrame(columns=columns)
        grouped = work.groupby(["rank", "name", "kind"], sort=False)["dur_us"]
        out = grouped.agg(count="count", sum_us="sum", mean_us="mean", min_us="min",
                          max_us="max", std_us=lambda v: v.std(ddof=0)).reset_index()
        return out.sort_values(["sum_us", "name"], ascending=[False, True],
                               ignore_index=True)[columns]

    def gpu_breakdown(self) -> pd.DataFrame:
        """HTA's temporal breakdown, one row per rank with GPU work: rank,
        kernel_span_ms, idle_ms, compute_ms, non_compute_ms,
        communication_ms, memory_ms, and idle_share, compute_share,
        non_compute_share of the span; the numbers of gpu["ranks"]."""
        columns = ["rank", "kernel_span_ms", "idle_ms", "compute_ms", "non_compute_ms",
                   "communication_ms", "memory_ms"]
        ranks = (self.gpu or {}).get("ranks", [])
        out = pd.DataFrame([{c: r[c] for c in columns} for r in ranks], columns=columns)
        for part in ("idle", "compute", "non_compute"):
            out[f"{part}_share"] = out[f"{part}_ms"] / out["kernel_span_ms"]
        return out

    @property
    def spikes(self) -> pd.DataFrame:
        """The nodes that grew most in the over-budget frames: id, median_ms,
        frames, excess_ms, max_excess_ms, worst_frame, share_of_overrun."""
        columns = ["id", "median_ms", "frames", "excess_ms", "max_excess_ms", "worst_frame",
                   "share_of_overrun"]
        return pd.DataFrame(self._json["spikes"], columns=columns)

    @property
    def trace(self) -> Optional[Dict[str, Any]]:
        """Traces (PyTorch, TensorFlow, ONNX Runtime, Perfetto): {slowest_step,
        gpu, memory, ranks} as `score --format json` writes them; None for
        other inputs."""
        if "gpu" not in self._json:
            return None
        keys = ("slowest_step", "gpu", "memory", "ranks")
        return {key: self._json.get(key) for key in keys}

    @property
    def gpu(self) -> Optional[Dict[str, Any]]:
        """A trace's GPU time (per rank, stream and step; launches; overlap);
        None without GPU events or for other inputs."""
        return self._json.get("gpu")

    @property
    def streaming(self) -> Optional[Dict[str, Any]]:
        """GStreamer recordings: {threads, process_cpu_load_pct,
        bottleneck_thread, latency_ms}; None for other inputs."""
        if "threads" not in self._json:
            return None
        keys = ("threads", "process_cpu_load_pct", "bottleneck_thread", "latency_ms")
        return {key: self._json[key] for key in keys}

    @property
    def threads(self) -> Optional[List[Dict[str, Any]]]:
        """GStreamer recordings: the streaming threads, as `score --format
        json` writes "threads"; None for other inputs."""
        return self._json.get("threads")

    # -- the LLM advisor ---------------------------------------------------

    def prompt(self, question: str, *, budget_tokens: Optional[int] = None,
               model: Optional[str] = None, persona: Optional[str] = None,
               tokenizer: Optional[PathLike] = None, pack: Optional[PathLike] = None,
               stream: Optional[bool] = None) -> Dict[str, Any]:
        """The JSON request body that `cookgraph ask FILE QUESTION --dry-run
        --no-tools` prints, as a dict. Settings not given are resolved as the CLI resolves
        them (COOKGRAPH_MODEL, ./cookgraph.yaml, ..., else the default model
        gpt-4o-mini)."""
        body = self._core.prompt(_text(question, "question", optional=False),
                                 **_advice_options(model=model, persona=persona,
                                                   budget_tokens=budget_tokens,
                                                   tokenizer=tokenizer, pack=pack, stream=stream))
        return json.loads(body)

    def ask(self, question: str, *, on_token: Optional[Callable[[str], Any]] = None,
            base_url: Optional[str] = None, model: Optional[str] = None,
            persona: Optional[str] = None, budget_tokens: Optional[int] = None,
            tokenizer: Optional[PathLike] = None, pack: Optional[PathLike] = None,
            stream: Optional[bool] = None) -> Answer:
        """Asks the OpenAI-compatible endpoint what `cookgraph ask` would ask,
        through the same client (retries, timeouts, the key kept out of the
        answer). Each piece of the answer is passed to on_token as it arrives.
        LlmError when the endpoint fails; ValueError when no endpoint is
        configured (OPENAI_API_KEY alone means OpenAI's). An exception raised
        by on_token (or Ctrl-C) is raised once the answer has been read to its
        end."""
        if on_token is not None and not callable(on_token):
            raise TypeError(f"on_token: expected a callable, got {_type(on_token)}")
        result = self._core.ask(_text(question, "question", optional=False), on_token=on_token,
                                base_url=_text(base_url, "base_url"),
                                **_advice_options(model=model, persona=persona,
                                                  budget_tokens=budget_tokens,
                                                  tokenizer=tokenizer, pack=pack, stream=stream))
        return Answer(**result)

    def __repr__(self) -> str:
        i = self.info
        text = f"<cookgraph.Snapshot {i['file']!r}: {i['engine']}"
        if i["name"]:
            text += f" {i['name']!r}"
        text += (f", {i['nodes']} nodes, {i['frames']} frames, frame time mean "
                 f"{i['frame_ms']['mean']:.3f} ms")
        if i["budget_ms"] is not None:
            text += f", budget {i['budget_ms']:.3f} ms, {i['over_budget_frames']} over"
        return text + ">"


def load(path: Paths, *, budget_ms: Optional[float] = None, frame_marker: Optional[str] = None,
         format_in: Optional[str] = None, limits: Optional[Limits] = None) -> Snapshot:
    """Reads and analyses one input, as `cookgraph score FILE` reads it.

    path: a snapshot or Chrome trace (plain or .gz), a folder holding a
    GStreamer recording or the ranks of one job, or a list of paths (a
    GStreamer .dot dump and its log, or a job's rank traces).
    budget_ms, frame_marker, format_in, limits: as --budget-ms,
    --frame-marker, --format-in and --limit KEY=VALUE (limits={"depth": 512,
    "input_size": "1G"}).

    A path is a str (also one with os.fsdecode's surrogate escapes), bytes
    or an os.PathLike. The GIL is released while the input is read and
    analysed. InputError (str() = the CLI's message) when it cannot be read;
    TypeError for an argument of the wrong type, ValueError for a bad value.
    """
    core = _cookgraph.load(_paths(path), **_read_options(budget_ms, frame_marker, format_in,
                                                         limits))
    return Snapshot(core)


def _top(top: Any) -> Optional[int]:
    # More rows than a size_t counts are all the rows.
    top = _int(top, "top", 0)
    return None if top is None else min(top, sys.maxsize)


def _step(step: Any) -> Optional[int]:
    return _int(step, "step", -2**63, 2**63 - 1)


def _advice_options(*, model, persona, budget_tokens, tokenizer, pack, stream) -> Dict[str, Any]:
    """prompt()'s and ask()'s options, checked, as the C++ half takes them."""
    return {"model": _text(model, "model"), "persona": _text(persona, "persona"),
            "budget_tokens": _int(budget_tokens, "budget_tokens", 1, 10_000_000),
            "tokenizer": _optional_path(tokenizer, "tokenizer"),
            "pack": _optional_path(pack, "pack"), "stream": _flag(stream, "stream")}


def _score_options(budget_ms, frame_marker, format_in, limits, sort, top, group_by,
                   baseline) -> Dict[str, Any]:
    """score()'s options, checked, as _cookgraph.score_inputs takes them (also
    sent to Dask workers by cookgraph.dask)."""
    return {**_read_options(budget_ms, frame_marker, format_in, limits),
            "sort": _text(sort, "sort", optional=False), "top": _top(top),
            "group_by": _text(group_by, "group_by"),
            "baseline": _optional_path(baseline, "baseline")}


def _jobs(jobs: Any) -> Optional[int]:
    return _int(jobs, "jobs", 1, 1024)


def _frame(columns: Mapping[str, Any], errors: List[Dict[str, Any]],
           warnings: List[Dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    frame.attrs["errors"] = errors
    frame.attrs["warnings"] = warnings
    return frame


def score(paths: Paths, *, jobs: Optional[int] = None, errors: str = "raise",
          budget_ms: Optional[float] = None, frame_marker: Optional[str] = None,
          format_in: Optional[str] = None, limits: Optional[Limits] = None,
          sort: str = "score", top: Optional[int] = None, group_by: Optional[str] = None,
          baseline: Optional[PathLike] = None) -> pd.DataFrame:
    """Scores many inputs into one DataFrame equal to `cookgraph score PATHS
    --format csv` with the same options: folders are searched as the CLI
    searches them, the inputs sorted, read on `jobs` threads (default one per
    core) without the GIL, and their rows concatenated in input order.

    errors="raise" (default): the first bad input, in input order, raises
    InputError with the CLI's message, and inputs after it are not read.
    errors="collect": bad inputs are skipped, as the CLI skips them, and listed
    in df.attrs["errors"] (dicts: file, line, column, where, message, error =
    the CLI's line). df.attrs["warnings"] holds the warnings ({file, message}).
    An error's "file" is the path as os.fsdecode gives it (open() takes it).

    TypeError for an argument of the wrong type, ValueError for a bad value.
    """
    raise_first = _check_errors(errors)
    paths = _paths(paths, "paths")
    jobs = _jobs(jobs)
    options = _score_options(budget_ms, frame_marker, format_in, limits, sort, top, group_by,
                             baseline)
    inputs, expand_errors, expand_warnings = _cookgraph.expand_inputs(paths)
    if raise_first and expand_errors:
        _raise(expand_errors[0])
    columns, score_errors, warnings = _cookgraph.score_inputs(
        inputs, jobs=jobs, stop_at_error=raise_first, **options)
    if raise_first and score_errors:
        _raise(score_errors[0])
    return _frame(columns, expand_errors + score_errors, expand_warnings + warnings)


def diff(before: Union[PathLike, Snapshot], after: Union[PathLike, Snapshot], *,
         alpha: Optional[float] = None, min_change: Optional[float] = None,
         frame_marker: Optional[str] = None, format_in: Optional[str] = None,
         limits: Optional[Limits] = None) -> pd.DataFrame:
    """What changed from `before` to `after`: the rows of `cookgraph diff
    BEFORE AFTER --format csv` (a row per matched node, then the added and
    the removed ones), with alpha and min_change as --alpha and --min-change.

    df.attrs holds the rest of `diff --format json`: "frame_ms" (the frame
    time's change: before/after {frames, mean, p95, measured}, change_ms,
    change_pct, p_value, t, df, regression, improvement, note), "before" and
    "after" ({file, name, engine, nodes, frames}), "regressions",
    "improvements", "regressed", "added", "removed", "alpha",
    "min_change_pct", "test", "warnings" (the comparison's), and
    "input_warnings" ({file, message}: the analyses' warnings).

    A Snapshot is compared as loaded (with its own budget_ms); a path (str,
    bytes or os.PathLike) is read and analysed as the CLI reads it.
    """
    def side(x, name):
        if isinstance(x, Snapshot):
            return x._core
        if isinstance(x, (str, bytes, os.PathLike)):
            return _path(x, name)
        raise TypeError(f"{name}: expected str, bytes, os.PathLike or cookgraph.Snapshot, "
                        f"got {_type(x)}")

    options = _read_options(None, frame_marker, format_in, limits)
    del options["budget_ms"]
    columns, text, warnings = _cookgraph.diff(
        side(before, "before"), side(after, "after"), alpha=_real(alpha, "alpha"),
        min_change=_real(min_change, "min_change"), **options)
    frame = pd.DataFrame(columns)
    document = json.loads(text)
    for key, value in document.items():
        if key not in ("cookgraph", "nodes"):
            frame.attrs[key] = value
    frame.attrs["input_warnings"] = warnings
    return frame
