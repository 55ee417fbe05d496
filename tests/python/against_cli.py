"""What the Python module's tests compare with: the cookgraph CLI, run as a user runs it.

tests/python.cmake sets COOKGRAPH (the binary) and runs the tests from the
repository's root, so that relative paths name inputs the same way on both
sides. Standard library and pandas only.
"""

import io
import os
import re
import subprocess
import sys

import pandas as pd

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COOKGRAPH = os.environ.get("COOKGRAPH") or os.path.join(ROOT, "build", "cli", "cookgraph")
PYTHON = sys.executable

# score_csv.cc writes a text cell that starts like a formula with a leading '.
FORMULA = re.compile(r"^'(?=[=+\-@\t\r])")


def run(*args, env=None, expect=0, cwd=None):
    """Runs `cookgraph ARGS...`; its CompletedProcess (text), the exit code checked."""
    proc = subprocess.run([COOKGRAPH, *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=cwd)
    assert proc.returncode == expect, (
        f"cookgraph {' '.join(map(str, args))} exited {proc.returncode}, want {expect}:\n"
        f"{proc.stderr[-3000:]}")
    return proc


def error_lines(stderr):
    """The messages of the CLI's "cookgraph: error: " lines, in order."""
    prefix = "cookgraph: error: "
    return [line[len(prefix):] for line in stderr.splitlines() if line.startswith(prefix)]


def cli_error(*args, expect=2, env=None):
    """The one error message `cookgraph ARGS...` prints (it must print exactly one)."""
    lines = error_lines(run(*args, expect=expect, env=env).stderr)
    assert len(lines) == 1, lines
    return lines[0]


def read_csv(text, like):
    """The CLI's CSV `text` read by pandas with the dtypes of the DataFrame
    `like` (a whole number written by a float column stays a float), text
    cells as text with the CSV's formula quote taken off, and only empty cells
    missing. Columns of booleans with gaps are left to pandas (object)."""
    dtypes, text_columns = {}, []
    for name, dtype in like.dtypes.items():
        if dtype != object:
            dtypes[name] = dtype
        elif all(isinstance(v, str) for v in like[name].dropna()):
            dtypes[name] = str
            text_columns.append(name)
    frame = pd.read_csv(io.StringIO(text), dtype=dtypes, keep_default_na=False, na_values=[""],
                        float_precision="round_trip")
    for name in text_columns:
        frame[name] = frame[name].str.replace(FORMULA, "", regex=True)
    return frame


def assert_equal_to_csv(frame, text):
    """`frame` holds exactly the columns and values of the CLI's CSV `text`."""
    assert text.splitlines()[0].split(",") == list(frame.columns)
    cli = read_csv(text, frame)
    assert len(frame) == len(cli) and len(frame) > 0, (len(frame), len(cli))
    pd.testing.assert_frame_equal(frame, cli, check_exact=True)
