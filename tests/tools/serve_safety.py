#!/usr/bin/env python3
"""Hostile requests against `cookgraph serve` (docs/commands.md#the-explorers-safety).

usage: serve_safety.py COOKGRAPH INPUT

Starts the server on a free loopback port (with --no-token, then with its
token) and checks, with raw HTTP requests (http.client, so that Host and
Origin are whatever the test says):
  - on loopback, by default, every route answers 401 without the token; the
    printed address carries it (?token=), which on the page's address sets
    an HttpOnly SameSite=Strict cookie and redirects to / (303); the cookie
    and Authorization: Bearer are accepted; --no-token serves without one,
    and is refused off loopback (exit 2);
  - a request head over 64 KiB or 100 header lines is refused with 431 and a
    JSON body; a chunked body with 411; the request line and every header
    checked before the token;
  - a parameter given twice, or not UTF-8 once percent-decoded, is 400 with
    a JSON error; a media type that only starts with application/json
    (application/jsonx) is 415; a body over 4 MiB is 413 with a JSON body;
  - a foreign Host (DNS rebinding) is refused (403), on the page and the API;
    127.0.0.1, localhost and [::1] with the right port are served;
  - a foreign, "null" or other-port Origin is refused (403), and so is
    Sec-Fetch-Site: cross-site; the server's own origin is served;
  - '..' paths, encoded or not, and paths outside the routes return nothing
    of the file system (404; no byte of a file outside the assets);
  - the page carries its Content-Security-Policy;
  - a body over the limit (413), a question over the limit (413), a question
    not sent as JSON (415), unknown views, nodes and frames (404, 400) get JSON
    errors; the server keeps serving after each;
  - open streams are bounded: with 4 live streams open the 5th is refused
    (503) and served again once one closes;
  - a port in use and a missing input are one-line errors with exit 2, and
    nothing is served;
  - a non-loopback --listen without --allow-remote is refused (exit 2, one
    line naming --allow-remote); with it, every request needs the token
    (401 without; 200 with ?token=, which sets an HttpOnly SameSite=Strict
    cookie, with the cookie, or with Authorization: Bearer), a name in Host
    is refused even with the token, an address literal is served.
Exits 1 with one line per failed check. Standard library only.
"""

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def start(cookgraph, args):
    env = {k: v for k, v in os.environ.items()
           if k not in ("COOKGRAPH_BASE_URL", "OPENAI_BASE_URL", "COOKGRAPH_MODEL", "OPENAI_API_KEY")}
    p = subprocess.Popen([cookgraph, "serve", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    line = p.stdout.readline()
    m = re.search(r"explorer at (http://(\S+?):(\d+)/(\S*))", line)
    if not m:
        p.kill()
        raise SystemExit(f"serve_safety: no address from cookgraph serve {args}: {line!r} {p.stderr.read()}")
    return p, int(m.group(3)), m.group(1)


def request(port, method, path, headers=None, body=None, host=None, raw_host=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    c.putheader("Host", raw_host if raw_host is not None else (host if host is not None else f"127.0.0.1:{port}"))
    for k, v in (headers or {}).items():
        c.putheader(k, v)
    if body is not None:
        c.putheader("Content-Length", str(len(body)))
    c.endheaders(body)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data


def raw(port, data, read=True, half_close=False, timeout=20):
    """Sends bytes on a new connection (then shuts its side, with half_close);
    returns the reply's first line and the rest, read until the server closes
    or `timeout` seconds pass without a byte."""
    c = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        c.sendall(data)
        if half_close:
            c.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # refused mid-send: the reply is still there to read
    reply = b""
    while read:
        try:
            piece = c.recv(65536)
        except OSError:
            break
        if not piece:
            break
        reply += piece
    c.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode("latin-1"), body


def errors_as_documented(port):
    """The statuses of docs/commands.md's API errors, each with a JSON body."""
    def json_error(b):
        try:
            return "error" in json.loads(b)
        except ValueError:
            return False
    for path in ("/api/v/0/search?q=%ff", "/api/v/0/node?id=%ff", "/api/v/0/node?id=%c3%28",
                 "/api/v/0/nodes?sort=score&sort=gain", "/api/v/0/node?id=a&id=b",
                 "/api/v/0/search?q=a&q=b", "/api/v/0/frames?x=1&x=2"):
        s, _, b = request(port, "GET", path)
        check(s == 400 and json_error(b), f"GET {path}: {s} {b[:80]!r}, expected 400 with a JSON error")
    for ctype in ("application/jsonx", "application/json-seq", "text/plain; application/json"):
        s, _, b = request(port, "POST", "/api/v/0/prompt", {"Content-Type": ctype}, b'{"question": "hi"}')
        check(s == 415 and json_error(b), f"POST prompt as {ctype}: {s}")
    s, _, b = request(port, "POST", "/api/v/0/prompt", {"Content-Type": "Application/JSON; charset=utf-8"},
                      b'{"question": "hi"}')
    check(s in (200, 400) and s != 415, f"POST prompt as Application/JSON; charset=utf-8: {s}")
    big = b"x" * ((4 << 20) + 1)
    line, body = raw(port, b"POST /api/v/0/ask HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % (port, len(big)) + big)
    check(line.startswith("HTTP/1.1 413") and json_error(body), f"a body over 4 MiB: {line!r} {body[:80]!r}")
    # The request head: bounded in bytes and lines, refused with 431 and a JSON body.
    start = b"GET /api/index HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
    for what, head in (("101 header lines", start + b"X-a: b\r\n" * 101 + b"\r\n"),
                       ("a 70 KB head", start + (b"X-" + b"a" * 4000 + b": b\r\n") * 18 + b"\r\n"),
                       ("70 KB without a line end", start + b"X-a: " + b"b" * 70000)):
        line, body = raw(port, head)
        check(line.startswith("HTTP/1.1 431") and json_error(body), f"{what}: {line!r} {body[:80]!r}")
    line, body = raw(port, start + b"Connection: close\r\n" + b"X-a: b\r\n" * 98 + b"\r\n")
    check(line.startswith("HTTP/1.1 200"), f"100 header lines: {line!r}, not served")
    line, body = raw(port, b"POST /api/v/0/prompt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" % port)
    check(line.startswith("HTTP/1.1 411") and json_error(body), f"a chunked body: {line!r}")
    # Two requests in one write (pipelined): two answers, in order.
    get = b"GET /api/v/0/summary HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port
    line, body = raw(port, get + get.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
    check(line.startswith("HTTP/1.1 200") and body.count(b"HTTP/1.1 200 OK") == 1,
          f"two pipelined requests: {line!r}, {body.count(b'HTTP/1.1 200 OK')} more answers")
    # Bodies being read are bounded together (64 MiB): 16 of 4 MiB announced
    # and not sent, then a 17th is 503; once they close, one is read again.
    post = (b"POST /api/v/0/prompt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (port, 4 << 20))
    held = []
    for _ in range(16):
        held.append(socket.create_connection(("127.0.0.1", port), timeout=20))
        held[-1].sendall(post)
    time.sleep(0.3)
    line, body = raw(port, post)
    check(line.startswith("HTTP/1.1 503") and json_error(body), f"a 17th 4 MiB body: {line!r}")
    for c in held:
        c.close()
    time.sleep(0.3)
    c = socket.create_connection(("127.0.0.1", port), timeout=20)
    c.sendall(post)
    c.settimeout(0.5)
    try:
        early = c.recv(100)
    except OSError:
        early = b""  # nothing yet: the body is awaited, as it should be
    c.close()
    check(early == b"", f"a 4 MiB body after the others closed: {early!r}, not awaited")
    # A refused request's body is dropped with it, never read as the next
    # request (a cross-site no-cors POST must not smuggle a same-origin one).
    inner = json.dumps({"question": "hi"}).encode()
    smuggled = (b"POST /api/v/0/prompt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % (port, len(inner)) + inner)
    line, rest = raw(port, b"POST /api/v/0/ask HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://evil.example\r\n"
                     b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % (port, len(smuggled)) + smuggled,
                     timeout=1.5)
    check(line.startswith("HTTP/1.1 403") and b"HTTP/1.1 " not in rest,
          f"a refused POST's body: {line!r}, then {rest.count(b'HTTP/1.1 ')} more answers")
    # Heads cpp-httplib would read otherwise than the gate: 400.
    for what, head in (("a bare LF", b"GET /api/index HTTP/1.1\nHost: 127.0.0.1:%d\n\n" % port),
                       ("a space before the colon", b"POST /api/v/0/prompt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                        b"Content-Length : 5\r\n\r\nhello" % port)):
        line, body = raw(port, head)
        check(line.startswith("HTTP/1.1 400") and json_error(body), f"{what} in the head: {line!r}")
    # A client that shuts its side after a whole request (nc -N) is answered.
    line, body = raw(port, get, half_close=True)
    check(line.startswith("HTTP/1.1 200"), f"a request then the client's side shut: {line!r}")
    # Expect: 100-continue: answered once, then the request is served.
    line, body = raw(port, b"POST /api/v/0/prompt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     b"Expect: 100-continue\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}" % port)
    check(line.startswith("HTTP/1.1 100"), f"Expect: 100-continue: {line!r}")
    check(body.count(b"HTTP/1.1 100") == 0 and body.startswith(b"HTTP/1.1 "), f"a second 100 Continue: {body[:60]!r}")


def names_not_utf8(cookgraph, example):
    """A folder holding a file whose name is not UTF-8: every document is JSON
    with U+FFFD in the name, none is a 500."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(example, os.path.join(os.fsencode(folder), b"bad\xff.json"))
        shutil.copy(example, os.path.join(folder, "good.json"))
        p, port, _ = start(cookgraph, [folder, "--port", "0", "--no-token"])
        try:
            for path in ("/api/index", "/api/v/0/summary", "/api/v/1/summary", "/api/v/0/findings"):
                s, _, b = request(port, "GET", path)
                ok = s == 200
                try:
                    json.loads(b)
                except ValueError:
                    ok = False
                check(ok, f"a file name that is not UTF-8: GET {path}: {s} {b[:80]!r}")
            s, _, b = request(port, "GET", "/api/index")
            check("bad\ufffd.json" in b.decode("utf-8", "replace"), f"the index does not name bad\\xff.json: {b[:200]!r}")
        finally:
            p.terminate()
            p.wait(timeout=20)


def token_on_loopback(cookgraph, example):
    """The default on loopback: a token, as Jupyter's servers have."""
    p, port, url = start(cookgraph, [example, "--port", "0"])
    try:
        m = re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=([0-9a-f]{32})", url)
        check(m is not None, f"loopback: no token in {url}")
        token = m.group(1) if m else ""
        for method, path in (("GET", "/"), ("GET", "/assets/app.js"), ("GET", "/favicon.ico"),
                             ("GET", "/api/index"), ("GET", "/api/v/0/summary"), ("GET", "/api/live"),
                             ("GET", "/api/v/0/prompt?q=hi"), ("POST", "/api/v/0/ask"),
                             ("POST", "/api/v/0/prompt"), ("GET", "/no/such/route"),
                             ("GET", "/?token=" + "0" * 32), ("GET", "/api/index?token=")):
            body = b'{"question": "hi"}' if method == "POST" else None
            s, _, b = request(port, method, path, {"Content-Type": "application/json"}, body)
            check(s == 401 and b"token" in b, f"loopback without the token: {method} {path}: {s}")
            wrong = token[:-1] + ("1" if token.endswith("0") else "0")  # always another token
            s, _, _ = request(port, method, path, {"Cookie": f"cookgraph_token={wrong}"}, body)
            check(s == 401, f"loopback with a wrong cookie: {method} {path}: {s}")
        s, h, _ = request(port, "GET", "/?token=" + token)
        cookie = h.get("set-cookie", "")
        check(s == 303 and h.get("location") == "/" and f"cookgraph_token={token}" in cookie
              and "HttpOnly" in cookie and "SameSite=Strict" in cookie, f"loopback ?token=: {s} {cookie!r}")
        s, _, b = request(port, "GET", "/", {"Cookie": f"cookgraph_token={token}"})
        check(s == 200 and b"<canvas" in b, f"loopback, the page with the cookie: {s}")
        s, _, _ = request(port, "GET", "/api/index", {"Authorization": f"Bearer {token}"})
        check(s == 200, f"loopback, Authorization: Bearer: {s}")
        s, _, _ = request(port, "GET", "/api/index?token=" + token)
        check(s == 200, f"loopback, ?token= on the API: {s}")
        # The gate reads the head before the token: a flood without it is 431.
        line, _ = raw(port, b"GET /api/index HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port + b"X-a: b\r\n" * 500)
        check(line.startswith("HTTP/1.1 431"), f"loopback, 500 header lines without the token: {line!r}")
    finally:
        p.terminate()
        p.wait(timeout=20)


def main():
    cookgraph, example = sys.argv[1], sys.argv[2]
    repo_files = [b"cmake_minimum_required", b"root:x:0:0", b"namespace cookgraph"]
    p, port, _ = start(cookgraph, [example, "--port", "0", "--no-token"])
    try:
        s, h, b = request(port, "GET", "/")
        check(s == 200 and b"<canvas id=\"graph\">" in b, f"the page: {s}")
        csp = h.get("content-security-policy", "")
        check("script-src 'self'" in csp and "default-src 'none'" in csp, f"no CSP on the page: {csp!r}")
        check(h.get("x-content-type-options") == "nosniff", "no nosniff")
        for host in (f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
            s, _, _ = request(port, "GET", "/api/index", host=host)
            check(s == 200, f"Host {host}: {s}, not served")
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}",
                     f"127.0.0.1:{port + 1}", "", f"127.0.0.1:{port}@evil.example"):
            for path in ("/", "/api/index", "/assets/app.js"):
                s, _, b = request(port, "GET", path, raw_host=host)
                check(s == 403, f"Host {host!r} {path}: {s}, not refused")
        # Perturbation: the check above must fail for a Host that is ours.
        s, _, _ = request(port, "GET", "/api/index", host=f"127.0.0.1:{port}")
        check(s == 200, "the server's own Host was refused")

        for origin in ("http://evil.example", "null", f"http://127.0.0.1:{port + 1}",
                       f"https://127.0.0.1:{port}", f"http://localhost.evil.example:{port}"):
            s, _, _ = request(port, "GET", "/api/index", {"Origin": origin})
            check(s == 403, f"GET with Origin {origin}: {s}, not refused")
            s, _, _ = request(port, "POST", "/api/v/0/ask",
                              {"Origin": origin, "Content-Type": "application/json"},
                              json.dumps({"question": "hi"}).encode())
            check(s == 403, f"POST ask with Origin {origin}: {s}, not refused")
        s, _, _ = request(port, "GET", "/api/index", {"Origin": f"http://127.0.0.1:{port}"})
        check(s == 200, f"the server's own Origin was refused: {s}")
        s, _, _ = request(port, "GET", "/api/index", {"Sec-Fetch-Site": "cross-site"})
        check(s == 403, f"Sec-Fetch-Site: cross-site: {s}")

        for path in ("/../../etc/passwd", "/assets/../../CMakeLists.txt", "/assets/..%2f..%2fCMakeLists.txt",
                     "/assets/%2e%2e/%2e%2e/CMakeLists.txt", "/assets/app.js/../../../etc/passwd",
                     "//etc/passwd", "/assets//etc/passwd", "/CMakeLists.txt", "/server/explorer.cc",
                     "/assets/..", "/assets/.", "/assets/%00app.js", "/assets/app.js%00.css",
                     "/api/../CMakeLists.txt", "/assets/vendor/markdown-it.min.js", "/etc/passwd"):
            s, _, b = request(port, "GET", path)
            check(s in (400, 404), f"GET {path}: {s}, not refused")
            check(not any(x in b for x in repo_files), f"GET {path} returned a file's bytes")
        s, h, b = request(port, "GET", "/assets/vendor-markdown-it.min.js")
        check(s == 200 and b.startswith(b"/*! markdown-it"), f"the vendored markdown-it: {s}")

        s, _, b = request(port, "POST", "/api/v/0/ask", {"Content-Type": "application/json"},
                          b'{"question": "' + b"x" * 40000 + b'"}')
        check(s == 413, f"a 40 kB body: {s}")
        s, _, b = request(port, "POST", "/api/v/0/ask", {"Content-Type": "application/json"},
                          json.dumps({"question": "x" * 4001}).encode())
        check(s in (400, 413), f"a 4001-byte question: {s}")
        s, _, b = request(port, "POST", "/api/v/0/ask", {"Content-Type": "text/plain"}, b"hi")
        check(s == 415, f"a question as text/plain: {s}")
        s, _, b = request(port, "POST", "/api/v/0/ask", {"Content-Type": "application/json"}, b"{not json")
        check(s == 400 and b"error" in b, f"a question that is not JSON: {s}")
        s, _, b = request(port, "GET", "/api/v/0/prompt?q=" + "x" * 4001)
        check(s in (400, 413), f"a 4001-byte prompt question: {s}")
        for path, want in (("/api/v/99/summary", 404), ("/api/v/0/node?id=%2Fno%2Fsuch", 404),
                           ("/api/v/0/timeline?frame=abc", 400), ("/api/v/0/timeline?frame=999999", 404),
                           ("/api/v/0/graph?container=%2Fno%2Fsuch", 404), ("/api/v/99999999999/summary", 404),
                           ("/api/diff", 404), ("/api/v/0/nothing", 404)):
            s, _, b = request(port, "GET", path)
            check(s == want, f"GET {path}: {s}, expected {want}")
            if s != 404 or path != "/api/v/0/nothing":
                check(b.startswith(b"{") and b"error" in b, f"GET {path}: not a JSON error: {b[:80]!r}")
        errors_as_documented(port)
        s, _, _ = request(port, "GET", "/api/index")
        check(s == 200, "the server stopped serving after the bad requests")

        # Streams: 4 open live streams, the 5th refused, then served once one closes.
        streams = []
        for _ in range(4):
            c = socket.create_connection(("127.0.0.1", port), timeout=10)
            c.sendall(f"GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            first = c.recv(4096)
            check(first.startswith(b"HTTP/1.1 200"), f"live stream: {first[:40]!r}")
            streams.append(c)
        s, _, b = request(port, "GET", "/api/live")
        check(s == 503, f"a 5th stream: {s}, not refused")
        s, _, _ = request(port, "GET", "/api/index")
        check(s == 200, "with 4 streams open, the API is not answered")
        streams.pop().close()
        ok = False
        for _ in range(30):  # the server notices the closed stream within its poll
            time.sleep(0.2)
            c = socket.create_connection(("127.0.0.1", port), timeout=10)
            c.sendall(f"GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            first = c.recv(4096)
            c.close()
            if first.startswith(b"HTTP/1.1 200"):
                ok = True
                break
        check(ok, "a stream was refused after one closed")
        for c in streams:
            c.close()
        # A second server on the same port: one line naming the port, exit 2.
        try:
            r = subprocess.run([cookgraph, "serve", example, "--port", str(port), "--no-token"],
                               capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:  # it bound the same port and served
            r = subprocess.CompletedProcess([], -1, "", "still serving after 30 s")
        check(r.returncode == 2 and r.stdout == "", f"a port in use: exit {r.returncode}, {r.stdout!r}")
        lines = [x for x in r.stderr.splitlines() if "error" in x]
        check(len(lines) == 1 and f"--port: cannot listen on 127.0.0.1:{port}" in lines[0],
              f"a port in use: {r.stderr!r}")
    finally:
        p.terminate()
        p.wait(timeout=20)
    check(p.returncode == 0, f"serve exited with {p.returncode} on SIGTERM")
    # A bad input: exit 2 before anything is served, the file named.
    r = subprocess.run([cookgraph, "serve", "/no/such/file.json", "--port", "0"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and r.stdout == "" and "/no/such/file.json" in r.stderr,
          f"a missing input: exit {r.returncode}, {r.stderr!r}")

    token_on_loopback(cookgraph, example)
    names_not_utf8(cookgraph, example)

    # Off loopback.
    r = subprocess.run([cookgraph, "serve", example, "--listen", "0.0.0.0", "--port", "0",
                        "--allow-remote", "--no-token"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "--no-token" in r.stderr and r.stdout == "",
          f"--no-token off loopback: exit {r.returncode}, {r.stderr!r}")
    r = subprocess.run([cookgraph, "serve", example, "--listen", "0.0.0.0", "--port", "0"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2, f"--listen 0.0.0.0 without --allow-remote: exit {r.returncode}")
    check("--allow-remote" in r.stderr and r.stdout == "", f"--listen 0.0.0.0: {r.stderr!r} {r.stdout!r}")
    p, port, url = start(cookgraph, [example, "--listen", "0.0.0.0", "--port", "0", "--allow-remote"])
    try:
        m = re.search(r"\?token=([0-9a-f]{32})$", url)
        check(m is not None, f"no token in {url}")
        token = m.group(1) if m else ""
        s, _, b = request(port, "GET", "/api/index")
        check(s == 401 and b"token" in b, f"no token: {s}")
        s, _, b = request(port, "GET", "/?token=" + "0" * 32)
        check(s == 401, f"a wrong token: {s}")
        s, h, b = request(port, "GET", "/?token=" + token)
        cookie = h.get("set-cookie", "")
        check(s == 303 and h.get("location") == "/" and "HttpOnly" in cookie and "SameSite=Strict" in cookie,
              f"?token=: {s} {cookie!r}")
        s, _, _ = request(port, "GET", "/api/index", {"Cookie": f"cookgraph_token={token}"})
        check(s == 200, f"the cookie: {s}")
        s, _, _ = request(port, "GET", "/api/index", {"Authorization": f"Bearer {token}"})
        check(s == 200, f"Authorization: Bearer: {s}")
        s, _, _ = request(port, "GET", "/api/index", {"Authorization": f"Bearer {token}"},
                          host=f"10.1.2.3:{port}")
        check(s == 200, f"an address literal Host: {s}")
        s, _, _ = request(port, "GET", "/api/index", {"Authorization": f"Bearer {token}"},
                          host=f"rebind.example:{port}")
        check(s == 403, f"a name in Host with the token: {s}")
    finally:
        p.terminate()
        p.wait(timeout=20)

    if failures:
        for f in failures:
            print("serve_safety: FAIL: " + f)
        return 1
    print("serve_safety: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
