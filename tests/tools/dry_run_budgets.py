#!/usr/bin/env python3
"""`cookgraph ask --dry-run` against js-tiktoken: budgets, determinism, counts.

    dry_run_budgets.py COOKGRAPH SOURCE_DIR REFERENCE_DIR [--budgets N,N,...]

REFERENCE_DIR is the set-up's folder (tests/tools/token_corpus.sh): it holds
ranks/{o200k_base,cl100k_base}.tiktoken, and js-tiktoken is installed under
SOURCE_DIR/tests/tools/tiktoken. For every example and every budget from 1000
to 100000, with each way of counting (the estimator, an exact o200k_base rank
file, an exact cl100k_base one for a gpt-4 model), the request body that
`ask --dry-run` prints is counted by js-tiktoken as a server counts prompt
tokens, and checked:

  - its o200k_base count is at most the budget (gpt-4o runs), its
    cl100k_base count too (the gpt-4 run), and both for the estimator;
  - with an exact rank file, the count cookgraph reports on standard error
    equals js-tiktoken's; with the estimator it is at least js-tiktoken's for
    both encodings (the estimator never undercounts);
  - a second run gives the same bytes.

--budgets runs only those budgets (the test command runs each once: the
default, 20000, in the sanitizer build, the other six in the normal build).

Prints one line per request, and exits 1 on any failure.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

BUDGETS = [1000, 2000, 5000, 10000, 20000, 50000, 100000]
QUESTION = "Which nodes make frames miss the budget, and what should I change first?"


def main():
    cookgraph, source, reference = sys.argv[1:4]
    budgets = BUDGETS
    if len(sys.argv) == 6 and sys.argv[4] == "--budgets":
        budgets = [int(b) for b in sys.argv[5].split(",")]
    elif len(sys.argv) != 4:
        sys.exit("usage: dry_run_budgets.py COOKGRAPH SOURCE_DIR REFERENCE_DIR [--budgets N,N,...]")
    ranks = os.path.join(reference, "ranks")
    modes = [
        ("estimate", "gpt-4o", []),
        ("o200k", "gpt-4o", ["--tokenizer", os.path.join(ranks, "o200k_base.tiktoken")]),
        ("cl100k", "gpt-4", ["--tokenizer", os.path.join(ranks, "cl100k_base.tiktoken")]),
    ]
    examples = sorted(f for f in os.listdir(os.path.join(source, "examples")) if f.endswith(".json"))
    failures = []
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "home"))
        os.makedirs(os.path.join(work, "cache"))  # an empty tiktoken cache
        # and an empty data folder: not the rank files installed with
        # cookgraph, so that the run without --tokenizer is the estimator's.
        os.makedirs(os.path.join(work, "data"))
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "COOKGRAPH_BASE_URL",
                            "COOKGRAPH_MODEL", "DATA_GYM_CACHE_DIR", "XDG_CONFIG_HOME")}
        env.update(HOME=os.path.join(work, "home"), TIKTOKEN_CACHE_DIR=os.path.join(work, "cache"),
                   COOKGRAPH_DATA_DIR=os.path.join(work, "data"), NO_COLOR="1")
        runs = []  # (file, example, budget, mode, reported)

        def dry_run(example, budget, model, extra):
            command = [cookgraph, "ask", os.path.join(source, "examples", example), QUESTION,
                       "--dry-run", "--model", model, "--budget-tokens", str(budget)] + extra
            return subprocess.run(command, cwd=work, env=env, capture_output=True)

        for example in examples:
            for budget in budgets:
                for mode, model, extra in modes:
                    name = f"{example[:-5]}_{budget}_{mode}"
                    first = dry_run(example, budget, model, extra)
                    if first.returncode != 0:
                        failures.append(f"{name}: exit {first.returncode}: {first.stderr.decode()}")
                        continue
                    if mode != "cl100k":
                        second = dry_run(example, budget, model, extra)
                        if second.stdout != first.stdout:
                            failures.append(f"{name}: a second run gave different bytes")
                    match = re.search(rb"request: ([\d,]+) tokens of the", first.stderr)
                    if not match:
                        failures.append(f"{name}: no token count on stderr: {first.stderr.decode()}")
                        continue
                    path = os.path.join(work, name + ".json")
                    with open(path, "wb") as out:
                        out.write(first.stdout)
                    runs.append((path, name, budget, mode, int(match.group(1).replace(b",", b""))))

        counts_file = os.path.join(work, "counts.json")
        subprocess.run(["node", os.path.join(source, "tests/tools/tiktoken/reference.mjs"), "request",
                        counts_file] + [r[0] for r in runs], check=True)
        with open(counts_file) as f:
            counts = json.load(f)

        print(f"{'request':46} {'budget':>7} {'o200k':>7} {'cl100k':>7} {'cookgraph':>9} {'used':>6}")
        for path, name, budget, mode, reported in runs:
            o200k = counts[path]["o200k_base"]
            cl100k = counts[path]["cl100k_base"]
            print(f"{name:46} {budget:7} {o200k:7} {cl100k:7} {reported:9} {o200k / budget:6.1%}")
            # Each run is held to the encoding of its model; the estimate to both.
            if mode != "cl100k" and o200k > budget:
                failures.append(f"{name}: {o200k} o200k_base tokens, over the budget of {budget}")
            if mode != "o200k" and cl100k > budget:
                failures.append(f"{name}: {cl100k} cl100k_base tokens, over the budget of {budget}")
            if mode == "o200k" and reported != o200k:
                failures.append(f"{name}: cookgraph counted {reported}, js-tiktoken {o200k}")
            if mode == "cl100k" and reported != cl100k:
                failures.append(f"{name}: cookgraph counted {reported}, js-tiktoken {cl100k}")
            if mode == "estimate" and reported < max(o200k, cl100k):
                failures.append(f"{name}: the estimate {reported} is below the exact "
                                f"{max(o200k, cl100k)}")
        with open(os.path.join(reference, "dry_run_budgets.json"), "w") as f:
            json.dump({r[1]: {"budget": r[2], "reported": r[4], **counts[r[0]]} for r in runs}, f,
                      indent=1)

    if not runs:
        failures.append("no request was checked")
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    print(f"{len(runs)} requests checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
