#!/usr/bin/env python3
"""Hostile input to `cookgraph mcp` over its stdio transport (docs/testing.md#the-mcp-server).

usage: hostile_check.py COOKGRAPH INPUT [--perturb]

Starts `cookgraph mcp INPUT --allow TMP` and sends, checking each answer:
  1. 1,000 malformed messages (not JSON, JSON that is no request, ids, methods
     and params of the wrong type, invalid UTF-8, nesting 100,000 deep): each
     gets one error with JSON-RPC's code (-32700 parse error, -32600 invalid
     request, -32602 invalid params), then a ping is answered;
  2. a 100 MB line: refused (-32600) while the server's peak memory grows by
     less than 32 MB, then a ping is answered;
  3. an unknown method (-32601 with the request's id);
  4. paths outside the allowed folder for `open`: absolute, with "..", and a
     link inside it that points outside: each an error result naming the rule;
  5. tool calls with wrong types (top_nodes top "ten", node id 5, whatif
     changes "x", arguments not an object, a tool name not a string, an
     unknown tool): error results, or -32602 for what is no valid call;
  6. 200 requests written before any answer is read: 200 answers, in order;
  then a valid top_nodes call is answered, and the server exits 0 at the end
  of its input. --perturb expects -32600 for the parse errors: the check must
  then fail.
Standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading

MB = 1 << 20


class Server:
    def __init__(self, cookgraph, inp, allowed):
        self.p = subprocess.Popen([cookgraph, "mcp", inp, "--allow", allowed], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stderr = b""
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        self.stderr = self.p.stderr.read()

    def send(self, raw):
        self.p.stdin.write(raw if isinstance(raw, bytes) else raw.encode())
        self.p.stdin.write(b"\n")
        self.p.stdin.flush()

    def request(self, id, method, params=None):
        message = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message))

    def answer(self):
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit("hostile_check: FAIL the server closed its output; stderr:\n"
                             + self.stderr.decode(errors="replace")[-2000:])
        return json.loads(line)

    def status(self, key):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        return 0


def malformed(perturb):
    """(raw message, expected code) x 1,000."""
    parse = -32600 if perturb else -32700
    kinds = [
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"" % i, parse),  # unterminated
        (lambda i: "not json %d" % i, parse),
        (lambda i: b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\xfe" + str(i).encode() + b"\"}", parse),
        (lambda i: "[" * (1000 + i) + "]" * (1000 + i), parse),  # too deep
        (lambda i: str(i), -32600),  # a number
        (lambda i: "\"a string %d\"" % i, -32600),
        (lambda i: "[{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}]" % i, -32600),  # a batch
        (lambda i: "{\"jsonrpc\":\"1.0\",\"id\":%d,\"method\":\"ping\"}" % i, -32600),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":%d},\"method\":\"ping\"}" % i, -32600),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d.5,\"method\":\"ping\"}" % i, -32600),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":%d}" % (i, i), -32600),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d}" % i, -32600),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":[1]}" % i, -32602),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":%d}}" % (i, i), -32602),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"resources/read\",\"params\":{}}" % i, -32602),
        (lambda i: "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"prompts/get\",\"params\":{\"name\":\"x%d\"}}" % (i, i), -32602),
    ]
    return [(kinds[i % len(kinds)][0](i), kinds[i % len(kinds)][1]) for i in range(1000)]


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cookgraph, inp, perturb = argv[1], argv[2], "--perturb" in argv
    failures = []

    def expect(what, ok, got):
        if not ok:
            failures.append(f"{what}: got {json.dumps(got)[:300]}")

    with tempfile.TemporaryDirectory() as allowed:
        os.symlink("/etc/passwd", os.path.join(allowed, "link.json"))
        s = Server(cookgraph, inp, allowed)
        s.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "hostile", "version": "1"}})
        init = s.answer()
        expect("initialize", init.get("result", {}).get("protocolVersion") == "2025-11-25", init)
        s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

        # 1. Malformed messages, written all at once; one answer each, in order.
        bad = malformed(perturb)
        writer = threading.Thread(target=lambda: [s.send(raw) for raw, _ in bad])
        writer.start()
        wrong = 0
        for n, (raw, code) in enumerate(bad):
            got = s.answer()
            if got.get("error", {}).get("code") != code:
                wrong += 1
                if wrong <= 3:
                    failures.append(f"malformed message {n} ({str(raw)[:60]!r}): expected {code}, got {json.dumps(got)[:200]}")
        writer.join()
        if wrong:
            failures.append(f"{wrong} of 1000 malformed messages got the wrong answer")
        s.request(1, "ping")
        expect("ping after the malformed messages", s.answer() == {"jsonrpc": "2.0", "id": 1, "result": {}}, None)

        # 2. A 100 MB line, as one request with a huge string.
        before = s.status("VmHWM")
        head = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"'
        s.p.stdin.write(head)
        chunk = b"a" * MB
        for _ in range(100):
            s.p.stdin.write(chunk)
        s.send(b'"}}')
        got = s.answer()
        expect("100 MB line refused", got.get("error", {}).get("code") == -32600 and got.get("id") is None, got)
        grew = s.status("VmHWM") - before
        expect(f"100 MB line: peak memory grew {grew / MB:.1f} MB (< 32 MB)", grew < 32 * MB, None)
        s.request(3, "ping")
        expect("ping after the 100 MB line", s.answer().get("id") == 3, None)

        # 3. An unknown method.
        s.request(4, "tools/destroy", {})
        got = s.answer()
        expect("unknown method", got.get("id") == 4 and got.get("error", {}).get("code") == -32601, got)

        # 4. Paths outside the allowed folder.
        for n, path in enumerate(["/etc/passwd", os.path.join(allowed, "..", "..", "etc", "passwd"),
                                  os.path.join(allowed, "link.json")]):
            s.request(10 + n, "tools/call", {"name": "open", "arguments": {"path": path}})
            got = s.answer()
            r = got.get("result", {})
            expect(f"open {path}", r.get("isError") is True and
                   "outside the folders cookgraph mcp may read" in r["content"][0]["text"], got)

        # 5. Wrong types.
        calls = [("top_nodes", {"top": "ten"}, "must be an integer"),
                 ("node", {"id": 5}, "must be a string"),
                 ("whatif", {"changes": "x"}, "must be an array"),
                 ("frames", {"index": -1}, "must be an integer from 0"),
                 ("summary", {"input": 7}, "must be a string"),
                 ("summary", {"input": "nope"}, "no open input"),
                 ("open", {"path": ["x"]}, "must be a string")]
        for n, (name, arguments, text) in enumerate(calls):
            s.request(20 + n, "tools/call", {"name": name, "arguments": arguments})
            got = s.answer()
            r = got.get("result", {})
            expect(f"{name} {arguments}", r.get("isError") is True and text in r["content"][0]["text"], got)
        for n, params in enumerate([{"name": "summary", "arguments": "x"}, {"name": 5}, {"name": "rm"}]):
            s.request(30 + n, "tools/call", params)
            got = s.answer()
            expect(f"tools/call {params}", got.get("error", {}).get("code") == -32602, got)

        # 6. 200 requests before any answer is read.
        for n in range(200):
            s.request(1000 + n, "tools/call", {"name": "frames", "arguments": {"index": n % 50, "limit": 1}})
        ids = [s.answer().get("id") for _ in range(200)]
        expect("200 pipelined requests answered in order", ids == list(range(1000, 1200)), ids[:5])

        s.request(5, "tools/call", {"name": "top_nodes", "arguments": {"top": 3}})
        got = s.answer()
        nodes = got.get("result", {}).get("structuredContent", {}).get("nodes", [])
        expect("a valid call at the end", len(nodes) == 3, got)
        s.p.stdin.close()
        code = s.p.wait(timeout=60)
        expect(f"exit status {code} at the end of input", code == 0, None)

    for f in failures:
        print("hostile_check: FAIL " + f, file=sys.stderr)
    if failures:
        return 1
    print("hostile_check: 1000 malformed messages, a 100 MB line (peak memory +%.1f MB), an unknown method, "
          "3 outside paths, %d wrong calls and 200 pipelined requests: each answered" % (grew / MB, len(calls) + 3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
