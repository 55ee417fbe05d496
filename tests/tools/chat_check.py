#!/usr/bin/env python3
"""Checks `cookgraph ask` conversations and tool calls from the outside.

    chat_check.py --cookgraph BIN --source DIR --work DIR MODE [options]

Modes (docs/testing.md#conversations-and-tool-calls):

  setup         installs what the other modes need when it is missing: js-tiktoken
                (tests/tools/tiktoken, npm ci as tests/tools/token_corpus.sh does)
                and the third-party mock server (tests/tools/openai_mock, npm ci)
  conversation  the five-turn conversation of tests/data/chat_questions.json on the
                PyTorch example, asked through tests/tools/fake_llm_server.py's
                `script` case (a scripted model that calls the tools):
                (a) every request's token count by the rule of
                    docs/formats.md#token-counts, recounted with js-tiktoken
                    (o200k_base), is at most --budget; where cookgraph's stderr
                    gives its own count, an exact count equals it and an
                    estimate is not below it;
                (b) the nodes the script asks the tool `node` for are outside
                    the first request's node list (by rank, as `score --format
                    json --top 0` ranks them), and each call's result (the
                    "tool" message of the next request) is the node's object
                    with the statistics of the score JSON's: every field both
                    have, the same value; every node a top_nodes call returns
                    (sorted by score) is compared the same way
  resume        (c) the same conversation in one process, and in two (turns 1-3,
                then 4-5 with the same --session): the requests of turns 4-5 and
                the session files are byte-identical
  mock          (d) the same questions against @dwmkerr/mock-llm (an npm package:
                OpenAI-compatible, no tool calls; tests/tools/openai_mock), with
                the fake server's `proxy` case between them to log the requests:
                exit 0, every answer printed, every request within --budget, and
                the tools offered and ignored by the server (its answer says how
                many it was sent). With --refuse the server answers requests
                carrying tools with HTTP 400 "... does not support tools"
                (asked --no-stream: mock-llm streams errors as events): the
                first request offers them, the one after it asks the same
                question without them, and no later request offers them
  questions     every question of tests/data/chat_questions.json ("questions"),
                each asked once: its expected node and numbers are first derived
                again from the cookgraph command the file names (a stale file
                fails), then the scripted model calls the tool that fetches
                them, and the check asserts that the result of that call (a
                "tool" message) carries the expected id and numbers, and that
                every request is within the question's budget

--perturb (the checks can fail; each must then exit 1 naming the check):
  budget     (a) with a budget 1 token below the largest request's count
  stat       (b) with one statistic of the score JSON altered (avg_ms + 1e-6)
  question   (questions) the script makes each question's "decoy_calls" (another
             node, or kernels of another family) instead of its "calls"

Exit 0 when every check passes; 1 when one fails (lines "chat_check: FAIL (x) ...");
2 for a set-up problem (cookgraph, node or npm missing or failing to start).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

EXIT_OK, EXIT_FAIL, EXIT_SETUP = 0, 1, 2

# The statistics `node` (and top_nodes) must give as `score --format json` does
# (when the result has them under these names; at least these must be there).
CORE_STATS = ("avg_ms", "std_ms", "p95_ms", "max_ms", "per_frame_ms", "share")


class SetupError(Exception):
    pass


class Failures:
    def __init__(self):
        self.items = []

    def fail(self, check, message):
        line = "chat_check: FAIL (%s) %s" % (check, message)
        print(line, flush=True)
        self.items.append(line)

    def ok(self, check, message):
        print("chat_check: ok (%s) %s" % (check, message), flush=True)


# --- processes ----------------------------------------------------------------

def clean_env(work):
    """The environment without the user's endpoint settings or config."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COOKGRAPH_", "OPENAI_"))}
    xdg = os.path.join(work, "xdg")
    os.makedirs(xdg, exist_ok=True)
    env["XDG_CONFIG_HOME"] = xdg
    env["NO_COLOR"] = "1"
    return env


class FakeServer:
    """tests/tools/fake_llm_server.py, stopped by closing its standard input."""

    def __init__(self, source, work, log, scripts=None, upstream=None):
        args = [sys.executable, os.path.join(source, "tests/tools/fake_llm_server.py"),
                "--log", log, "--lifetime", "300"]
        if scripts:
            args += ["--scripts", scripts]
        if upstream:
            args += ["--upstream", upstream]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(os.path.join(work, "fake_server.err"), "ab"))
        line = self.proc.stdout.readline().decode().strip()
        if not line.isdigit():
            self.stop()
            raise SetupError("the fake server did not start (see %s/fake_server.err)" % work)
        self.port = int(line)

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MockLlm:
    """@dwmkerr/mock-llm from tests/tools/openai_mock/node_modules on a free port
    of 127.0.0.1 (HOST and PORT in its environment), up once it prints "server
    running"; stopped with SIGTERM to its own process id."""

    def __init__(self, source, work, config):
        main = os.path.join(source, "tests/tools/openai_mock/node_modules/@dwmkerr/mock-llm/dist/main.js")
        if not os.path.exists(main):
            raise SetupError("%s is missing: run chat_check.py ... setup (npm ci --prefix "
                             "tests/tools/openai_mock)" % main)
        node = shutil.which("node")
        if not node:
            raise SetupError("node not found: the mock server needs Node.js (scripts/install-deps.sh)")
        for attempt in range(5):
            self.port = free_port()
            env = dict(os.environ, HOST="127.0.0.1", PORT=str(self.port))
            self.out = os.path.join(work, "mock_llm.%d.out" % attempt)
            # Its own working folder: mock-llm reads ./mock-llm.yaml when --config is absent.
            self.proc = subprocess.Popen([node, main, "--config", config], cwd=work, env=env,
                                         stdin=subprocess.DEVNULL, stdout=open(self.out, "wb"),
                                         stderr=subprocess.STDOUT)
            deadline = time.time() + 30
            while time.time() < deadline and self.proc.poll() is None:
                with open(self.out, "rb") as f:
                    if b"server running on" in f.read():
                        return
                time.sleep(0.05)
            self.stop()  # the port was taken in between, or it failed: once more
        raise SetupError("mock-llm did not start (see %s)" % self.out)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run(args, env, cwd, stdin_text="", timeout=180):
    try:
        p = subprocess.run(args, input=stdin_text.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, cwd=cwd, timeout=timeout)
    except FileNotFoundError as e:
        raise SetupError(str(e))
    except subprocess.TimeoutExpired:
        raise SetupError("timed out after %d s: %s" % (timeout, " ".join(args)))
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def cookgraph_json(opts, *args):
    rc, out, err = run([opts.cookgraph] + list(args), clean_env(opts.work), opts.source)
    if rc != 0:
        raise SetupError("cookgraph %s: exit %d: %s" % (" ".join(args), rc, err.strip()[-500:]))
    return json.loads(out)


# --- logged requests ----------------------------------------------------------

def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def question_of(body):
    """What follows the last "Question: " of the last user message holding one."""
    for m in reversed(body.get("messages") or []):
        content = m.get("content") or ""
        if m.get("role") == "user" and "Question: " in content:
            return content[content.rfind("Question: ") + len("Question: "):].strip()
    return None


def data_message(body):
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user" and "Question: " in (m.get("content") or ""):
            return m["content"]
    return ""


def count_tokens(opts, records, name):
    """js-tiktoken's counts of each logged request by the rule of
    docs/formats.md#token-counts (tests/tools/tiktoken/reference.mjs request)."""
    folder = os.path.join(opts.work, "requests", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    files = []
    for i, r in enumerate(records):
        path = os.path.join(folder, "%03d.json" % (i + 1))
        with open(path, "wb") as f:
            f.write(r["raw"].encode("utf-8"))
        files.append(path)
    if not files:
        return []
    out = os.path.join(folder, "counts.json")
    node = shutil.which("node")
    if not node:
        raise SetupError("node not found: the token counts need Node.js (scripts/install-deps.sh)")
    reference = os.path.join(opts.source, "tests/tools/tiktoken/reference.mjs")
    p = subprocess.run([node, reference, "request", "--encoding", "o200k_base", out] + files,
                       stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SetupError("reference.mjs request: %s (is js-tiktoken installed? chat_check.py "
                         "... setup)" % p.stderr.decode().strip()[-500:])
    with open(out) as f:
        counts = json.load(f)
    return [counts[path]["o200k_base"] for path in files]


# cookgraph's line for each request on stderr (cli/ask.cc): "cookgraph: asking M at URL (turn 1,
# request 2): 19,872 tokens of the 20,000 budget, counted with o200k_base (...); ...".
REQUEST_LINE = re.compile(r": ([\d,]+) tokens of the ([\d,]+) budget, counted with ([^;\n]*)")


def check_budget(opts, failures, records, counts, budget, stderr, label):
    """(a): every request within `budget` by js-tiktoken's count; cookgraph's
    own counts (stderr) equal to it when exact, not below it when estimated."""
    if not records:
        failures.fail("a", "%s: no request reached the server" % label)
        return
    over = [(i + 1, c) for i, c in enumerate(counts) if c > budget]
    largest = max(counts)
    if over:
        failures.fail("a", "%s: budget: request %d has %d tokens by js-tiktoken o200k_base, over "
                      "the budget of %d (%d of %d requests over)"
                      % (label, over[0][0], over[0][1], budget, len(over), len(counts)))
    else:
        failures.ok("a", "%s: %d requests within %d tokens by js-tiktoken o200k_base (largest %d)"
                    % (label, len(counts), budget, largest))
    own = REQUEST_LINE.findall(stderr)
    if len(own) != len(counts):
        print("chat_check: note: %s: cookgraph's stderr gives %d request counts for %d requests: "
              "not compared" % (label, len(own), len(counts)))
        return
    for i, ((n, _, how), js) in enumerate(zip(own, counts), 1):
        n = int(n.replace(",", ""))
        estimate = "estimate" in how
        if (estimate and n < js) or (not estimate and n != js):
            failures.fail("a", "%s: request %d: cookgraph counts %d (%s), js-tiktoken o200k_base %d"
                          % (label, i, n, how.strip(), js))
            return
    failures.ok("a", "%s: cookgraph's own counts agree with js-tiktoken (%s)"
                % (label, own[0][2].strip()))


# --- tool calls and results ---------------------------------------------------

def tool_exchanges(records):
    """(call, result text, index of the request that carried the result) for
    every call whose result reached a later request, each once, in order."""
    seen = set()
    out = []
    for index, r in enumerate(records):
        messages = (r.get("body") or {}).get("messages") or []
        calls = {}
        for m in messages:
            for c in m.get("tool_calls") or []:
                calls[c.get("id")] = c
            if m.get("role") == "tool":
                key = (question_of(r["body"]), m.get("tool_call_id"))
                if key in seen:
                    continue
                seen.add(key)
                call = calls.get(m.get("tool_call_id"))
                if call is not None:
                    out.append((call, m.get("content") or "", index))
    return out


def call_arguments(call):
    try:
        return json.loads(call["function"].get("arguments") or "{}")
    except ValueError:
        return {}


def literal_json(text):
    """JSON with every number kept as its text (to compare at its printed precision)."""
    return json.loads(text, parse_float=lambda s: ("num", s), parse_int=lambda s: ("num", s))


def objects_with(value, key, wanted):
    """Every dict inside `value` whose `key` is `wanted`."""
    found = []
    if isinstance(value, dict):
        if value.get(key) == wanted:
            found.append(value)
        for v in value.values():
            found += objects_with(v, key, wanted)
    elif isinstance(value, list):
        for v in value:
            found += objects_with(v, key, wanted)
    return found


def flatten(obj):
    """A node's object with its nested objects' fields beside its own
    ("stats": {...} and the like), its own first."""
    flat = {}
    nested = []
    for k, v in obj.items():
        if isinstance(v, dict):
            nested.append(v)
        else:
            flat[k] = v
    for v in nested:
        for k, x in v.items():
            if not isinstance(x, (dict, list)):
                flat.setdefault(k, x)
    return flat


def same_value(a, b):
    """a from score JSON (parsed), b from a tool result (numbers as ("num", text))."""
    if isinstance(b, tuple):
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            return False
        return float(b[1]) == float(a)
    return a == b


def show(value):
    return value[1] if isinstance(value, tuple) else json.dumps(value)


def number_in(value, expected):
    """Whether a number equal to `expected` at its printed precision is inside
    `value` (numbers as ("num", text), or text holding numbers)."""
    if isinstance(value, tuple):
        return close_at_precision(value[1], expected)
    if isinstance(value, dict):
        return any(number_in(v, expected) for v in value.values())
    if isinstance(value, list):
        return any(number_in(v, expected) for v in value)
    if isinstance(value, str):
        return any(close_at_precision(t.replace(",", ""), expected)
                   for t in re.findall(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?", value))
    return False


def close_at_precision(text, expected):
    try:
        v = float(text)
    except ValueError:
        return False
    if isinstance(expected, int) and not isinstance(expected, bool):
        return v == expected
    mantissa = text.split("e")[0].split("E")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    if abs(v - expected) <= 1e-12 * abs(expected):
        return True
    # Else shown rounded: with at least two significant digits, equal at the digits shown.
    significant = len(mantissa.replace("-", "").replace(".", "").lstrip("0"))
    return significant >= 2 and abs(v - expected) <= 0.5 * 10 ** (exponent - decimals) * (1 + 1e-9)


# --- the conversation -------------------------------------------------------------

def load_questions(opts):
    with open(os.path.join(opts.source, "tests/data/chat_questions.json"), encoding="utf-8") as f:
        return json.load(f)


def write_script(opts, name, turns):
    folder = os.path.join(opts.work, "scripts")
    os.makedirs(folder, exist_ok=True)
    script = {"turns": [{"match": t.get("match", t["question"]), "calls": t.get("calls", []),
                         "answer": t["answer"]} for t in turns]}
    with open(os.path.join(folder, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(script, f, indent=1)
    return folder


def ask_chat(opts, server_url, questions, session, budget, extra=()):
    """`cookgraph ask INPUT --chat --session S`, the questions one a line on stdin."""
    conv = opts.questions["conversation"]
    args = [opts.cookgraph, "ask", conv["input"], "--chat", "--session", session,
            "--base-url", server_url, "--model", conv.get("model", "gpt-4o"),
            "--budget-tokens", str(budget)] + list(extra)
    return run(args, clean_env(opts.work), opts.source, "".join(q + "\n" for q in questions))


def score_nodes(opts, input_path):
    """`score --format json --top 0`'s nodes by id."""
    score = cookgraph_json(opts, "score", input_path, "--format", "json", "--top", "0")
    return {n["id"]: n for n in score["snapshots"][0]["nodes"]}


def listed_ranks(first_body, by_rank):
    """The ranks of the node lines of a request's data message (advisor/prompt.cc:
    "RANK | ID | ..." under "## Nodes ranked by score"), each line's id checked
    against the score JSON's node of that rank (ids over 120 characters are
    shown cut in the middle)."""
    text = data_message(first_body)
    start = text.find("## Nodes ranked by score")
    if start < 0:
        return None, "the data message has no \"## Nodes ranked by score\" section"
    ranks = []
    for line in text[start:].split("\n")[1:]:
        if line.startswith("## ") or line.startswith("```"):
            break
        m = re.match(r"(\d+) \| (.*?) \| ", line)
        if not m:
            continue
        rank, shown = int(m.group(1)), m.group(2)
        node = by_rank.get(rank)
        if node is None:
            return None, "line of rank %d: score --format json has no such rank" % rank
        full = node["id"]
        if shown != full and not ("…" in shown and full.startswith(shown.split("…")[0])
                                  and full.endswith(shown.split("…")[-1])):
            return None, "line of rank %d shows %r, score ranks %r there" % (rank, shown, full)
        ranks.append(rank)
    return ranks, None


def check_conversation(opts, failures):
    conv = opts.questions["conversation"]
    turns = conv["turns"]
    scripts = write_script(opts, "conversation", turns)
    log = os.path.join(opts.work, "conversation.log.jsonl")
    if os.path.exists(log):
        os.remove(log)
    session = os.path.join(opts.work, "conversation.session.json")
    if os.path.exists(session):
        os.remove(session)
    server = FakeServer(opts.source, opts.work, log, scripts=scripts)
    try:
        rc, out, err = ask_chat(opts, server.url("/case/script/conversation/full"),
                                [t["question"] for t in turns], session, opts.budget)
    finally:
        server.stop()
    with open(os.path.join(opts.work, "conversation.stderr"), "w") as f:
        f.write(err)
    if rc != 0:
        failures.fail("conversation", "cookgraph ask --chat exited %d: %s" % (rc, err.strip()[-800:]))
        return
    records = read_log(log)
    check_answers(failures, "conversation", out, [t["answer"] for t in turns])

    # (a) the budget, by js-tiktoken.
    counts = count_tokens(opts, records, "conversation")
    budget = opts.budget
    if opts.perturb == "budget":
        budget = max(counts) - 1
        print("chat_check: perturbed: the budget checked is %d, 1 below the largest request" % budget)
    check_budget(opts, failures, records, counts, budget, err, "conversation at --budget-tokens %d" % opts.budget)

    # (b) the tool calls: nodes outside the first request's list, results equal to score's.
    nodes = score_nodes(opts, conv["input"])
    if opts.perturb == "stat":
        target = first_node_target(turns)
        if target in nodes:
            nodes[target] = dict(nodes[target], avg_ms=nodes[target]["avg_ms"] + 1e-6)
            print("chat_check: perturbed: avg_ms of %s in the score JSON + 1e-6" % target)
    by_rank = {n["rank"]: n for n in nodes.values()}
    ranks, problem = listed_ranks(records[0]["body"], by_rank)
    if problem:
        failures.fail("b", "first request: " + problem)
        return
    listed = {by_rank[r]["id"] for r in ranks}
    failures.ok("b", "the first request lists %d of %d ranked nodes (ranks %s)"
                % (len(ranks), len(nodes), "%d to %d" % (min(ranks), max(ranks)) if ranks else "none"))
    exchanges = tool_exchanges(records)
    scripted = sum(len(rnd) for t in turns for rnd in t.get("calls", []))
    if len(exchanges) != scripted:
        failures.fail("b", "%d tool results reached the model, the script made %d calls"
                      % (len(exchanges), scripted))
    outside = 0
    for call, result, index in exchanges:
        name = call["function"].get("name")
        arguments = call_arguments(call)
        if name == "top_nodes" and arguments.get("sort", "score") == "score":
            # Every node it returns, wherever it ranks: score's own objects.
            try:
                returned = [o["id"] for o in literal_json(result).get("nodes", [])]
            except (ValueError, AttributeError, TypeError, KeyError):
                returned = []
            if not returned:
                failures.fail("b", "top_nodes %s: no nodes in the result (request %d): %s"
                              % (call["function"].get("arguments"), index + 1, result[:300]))
            for target in returned:
                if target in nodes:
                    compare_node(failures, "top_nodes", target, nodes[target], result, index + 1)
                else:
                    failures.fail("b", "top_nodes returned %r: score --format json has no such node" % target)
            continue
        if name != "node":
            continue
        target = arguments.get("id")
        if target not in nodes:
            failures.fail("b", "node %r: score --format json has no such node" % target)
            continue
        if target in listed:
            failures.fail("b", "node %s: the first request lists it (rank %d): pick a node "
                          "beyond rank %d" % (target, nodes[target]["rank"], max(ranks)))
            continue
        compare_node(failures, "node", target, nodes[target], result, index + 1)
        outside += 1
    if outside == 0:
        failures.fail("b", "no node call for a node outside the first request's list reached a result")


def first_node_target(turns):
    for t in turns:
        for rnd in t.get("calls", []):
            for c in rnd:
                if c["name"] == "node":
                    return c["arguments"].get("id")
    return None


def compare_node(failures, tool, target, expected, result, request_number):
    try:
        value = literal_json(result)
    except ValueError:
        failures.fail("b", "%s %s: the result in request %d is not JSON: %r"
                      % (tool, target, request_number, result[:200]))
        return
    if tool == "node":
        # The node's object itself, not a list holding it.
        if not isinstance(value, dict) or value.get("id") != target:
            failures.fail("b", "node %s: the result (request %d) is not the node's object: %s"
                          % (target, request_number, result[:300]))
            return
        candidates = [flatten(value)]
    else:
        candidates = [flatten(o) for o in objects_with(value, "id", target)]
    if not candidates:
        failures.fail("b", "%s %s: no object with this id in the result (request %d): %s"
                      % (tool, target, request_number, result[:300]))
        return
    got = max(candidates, key=lambda c: len(set(c) & set(expected)))
    missing = [k for k in CORE_STATS if k not in got]
    if missing:
        failures.fail("b", "%s %s: the result lacks %s (it has %s)"
                      % (tool, target, ", ".join(missing), ", ".join(sorted(got))))
        return
    common = [k for k in expected if k in got and k != "id"]
    wrong = [k for k in common if not same_value(expected[k], got[k])]
    if wrong:
        failures.fail("b", "%s %s: %s: %s in the result (request %d), %s in score --format json"
                      % (tool, target, wrong[0], show(got[wrong[0]]), request_number,
                         json.dumps(expected[wrong[0]])))
        return
    rank = expected["rank"]
    failures.ok("b", "%s %s (rank %s): %d fields equal to score --format json (%s)"
                % (tool, target if len(target) <= 80 else target[:77] + "...",
                   "none" if rank is None else rank, len(common), ", ".join(common)))


def check_answers(failures, label, out, answers):
    missing = [a for a in answers if a not in out]
    if missing:
        failures.fail(label, "answer not printed: %r" % missing[0][:120])
    else:
        failures.ok(label, "%d answers printed" % len(answers))


def check_resume(opts, failures):
    conv = opts.questions["conversation"]
    turns = conv["turns"]
    questions = [t["question"] for t in turns]
    scripts = write_script(opts, "conversation", turns)
    log = os.path.join(opts.work, "resume.log.jsonl")
    if os.path.exists(log):
        os.remove(log)
    whole = os.path.join(opts.work, "resume.whole.session.json")
    split = os.path.join(opts.work, "resume.split.session.json")
    for f in (whole, split):
        if os.path.exists(f):
            os.remove(f)
    server = FakeServer(opts.source, opts.work, log, scripts=scripts)
    try:
        runs = [("whole", whole, questions), ("first", split, questions[:3]),
                ("second", split, questions[3:])]
        for name, session, asked in runs:
            rc, out, err = ask_chat(opts, server.url("/case/script/conversation/" + name),
                                    asked, session, opts.budget)
            if rc != 0:
                failures.fail("c", "%s run: cookgraph ask --chat exited %d: %s"
                              % (name, rc, err.strip()[-800:]))
                return
    finally:
        server.stop()
    records = read_log(log)
    by_run = {}
    for r in records:
        by_run.setdefault(r["path"].split("/")[4], []).append(r)
    later = set(questions[3:])
    whole_later = [r["raw"] for r in by_run.get("whole", []) if question_of(r["body"]) in later]
    second = [r["raw"] for r in by_run.get("second", [])]
    if not whole_later:
        failures.fail("c", "the uninterrupted run sent no request for turns 4-5")
    elif whole_later != second:
        first_diff = next((i for i, (a, b) in enumerate(zip(whole_later, second)) if a != b),
                          min(len(whole_later), len(second)))
        detail = ""
        if first_diff < min(len(whole_later), len(second)):
            a, b = whole_later[first_diff], second[first_diff]
            at = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y) if a[:len(b)] != b[:len(a)] else min(len(a), len(b))
            detail = ": at byte %d, uninterrupted %r, resumed %r" % (at, a[max(0, at - 40):at + 40],
                                                                      b[max(0, at - 40):at + 40])
        failures.fail("c", "turns 4-5: the resumed process sent %d requests, the uninterrupted one "
                      "%d; request %d differs%s" % (len(second), len(whole_later), first_diff + 1, detail))
    else:
        failures.ok("c", "turns 4-5: %d requests byte-identical after resuming" % len(second))
    with open(whole, "rb") as a, open(split, "rb") as b:
        if a.read() != b.read():
            failures.fail("c", "the session files differ: %s and %s" % (whole, split))
        else:
            failures.ok("c", "the session files are byte-identical (%d bytes)" % os.path.getsize(whole))


def check_mock(opts, failures):
    conv = opts.questions["conversation"]
    questions = [t["question"] for t in conv["turns"]]
    config = os.path.join(opts.source, "tests/tools/openai_mock",
                          "refuses_tools.yaml" if opts.refuse else "ignores_tools.yaml")
    name = "mock_refuses" if opts.refuse else "mock_ignores"
    log = os.path.join(opts.work, name + ".log.jsonl")
    session = os.path.join(opts.work, name + ".session.json")
    for f in (log, session):
        if os.path.exists(f):
            os.remove(f)
    mock = MockLlm(opts.source, opts.work, config)
    try:
        server = FakeServer(opts.source, opts.work, log, upstream="http://127.0.0.1:%d/v1" % mock.port)
        try:
            rc, out, err = ask_chat(opts, server.url("/case/proxy/" + name), questions, session,
                                    opts.budget, ["--no-stream"] if opts.refuse else [])
        finally:
            server.stop()
    finally:
        mock.stop()
    with open(os.path.join(opts.work, name + ".stderr"), "w") as f:
        f.write(err)
    if rc != 0:
        failures.fail("d", "cookgraph ask --chat against mock-llm exited %d: %s" % (rc, err.strip()[-800:]))
        return
    records = read_log(log)
    answers = re.findall(r"mock-llm answer: (\d+) messages, (\d+) tools offered\.", out)
    if len(answers) != len(questions):
        failures.fail("d", "%d answers from mock-llm printed for %d questions: %r"
                      % (len(answers), len(questions), out[-400:]))
    else:
        failures.ok("d", "exit 0, %d answers from mock-llm printed" % len(answers))
    offered = [len((r.get("body") or {}).get("tools") or []) for r in records]
    if opts.refuse:
        # The refused request, then the same without tools, then none with them.
        if len(records) < 2 or offered[0] == 0:
            failures.fail("d", "the first request offered no tools (%s)" % offered)
        elif any(offered[1:]):
            failures.fail("d", "tools offered again after the refusal: %s" % offered)
        else:
            if question_of(records[0]["body"]) != question_of(records[1]["body"]):
                failures.fail("d", "the request after the refusal asks another question")
            else:
                failures.ok("d", "refused: the first request offered %d tools, the %d after it none"
                            % (offered[0], len(records) - 1))
        if any(int(t) for _, t in answers):
            failures.fail("d", "mock-llm answered a request carrying tools: %s" % answers)
    else:
        if not all(offered):
            failures.fail("d", "a request offered no tools to a server that ignores them: %s" % offered)
        elif [int(t) for _, t in answers] != [offered[i] for i in answer_requests(records)]:
            failures.fail("d", "mock-llm's answers say it saw %s tools, the requests offered %s"
                          % ([t for _, t in answers], offered))
        else:
            failures.ok("d", "ignored: every request offered %d tools, and mock-llm answered with "
                        "text" % offered[0])
    counts = count_tokens(opts, records, name)
    check_budget(opts, failures, records, counts, opts.budget, err, name)


def answer_requests(records):
    """The index of the request that got each answer: the last one of each question."""
    last = {}
    order = []
    for i, r in enumerate(records):
        q = question_of(r["body"])
        if q not in last:
            order.append(q)
        last[q] = i
    return [last[q] for q in order]


# --- questions with known answers ------------------------------------------------

def derive(opts, q, input_path):
    """The expected answer of question `q`, derived again from the command its
    "derive" names, in the form of its "expected": {"id", "numbers", "data"?}."""
    how = q["derive"]
    if how == "whatif_most_frames_saved":
        w = cookgraph_json(opts, "whatif", input_path, "--format", "json")
        best = max((n for n in w["nodes"] if n["factor"] == 0),
                   key=lambda n: (n["frames_saved"], n["saved_ms"]))
        return {"id": best["id"], "numbers": {"frames_saved": best["frames_saved"],
                                              "saved_ms": best["saved_ms"]}}
    s = cookgraph_json(opts, "score", input_path, "--format", "json", "--top", "0")["snapshots"][0]
    nodes = {n["id"]: n for n in s["nodes"]}
    if how == "score_costliest_loop":
        loop = max(s["loops"], key=lambda l: l["per_frame_ms"])
        costliest = max(loop["nodes"], key=lambda n: nodes[n]["per_frame_ms"])
        # The prompt's loop line: its nodes joined by " -> " (advisor/prompt.cc).
        at = loop["nodes"].index(costliest)
        on_line = " -> ".join(loop["nodes"][max(0, at - 1):at + 1])
        return {"id": costliest, "numbers": {"per_frame_ms": nodes[costliest]["per_frame_ms"]},
                "data": {"on_line": on_line, "numbers": {"loop_per_frame_ms": loop["per_frame_ms"]}}}
    if how == "score_top_kernel":
        top = max((n for n in s["nodes"] if n["family"] == "kernel"), key=lambda n: n["per_frame_ms"])
        return {"id": top["id"], "numbers": {"per_frame_ms": top["per_frame_ms"]}}
    if how == "score_bottleneck_thread":
        b = s["bottleneck_thread"]
        # The prompt's thread line: its name and route, as the score's thread (advisor/prompt.cc).
        t = next(t for t in s["threads"] if t["thread"] == b["thread"])
        label = t["name"] + (" (%s)" % t["route"] if t["route"] else "")
        return {"id": b["element"], "numbers": {"per_frame_ms": nodes[b["element"]]["per_frame_ms"]},
                "data": {"on_line": label + " (bottleneck)",
                         "numbers": {"busy_ms_per_buffer": b["busy_ms_per_buffer"]}}}
    raise SetupError("question %s: unknown derivation %r" % (q["id"], how))


def same_expected(a, b):
    """Two "expected" objects alike: the same ids and texts, numbers within 1e-9."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_expected(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return a == b


def question_input(opts, q):
    """The input as named on the command line: a file of the repository, or a
    folder of the work folder holding copies of "input_files" (a GStreamer
    recording whose folder holds other recordings too)."""
    if "input_files" not in q:
        return q["input"]
    folder = os.path.join(opts.work, "inputs", q["id"])
    os.makedirs(folder, exist_ok=True)
    for f in q["input_files"]:
        shutil.copy(os.path.join(opts.source, f), folder)
    return folder


def check_questions(opts, failures):
    questions = opts.questions["questions"]
    turns = []
    for q in questions:
        calls = q["decoy_calls"] if opts.perturb == "question" else q["calls"]
        turns.append({"match": q["question"], "question": q["question"], "calls": calls,
                      "answer": q["answer"]})
    scripts = write_script(opts, "questions", turns)
    log = os.path.join(opts.work, "questions.log.jsonl")
    if os.path.exists(log):
        os.remove(log)
    server = FakeServer(opts.source, opts.work, log, scripts=scripts)
    try:
        results = []
        for q in questions:
            input_path = question_input(opts, q)
            derived = derive(opts, q, input_path)
            if not same_expected(derived, q["expected"]):
                failures.fail("q", "%s: tests/data/chat_questions.json expects %s; %s now gives %s"
                              % (q["id"], json.dumps(q["expected"]), q["derived_from"],
                                 json.dumps(derived)))
                continue
            budget = q.get("budget_tokens", opts.budget)
            args = [opts.cookgraph, "ask", input_path, q["question"], "--base-url",
                    server.url("/case/script/questions/" + q["id"]), "--model", "gpt-4o",
                    "--budget-tokens", str(budget)]
            rc, out, err = run(args, clean_env(opts.work), opts.source)
            results.append((q, rc, out, err, budget))
    finally:
        server.stop()
    records = read_log(log)
    all_counts = count_tokens(opts, records, "questions")  # one node process: its tables load once
    for q, rc, out, err, budget in results:
        label = "q"
        if rc != 0:
            failures.fail(label, "%s: cookgraph ask exited %d: %s" % (q["id"], rc, err.strip()[-600:]))
            continue
        at = [i for i, r in enumerate(records) if r["path"].split("/")[4] == q["id"]]
        mine = [records[i] for i in at]
        counts = [all_counts[i] for i in at]
        check_budget(opts, failures, mine, counts, budget, err, "%s at --budget-tokens %d" % (q["id"], budget))
        if q["answer"] not in out:
            failures.fail(label, "%s: the answer was not printed" % q["id"])
        check_reached(failures, q, mine)


def check_reached(failures, q, records):
    """The expected id and numbers in a result of the tools the script called
    (and, where "data" is given, on a line of the first request's data message)."""
    expected = q["expected"]
    exchanges = tool_exchanges(records)
    if not exchanges:
        failures.fail("q", "%s: no tool result reached the model" % q["id"])
        return
    data = data_message(records[0]["body"])
    if "data" in expected:
        on_line = expected["data"]["on_line"]
        lines = [line for line in data.split("\n") if on_line in line]
        missing = [k for k, v in expected["data"]["numbers"].items()
                   if not any(number_in(line, v) for line in lines)]
        if not lines:
            failures.fail("q", "%s: no line of the first request's data message holds %r"
                          % (q["id"], on_line))
        elif missing:
            failures.fail("q", "%s: the data message's line with %r lacks %s = %s"
                          % (q["id"], on_line, missing[0], expected["data"]["numbers"][missing[0]]))
        else:
            failures.ok("q", "%s: the data message names %r with %s" % (
                q["id"], on_line, ", ".join("%s=%s" % kv for kv in expected["data"]["numbers"].items())))
    for call, result, index in exchanges:
        try:
            value = literal_json(result)
        except ValueError:
            continue
        holders = objects_with(value, "id", expected["id"])
        if not holders:
            continue
        missing = [k for k, v in expected["numbers"].items()
                   if not any(number_in(h.get(k, h), v) for h in holders)]
        if missing:
            failures.fail("q", "%s: %s's result (request %d) has %s but not %s = %s"
                          % (q["id"], call["function"]["name"], index + 1, expected["id"],
                             missing[0], expected["numbers"][missing[0]]))
            return
        failures.ok("q", "%s: %s gave %s with %s (the first request's data %s it)"
                    % (q["id"], call["function"]["name"], expected["id"],
                       ", ".join("%s=%s" % kv for kv in expected["numbers"].items()),
                       "also names" if expected["id"] in data else "does not name"))
        return
    failures.fail("q", "%s: no tool result carries %s (calls: %s)"
                  % (q["id"], expected["id"], "; ".join(
                      c["function"]["name"] + " " + c["function"].get("arguments", "") + " -> " + r[:160]
                      for c, r, _ in exchanges)))


# --- set-up ------------------------------------------------------------------------

def npm_install(prefix, package, log):
    """npm ci --prefix `prefix` unless the pinned `package` is installed there
    already (a machine that ran it once runs the tests offline)."""
    with open(os.path.join(prefix, "package-lock.json")) as f:
        pinned = json.load(f)["packages"]["node_modules/" + package]["version"]
    try:
        with open(os.path.join(prefix, "node_modules", package, "package.json")) as f:
            installed = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        installed = None
    if installed == pinned:
        print("chat_check: %s %s is installed in %s" % (package, pinned, prefix))
        return
    npm = shutil.which("npm")
    if not npm:
        raise SetupError("npm not found: the conversation tests need Node.js and npm "
                         "(scripts/install-deps.sh)")
    with open(log, "wb") as out:
        p = subprocess.run([npm, "ci", "--prefix", prefix, "--prefer-offline", "--no-audit",
                            "--no-fund", "--loglevel=error"], stdout=out, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        with open(log, errors="replace") as f:
            sys.stderr.write(f.read())
        raise SetupError("npm ci --prefix %s failed: the conversation tests need %s %s from the "
                         "npm registry" % (prefix, package, pinned))
    print("chat_check: installed %s %s in %s" % (package, pinned, prefix))


def setup(opts):
    npm_install(os.path.join(opts.source, "tests/tools/tiktoken"), "js-tiktoken",
                os.path.join(opts.work, "npm_tiktoken.log"))
    npm_install(os.path.join(opts.source, "tests/tools/openai_mock"), "@dwmkerr/mock-llm",
                os.path.join(opts.work, "npm_openai_mock.log"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cookgraph", required=True)
    p.add_argument("--source", required=True, help="the repository (cookgraph runs there)")
    p.add_argument("--work", required=True, help="a folder for logs, sessions and scripts")
    p.add_argument("mode", choices=["setup", "conversation", "resume", "mock", "questions"])
    p.add_argument("--budget", type=int, default=20000, help="--budget-tokens (default 20000)")
    p.add_argument("--refuse", action="store_true", help="mock: the server refuses tools")
    p.add_argument("--perturb", choices=["budget", "stat", "question"])
    opts = p.parse_args(argv)
    opts.source = os.path.abspath(opts.source)
    opts.work = os.path.abspath(opts.work)
    opts.cookgraph = os.path.abspath(opts.cookgraph)
    os.makedirs(opts.work, exist_ok=True)
    failures = Failures()
    try:
        if opts.mode == "setup":
            setup(opts)
            return EXIT_OK
        if not os.access(opts.cookgraph, os.X_OK):
            raise SetupError("%s is not an executable" % opts.cookgraph)
        opts.questions = load_questions(opts)
        {"conversation": check_conversation, "resume": check_resume, "mock": check_mock,
         "questions": check_questions}[opts.mode](opts, failures)
    except SetupError as e:
        print("chat_check: set-up: %s" % e, file=sys.stderr)
        return EXIT_SETUP
    if failures.items:
        print("chat_check: %d check(s) failed" % len(failures.items))
        return EXIT_FAIL
    print("chat_check: all checks passed")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
