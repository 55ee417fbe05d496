"""examples/cookgraph.ipynb runs: its code cells executed in order in one
namespace (no Jupyter needed), from the repository's root and from examples/
as Jupyter would run it, and its results are what the notebook says."""

import json
import os

import pandas as pd
import pytest

from against_cli import ROOT

NOTEBOOK = os.path.join(ROOT, "examples", "cookgraph.ipynb")


def run_notebook():
    with open(NOTEBOOK, encoding="utf-8") as f:
        notebook = json.load(f)
    assert notebook["nbformat"] == 4
    namespace = {"__name__": "__main__"}
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert len(cells) >= 6
    for number, cell in enumerate(cells):
        assert cell["outputs"] == [] and cell["execution_count"] is None  # committed unexecuted
        source = "".join(cell["source"])
        exec(compile(source, f"{NOTEBOOK} code cell {number}", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("cwd", [ROOT, os.path.join(ROOT, "examples")], ids=["root", "examples"])
def test_the_notebook_runs(cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    ns = run_notebook()
    assert isinstance(ns["top"], pd.DataFrame) and len(ns["top"]) == 10
    assert ns["summary"]["over_budget"] == 15  # the example's planted spikes
    assert not ns["findings"].empty
    assert list(ns["regressions"]["id"]) == ["/project1/fx/trails/blur_fb"]
    assert ns["frame_time"]["before"]["frames"] == 300 and "p_value" in ns["frame_time"]
    assert len(ns["per_file"]) == 3
