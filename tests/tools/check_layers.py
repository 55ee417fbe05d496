#!/usr/bin/env python3
"""Checks that the code's dependencies follow the layers of
docs/architecture.md#layers, one way: base -> graph -> model -> metrics ->
adapters (readers) -> writers -> store -> advisor -> live -> pipeline -> server -> cli.

usage: check_layers.py REPO_ROOT

Reads every #include "..." of the library folders and fails (exit 1, one line
per include that crosses a layer the wrong way, as FILE:LINE) when a folder
includes a header it must not know: a reader a writer's, a writer a reader's
or the history store's, the advisor, live mode or the history store a
reader's, one input format another's, the LLM client or the token counter
anything above base/. On success prints
"check_layers: N includes of M files follow the layers". Standard library only.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# Folder (most specific first) -> the header folders it may include. A header
# folder allows its subfolders too unless one of them is named on its own.
ALLOWED = [
    ("base", ["base"]),
    ("graph", ["base", "graph"]),
    ("model", ["base", "graph", "model"]),
    ("metrics", ["base", "graph", "model", "metrics"]),
    # Each input format reads on top of the shared stages, never another format.
    ("adapters/native", ["base", "graph", "model", "metrics", "adapters/*.h", "adapters/native"]),
    ("adapters/chrome", ["base", "graph", "model", "metrics", "adapters/*.h", "adapters/chrome"]),
    ("adapters/gstreamer", ["base", "graph", "model", "metrics", "adapters/*.h", "adapters/gstreamer"]),
    ("adapters", ["base", "graph", "model", "metrics", "adapters"]),
    ("writers/heatmap", ["base", "graph", "model", "metrics", "writers/heatmap"]),
    ("writers", ["base", "graph", "model", "metrics", "writers/*.h"]),
    # The history of runs keeps what the writers produce; it reads no input file.
    ("store", ["base", "graph", "model", "metrics", "writers", "store"]),
    ("advisor/tokens", ["base", "advisor/tokens"]),
    ("advisor/llm", ["base", "advisor/llm"]),
    ("advisor/report", ["base", "graph", "model", "metrics", "writers", "advisor/findings.h",
                        "advisor/report"]),
    ("advisor", ["base", "graph", "model", "metrics", "writers", "advisor"]),
    ("live", ["base", "graph", "model", "metrics", "live"]),
    # Read, analyse, judge and the batch pool, once for every front end.
    ("pipeline", ["base", "graph", "model", "metrics", "adapters/*.h", "writers/*.h", "advisor",
                  "pipeline"]),
    # The explorer serves analyses; it never reads a file itself.
    ("server", ["base", "graph", "model", "metrics", "writers", "advisor", "server"]),
    # The MCP server opens inputs through the pipeline, as the CLI does.
    ("mcp", ["base", "graph", "model", "metrics", "adapters/*.h", "writers", "advisor", "pipeline", "mcp"]),
]


def allowed(header, rules):
    for rule in rules:
        if rule.endswith("/*.h"):  # the folder's own files, not its subfolders
            folder = rule[:-len("/*.h")]
            if os.path.dirname(header) == folder:
                return True
        elif rule.endswith(".h"):
            if header == rule:
                return True
        elif header.startswith(rule + "/"):
            return True
    return False


def rules_for(path):
    for folder, rules in ALLOWED:
        if path.startswith(folder + "/"):
            return rules
    return None


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    problems, includes, files = [], 0, 0
    for folder in sorted({f.split("/")[0] for f, _ in ALLOWED}):
        for dirpath, dirs, names in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for name in sorted(names):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                rules = rules_for(path)
                files += 1
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    for number, line in enumerate(f, start=1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        includes += 1
                        header = m.group(1)
                        if not allowed(header, rules):
                            problems.append("{}:{}: includes {}, which {} must not know".format(
                                path, number, header, os.path.dirname(path)))
    for p in problems:
        print(p)
    if problems:
        print("check_layers: {} include(s) cross the layers".format(len(problems)), file=sys.stderr)
        return 1
    if includes == 0:
        print("check_layers: no includes found under {}".format(root), file=sys.stderr)
        return 1
    print("check_layers: {} includes of {} files follow the layers".format(includes, files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
